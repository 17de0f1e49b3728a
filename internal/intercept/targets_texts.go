package intercept

import (
	"path"
	"strings"
)

// targetTexts are more forms of a call for the filters, as its client reads
// it: a client's command with its options left out, however many there are
// (kubectl -n x --v=9 --context y … apply is also "kubectl apply …"), the
// later words of any command after any number of option words, and every
// URL as the server will read it (curl globs expanded, percent-encoding
// and dot segments undone, the host canonical), so /rest/ap[i-i]/ and
// /rest/%61pi/ meet a filter for /rest/api/.
func targetTexts(c call) []string {
	if len(c.words) == 0 || c.words[0].dyn {
		return nil
	}
	name := path.Base(c.words[0].s)
	var out []string
	if cl := clientsByName[name]; cl != nil {
		p := parseArgs(c.words[1:], cl.opts, cl.syntax, cl.abbrev)
		ops := make([]word, 0, len(p.operands))
		for _, o := range p.operands {
			ops = append(ops, o.word)
		}
		for i := 0; i < len(ops) && i < maxTextStarts; i++ {
			out = append(out, name+" "+joinWords(ops[i:]))
		}
		if name == "curl" || name == "wget" || name == "curlie" {
			for _, o := range ops {
				out = append(out, urlTexts(name, o.s)...)
			}
		}
	}
	// texts() tries the first few later words; any number of option words
	// may come first.
	for i := 6; i < len(c.words); i++ {
		end := len(c.words)
		if i >= maxTextStarts {
			end = min(end, i+8)
		}
		out = append(out, name+" "+joinWords(c.words[i:end]))
	}
	for _, w := range c.words[1:] {
		for _, u := range urlStartRE().FindAllString(w.s, -1) {
			out = append(out, urlTexts(name, u)...)
		}
	}
	return out
}

// maxTextStarts bounds how many later words start a text of the whole rest.
const maxTextStarts = 64

// urlTexts are a URL's canonical forms, one per curl glob expansion.
func urlTexts(name, u string) []string {
	exp, ok := curlGlob(u)
	if !ok {
		exp = []string{u}
	}
	out := make([]string, 0, len(exp))
	for _, e := range exp {
		c := canonURLText(e)
		if !strings.EqualFold(c, u) {
			out = append(out, name+" "+c)
		}
	}
	return out
}
