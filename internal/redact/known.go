package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Redactor also knows secret values, and hides them wherever they appear,
// whatever the text around them. Its methods are safe for concurrent use;
// a nil Redactor knows no values and still redacts the patterns.
type Redactor struct {
	mu      sync.RWMutex
	values  map[string]bool // what was learnt, each once
	secrets []string        // values and their encodings, longest first
	normal  *targets        // the values' normalised forms (normal.go)
}

// New returns a Redactor for the secrets of env: the values of its
// secret-named variables, the userinfo (and password) of the URLs in any
// value, and whatever the patterns find in any value (a literal ghp_…
// token under a plain name).
func New(env map[string]string) *Redactor {
	r := &Redactor{}
	r.Learn(env)
	return r
}

// FromEnviron is New over KEY=VALUE strings.
func FromEnviron(environ []string) *Redactor {
	return New(envMap(environ))
}

func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// Learn adds the secrets of env (as New finds them) to what r hides.
func (r *Redactor) Learn(env map[string]string) {
	var vals []string
	for name, v := range env {
		if SecretName(name) {
			vals = append(vals, v)
		}
		if strings.Contains(v, "://") {
			var sp spans
			findUserinfo(v, &sp)
			for _, s := range sp {
				info := v[s.start:s.end]
				vals = append(vals, info)
				if _, pw, ok := strings.Cut(info, ":"); ok {
					vals = append(vals, pw)
				}
			}
		}
		// What the patterns would hide in the value: NAME=ghp_x hides
		// ghp_x, also where it is printed alone.
		st := newState()
		var sp spans
		findAll(v, &st, &sp)
		for _, s := range sp {
			vals = append(vals, v[s.start:s.end])
		}
	}
	r.LearnValues(vals...)
}

// LearnValues adds secret values to what r hides; values shorter than
// MinSecretLen are ignored. Each is hidden as written, as JSON and URLs
// escape it, and line by line when it has several lines; one of at least 8
// characters also transformed (see normal.go): escaped in part or whole,
// its characters apart, over two lines.
func (r *Redactor) LearnValues(values ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.values == nil {
		r.values = map[string]bool{}
	}
	seen := make(map[string]bool, len(r.secrets))
	for _, s := range r.secrets {
		seen[s] = true
	}
	added := false
	var learnt []string
	add := func(v string) {
		if len(v) >= MinSecretLen && !seen[v] && !strings.Contains(Mark, v) {
			seen[v] = true
			r.secrets = append(r.secrets, v)
			added = true
		}
	}
	for _, v := range values {
		v = strings.TrimRight(v, "\r\n")
		if len(v) < MinSecretLen || r.values[v] {
			continue
		}
		r.values[v] = true
		learnt = append(learnt, v)
		for _, form := range encodings(v) {
			add(form)
			if strings.Contains(form, "\n") {
				for _, line := range strings.Split(form, "\n") {
					add(strings.TrimSpace(line))
				}
			}
		}
	}
	r.addNormal(learnt)
	if added {
		// Longest first, so a secret that contains another is hidden whole.
		sort.Slice(r.secrets, func(i, j int) bool {
			if len(r.secrets[i]) != len(r.secrets[j]) {
				return len(r.secrets[i]) > len(r.secrets[j])
			}
			return r.secrets[i] < r.secrets[j]
		})
	}
}

// encodings are the ways v appears in what the harness writes: as is,
// inside a JSON string (a quote, a backslash, a newline escaped),
// percent-encoded in a URL, and as a command that encodes it prints it
// (base64, base64url, hex: echo -n $TOKEN | base64).
func encodings(v string) []string {
	out := []string{v, hex.EncodeToString([]byte(v)), strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(v)), "="),
		base64.RawURLEncoding.EncodeToString([]byte(v))}
	if b, err := json.Marshal(v); err == nil {
		if esc := string(b[1 : len(b)-1]); esc != v {
			out = append(out, esc)
		}
	}
	if q := url.QueryEscape(v); q != v {
		out = append(out, q)
	}
	if p := url.PathEscape(v); p != v {
		out = append(out, p)
	}
	return out
}

// Known is the number of secret values r hides.
func (r *Redactor) Known() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.values)
}

// Values are the secret values r learnt, sorted.
func (r *Redactor) Values() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.values))
	for v := range r.values {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// HideKnown hides the secret values r learnt wherever they occur in s, in
// every form String finds them, and nothing else: for a document whose own
// syntax the patterns String knows (key: value, key=value) would mistake
// for secrets, when its free text went through String already.
func (r *Redactor) HideKnown(s string) string { return r.known(r.transformed(s)) }

// known replaces the known values in s.
func (r *Redactor) known(s string) string {
	if r == nil || len(s) < MinSecretLen {
		return s
	}
	r.mu.RLock()
	secrets := r.secrets
	r.mu.RUnlock()
	for _, sec := range secrets {
		if len(sec) <= len(s) && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Mark)
		}
	}
	return s
}

// Find returns where the known values occur in b, also transformed (as
// String finds them), as [start, end) pairs in order, none overlapping.
func (r *Redactor) Find(b []byte) [][2]int {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	secrets := r.secrets
	r.mu.RUnlock()
	s := string(b)
	sp := r.findNormal(s)
	for _, sec := range secrets {
		for off := 0; ; {
			i := strings.Index(s[off:], sec)
			if i < 0 {
				break
			}
			sp.add(off+i, off+i+len(sec))
			off += i + len(sec)
		}
	}
	return merge(sp)
}

// String redacts s: the known values, then the patterns, line by line,
// each line that is a JSON document as JSON.
func (r *Redactor) String(s string) string {
	st := newState()
	return r.text(s, &st)
}

// FindShapes returns where b holds what is shaped like a credential,
// whatever names it: a token of a known format, a bearer or basic
// credential, a URL's password, a credential option's value on a command
// line. Unlike String it leaves NAME: value and NAME=value pairs alone (a
// config's min_pass_rate is no password). [start, end) pairs in order,
// none overlapping.
func FindShapes(b []byte) [][2]int {
	s := string(b)
	var sp spans
	for off := 0; off < len(s); {
		end := strings.IndexByte(s[off:], '\n')
		if end < 0 {
			end = len(s) - off
		}
		var line spans
		l := s[off : off+end]
		findUserinfo(l, &line)
		findOptions(l, &line)
		findBearer(l, &line)
		findTokens(l, &line)
		for _, x := range line {
			sp.add(off+x.start, off+x.end)
		}
		off += end + 1
	}
	return merge(sp)
}

// merge sorts sp and joins the spans that overlap.
func merge(sp spans) [][2]int {
	sort.Slice(sp, func(i, j int) bool { return sp[i].start < sp[j].start })
	var out [][2]int
	for _, x := range sp {
		if n := len(out); n > 0 && x.start < out[n-1][1] {
			out[n-1][1] = maxInt(out[n-1][1], x.end)
			continue
		}
		out = append(out, [2]int{x.start, x.end})
	}
	return out
}
