package stats

import "math"

// validAttempts reports whether c passes out of n attempts and a draw of k of
// them make sense: 0 <= c <= n and 1 <= k <= n.
func validAttempts(n, c, k int) bool {
	return n >= 1 && c >= 0 && c <= n && k >= 1 && k <= n
}

// PassAtK is the unbiased estimate of pass@k from n attempts of one case of
// which c passed: the probability that at least one of k attempts drawn without
// replacement passes, 1 - C(n-c, k)/C(n, k). The ratio is computed as the
// product of (1 - k/i) for i from n-c+1 to n, which neither overflows nor
// loses precision for large n. Invalid arguments (see validAttempts) give NaN.
func PassAtK(n, c, k int) float64 {
	if !validAttempts(n, c, k) {
		return math.NaN()
	}
	if n-c < k {
		return 1
	}
	allFail := 1.0
	for i := n - c + 1; i <= n; i++ {
		allFail *= 1 - float64(k)/float64(i)
	}
	return 1 - allFail
}

// PassHatK is pass^k from n attempts of one case of which c passed: the
// probability that k attempts drawn without replacement all pass,
// C(c, k)/C(n, k), computed as the product of (c-i)/(n-i) for i below k.
// Invalid arguments give NaN.
func PassHatK(n, c, k int) float64 {
	if !validAttempts(n, c, k) {
		return math.NaN()
	}
	if c < k {
		return 0
	}
	p := 1.0
	for i := range k {
		p *= float64(c-i) / float64(n-i)
	}
	return p
}

// Majority is the majority vote of votes: true when more are true than false.
// tie is true when the counts are equal (an empty votes included), and then
// the vote is false.
func Majority(votes []bool) (vote, tie bool) {
	yes := 0
	for _, v := range votes {
		if v {
			yes++
		}
	}
	no := len(votes) - yes
	return yes > no, yes == no
}
