package intercept

import (
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"strings"

	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/redact"
)

// hostOf returns the host a URL-ish value points at, lower-cased, without
// port, brackets or trailing dot; "" when it has none.
func hostOf(v string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	raw := v
	if !strings.Contains(v, "://") {
		raw = "//" + v
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// hostCovered applies EnvCheck.HostIn's semantics.
func hostCovered(host string, entries []string) bool {
	if host == "" {
		return false
	}
	_, hostIsIP := netip.ParseAddr(host)
	for _, e := range entries {
		e = strings.TrimSuffix(strings.Trim(strings.ToLower(strings.TrimSpace(e)), "[]"), ".")
		if e == "" {
			continue
		}
		if ip, err := netip.ParseAddr(e); err == nil {
			if h, err := netip.ParseAddr(host); err == nil && h == ip {
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

// checkValue judges a value by an env_check; "" when it passes, else why
// not. name is the variable (or the option) the value came from: the value
// is shown redacted.
func checkValue(name, v string, c EnvCheck) string {
	// A URL's query may carry a credential (?access_token=…, ?password=…).
	shown := fmt.Sprintf("%q", redact.String(redact.Value(name, v)))
	if redact.SecretName(name) {
		shown = redact.Mark
	}
	if len(c.MustContain) > 0 {
		found := true
		// KUBECONFIG is a list of files merged into one config: each of
		// them may name the cluster, so each must pass.
		parts := []string{v}
		if name == "KUBECONFIG" {
			parts = strings.Split(v, ":")
		}
		for _, part := range parts {
			lv, ok := strings.ToLower(part), false
			for _, s := range c.MustContain {
				if strings.Contains(lv, strings.ToLower(s)) {
					ok = true
					break
				}
			}
			found = found && ok
		}
		if !found {
			return fmt.Sprintf("%s=%s does not contain any of %s (it must point at a test instance)", name, shown, strings.Join(c.MustContain, ", "))
		}
	}
	if len(c.HostIn) > 0 {
		host := hostOf(v)
		if !hostCovered(host, c.HostIn) {
			if host == "" {
				return fmt.Sprintf("%s=%s names no host; it must point at one of %s", name, shown, strings.Join(c.HostIn, ", "))
			}
			return fmt.Sprintf("%s=%s points at host %s, which is not one of %s or under one (it must point at a test instance)", name, shown, host, strings.Join(c.HostIn, ", "))
		}
	}
	return ""
}

func checkVar(name string, env map[string]string, c EnvCheck) string {
	v, set := env[name]
	switch {
	case !set:
		want := c.MustContain
		if len(c.HostIn) > 0 {
			return fmt.Sprintf("%s is not set; it must point at one of the hosts %s", name, strings.Join(c.HostIn, ", "))
		}
		return fmt.Sprintf("%s is not set; it must contain one of %s", name, strings.Join(want, ", "))
	case v == unknownValue:
		return fmt.Sprintf("%s is assigned a value that cannot be checked before it runs (not a literal)", name)
	}
	return checkValue(name, v, c)
}

// override is one place where a matched command names its own target.
type override struct {
	command string // the command's base name
	flag    string // the option, "URL argument", or the variable
	env     bool   // a variable the command line sets
	value   string
	dyn     bool
	spec    Override
}

// overridesOf finds the options and URL arguments of a call that retarget
// it, by the catalogue's knowledge of its command. The command is looked for
// at every word, not only the first: behind a wrapper the hook does not know
// (chroot / jira --server …) it still names its target.
func overridesOf(c call) []override {
	var out []override
	for k := range c.words {
		out = append(out, overridesAt(c.words[k:], c.set)...)
		out = append(out, envOption(c.words, k)...)
	}
	return out
}

// envOption reads a NAME=value an option hands a command's environment
// (docker run -e, podman --env, systemd-run --setenv): judged by NAME's
// env_check when the handler has one.
func envOption(words []word, k int) []override {
	a := words[k]
	var kv string
	switch {
	case (a.s == "-e" || a.s == "--env" || a.s == "-E" || a.s == "--setenv") && k+1 < len(words):
		a = words[k+1]
		kv = a.s
	case strings.HasPrefix(a.s, "--env=") || strings.HasPrefix(a.s, "--setenv="):
		_, kv, _ = strings.Cut(a.s, "=")
	default:
		return nil
	}
	name, val, ok := strings.Cut(kv, "=")
	if !ok || !envName(name) {
		return nil
	}
	return []override{{command: path.Base(words[0].s), flag: name, env: true, value: val, dyn: a.dyn, spec: Override{Vars: []string{name}, IfChecked: true}}}
}

// overridesAt reads the command at words[0]; set is what the command line
// assigns its environment: a variable the CLI reads its target from (PGHOST
// for psql) set there is an override too.
func overridesAt(words []word, set map[string]string) []override {
	name := path.Base(words[0].s)
	var out []override
	for _, list := range overrideLists() {
		for _, o := range list {
			if !containsStr(o.Commands, name) {
				continue
			}
			for _, v := range o.Vars {
				if val, ok := set[v]; ok && val != unsetValue {
					out = append(out, override{flag: v, env: true, value: val, dyn: val == unknownValue, spec: o})
				}
			}
			if val, ok := set["PGDATABASE"]; ok && len(o.ConninfoKeys) > 0 && val != unsetValue {
				// libpq reads a database name that is a URL or a
				// connection string as one.
				for _, t := range dbTargets(val, o, val == unknownValue) {
					t.flag, t.env = "PGDATABASE", true
					out = append(out, t)
				}
			}
			args := words[1:]
			for i := 0; i < len(args); i++ {
				a := args[i]
				if a.s == "--" {
					if !o.URLArgs {
						break
					}
					continue
				}
				opt, val, eq := strings.Cut(a.s, "=")
				switch {
				case containsStr(o.Flags, opt) && eq:
					out = append(out, override{flag: opt, value: val, dyn: a.dyn, spec: o})
					continue
				case containsStr(o.Flags, a.s):
					if i+1 < len(args) {
						out = append(out, override{flag: a.s, value: args[i+1].s, dyn: args[i+1].dyn, spec: o})
						i++
					} else {
						out = append(out, override{flag: a.s, dyn: true, spec: o})
					}
					continue
				}
				if short := attachedShort(o.Flags, a.s); short != "" {
					out = append(out, override{flag: short, value: a.s[2:], dyn: a.dyn, spec: o})
					continue
				}
				if len(o.ConninfoKeys) > 0 {
					if t := dbTargets(a.s, o, a.dyn); len(t) > 0 {
						out = append(out, t...)
						continue
					}
				}
				if !o.URLArgs {
					continue
				}
				if containsStr(o.SkipValueOf, a.s) {
					i++ // the value of -o, -d, -H…: not a target
					continue
				}
				if u := urlIn(a.s); u != "" {
					out = append(out, override{flag: "URL argument", value: u, dyn: a.dyn, spec: o})
				} else if !strings.HasPrefix(a.s, "-") && strings.Trim(a.s, "0123456789") != "" && bareHostRE().MatchString(a.s) {
					// (a bare number is a port: nc host 443)
					out = append(out, override{flag: "URL argument", value: a.s, dyn: a.dyn, spec: o})
				}
			}
		}
	}
	for i := range out {
		out[i].command = name
	}
	return out
}

func overrideLists() [][]Override {
	out := [][]Override{GenericOverrides}
	for _, s := range Catalog {
		if len(s.Overrides) > 0 {
			out = append(out, s.Overrides)
		}
	}
	return out
}

// conninfoRE is one key = value of a libpq connection string (spaces
// around = allowed, values single-quoted or bare).
var conninfoRE = lazyre.New(`([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s']*)`)

// dbTargets are the servers a database client argument names: every host
// key of a connection string (a later one wins, so all are judged), the
// host of a URL and its ?host= / ?hostaddr= parameters; a service name
// (service=… or ?service=…) cannot be judged. Nil when s names none.
func dbTargets(s string, o Override, dyn bool) []override {
	uncheckable := o
	uncheckable.Uncheckable = true
	var out []override
	if u := urlIn(s); u != "" {
		out = append(out, override{flag: "URL argument", value: u, dyn: dyn, spec: o})
		if p, err := url.Parse(u); err == nil {
			for k, vs := range p.Query() {
				for _, v := range vs {
					switch k = strings.ToLower(k); {
					case k == "service":
						out = append(out, override{flag: "URL service parameter", value: v, dyn: dyn, spec: uncheckable})
					case containsStr(o.ConninfoKeys, k):
						out = append(out, override{flag: "URL " + k + " parameter", value: v, dyn: dyn, spec: o})
					}
				}
			}
		}
		return out
	}
	if !strings.Contains(s, "=") {
		return nil
	}
	for _, m := range conninfoRE().FindAllStringSubmatch(s, -1) {
		k, v := strings.ToLower(m[1]), strings.Trim(m[2], `'"`)
		switch {
		case k == "service":
			out = append(out, override{flag: "conninfo service", value: v, dyn: dyn, spec: uncheckable})
		case containsStr(o.ConninfoKeys, k):
			out = append(out, override{flag: "conninfo", value: v, dyn: dyn, spec: o})
		}
	}
	return out
}

// attachedShort matches -sVALUE for a one-letter flag -s.
func attachedShort(flags []string, s string) string {
	if len(s) < 3 || s[0] != '-' || s[1] == '-' {
		return ""
	}
	for _, f := range flags {
		if len(f) == 2 && f[0] == '-' && f[1] == s[1] {
			return f
		}
	}
	return ""
}

var (
	urlStartRE = lazyre.New(`(?i)[a-z][a-z0-9+.\-]*://\S*`)
	// bareHostRE: a scheme-less host[:port][/path] as curl takes it.
	bareHostRE = lazyre.New(`(?i)^(localhost|[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z][a-z0-9-]+|\[[0-9a-f:.]+\]|[0-9.]+)(:[0-9]+)?([/?#].*)?$`)
)

// urlIn returns the URL in a word (--url=https://x, https://x/y), or "".
func urlIn(s string) string {
	return urlStartRE().FindString(s)
}
