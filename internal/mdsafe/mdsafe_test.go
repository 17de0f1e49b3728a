package mdsafe

import "testing"

func TestBlock(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\nb\n", "```diff\na\nb\n```\n"},
		{"x ```` y", "`````diff\nx ```` y\n`````\n"},
		{"bell\a\ttab", "```diff\nbell\uFFFD\ttab\n```\n"},
	} {
		if got := Block(c.in, "diff"); got != c.want {
			t.Errorf("Block(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTextAndCode(t *testing.T) {
	if got := Text("<b>@x</b>"); got != `\<b\>@&#8203;x\</b\>` {
		t.Errorf("Text = %q", got)
	}
	if got := Code("a|`b`", true); got != "`` a\\|`b` ``" {
		t.Errorf("Code = %q", got)
	}
	if got := Code("", false); got != "–" {
		t.Errorf("Code of nothing = %q", got)
	}
}
