package permissions

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
)

// matchesAny reports whether a path directly in root (or below it) is
// covered by one of the //abs patterns, read as gitignore does: a pattern
// naming a folder covers what is in it. Go's path.Match has the same
// classes and wildcards as the patterns use.
func matchesAny(t *testing.T, pats []string, p string) bool {
	t.Helper()
	for _, pat := range pats {
		pat = strings.TrimPrefix(pat, "/")
		for q := p; q != "/" && q != "."; q = path.Dir(q) {
			ok, err := path.Match(pat, q)
			if err != nil {
				t.Fatalf("pattern %q: %v", pat, err)
			}
			if ok {
				return true
			}
		}
	}
	return false
}

func TestExceptPatterns(t *testing.T) {
	const root = "/tmp/agent-eval-0"
	keep := root + "/0a3f"
	pats, err := ExceptPatterns(root, keep)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"//tmp/agent-eval-0/[123456789abcdef]*", "//tmp/agent-eval-0/0[0123456789bcdef]*", "//tmp/agent-eval-0/0a[012456789abcdef]*",
		"//tmp/agent-eval-0/0a3[0123456789abcde]*", "//tmp/agent-eval-0/0a3f?*", "//tmp/agent-eval-0/0", "//tmp/agent-eval-0/0a", "//tmp/agent-eval-0/0a3"}
	if strings.Join(pats, "\n") != strings.Join(want, "\n") {
		t.Fatalf("ExceptPatterns =\n%s\nwant\n%s", strings.Join(pats, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range []string{keep, keep + "/ws/file", keep + "/.tmp/x"} {
		if matchesAny(t, pats, p) {
			t.Errorf("%s (the kept slot) is covered", p)
		}
	}
	for _, p := range []string{root + "/1a3f/ws/secret", root + "/0a3e", root + "/0a3f0", root + "/0a3ff/x", root + "/0a3", root + "/0", root + "/f"} {
		if !matchesAny(t, pats, p) {
			t.Errorf("%s is not covered", p)
		}
	}
}

// Every other hex name of any length is covered, whatever the kept one.
func TestExceptPatternsCoverEveryOtherName(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	name := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = hexDigits[r.IntN(16)]
		}
		return string(b)
	}
	for range 200 {
		keep := name(8)
		pats, err := ExceptPatterns("/r", "/r/"+keep)
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			other := name(1 + r.IntN(10))
			if r.IntN(4) == 0 { // a near miss: the kept name with one letter changed, cut or added
				other = keep[:r.IntN(8)] + name(r.IntN(3))
			}
			if other == "" {
				continue
			}
			if got := matchesAny(t, pats, "/r/"+other+"/f"); got != (other != keep) {
				t.Fatalf("keep %s: /r/%s/f covered = %v", keep, other, got)
			}
		}
	}
}

func TestExceptPatternsRefuses(t *testing.T) {
	for _, tc := range []struct{ root, keep string }{
		{"/r", "/r/ABCD"},      // not lower-case hex
		{"/r", "/r/0a/0b"},     // not directly in root
		{"r", "r/0a"},          // not absolute
		{"/r[x]", "/r[x]/0a"},  // a root a rule cannot spell
		{"/r", "/r/../etc/0a"}, // outside
		{"/r", "/r/0a-tmp"},    // not hex
		{"/tmp/a b(c)", "/tmp/a b(c)/0a"},
	} {
		if _, err := ExceptPatterns(tc.root, tc.keep); err == nil {
			t.Errorf("ExceptPatterns(%q, %q) succeeded", tc.root, tc.keep)
		}
	}
}
