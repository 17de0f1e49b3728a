package intercept

import (
	"net/netip"
	"strconv"
	"strings"
)

// The host layer: a target's host as the client itself reads it. Clients
// rewrite what they are given before they connect: they percent-decode a
// URL's host, drop a trailing dot, lower-case it, read 0x0a000005,
// 167772165 and 012.0.0.5 as 10.0.0.5 (inet_aton, which curl and the C
// libraries follow), and IPv4-mapped IPv6 addresses as the IPv4 ones. The
// hook compares the host the client will connect to, so every spelling of
// one host is judged alike; a host it cannot read is never covered.

// localSocket stands for a Unix socket (libpq's socket directory, mysql
// --socket): the client talks to this machine, judged as localhost.
const localSocket = "localhost"

// canonHost reads a host as a client would connect to it. ok is false when
// it is not a host the hook can read (empty, bytes no host name has, a
// broken escape, a name that is not ASCII): such a host is never covered.
func canonHost(h string) (string, bool) {
	h = strings.TrimSpace(h)
	if strings.Contains(h, "%") {
		d, ok := percentDecode(h)
		if !ok {
			return "", false
		}
		h = d
	}
	h = strings.ToLower(h)
	if strings.HasPrefix(h, "[") {
		inner, ok := strings.CutSuffix(h[1:], "]")
		if !ok {
			return "", false
		}
		return canonIPv6(inner)
	}
	if strings.Contains(h, ":") {
		return canonIPv6(h) // a bare address (conninfo host=::1)
	}
	h = strings.TrimRight(h, ".")
	if h == "" {
		return "", false
	}
	if a, ok := inetAton(h); ok {
		return a.String(), true
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return "", false
			}
		}
	}
	return h, true
}

// canonIPv6 reads an IPv6 literal (zone dropped; an IPv4-mapped address is
// its IPv4 address).
func canonIPv6(s string) (string, bool) {
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i] // a zone (fe80::1%eth0) picks the interface, not the host
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() {
		return "", false
	}
	return a.Unmap().String(), true
}

// inetAton reads an IPv4 address in every form inet_aton(3) accepts: one
// to four parts, each decimal, octal (leading 0) or hex (0x); the last part
// fills the remaining bytes (127.1 is 127.0.0.1, 167772165 is 10.0.0.5).
func inetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0" // inet_aton reads a bare 0x as 0
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		if p == "" {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	last := len(vals) - 1
	for i, v := range vals[:last] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func percentDecode(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), true
}

// hostCovered applies EnvCheck.HostIn's semantics to a host canonHost has
// read (it canonicalises it again, so a raw host works too).
func hostCovered(host string, entries []string) bool {
	host, ok := canonHost(host)
	if !ok {
		return false
	}
	hostAddr, hostIsIP := netip.ParseAddr(host)
	for _, e := range entries {
		e = strings.TrimSpace(e)
		wild := strings.HasPrefix(e, "*.")
		ce, ok := canonHost(strings.TrimPrefix(e, "*."))
		if !ok {
			continue
		}
		if e = ce; wild {
			e = "*." + ce
		}
		if ip, err := netip.ParseAddr(e); err == nil {
			if hostIsIP == nil && hostAddr == ip {
				return true
			}
			continue
		}
		if hostIsIP == nil {
			continue // an address is covered only by an address entry
		}
		if sub, ok := strings.CutPrefix(e, "*."); ok {
			if strings.HasSuffix(host, "."+sub) {
				return true
			}
			continue
		}
		if host == e || strings.HasSuffix(host, "."+e) {
			return true
		}
	}
	return false
}
