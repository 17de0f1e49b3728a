package intercept

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// The URL layer: where a URL-ish value sends a client, read as the client
// reads it. net/url is strict where clients are lenient (it refuses a
// percent-encoded host that curl and libpq accept, and it splits userinfo
// at the last @ where curl splits at the first), so the authority is read
// here, every reading a client may take is kept, and each host goes through
// canonHost.

// hostRef is one host a value names: canonical when ok, else as written.
type hostRef struct {
	host string
	ok   bool
}

var schemeRE = lazyre.New(`^([A-Za-z][A-Za-z0-9+.\-]*):(//)?`)

// urlHosts returns the hosts a URL, or a scheme-less host[:port][/path] (as
// curl, wget and git take it), points at. multi: the authority may list
// several hosts (libpq, MongoDB: h1:5432,h2:5432). A file: URL is local. A
// value with no host at all gives one hostRef that is not ok.
func urlHosts(v string, multi bool) []hostRef {
	v = strings.TrimSpace(v)
	rest := v
	if m := schemeRE().FindStringSubmatch(v); m != nil && (m[2] != "" || strings.EqualFold(m[1], "file")) {
		if strings.EqualFold(m[1], "file") {
			return []hostRef{{host: localSocket, ok: true}}
		}
		rest = v[len(m[0]):]
	} else {
		rest = strings.TrimPrefix(rest, "//")
	}
	auth := rest
	if i := strings.IndexAny(auth, "/?#"); i >= 0 {
		auth = auth[:i]
	}
	// curl splits user:pass@host at the first @, others at the last, and a
	// lenient parser may read the authority on past ? and # up to the
	// first /: every reading is judged.
	var hostparts []string
	long := rest
	if i := strings.IndexByte(long, '/'); i >= 0 {
		long = long[:i]
	}
	readings := []string{auth}
	if long != auth {
		readings = append(readings, long)
	}
	for n, a := range readings {
		cands := []string{a}
		if i := strings.IndexByte(a, '@'); i >= 0 {
			cands = []string{a[i+1:], a[strings.LastIndexByte(a, '@')+1:]}
		} else if n > 0 {
			continue // the longer reading only matters for an @ past ? or #
		}
		for _, c := range cands {
			if !slices.Contains(hostparts, c) {
				hostparts = append(hostparts, c)
			}
		}
	}
	var out []hostRef
	for _, hp := range hostparts {
		list := []string{hp}
		if multi {
			list = strings.Split(hp, ",")
		}
		for _, one := range list {
			out = append(out, hostRefOf(stripPort(one)))
		}
	}
	return out
}

// stripPort drops :port from host:port ([v6]:port keeps its brackets).
func stripPort(hp string) string {
	if strings.HasPrefix(hp, "[") {
		if i := strings.IndexByte(hp, ']'); i >= 0 {
			return hp[:i+1]
		}
		return hp
	}
	if strings.Count(hp, ":") > 1 {
		return hp // a bare IPv6 address
	}
	if i := strings.IndexByte(hp, ':'); i >= 0 {
		return hp[:i]
	}
	return hp
}

func hostRefOf(h string) hostRef {
	if d, ok := percentDecode(h); ok && (strings.HasPrefix(d, "/") || strings.HasPrefix(d, "@")) {
		return hostRef{host: localSocket, ok: true} // a socket directory (libpq)
	}
	c, ok := canonHost(h)
	if !ok {
		return hostRef{host: h}
	}
	return hostRef{host: c, ok: true}
}

// maxGlobURLs bounds curl's URL globbing: more URLs than this cannot all be
// judged.
const maxGlobURLs = 256

// curlGlob expands curl's URL globbing ({a,b} sets, [a-z] and [1-10:2]
// ranges; \{ and \[ are literal, an [IPv6] literal is kept). ok is false
// when the pattern is broken (curl refuses it too) or expands to more than
// maxGlobURLs URLs.
func curlGlob(u string) ([]string, bool) {
	out := []string{""}
	add := func(alts []string) bool {
		if len(out)*len(alts) > maxGlobURLs {
			return false
		}
		var next []string
		for _, o := range out {
			for _, a := range alts {
				next = append(next, o+a)
			}
		}
		out = next
		return true
	}
	lit := strings.Builder{}
	flush := func() {
		if lit.Len() > 0 {
			for i := range out {
				out[i] += lit.String()
			}
			lit.Reset()
		}
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '\\' && i+1 < len(u) && strings.IndexByte("{}[],", u[i+1]) >= 0:
			lit.WriteByte(u[i+1])
			i++
		case c == '{':
			end := strings.IndexByte(u[i:], '}')
			if end < 0 {
				return nil, false
			}
			flush()
			if !add(strings.Split(u[i+1:i+end], ",")) {
				return nil, false
			}
			i += end
		case c == '[':
			end := strings.IndexByte(u[i:], ']')
			if end < 0 {
				return nil, false
			}
			body := u[i+1 : i+end]
			if _, ok := canonIPv6(body); ok {
				lit.WriteString(u[i : i+end+1])
				i += end
				continue
			}
			alts, ok := curlRange(body)
			if !ok {
				return nil, false
			}
			flush()
			if !add(alts) {
				return nil, false
			}
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return out, true
}

// curlRange expands a [a-z], [0-9], [001-100] or [1-10:3] range.
func curlRange(body string) ([]string, bool) {
	step := 1
	if r, s, ok := strings.Cut(body, ":"); ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, false
		}
		body, step = r, n
	}
	lo, hi, ok := strings.Cut(body, "-")
	if !ok || lo == "" || hi == "" {
		return nil, false
	}
	var out []string
	if len(lo) == 1 && len(hi) == 1 && !isDigit(lo[0]) && !isDigit(hi[0]) {
		if lo[0] > hi[0] {
			return nil, false
		}
		for c := int(lo[0]); c <= int(hi[0]); c += step {
			out = append(out, string(rune(c)))
			if len(out) > maxGlobURLs {
				return nil, false
			}
		}
		return out, true
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || a > b || a < 0 {
		return nil, false
	}
	width := 0
	if len(lo) > 1 && lo[0] == '0' {
		width = len(lo)
	}
	for n := a; n <= b; n += step {
		s := strconv.Itoa(n)
		for len(s) < width {
			s = "0" + s
		}
		out = append(out, s)
		if len(out) > maxGlobURLs {
			return nil, false
		}
	}
	return out, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// canonURLText is a URL as the server will read its path: percent-decoded,
// dot segments removed, the host canonical. Filters are tried on it too,
// so /rest/%61pi/ and /rest/./api/ match a filter for /rest/api/.
func canonURLText(u string) string {
	scheme := "http://"
	rest := u
	if m := schemeRE().FindStringSubmatch(u); m != nil && m[2] != "" {
		scheme, rest = strings.ToLower(m[0]), u[len(m[0]):]
	} else {
		rest = strings.TrimPrefix(rest, "//")
	}
	auth, tail := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		auth, tail = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	host, port := stripPort(auth), strings.TrimPrefix(auth, stripPort(auth))
	if c, ok := canonHost(host); ok {
		host = c
	}
	p, query := tail, ""
	if i := strings.IndexAny(tail, "?#"); i >= 0 {
		p, query = tail[:i], tail[i:]
	}
	if d, ok := percentDecode(p); ok {
		p = d
	}
	if p != "" {
		trailing := strings.HasSuffix(p, "/")
		p = path.Clean("/" + strings.ReplaceAll(p, `\`, "/"))
		if trailing && p != "/" {
			p += "/"
		}
	}
	if d, ok := percentDecode(query); ok {
		query = d
	}
	return scheme + host + port + p + query
}
