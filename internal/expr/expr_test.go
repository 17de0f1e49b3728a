package expr

import (
	"fmt"
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

func TestCompileRun(t *testing.T) {
	t.Parallel()
	env := map[string]any{"annotations": map[string]any{"kind": "nav", "n": 0}, "q": 0.75, "ok": 1.0, "files": map[string]any{"a.md": "x"}}
	tests := []struct {
		src    string
		python bool
		want   any
		err    bool
	}{
		{"annotations.get('kind') == 'nav'", true, true, false},
		{"annotations.get('missing', 'd')", true, "d", false},
		{"q if ok else 0", true, 0.75, false},
		{"1 if annotations['n'] else 2", true, 2, false},
		{"mean([1, 2, 3])", false, 2.0, false},
		{`len(files) > 0 ? [true, "has"] : [false, "none"]`, false, []any{true, "has"}, false},
		{`int("x")`, false, nil, true},
	}
	for _, tt := range tests {
		p, err := Compile(tt.src, tt.python)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.src, err)
			continue
		}
		got, err := p.Run(env)
		if (err != nil) != tt.err || fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Run(%q) = %#v, %v; want %#v (error %v)", tt.src, got, err, tt.want, tt.err)
		}
	}
	for v, want := range map[any]bool{nil: false, 0: false, 0.0: false, "": false, "x": true, 2: true, false: false} {
		if Truthy(v) != want {
			t.Errorf("Truthy(%#v) = %v", v, !want)
		}
	}
	if Truthy([]any{}) || !Truthy(map[string]any{"a": 1}) {
		t.Error("Truthy of an empty list or a full map is wrong")
	}
	if err := CheckExpr("len(x) >"); err == nil {
		t.Error("CheckExpr accepted a broken expression")
	}
}
