package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// gfm renders Markdown as GitHub does, near enough: CommonMark with GFM's
// tables, strikethrough, task lists and extended autolinks, and raw HTML
// passed through (GitHub passes much of it, then sanitizes). goldmark's
// Linkify knows www., http://, https://, ftp:// and bare e-mail
// addresses; it is also told of the extended protocol autolinks the GFM
// spec adds (mailto: and xmpp: before an address).
var gfm = goldmark.New(
	goldmark.WithExtensions(
		extension.NewLinkify(
			extension.WithLinkifyAllowedProtocols([]string{"http:", "https:", "ftp:", "mailto:", "xmpp:"}),
			extension.WithLinkifyURLRegexp(regexp.MustCompile(
				`^(?:(?:https?|ftp)://[-a-zA-Z0-9@:%._\+~#=]{1,256}\.[a-z]+(?::\d+)?(?:[/#?][-a-zA-Z0-9@:%_+.~#$!?&/=\(\);,'">\^{}\[\]`+"`"+`]*)?`+
					`|(?:mailto|xmpp):[-a-zA-Z0-9._+]+@[-a-zA-Z0-9_]+(?:\.[-a-zA-Z0-9_]+)+(?:/[-a-zA-Z0-9@._]*)?)`)),
		),
		extension.Table, extension.Strikethrough, extension.TaskList,
	),
	goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
)

var (
	htmlTag    = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*>`)
	htmlOther  = regexp.MustCompile(`<[!?]`)
	anyTag     = regexp.MustCompile(`<[^>]*>`)
	markupTags = map[string]bool{
		// What RenderMarkdown itself writes: headings, paragraphs, the
		// tables, the lists and the code spans of ids and names.
		"h2": true, "h3": true, "p": true, "ul": true, "li": true, "code": true,
		"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	}
)

// TestMarkdownRenderedHostile: text from the run (a judge's rationale, a
// threshold's detail, the eval's name), rendered by a GFM renderer, makes
// no link, image, emphasis or HTML, and reads as it was written.
func TestMarkdownRenderedHostile(t *testing.T) {
	tests := []struct{ name, text string }{
		{"plain", "2 of 5 examples fail: see docs/api.md line 3 (1.5 < 2 & done)"},
		{"www", "www.evil.example/x"},
		{"www mid-sentence", "look at www.evil.example/x now"},
		{"www in parentheses", "(www.evil.example)"},
		{"www after emphasis marks", "*www.evil.example* _www.evil.example_ ~www.evil.example~"},
		{"http", "see http://evil.example/x"},
		{"https", "see https://evil.example/x?a=1&b=2"},
		{"ftp", "see ftp://evil.example/x"},
		{"mailto", "write mailto:user@evil.example"},
		{"xmpp", "chat xmpp:user@evil.example/home"},
		{"email", "mail user@evil.example today"},
		{"email with plus", "mail first.last+tag@evil.example"},
		{"autolink", "<https://evil.example>"},
		{"autolink other scheme", "<irc://evil.example/x> <made-up:thing>"},
		{"email autolink", "<user@evil.example>"},
		{"javascript autolink", "<javascript:alert(1)>"},
		{"javascript bare", "javascript:alert(1)"},
		{"link", "[a](http://evil.example)"},
		{"javascript link", "[a](javascript:alert(1))"},
		{"image", "![i](http://evil.example/i.png)"},
		{"reference link", "[a][b] [b] [c]: http://evil.example"},
		{"img tag", `<img src=x onerror=alert(1)>`},
		{"anchor tag", `<a href="http://evil.example">x</a>`},
		{"comment", "<!-- hidden --> shown"},
		{"processing instruction", "<?php echo 1; ?>"},
		{"declaration", "<!DOCTYPE html> <![CDATA[x]]>"},
		{"entity", "&lt;img src=x&gt; &amp; &#60;b&#62; &copy;"},
		{"emphasis", "**bold** __strong__ *em* _em_ ~~del~~"},
		{"code", "`code` ``two``"},
		{"escapes", `\[not a link\](x) \\ \`},
		{"heading and list marks", "# h ## h - item + item 1. item > quote"},
		{"table pipes", "a | b || c"},
		{"emoji", ":+1: :tada:"},
		{"math", "costs $5 and $10, $x^2$"},
		{"a list item", "- item"},
		{"a list item, plus", "+ item"},
		{"an ordered list item", "1. item"},
		{"an ordered list item, paren", "1) item"},
		{"a thematic break", "---"},
		{"a setext underline", "==="},
		{"a quote", "> quoted"},
		{"a fence", "```go"},
		{"prose", "it's 50% done, isn't it? a/b; \"quoted\" - fine + more = less"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, s := fixture(t, true)
			s.EvalName = tt.text
			s.Thresholds[0].Detail = tt.text
			s.Cases[1].Verdicts[0].Rationale = tt.text
			md := RenderMarkdown(d, s, Artifacts{})
			got := render(t, md, markupTags)
			// Escaped on its own, the text begins a line: it makes no
			// block (a list, a heading, a quote) there either.
			alone := render(t, []byte(mdEscape(tt.text)), map[string]bool{"p": true})
			if t.Failed() {
				t.Logf("Markdown:\n%s\nHTML:\n%s", md, got)
				return
			}
			if got := shown(alone); got != tt.text+"\n" {
				t.Errorf("mdEscape(%q) renders as %q on its own", tt.text, got)
			}
			for _, want := range []string{
				"agent-eval " + tt.text + ": FAILED",
				"(" + tt.text + ")",
				"failed: " + tt.text + "\n",
			} {
				if !strings.Contains(shown(got), want) {
					t.Errorf("the rendered Markdown does not show %q:\n%s\nMarkdown:\n%s", want, shown(got), md)
				}
			}
		})
	}
}

// render is md rendered by gfm as HTML; each element not in allowed, and
// any other raw HTML (a comment, a declaration), fails the test.
func render(t *testing.T, md []byte, allowed map[string]bool) string {
	t.Helper()
	var out bytes.Buffer
	if err := gfm.Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, m := range htmlTag.FindAllStringSubmatch(got, -1) {
		if !allowed[strings.ToLower(m[2])] {
			t.Errorf("%q renders with the element %q", md, m[0])
		}
	}
	if m := htmlOther.FindString(got); m != "" {
		t.Errorf("%q renders with raw HTML (%q)", md, m)
	}
	return got
}

// shown is what rendered HTML shows: its tags gone, its entities read and
// the zero-width spaces (which keep an @ from mentioning) dropped.
func shown(rendered string) string {
	return strings.ReplaceAll(html.UnescapeString(anyTag.ReplaceAllString(rendered, "")), "\u200b", "")
}
