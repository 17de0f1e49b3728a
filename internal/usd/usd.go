// Package usd formats amounts of US dollars for people: every cost agent-eval
// shows (terminal lines and tables, score output, judge rationales, the
// report) goes through Format or Number, so a small cost keeps its
// significant digits ($0.0009, not $0.00) and the same amount reads the same
// everywhere.
package usd

import (
	"math"
	"strconv"
	"strings"
)

// Format is Number with a dollar sign: "$0", "$0.0009", "$0.014", "$1.50".
func Format(v float64) string {
	n := Number(v)
	if strings.HasPrefix(n, "-") {
		return "-$" + n[1:]
	}
	return "$" + n
}

// Number spells v with at least two decimals and at least two significant
// digits, trailing zeros past the second decimal dropped: 0, 0.0009,
// 0.0012, 0.014, 0.50, 12.35. Zero is "0"; NaN and infinities are spelled
// as strconv does.
func Number(v float64) string {
	if v == 0 {
		return "0"
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	decimals := 2
	if a := math.Abs(v); a < 0.1 {
		// the first significant digit sits at decimal place -floor(log10(a));
		// keep the one after it too
		decimals = max(decimals, int(-math.Floor(math.Log10(a)))+1)
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if decimals > 2 {
		s = strings.TrimRight(s, "0")
		if i := strings.IndexByte(s, '.'); len(s)-i-1 < 2 {
			s += strings.Repeat("0", 2-(len(s)-i-1))
		}
	}
	return s
}
