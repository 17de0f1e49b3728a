package intercept

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/redact"
)

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
		// Every host a client may read in the value must be covered.
		for _, h := range urlHosts(v, false) {
			switch {
			case !h.ok && h.host == "":
				return fmt.Sprintf("%s=%s names no host; it must point at one of %s", name, shown, strings.Join(c.HostIn, ", "))
			case !h.ok:
				return fmt.Sprintf("%s=%s names a host the hook cannot read (%q); it must point at one of %s", name, shown, redact.String(clip.String(h.host, 60)), strings.Join(c.HostIn, ", "))
			case !hostCovered(h.host, c.HostIn):
				return fmt.Sprintf("%s=%s points at host %s, which is not one of %s or under one (it must point at a test instance)", name, shown, h.host, strings.Join(c.HostIn, ", "))
			}
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

// override is one target a matched call names itself: an option's value,
// an operand, a variable the command line sets for it.
type override struct {
	command string // the command's base name
	flag    string // the option, "URL argument", or the variable
	env     bool   // a variable the command line sets
	value   string
	dyn     bool
	kind    optKind // kHost (judged by host), kName (as a whole), kUnknowable (denied)
	host    hostRef // kHost: the host it connects to
	why     string  // kUnknowable: what cannot be known
	// vars are the env_checks that judge it: it passes when it passes one
	// of those the handler has. Empty: the handler's host_in checks, or all
	// its checks when it has none; when the handler has none of vars, the
	// target cannot be judged and the call is denied.
	vars []string
	// ifChecked: judged only when the handler checks one of vars (an env
	// option that sets some other variable is ignored).
	ifChecked bool
}

// lineOf is what judging a call may read besides the call: every call of
// its command line (where a git remote is defined), and the filesystem
// (whether a config file a client reads by default exists; nil: unknown,
// taken as absent).
type lineOf struct {
	calls []call
	fs    PathFS
}

// judgeTargets judges the targets every matched call names; "" when all
// pass.
func judgeTargets(h prepared, names []string, calls []call, line lineOf) string {
	for _, c := range calls {
		for _, o := range overridesOf(c, line) {
			if why := judgeOverride(h, names, o); why != "" {
				return why
			}
		}
	}
	return ""
}

// overridesOf finds the targets a call names, by the client table's
// knowledge of its command. The command is looked for at every word, not
// only the first: behind a wrapper the hook does not know (chroot / jira
// --server …) it still names its target.
//
// A matched call of a program the table does not know (python3 sync.py,
// ./tool) is judged by every URL its words name: it may call them.
func overridesOf(c call, line lineOf) []override {
	var out []override
	known := 0
	for k := range c.words {
		if !c.words[k].dyn && clientsByName()[path.Base(c.words[k].s)] != nil {
			if known++; known > maxClientsPerCall {
				// Each is read to the end of the call: bound the work.
				return append(out, override{command: path.Base(c.words[0].s), flag: "(its words)", kind: kUnknowable,
					why: fmt.Sprintf("it names more than %d client programs, more than the hook reads", maxClientsPerCall)})
			}
		}
		out = append(out, readClient(c, k, line)...)
		out = append(out, envOption(c.words, k)...)
	}
	if known > 0 || len(c.words) == 0 || c.words[0].dyn || quietBuiltins.has(c.words[0].s) || offline.has(path.Base(c.words[0].s)) {
		return out
	}
	// A URL the command line hands it in a variable it may read.
	names := make([]string, 0, len(c.set))
	for k := range c.set {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if v := c.set[k]; v != unknownValue && isURL(v) {
			for _, h := range urlHosts(v, true) {
				out = append(out, override{command: path.Base(c.words[0].s), flag: k, env: true, value: v, kind: kHost, host: h})
			}
		}
	}
	for _, w := range c.words[1:] {
		for _, u := range urlStartRE().FindAllString(w.s, -1) {
			o := override{command: path.Base(c.words[0].s), flag: "URL in its arguments", value: u, dyn: w.dyn, kind: kHost}
			if hs := urlHosts(u, true); len(hs) > 0 {
				for _, h := range hs {
					o.host = h
					out = append(out, o)
				}
			}
		}
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
	return []override{{command: path.Base(words[0].s), flag: name, env: true, value: val, dyn: a.dyn, kind: kName, vars: []string{name}, ifChecked: true}}
}

// maxClientsPerCall bounds how many client names one call may hold.
const maxClientsPerCall = 32

// quietBuiltins are shell builtins that connect nowhere (the code eval or
// alias runs is walked as calls of its own).
var quietBuiltins = wordSet{ // sorted
	":", "[", "[[", "alias", "cd", "declare", "echo", "eval", "exit", "export", "false", "local", "popd",
	"printf", "pushd", "read", "readonly", "return", "set", "shift", "test", "trap", "true", "typeset", "unset",
}

// offline are programs that only read and write files: a URL in their
// words is text (sed -i 's|https://prod|http://localhost|' config.yaml).
var offline = wordSet{ // sorted
	"ag", "base64", "basename", "cat", "chmod", "cmp", "column", "comm", "cp", "cut", "diff", "dirname",
	"egrep", "fgrep", "find", "fold", "grep", "head", "jq", "less", "ln", "ls", "md5sum", "mkdir", "more", "mv",
	"nano", "nl", "realpath", "rg", "rm", "sed", "sha256sum", "sort", "tail", "tee", "touch", "tr", "uniq",
	"vi", "vim", "wc", "xxd", "yq",
}

// judgeOverride checks a target a command names itself with the handler's
// env_checks, as override describes.
func judgeOverride(h prepared, names []string, o override) string {
	what := o.command + " " + o.flag
	if o.env {
		what = o.flag + " set for " + o.command
	}
	switch {
	case o.kind == kUnknowable:
		return fmt.Sprintf("%s cannot be checked: %s", what, o.why)
	case o.dyn:
		return fmt.Sprintf("%s is given a target only known when it runs, which cannot be checked", what)
	}
	var vars []string
	if len(o.vars) > 0 {
		for _, v := range o.vars {
			if _, ok := h.EnvChecks[v]; ok {
				vars = append(vars, v)
			}
		}
	} else {
		for _, n := range names {
			if len(h.EnvChecks[n].HostIn) > 0 {
				vars = append(vars, n)
			}
		}
		if len(vars) == 0 {
			vars = names
		}
	}
	if len(vars) == 0 && o.ifChecked {
		return ""
	}
	if len(vars) == 0 {
		return fmt.Sprintf("%s names its own target, and this handler has no env_check (%s) to judge it by", what, strings.Join(o.vars, ", "))
	}
	first := ""
	for _, v := range vars {
		var why string
		if o.kind == kHost {
			why = checkHost(o, h.EnvChecks[v])
		} else {
			why = checkValue(o.flag, o.value, h.EnvChecks[v])
		}
		if why == "" {
			return ""
		}
		if first == "" {
			first = fmt.Sprintf("%s overrides the target %s names: judged by %s's check, %s", what, v, v, why)
		}
	}
	return first
}

// checkHost judges the host a target connects to by an env_check: host_in
// covers it, must_contain finds a marker in the host itself (not in a path
// or query that names the test instance for show).
func checkHost(o override, c EnvCheck) string {
	shown := fmt.Sprintf("%q", redact.String(redact.Value(o.flag, o.value)))
	if redact.SecretName(o.flag) {
		shown = redact.Mark
	}
	if !o.host.ok {
		if o.host.host == "" {
			return fmt.Sprintf("%s=%s names no host; it must point at a test instance", o.flag, shown)
		}
		return fmt.Sprintf("%s=%s names a host the hook cannot read (%q); it must point at a test instance", o.flag, shown, redact.String(clip.String(o.host.host, 60)))
	}
	host := o.host.host
	if len(c.MustContain) > 0 {
		found := false
		for _, m := range c.MustContain {
			if strings.Contains(host, strings.ToLower(m)) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Sprintf("%s=%s points at host %s, which contains none of %s (it must point at a test instance)", o.flag, shown, host, strings.Join(c.MustContain, ", "))
		}
	}
	if len(c.HostIn) > 0 && !hostCovered(host, c.HostIn) {
		return fmt.Sprintf("%s=%s points at host %s, which is not one of %s or under one (it must point at a test instance)", o.flag, shown, host, strings.Join(c.HostIn, ", "))
	}
	return ""
}

var urlStartRE = lazyre.New(`(?i)[a-z][a-z0-9+.\-]*://\S*`)
