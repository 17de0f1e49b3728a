package intercept

import (
	"path"
	"strings"
)

// The HTTP clients' configuration files: curl's .curlrc and -K files, and
// wget's wgetrc, read as the clients read them.

// curlConfigs judges the configuration files curl reads: each -K/--config
// file, and (unless -q comes first) the first .curlrc it finds.
func curlConfigs(cc *clientCall) {
	for _, h := range cc.opt("-K", "--config") {
		switch {
		case h.dyn || !h.set:
			cc.unknowable(h.name, false, "curl "+h.name+" reads options from a file only known when it runs")
		case h.value == "-" || strings.HasPrefix(h.value, "/dev/") || strings.HasPrefix(h.value, "/proc/"):
			cc.unknowable(h.name, false, "curl "+h.name+" "+h.value+" reads options from its input, which the hook cannot read")
		default:
			if f, ok := cc.confFile(h.value, true, ""); ok {
				curlApply(cc, h.value, f.body)
			}
		}
	}
	if cc.from != "" || curlNoRC(cc) {
		return
	}
	// curl reads the first .curlrc it finds, looking in each folder in turn.
	for _, loc := range curlRCDirs(cc.env) {
		bodies, found := cc.confGroup(loc[0]+"="+loc[1], confVarSet(cc.set, loc[0]), loc[2:], "run curl -q first")
		if len(bodies) > 0 {
			curlApply(cc, bodies[0][0], bodies[0][1])
		}
		if found {
			return
		}
	}
}

// curlRCDirs are the folders curl looks for a .curlrc in, in its order:
// the variable, its value, then the files it looks for there.
func curlRCDirs(env map[string]string) [][]string {
	var out [][]string
	for _, f := range [][]string{{"CURL_HOME", ".curlrc"}, {"XDG_CONFIG_HOME", ".curlrc", "curlrc"}, {"HOME", ".curlrc", ".config/curlrc"}} {
		if dir, ok := envDir(env, f[0]); ok {
			loc := []string{f[0], dir}
			for _, name := range f[1:] {
				loc = append(loc, path.Join(dir, name))
			}
			out = append(out, loc)
		}
	}
	return out
}

// curlRCPaths are the .curlrc files curl looks for, in its order.
func curlRCPaths(env map[string]string) []string {
	var out []string
	for _, loc := range curlRCDirs(env) {
		out = append(out, loc[2:]...)
	}
	return out
}

// curlApply judges the options of a curl configuration file as curl reads
// them.
func curlApply(cc *clientCall, file, body string) {
	if cc.depth >= maxConfDepth {
		cc.unknowable(file, false, "curl reads "+file+", which reads more configuration files than the hook follows")
		return
	}
	sub := cc.sub(file, curlrcArgs(body, cc.cl))
	sub.judgeOpts()
	curlOperands(sub)
	cc.out = append(cc.out, sub.out...)
}

// curlrcArgs reads a curl configuration file: one option a line, "name
// value", "name = value", "name: value" or "--name value" / "-x value", a
// value double-quoted with backslash escapes or up to the first blank; #
// starts a comment line. A value given to an option that takes none is
// ignored, as curl ignores it.
func curlrcArgs(body string, cl *client) parsedArgs {
	var all parsedArgs
	for _, line := range strings.Split(body, "\n") {
		words := curlrcLine(line)
		if len(words) == 0 {
			continue
		}
		p := parseArgs(words, cl.opts, cl.syntax, cl.abbrev)
		if len(p.opts) == 1 && p.opts[0].spec.kind == kFlag {
			p.operands = nil
		}
		all.opts = append(all.opts, p.opts...)
		all.operands = append(all.operands, p.operands...)
	}
	return all
}

// curlrcLine is the command-line words one .curlrc line stands for.
func curlrcLine(line string) []word {
	line = strings.TrimLeft(strings.TrimRight(line, "\r"), " \t")
	if line == "" || line[0] == '#' {
		return nil
	}
	dashed := line[0] == '-'
	i := 0
	for i < len(line) && line[i] != ' ' && line[i] != '\t' && (dashed || line[i] != '=' && line[i] != ':') {
		i++
	}
	name, rest := line[:i], strings.TrimLeft(line[i:], " \t")
	if !dashed {
		if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":") {
			rest = strings.TrimLeft(rest[1:], " \t")
		}
		name = "--" + name
	}
	words := []word{{s: name}}
	if rest == "" {
		return words
	}
	var val strings.Builder
	if rest[0] == '"' {
		for j := 1; j < len(rest) && rest[j] != '"'; j++ {
			c := rest[j]
			if c == '\\' && j+1 < len(rest) {
				j++
				switch c = rest[j]; c {
				case 't':
					c = '\t'
				case 'n':
					c = '\n'
				case 'r':
					c = '\r'
				case 'v':
					c = '\v'
				}
			}
			val.WriteByte(c)
		}
	} else {
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		val.WriteString(rest[:end])
	}
	return append(words, word{s: val.String()})
}

// curlConfText is what curl's configuration files add to a call, for the
// filters: their options as words, as the client reads them; written: one
// of them is written earlier on the line.
func curlConfText(c call, l *callLine) (out []string, written bool) {
	cc := &clientCall{cl: clientsByName()["curl"], name: "curl", set: c.set, env: l.envWith(c.set), at: l}
	cc.p = parseArgs(c.words[1:], cc.cl.opts, cc.cl.syntax, cc.cl.abbrev)
	var files []string
	for _, h := range cc.opt("-K", "--config") {
		files = append(files, h.value)
	}
	if !curlNoRC(cc) {
		files = append(files, curlRCPaths(cc.env)...)
	}
	for n := 0; n < len(files) && n < 4*maxConfDepth; n++ {
		f := l.open(files[n], false)
		if f.written {
			written = true
		}
		if f.kind != confRead {
			continue
		}
		p := curlrcArgs(f.body, cc.cl)
		var ws []string
		for _, h := range p.opts {
			ws = append(ws, h.name, h.value)
			if h.name == "-K" || h.name == "--config" {
				files = append(files, h.value)
			}
			if isURL(h.value) {
				out = append(out, urlTexts("curl", h.value)...)
			}
		}
		for _, o := range p.operands {
			ws = append(ws, o.s)
		}
		out = append(out, "curl "+strings.Join(ws, " "))
	}
	return out, written
}

// wgetConfigs judges the wgetrc files wget reads (unless --no-config): the
// --config file alone, else the system wgetrc and then $WGETRC or
// ~/.wgetrc. Each line is a wgetrc command, as -e gives one.
func wgetConfigs(cc *clientCall) {
	if cc.has("--no-config") || cc.from != "" {
		return
	}
	escape := "run " + cc.name + " --no-config"
	var files [][2]string // variable, path
	if hs := cc.opt("--config"); len(hs) > 0 {
		for _, h := range hs {
			if h.dyn || !h.set {
				cc.unknowable(h.name, false, cc.name+" --config reads commands from a file only known when it runs")
				continue
			}
			files = append(files, [2]string{"--config", h.value})
		}
	} else {
		files = wgetRCPaths(cc.name, cc.env)
	}
	for _, f := range files {
		named := f[0] == "--config" || confVarSet(cc.set, f[0])
		if rc, ok := cc.confFile(f[1], named, escape); ok {
			sub := cc.sub(f[1], parsedArgs{})
			for _, line := range strings.Split(rc.body, "\n") {
				if line = strings.TrimSpace(line); line != "" && line[0] != '#' {
					wgetCommand(sub, "command", line)
				}
			}
			cc.out = append(cc.out, sub.out...)
		}
	}
}

// wgetRCPaths are the wgetrc files wget (or wget2) reads, with the
// variable that locates each ("" for a fixed path).
func wgetRCPaths(name string, env map[string]string) [][2]string {
	if name == "wget2" {
		var out [][2]string
		if v, ok := envDir(env, "WGET2RC"); ok {
			return [][2]string{{"WGET2RC", v}}
		}
		if d, ok := envDir(env, "XDG_CONFIG_HOME"); ok {
			out = append(out, [2]string{"XDG_CONFIG_HOME", path.Join(d, "wget/wget2rc")})
		}
		if d, ok := envDir(env, "HOME"); ok {
			out = append(out, [2]string{"HOME", path.Join(d, ".config/wget/wget2rc")}, [2]string{"HOME", path.Join(d, ".wget2rc")})
		}
		return out
	}
	out := [][2]string{{"", "/etc/wgetrc"}, {"", "/usr/local/etc/wgetrc"}}
	if v, ok := envDir(env, "WGETRC"); ok {
		return append(out, [2]string{"WGETRC", v})
	}
	if d, ok := envDir(env, "HOME"); ok {
		out = append(out, [2]string{"HOME", path.Join(d, ".wgetrc")})
	}
	return out
}

// wgetConfText is what wget's wgetrc files add to a call, for the filters;
// written: one of them is written earlier on the line.
func wgetConfText(name string, c call, l *callLine) (out []string, written bool) {
	cl := clientsByName()[name]
	p := parseArgs(c.words[1:], cl.opts, cl.syntax, cl.abbrev)
	files := wgetRCPaths(name, l.envWith(c.set))
	for _, h := range p.opts {
		switch h.name {
		case "--no-config":
			return nil, false
		case "--config":
			files = [][2]string{{"--config", h.value}}
		}
	}
	for _, f := range files {
		rc := l.open(f[1], false)
		written = written || rc.written
		if rc.kind == confRead {
			out = append(out, name+" "+strings.Join(strings.Fields(rc.body), " "))
		}
	}
	return out, written
}
