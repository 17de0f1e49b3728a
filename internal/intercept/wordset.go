package intercept

import "slices"

// wordSet is a sorted list of words, looked up by binary search. The
// shell word lists are wordSets rather than maps: Go builds a package-level
// map literal at start-up, on every start of the binary (the hook's
// included), while a slice of constant strings is static data.
// TestWordSetsSorted checks every list's order.
type wordSet []string

// has reports whether w is in the set.
func (s wordSet) has(w string) bool {
	_, ok := slices.BinarySearch(s, w)
	return ok
}
