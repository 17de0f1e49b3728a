package expr

import (
	"strings"
	"testing"
)

func TestCheckCondition(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, err string }{
		{"not annotations.get('skip_quality', False)", ""},
		{"annotations.get('c') == 'nav'", ""},
		{"annotations['lang'] == 'go' and outputs.exit_code == 0", ""},
		{`annotations?.c == "nav"`, ""},
		{"'a' if annotations['x'] else 'b'", ""},
		{"annotations['x'] ==", "does not parse"},
		{"annotations.get('x'", "does not parse"},
		{"(", "does not parse"},
		{"a if else b", "does not parse"},
		{"annotations.get('x') is not None and outputs['files'] is None", ""},
		{"'go' not in annotations['langs']", ""},
		{"  ", "empty"},
	}
	for _, tt := range tests {
		err := CheckCondition(tt.src)
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("CheckCondition(%q) = %v, want %q (translated: %q)", tt.src, err, tt.err, Translate(tt.src))
		}
	}
}

func TestCheckFormula(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, err string }{
		{"weighted", ""},
		{"", ""},
		{"0.5 * quality + 0.5 * correct", ""},
		{"mean([a, b]) if ok else 0", ""},
		{"x = a + b\ny = x / 2\nmin(y, 1)", ""},
		{"a // 2 + b % 3", ""},
		{"a ** 2", "**"},
		{"a * 2000000", "beyond"},
		{"a * 1000000", ""},
		{"a ^ 2", "power"},
		{"a + 'x'", "string constant"},
		{"a +* b", "does not parse"},
		{"(a + b", "does not parse"},
		{strings.Repeat("a + ", 150) + "a", "nodes"},
	}
	for _, tt := range tests {
		err := CheckFormula(tt.src)
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("CheckFormula(%q) = %v, want %q (translated: %q)", tt.src, err, tt.err, Translate(tt.src))
		}
	}
}
