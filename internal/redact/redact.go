// Package redact keeps credentials out of what the harness prints and
// writes: deny reasons that reach the model, the decision ledger, logs and
// run results. It removes the userinfo of URLs (https://user:pass@host) and
// the values of variables whose names look secret. It is pure: no I/O
// beyond the writer a caller wraps.
package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// Mark replaces whatever was redacted.
const Mark = "[redacted]"

// MinSecretLen is the shortest variable value a Redactor hides wherever it
// appears: a shorter one ("1", "true") would blank out ordinary text, and is
// no credential.
const MinSecretLen = 6

var (
	// secretNameRE: a variable name that holds a credential. Substrings on
	// purpose (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, X_AUTH):
	// hiding a harmless value costs little, showing a key costs a lot.
	secretNameRE = lazyre.New(`(?i)token|secret|passw(or)?d|_pwd$|credential|api_?key|access_?key|private_?key|_key$|^key$|auth|cookie|session_?id|signature|_dsn$|^dsn$`)
	// userinfoRE: scheme://userinfo@ in a URL. The userinfo stops at the
	// first character a URL host part cannot follow; '@' inside a password
	// must be percent-encoded, so the last '@' before the host ends it.
	userinfoRE = lazyre.New(`(?i)\b([a-z][a-z0-9+.\-]*://)([^/?#\s@'"<>]+)@`)
	// assignRE: NAME=value in free text (a command line, an env dump).
	assignRE = lazyre.New(`\b([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|[^\s;&|'"]+)`)
	// bearerRE: an Authorization header's credential (long enough not to be
	// a word of prose: "Basic authentication" stays).
	bearerRE = lazyre.New(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/\-]{16,}=*`)
	// headerRE: a credential header (Authorization: token X, X-API-Key: X,
	// PRIVATE-TOKEN: X), whatever its scheme word.
	headerRE = lazyre.New(`(?i)\b((?:proxy-)?authorization|x-api-key|api-key|apikey|private-token|x-[a-z-]*(?:token|key|secret))\s*:\s*((?:[a-z]+\s+)?)[^\s'"]+`)
	// optionRE: a secret-looking option given its value as the next word
	// (--token X, --password 'X'); --token=X is an assignment.
	optionRE = lazyre.New(`(?i)(\s--?[a-z0-9-]*(?:token|passw(?:or)?d|secret|api-?key|access-key|private-key|credential)[a-z0-9-]*)(\s+)('[^']*'|"[^"]*"|[^\s'"-][^\s'"]*)`)
	// userOptRE: curl/wget -u/--user name:password.
	userOptRE = lazyre.New(`(\s(?:-u|--user|--proxy-user|-U))(\s+)('?[^\s:'"]*):('[^']*'|"[^"]*"|[^\s'"]+)`)
	// tokenRE: credentials recognisable by their prefix alone.
	tokenRE = lazyre.New(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_\-]{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{30,})`)
)

// SecretName reports whether a variable name looks like it holds a
// credential.
func SecretName(name string) bool { return secretNameRE().MatchString(name) }

// URLs removes the userinfo of every URL in s: https://bot:pw@host/x
// becomes https://[redacted]@host/x.
func URLs(s string) string {
	if !strings.Contains(s, "@") || !strings.Contains(s, "://") {
		return s
	}
	return userinfoRE().ReplaceAllString(s, "${1}"+Mark+"@")
}

// Value is how a variable's value may be shown: hidden when the name looks
// secret, else with any URL userinfo removed.
func Value(name, value string) string {
	if SecretName(name) && value != "" {
		return Mark
	}
	return URLs(value)
}

// String redacts free text with no knowledge of the environment: URL
// userinfo, the values of secret-looking NAME=value assignments, and
// bearer/basic credentials.
func String(s string) string {
	s = URLs(s)
	if strings.Contains(s, "=") {
		s = assignRE().ReplaceAllStringFunc(s, func(m string) string {
			name, value, _ := strings.Cut(m, "=")
			if !SecretName(name) || value == "" || value == `""` || value == `''` {
				return m
			}
			return name + "=" + Mark
		})
	}
	s = bearerRE().ReplaceAllString(s, "${1} "+Mark)
	s = headerRE().ReplaceAllString(s, "${1}: ${2}"+Mark)
	s = optionRE().ReplaceAllString(s, "${1}${2}"+Mark)
	s = userOptRE().ReplaceAllString(s, "${1}${2}${3}:"+Mark)
	return tokenRE().ReplaceAllString(s, Mark)
}

// Redactor also knows the secret values of an environment, and hides them
// wherever they appear, whatever the text around them.
type Redactor struct {
	replacer *strings.Replacer
	secrets  []string
}

// New returns a Redactor for the values of env's secret-looking variables
// and the passwords of the URLs in any of its values.
func New(env map[string]string) *Redactor {
	seen := map[string]bool{}
	var secrets []string
	add := func(v string) {
		if len(v) >= MinSecretLen && !seen[v] {
			seen[v] = true
			secrets = append(secrets, v)
			// As it appears inside a JSON string (stream-json, the ledger),
			// when that differs: a secret with a quote or a backslash.
			if b, err := json.Marshal(v); err == nil {
				if esc := string(b[1 : len(b)-1]); esc != v && !seen[esc] {
					seen[esc] = true
					secrets = append(secrets, esc)
				}
			}
		}
	}
	for name, v := range env {
		if SecretName(name) {
			add(v)
		}
		for _, m := range userinfoRE().FindAllStringSubmatch(v, -1) {
			add(m[2])
			if _, pw, ok := strings.Cut(m[2], ":"); ok {
				add(pw)
			}
		}
	}
	// Longest first, so a secret that contains another is hidden whole.
	sort.Slice(secrets, func(i, j int) bool {
		if len(secrets[i]) != len(secrets[j]) {
			return len(secrets[i]) > len(secrets[j])
		}
		return secrets[i] < secrets[j]
	})
	r := &Redactor{secrets: secrets}
	if len(secrets) > 0 {
		pairs := make([]string, 0, 2*len(secrets))
		for _, s := range secrets {
			pairs = append(pairs, s, Mark)
		}
		r.replacer = strings.NewReplacer(pairs...)
	}
	return r
}

// FromEnviron is New over KEY=VALUE strings.
func FromEnviron(environ []string) *Redactor {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return New(m)
}

// String redacts s: the known secret values, then what String finds.
func (r *Redactor) String(s string) string {
	if r != nil && r.replacer != nil {
		s = r.replacer.Replace(s)
	}
	return String(s)
}

// Known is the number of secret values r hides.
func (r *Redactor) Known() int {
	if r == nil {
		return 0
	}
	return len(r.secrets)
}

// Writer returns a writer that redacts each line before it reaches w. A
// line is held until its newline (or Close), so a secret split across two
// writes is still found; a line longer than 4 MiB is flushed in pieces.
// Close flushes what is left but does not close w.
func (r *Redactor) Writer(w io.Writer) io.WriteCloser {
	return &lineWriter{r: r, w: w}
}

const maxLine = 4 << 20

type lineWriter struct {
	mu   sync.Mutex
	r    *Redactor
	w    io.Writer
	buf  []byte
	err  error
	json bool // each line is a JSON document (JSONWriter)
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return 0, lw.err
	}
	lw.buf = append(lw.buf, p...)
	for {
		i := bytes.IndexByte(lw.buf, '\n')
		if i < 0 {
			if len(lw.buf) > maxLine {
				lw.flush(len(lw.buf))
			}
			break
		}
		lw.flush(i + 1)
		if lw.err != nil {
			return 0, lw.err
		}
	}
	return len(p), lw.err
}

func (lw *lineWriter) flush(n int) {
	var err error
	if lw.json {
		_, err = lw.w.Write(lw.r.JSON(lw.buf[:n]))
	} else {
		_, err = io.WriteString(lw.w, lw.r.String(string(lw.buf[:n])))
	}
	if err != nil && lw.err == nil {
		lw.err = err
	}
	lw.buf = lw.buf[n:]
	if len(lw.buf) == 0 {
		lw.buf = nil
	}
}

func (lw *lineWriter) Close() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if len(lw.buf) > 0 {
		lw.flush(len(lw.buf))
	}
	return lw.err
}

// Map redacts every value of m in place (String) and returns it.
func Map(m map[string]string) map[string]string {
	for k, v := range m {
		m[k] = String(v)
	}
	return m
}
