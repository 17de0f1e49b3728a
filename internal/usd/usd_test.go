package usd

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "$0"},
		{0.0009, "$0.0009"},
		{0.00094, "$0.00094"},
		{0.0007, "$0.0007"},
		{0.00123, "$0.0012"},
		{0.0142, "$0.014"},
		{0.01, "$0.01"},
		{0.05, "$0.05"},
		{0.099, "$0.099"},
		{0.1, "$0.10"},
		{0.5, "$0.50"},
		{1.87, "$1.87"},
		{12.345678, "$12.35"},
		{1234.5, "$1234.50"},
		{0.000012, "$0.000012"},
		{-0.0009, "-$0.0009"},
		{math.Inf(1), "$+Inf"},
	} {
		if got := Format(tc.in); got != tc.want {
			t.Errorf("Format(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNumber(t *testing.T) {
	if got := Number(0.0009); got != "0.0009" {
		t.Errorf("Number(0.0009) = %q", got)
	}
	if got := Number(2); got != "2.00" {
		t.Errorf("Number(2) = %q", got)
	}
}
