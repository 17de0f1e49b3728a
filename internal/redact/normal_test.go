package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// probe is a secret of the shape nothing but the environment names: no
// pattern finds it, only knowing it does.
const probe = "Xq7Zv9Kw3Rj5Tm8P"

func probeRedactor() *Redactor {
	return New(map[string]string{"PROBE_TOKEN": probe, "DB_PASSWORD": "correct-horse-battery", "SHORT_TOKEN": "hunter2",
		"ANTHROPIC_API_KEY": "sk-ant-api03-benchbenchbench-0001"})
}

// each applies f to each character of s.
func each(s string, f func(c byte) string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString(f(s[i]))
	}
	return b.String()
}

// between puts sep between the characters of s.
func between(s, sep string) string { return strings.Join(strings.Split(s, ""), sep) }

// transformedCases are a secret printed transformed, each with what String
// makes of it (issue 32: all of these leaked).
var transformedCases = []struct{ name, in, want string }{
	{"percent lower", "GET /?k=" + each(probe, func(c byte) string { return fmt.Sprintf("%%%02x", c) }) + "&x=1", "GET /?k=[redacted]&x=1"},
	{"percent upper", "k=" + each(probe, func(c byte) string { return fmt.Sprintf("%%%02X", c) }) + " end", "k=[redacted] end"},
	{"percent in part", "k=Xq%37Zv9%4Bw3Rj5T%6d8P end", "k=[redacted] end"},
	{"json \\u", `echo "` + each(probe, func(c byte) string { return fmt.Sprintf(`\u%04x`, c) }) + `"`, `echo "[redacted]"`},
	{"json \\u upper, in part", `v=Xq7\u005Av9Kw3Rj5T\u006D8P.`, "v=[redacted]."},
	{"\\x", `printf '` + each(probe, func(c byte) string { return fmt.Sprintf(`\x%02x`, c) }) + `'`, "printf '[redacted]'"},
	{"octal", `$'` + each(probe, func(c byte) string { return fmt.Sprintf(`\%03o`, c) }) + `'`, "$'[redacted]'"},
	{"\\u{…}", `"` + each(probe, func(c byte) string { return fmt.Sprintf(`\u{%x}`, c) }) + `"`, `"[redacted]"`},
	{"html", "<p>" + each(probe, func(c byte) string { return fmt.Sprintf("&#%d;", c) }) + "</p>", "<p>[redacted]</p>"},
	{"ansi around each", "tok " + each(probe, func(c byte) string { return "\x1b[31m" + string(c) + "\x1b[0m" }) + " ok",
		"tok \x1b[31m[redacted]\x1b[0m ok"},
	{"ansi between", "tok " + between(probe, "\x1b[1;38;5;196m") + "\x1b[0m", "tok [redacted]\x1b[0m"},
	{"ansi as escapes", `tok \e[1m` + between(probe, `\033[0m`) + " ok", `tok \e[1m[redacted] ok`},
	{"osc between", "tok " + between(probe, "\x1b]8;;https://x.example/\x07") + " and " + between(probe, "\x1b]0;t\x1b\\"), "tok [redacted] and [redacted]"},
	{"backspace between", "tok " + between(probe, "\b") + " ok", "tok [redacted] ok"},
	{"backspace erasing", "tok " + each(probe, func(c byte) string { return string(c) + "_\b" }) + " ok", "tok [redacted]_\b ok"},
	{"overstrike", "tok " + each(probe, func(c byte) string { return string(c) + "\b" + string(c) }) + " ok", "tok [redacted] ok"},
	{"spaced", "tok " + between(probe, " ") + " ok", "tok [redacted] ok"},
	{"tabs and spaces", "tok " + between(probe, " \t ") + " ok", "tok [redacted] ok"},
	{"zero width", "tok " + between(probe, "\u200b") + " ok", "tok [redacted] ok"},
	{"two lines", "token: " + probe[:7] + "\n" + probe[7:] + " done\n", "token: [redacted]\n[redacted] done\n"},
	{"two lines, CRLF", "token: " + probe[:9] + "\r\n" + probe[9:] + " done\r\n", "token: [redacted]\r\n[redacted] done\r\n"},
	{"two lines, indented", "  key: |\n    " + probe[:5] + "\n    " + probe[5:] + "\n", "  key: |\n    [redacted]\n    [redacted]\n"},
	{"line continuation", "x=" + probe[:8] + "\\\n" + probe[8:] + " y", "x=[redacted]\n[redacted] y"},
	{"hex over two lines", "5871375a7639\n4b7733526a35546d3850\n", "[redacted]\n[redacted]\n"},
	{"hex upper, spaced", "58 71 37 5A 76 39 4B 77 33 52 6A 35 54 6D 38 50  |Xq7Z", "[redacted]  |Xq7Z"},
	{"base64 over two lines", "WHE3WnY5S3cz\nUmo1VG04UA==\n", "[redacted]\n[redacted]==\n"},
	{"all at once", "a " + "\x1b[31mX\x1b[0m%71 7 \\u005a" + "\n   v9\bKw3%52j5\u200bTm8P b", "a \x1b[31m[redacted]\n   [redacted] b"},
}

func TestTransformedSecrets(t *testing.T) {
	t.Parallel()
	r := probeRedactor()
	for _, tc := range transformedCases {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("%s: String(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
		if got := r.HideKnown(tc.in); got != tc.want {
			t.Errorf("%s: HideKnown(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
		if len(r.Find([]byte(tc.in))) == 0 {
			t.Errorf("%s: Find(%q) found nothing", tc.name, tc.in)
		}
		// As a tool's output inside a stream-json line.
		doc, _ := json.Marshal(map[string]string{"content": tc.in})
		var back map[string]string
		if err := json.Unmarshal(r.JSON(doc), &back); err != nil || back["content"] != tc.want {
			t.Errorf("%s: JSON(%s) = %s, want the content %q", tc.name, doc, r.JSON(doc), tc.want)
		}
		// Through a writer, in two writes split anywhere.
		for cut := 0; cut <= len(tc.in); cut++ {
			var out bytes.Buffer
			w := r.Writer(&out)
			_, _ = w.Write([]byte(tc.in[:cut]))
			_, _ = w.Write([]byte(tc.in[cut:]))
			_ = w.Close()
			if out.String() != tc.want {
				t.Errorf("%s: Writer with %q, %q wrote %q, want %q", tc.name, tc.in[:cut], tc.in[cut:], out.String(), tc.want)
				break
			}
		}
	}
}

// TestTransformedKeepsOrdinaryText: what a Redactor that knows secrets
// must leave as it was — nothing of it is a known secret, however it is
// decoded.
func TestTransformedKeepsOrdinaryText(t *testing.T) {
	t.Parallel()
	r := probeRedactor()
	for _, in := range []string{
		"The quick brown fox jumps over the lazy dog; a b c d e f g h i j k l m n o p.",
		"h u n t e r 2 is too short a secret to look for spaced out",
		"X q 7 Z v 9 K w, then 3 R j 5 T m 8 and a P far away",
		"Xq7Zv9Kw and, later on, 3Rj5Tm8P are fragments, never the whole",
		"correct horse battery staple",
		`fmt.Printf("%s: %d%%\n", name, pct) // 100% done`,
		`re := regexp.MustCompile(` + "`" + `^\d+\s*\w+\\$` + "`" + `)`,
		`C:\Users\dev\tmp\new\x.txt and \\server\share`,
		`{"a":"caf\u00e9","b":"\u001b[31mred\u001b[0m","c":"tab\there"}`,
		"\x1b[32m--- PASS\x1b[0m: TestThing (0.01s)\n\x1b[31m--- FAIL\x1b[0m: TestOther (0.02s)\n\x1b[1;33mwarning:\x1b[0m unused\n",
		"\x1b]8;;https://example.com/docs\x07the docs\x1b]8;;\x07 and \x1b]0;title\x1b\\",
		"https://example.com/search?q=hello%20world%21&lang=en&x=%E2%9C%93",
		"00000000: 7f45 4c46 0201 0100 0000 0000 0000 0000  .ELF............\n00000010: 0300 3e00 0100 0000 1010 0000 0000 0000  ..>.............\n",
		"N\bNA\bAM\bME\bE\n       ls - list directory contents\n_\bb_\bo_\bl_\bd",
		"&lt;div class=&quot;x&quot;&gt; &amp; &#169; &#x2713;&lt;/div&gt;",
		"line one\r\nline two\r\n\tindented three\r\n",
		"commit 3f786850e387550fdab836ed7e6dc881de23001b\nMerge: 1a2b3c4 5d6e7f8\n",
		"SGVsbG8sIHdvcmxkIQ==\nVGhpcyBpcyBub3QgYSBzZWNyZXQ=\n",
		"zero\u200bwidth\u200bjoiners\u00a0and\ufeffa BOM",
		"progress 10%\rprogress 50%\rprogress 100%\n",
		"sk-ant-api03-... is the key's shape; bench bench bench is a word",
	} {
		if got, want := r.String(in), String(in); got != want {
			t.Errorf("String(%q) = %q, want %q (what no known secret changes)", in, got, want)
		}
	}
	big := benchText(64 << 10)
	if r.String(big) != String(big) {
		t.Error("String(benchText) hid what no known secret is")
	}
	if spans := r.Find([]byte(big)); len(spans) != 0 {
		t.Errorf("Find(benchText) = %v", spans)
	}
}

// TestWriterHoldsALineOnlyWhileASecretMayGoOn: a line is written when its
// newline comes, unless its end may be the start of a known secret; then
// the next line decides.
func TestWriterHoldsALineOnlyWhileASecretMayGoOn(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := probeRedactor().Writer(&out)
	_, _ = w.Write([]byte("nothing to see\n"))
	if out.String() != "nothing to see\n" {
		t.Fatalf("a line of no secret was held: %q", out.String())
	}
	_, _ = w.Write([]byte("key " + probe[:4] + "\n"))
	if out.String() != "nothing to see\n" {
		t.Fatalf("the start of a secret was written before its end: %q", out.String())
	}
	_, _ = w.Write([]byte("  " + probe[4:10] + "\n"))
	_, _ = w.Write([]byte(probe[10:] + " end\nmore\n"))
	if want := "nothing to see\nkey [redacted]\n  [redacted]\n[redacted] end\nmore\n"; out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
	_, _ = w.Write([]byte("last " + probe[:3] + "\n"))
	_ = w.Close()
	if !strings.HasSuffix(out.String(), "more\nlast Xq7\n") {
		t.Errorf("Close did not write the held line: %q", out.String())
	}
}

// TestJSONWriterSplitSecret: a tool's output in stream-json holds the
// secret over two of its lines (a \n escape): each line's part is hidden,
// and the line stays JSON.
func TestJSONWriterSplitSecret(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := probeRedactor().JSONWriter(&out)
	line := `{"type":"user","content":[{"type":"tool_result","content":"split=` + probe[:7] + `\n    ` + probe[7:] + ` end"}]}` + "\n"
	_, _ = w.Write([]byte(line[:40]))
	_, _ = w.Write([]byte(line[40:]))
	_ = w.Close()
	want := `{"type":"user","content":[{"type":"tool_result","content":"split=[redacted]\n    [redacted] end"}]}` + "\n"
	if out.String() != want {
		t.Errorf("wrote %s, want %s", out.String(), want)
	}
}

// A transform of a secret for the property test: each character maybe
// escaped, and maybe something a reader does not see between two.
var (
	charForms = []func(c byte) string{
		func(c byte) string { return string(c) },
		func(c byte) string { return fmt.Sprintf("%%%02x", c) },
		func(c byte) string { return fmt.Sprintf("%%%02X", c) },
		func(c byte) string { return fmt.Sprintf(`\u%04x`, c) },
		func(c byte) string { return fmt.Sprintf(`\x%02X`, c) },
		func(c byte) string { return fmt.Sprintf(`\%03o`, c) },
		func(c byte) string { return fmt.Sprintf("&#%d;", c) },
		func(c byte) string { return fmt.Sprintf("&#x%x;", c) },
	}
	separators = []string{" ", "  ", "\t", "\x1b[31m", "\x1b[0m", "\x1b[38;5;196m", "\x1b]8;;http://x.example/\x07",
		"\x1b]0;title\x1b\\", "\u200b", "\n", "\r\n", "\n    ", "\\\n", `\033[1m`}
)

// transform builds a transformed secret from rng: a backspace between
// characters either erases junk (x_\by) or is dropped (x\by), never both.
func transform(secret string, rng *rand.Rand) string {
	seps := separators
	switch rng.IntN(3) {
	case 1:
		seps = append(seps[:len(seps):len(seps)], "_\b")
	case 2:
		seps = append(seps[:len(seps):len(seps)], "\b")
	}
	var b strings.Builder
	for i := 0; i < len(secret); i++ {
		if i > 0 && rng.IntN(3) == 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		form := 0
		if rng.IntN(2) == 0 {
			form = rng.IntN(len(charForms))
		}
		b.WriteString(charForms[form](secret[i]))
	}
	return b.String()
}

// onlyMarks: s is nothing but Marks and blanks.
func onlyMarks(s string) bool {
	return strings.Trim(strings.ReplaceAll(s, Mark, ""), " \t\r\n") == ""
}

// checkTransformed redacts a transformed secret between two bars, as text,
// as JSON and through a writer: nothing but Marks is left between them.
func checkTransformed(t *testing.T, secret, tr string, cut int) {
	t.Helper()
	r := New(map[string]string{"PROBE_TOKEN": secret})
	in := "before |" + tr + "| after"
	mid := func(s string) (string, bool) {
		if !strings.HasPrefix(s, "before |") || !strings.HasSuffix(s, "| after") {
			return "", false
		}
		return s[len("before |") : len(s)-len("| after")], true
	}
	if m, ok := mid(r.String(in)); !ok || !onlyMarks(m) || !strings.Contains(m, Mark) {
		t.Fatalf("String(%q) = %q: the secret %q is not hidden whole", in, r.String(in), secret)
	}
	doc, _ := json.Marshal(map[string]string{"content": in})
	var back map[string]string
	if err := json.Unmarshal(r.JSON(doc), &back); err != nil {
		t.Fatalf("JSON(%s) = %s: %v", doc, r.JSON(doc), err)
	}
	if m, ok := mid(back["content"]); !ok || !onlyMarks(m) {
		t.Fatalf("JSON(%s) = %s: the secret %q is not hidden whole", doc, r.JSON(doc), secret)
	}
	var out bytes.Buffer
	w := r.Writer(&out)
	cut %= len(in) + 1
	_, _ = w.Write([]byte(in[:cut]))
	_, _ = w.Write([]byte(in[cut:]))
	_ = w.Close()
	if m, ok := mid(out.String()); !ok || !onlyMarks(m) {
		t.Fatalf("Writer(%q, %q) wrote %q: the secret %q is not hidden whole", in[:cut], in[cut:], out.String(), secret)
	}
}

const secretChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

// TestTransformedProperty: random secrets of 8 to 40 characters, printed
// with random transforms of their characters and between them, are hidden
// whole.
func TestTransformedProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(32, 1))
	for range 3000 {
		b := make([]byte, 8+rng.IntN(33))
		for i := range b {
			b[i] = secretChars[rng.IntN(len(secretChars))]
		}
		checkTransformed(t, string(b), transform(string(b), rng), rng.IntN(200))
	}
}

// FuzzTransformed: the property test's check, for any secret of the
// characters a token is made of and any transform of it.
func FuzzTransformed(f *testing.F) {
	f.Add(probe, uint64(1), 10)
	f.Add("ghp_abcdefgh12345", uint64(7), 0)
	f.Add("a-b_c-d_e-f", uint64(99), 33)
	f.Fuzz(func(t *testing.T, secret string, seed uint64, cut int) {
		if len(secret) < 8 || len(secret) > 200 || strings.Trim(secret, secretChars) != "" || cut < 0 {
			return
		}
		checkTransformed(t, secret, transform(secret, rand.New(rand.NewPCG(seed, 2))), cut)
	})
}

// TestTransformedLinearTime: text built to keep the normaliser in an
// escape sequence, or a writer holding line after line, is redacted in
// linear time.
func TestTransformedLinearTime(t *testing.T) {
	t.Parallel()
	r := probeRedactor()
	for _, unit := range []string{"\x1b]", "\x1b[", "\x1b", "%", "%5", `\u00`, `\`, "&#", "&", "\b", "X\b", "X_\b", "Xq7Z", "Xq7\n", " ", "\n", `\e]`, "\x1b\\"} {
		s := strings.Repeat(unit, (1<<20)/len(unit))
		start := time.Now()
		_ = r.String(s)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("String: 1 MiB of %q took %s", unit, d)
		}
		start = time.Now()
		var out bytes.Buffer
		w := r.Writer(&out)
		for i := 0; i < len(s); i += 4096 {
			_, _ = w.Write([]byte(s[i:min(i+4096, len(s))]))
		}
		_ = w.Close()
		// A line at a time, a line that may begin a secret held each time
		// (Xq7\n): well under the time a rescan of what is held would take.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("Writer: 1 MiB of %q took %s", unit, d)
		}
	}
}
