package config

import (
	"strings"
	"testing"
)

// TestParseBatchPattern: "*" shares; one {n} with an optional integer
// format expands per case; anything else is an error saying why.
func TestParseBatchPattern(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, n7, err string }{
		{src: "case-{n}", n7: "case-7"},
		{src: "case-{n:03d}", n7: "case-007"},
		{src: "case-{n:03}.md", n7: "case-007.md"},
		{src: "r{n:3d}", n7: "r  7"},
		{src: "{n:d}_", n7: "7_"},
		{src: "report.md", err: "no {n} placeholder"},
		{src: "case-{i}", err: "the placeholder is {n}"},
		{src: "{n}{n}", err: "only one {n}"},
		{src: "{n:x}", err: "integer"},
		{src: "case-{n", err: "unclosed"},
		{src: "../{n}", err: "not a path"},
	}
	for _, tt := range tests {
		p, err := ParseBatchPattern(tt.src)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseBatchPattern(%q) = %v; want an error saying %q", tt.src, err, tt.err)
			}
		case err != nil:
			t.Errorf("ParseBatchPattern(%q): %v", tt.src, err)
		case p.Prefix(7) != tt.n7:
			t.Errorf("ParseBatchPattern(%q).Prefix(7) = %q; want %q", tt.src, p.Prefix(7), tt.n7)
		}
	}
	if p, _ := ParseBatchPattern("*"); !p.Shared {
		t.Errorf(`"*" is not shared`)
	}
}
