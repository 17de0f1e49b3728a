package redact

import "strings"

// findNetrc hides the password of a .netrc line (machine h login u
// password X), whose keys and values are only blank-separated.
func findNetrc(l string, sp *spans) {
	if !strings.Contains(l, "passw") && !strings.Contains(l, "account") {
		return
	}
	f := strings.Fields(l)
	if len(f) == 2 && (f[0] == "password" || f[0] == "passwd") {
		// A .netrc spread over lines: "  password X".
		sp.add(strings.LastIndex(l, f[1]), strings.LastIndex(l, f[1])+len(f[1]))
		return
	}
	if !strings.Contains(l, "machine") && !strings.Contains(l, "login") && !strings.Contains(l, "default") {
		return
	}
	for k := 0; k+1 < len(f); k++ {
		if f[k] == "password" || f[k] == "passwd" || f[k] == "account" {
			// The k+1th field's position: search after the keyword.
			at := 0
			for j := 0; j <= k; j++ {
				at = strings.Index(l[at:], f[j]) + at + len(f[j])
			}
			if v := strings.Index(l[at:], f[k+1]); v >= 0 {
				sp.add(at+v, at+v+len(f[k+1]))
			}
		}
	}
}

// findOptions hides the values of credential options on a command line:
// --password X, --token 'X', -u user:X, --user user:X, mysql -pX,
// sshpass -p X, redis-cli -a X. --name=X is an assignment.
func findOptions(l string, sp *spans) {
	mysqlLike := strings.Contains(l, "mysql") || strings.Contains(l, "mariadb")
	sshpass := strings.Contains(l, "sshpass")
	redis := strings.Contains(l, "redis-cli")
	for off := 0; off < len(l); {
		i := strings.IndexByte(l[off:], '-')
		if i < 0 {
			return
		}
		i += off
		off = i + 1
		if i > 0 && !isSpace(l[i-1]) && !isQuote(l[i-1]) {
			continue
		}
		e := i
		for e < len(l) && (isAlpha(l[e]) || isDigit(l[e]) || l[e] == '-' || l[e] == '_') {
			e++
		}
		opt := l[i:e]
		if len(opt) < 2 || (e < len(l) && l[e] == '=') {
			continue
		}
		next := e
		for next < len(l) && (l[next] == ' ' || l[next] == '\t') {
			next++
		}
		hasNext := next > e && next < len(l) && l[next] != '-'
		switch {
		case opt == "-u" || opt == "-U" || opt == "--user" || opt == "--proxy-user":
			if hasNext {
				hideUserPass(l, next, sp)
			}
		case strings.HasPrefix(opt, "-u") && len(opt) > 2 && opt[2] != '-' && e < len(l) && l[e] == ':':
			hideUserPass(l, i+2, sp)
		case strings.HasPrefix(opt, "--"):
			if hasNext && (SecretName(opt[2:]) || opt == "--pass") {
				off = maxInt(off, hideValue(l, next, token, false, false, sp))
			}
		case opt == "-p" && sshpass && hasNext:
			off = maxInt(off, hideValue(l, next, token, false, false, sp))
		case strings.HasPrefix(opt, "-p") && (len(opt) > 2 || (e < len(l) && isQuote(l[e]))) && (mysqlLike || sshpass):
			// The password attached to -p; a quote may follow (-p'x').
			off = maxInt(off, hideValue(l, i+2, token, false, false, sp))
		case opt == "-a" && redis && hasNext:
			off = maxInt(off, hideValue(l, next, token, false, false, sp))
		}
	}
}

// hideUserPass hides the password of user:password starting at v.
func hideUserPass(l string, v int, sp *spans) {
	e := v
	q := byte(0)
	if isQuote(l[v]) {
		q = l[v]
		v++
		e = v
	}
	for e < len(l) && ((q == 0 && !isSpace(l[e]) && !isQuote(l[e])) || (q != 0 && l[e] != q)) {
		e++
	}
	if c := strings.IndexByte(l[v:e], ':'); c >= 0 && v+c+1 < e {
		sp.add(v+c+1, e)
	}
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// findBearer hides a bearer or basic credential outside a header
// (long enough not to be a word of prose: "Basic authentication" stays).
func findBearer(l string, sp *spans) {
	for _, w := range []string{"earer", "EARER", "asic", "ASIC"} {
		for off := 0; off < len(l); {
			i := strings.Index(l[off:], w)
			if i < 0 {
				break
			}
			i += off
			off = i + len(w)
			if i == 0 || lower(l[i-1]) != 'b' || (i > 1 && (isAlpha(l[i-2]) || isDigit(l[i-2]))) {
				continue
			}
			v := off
			for v < len(l) && (l[v] == ' ' || l[v] == '\t') {
				v++
			}
			if v == off {
				continue
			}
			e := v
			for e < len(l) && (isAlpha(l[e]) || isDigit(l[e]) || strings.IndexByte("._~+/-", l[e]) >= 0) {
				e++
			}
			if e-v < 16 {
				continue
			}
			for e < len(l) && l[e] == '=' {
				e++
			}
			sp.add(v, e)
			off = e
		}
	}
}
