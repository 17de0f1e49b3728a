package config

import "strings"

// suggest returns the candidate closest to word, or "" when none is close
// enough to be a plausible typo.
func suggest(word string, candidates []string) string {
	lw := strings.ToLower(word)
	best, bestDist := "", -1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == lw || strings.ReplaceAll(lc, "_", "") == strings.ReplaceAll(strings.ReplaceAll(lw, "-", ""), "_", "") {
			return c
		}
		d := editDistance(lw, lc)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	// A unique candidate that extends the word (min_pass → min_pass_rate) or
	// that the word extends (repository → repo) is a likely meaning.
	if len(lw) >= 3 {
		var affix []string
		for _, c := range candidates {
			lc := strings.ToLower(c)
			if len(lc) >= 3 && (strings.HasPrefix(lc, lw) || strings.HasPrefix(lw, lc)) {
				affix = append(affix, c)
			}
		}
		if len(affix) == 1 && bestDist > 2 {
			return affix[0]
		}
	}
	limit := 2
	if len(word) <= 4 {
		limit = 1
	}
	if bestDist >= 0 && bestDist <= limit {
		return best
	}
	return ""
}

// Suggest is the candidate closest to word, or "" when none is close
// enough to be a plausible typo (the did-you-mean of every message).
func Suggest(word string, candidates []string) string { return suggest(word, candidates) }

// editDistance is the Damerau-Levenshtein (optimal string alignment) distance,
// so a swapped pair of letters counts as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
