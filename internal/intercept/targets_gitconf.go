package intercept

import (
	"path"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
)

// git's configuration as a push reads it: the system, global (XDG and
// ~/.gitconfig, or $GIT_CONFIG_GLOBAL) and repository files, and the files
// they include. The push goes where the remote's URL says after the
// url.<base>.insteadOf / pushInsteadOf rewrites, through the proxy or ssh
// command the configuration names.

// gitEntry is one setting: key is section[.subsection].name, the section
// and name lower-cased (as git compares them), the subsection as written.
type gitEntry struct {
	file, key, value string
}

// gitConf is what a push's configuration files say.
type gitConf struct {
	entries []gitEntry
	// ok: every file was read (or is absent) and the repository was found
	// where it should be: what the files do not say, git does not do.
	ok bool
	// gitDir is the repository's git folder ("" when there is none).
	gitDir string
}

// gitConf reads the configuration files a git call reads; what cannot be
// read is recorded (and ok is false).
func (cc *clientCall) gitConf() gitConf {
	conf := gitConf{ok: cc.fileSeen()}
	env, set := cc.env, cc.set
	load := func(loc string, named bool, paths ...string) {
		bodies, _ := cc.confGroup(loc, named, paths, "")
		if cc.gitCannot() {
			conf.ok = false
		}
		for _, b := range bodies {
			conf.parse(cc, b[0], b[1], 0)
		}
	}
	if !gitTruthy(env["GIT_CONFIG_NOSYSTEM"]) {
		if v, ok := envDir(env, "GIT_CONFIG_SYSTEM"); ok {
			load(v, confVarSet(set, "GIT_CONFIG_SYSTEM"), v)
		} else {
			load("/etc/gitconfig", false, "/etc/gitconfig")
		}
	}
	if v, ok := envDir(env, "GIT_CONFIG_GLOBAL"); ok {
		load(v, confVarSet(set, "GIT_CONFIG_GLOBAL"), v)
	} else {
		// $XDG_CONFIG_HOME/git/config (else ~/.config/git/config), then
		// ~/.gitconfig: git reads both.
		var home []string
		if d, ok := envDir(env, "XDG_CONFIG_HOME"); ok {
			load("XDG_CONFIG_HOME="+d, confVarSet(set, "XDG_CONFIG_HOME"), path.Join(d, "git/config"))
		} else if h, ok := envDir(env, "HOME"); ok {
			home = append(home, path.Join(h, ".config/git/config"))
		}
		if h, ok := envDir(env, "HOME"); ok {
			load("HOME="+h, confVarSet(set, "HOME"), append(home, path.Join(h, ".gitconfig"))...)
		}
	}
	dir, known := cc.gitDir()
	switch {
	case !known:
		conf.ok = false
		// Without a view of the filesystem, the repository's config is
		// still judged when the line itself writes it.
		if f := cc.at.open(".git/config", false); f.kind == confCannot && f.written {
			cc.unknowable(".git/config", false, "git reads .git/config, "+f.why)
		}
	case dir == "":
		// No repository: a remote is no name git can look up.
		conf.ok = false
	default:
		conf.gitDir = dir
		common := dir
		if f := cc.at.open(path.Join(dir, "commondir"), false); f.kind == confRead {
			common = path.Join(dir, strings.TrimSpace(f.body))
		}
		load(path.Join(common, "config"), false, path.Join(common, "config"))
		load(path.Join(dir, "config.worktree"), false, path.Join(dir, "config.worktree"))
	}
	return conf
}

// gitCannot: something of this call cannot be known (a configuration
// file it could not read, among others; the reason is recorded), so what
// the files do not say is no proof git will not do it.
func (cc *clientCall) gitCannot() bool {
	for _, o := range cc.out {
		if o.kind == kUnknowable {
			return true
		}
	}
	return false
}

// parse adds a configuration file's settings, and those of the files it
// includes (include.path and includeIf.<condition>.path: the hook does not
// test the condition, so every such file is read; git ignores one that is
// not there).
func (conf *gitConf) parse(cc *clientCall, p, body string, depth int) {
	for _, e := range parseGitConfig(body) {
		e.file = p
		conf.entries = append(conf.entries, e)
		if e.key != "include.path" && !(strings.HasPrefix(e.key, "includeif.") && strings.HasSuffix(e.key, ".path")) {
			continue
		}
		inc := homePath(e.value, cc.env)
		if !path.IsAbs(inc) && inc != unknownValue {
			inc = path.Join(path.Dir(p), inc)
		}
		if depth >= maxConfDepth {
			cc.unknowable(inc, false, "git reads "+p+", which includes more files than the hook follows")
			conf.ok = false
			return
		}
		f, ok := cc.confFile(inc, false, "")
		if !ok {
			if cc.gitCannot() {
				conf.ok = false
			}
			continue
		}
		conf.parse(cc, inc, f.body, depth+1)
	}
}

// gitDir finds the repository's git folder as git does: --git-dir or
// $GIT_DIR, else a .git (folder, or file naming one) in the working
// directory (after -C) or a folder above it, or a bare repository there.
// known is false when the hook cannot tell.
func (cc *clientCall) gitDir() (dir string, known bool) {
	if !cc.fileSeen() {
		return "", false
	}
	l := cc.at
	start := l.files.cwd
	for _, h := range cc.opt("-C") {
		if h.dyn || h.value == "" {
			return "", false
		}
		start = path.Join(start, h.value)
		if path.IsAbs(h.value) {
			start = path.Clean(h.value)
		}
	}
	if l.cd && !path.IsAbs(start) || !path.IsAbs(start) {
		return "", false
	}
	explicit := ""
	if v, ok := envDir(cc.env, "GIT_DIR"); ok {
		explicit = v
	}
	for _, h := range cc.opt("--git-dir") {
		explicit = h.value
	}
	if explicit != "" {
		if explicit == unknownValue {
			return "", false
		}
		if !path.IsAbs(explicit) {
			explicit = path.Join(start, explicit)
		}
		return explicit, true
	}
	exists := func(p string) bool {
		m, err := l.files.fs.Glob(p)
		return err == nil && len(m) > 0
	}
	if strings.ContainsAny(start, "*?[\\") {
		return "", false
	}
	for d := start; ; d = path.Dir(d) {
		switch {
		case exists(path.Join(d, ".git", "HEAD")):
			return path.Join(d, ".git"), true
		case exists(path.Join(d, ".git")):
			f := l.open(path.Join(d, ".git"), false)
			if f.kind != confRead {
				return "", false
			}
			g, ok := strings.CutPrefix(strings.TrimSpace(f.body), "gitdir:")
			if !ok {
				return "", false
			}
			g = strings.TrimSpace(g)
			if !path.IsAbs(g) {
				g = path.Join(d, g)
			}
			return g, true
		case exists(path.Join(d, "HEAD")) && exists(path.Join(d, "objects")) && exists(path.Join(d, "refs")):
			return d, true
		}
		if d == "/" {
			return "", true
		}
	}
}

// parseGitConfig reads a git configuration file's settings, in order.
func parseGitConfig(body string) []gitEntry {
	var out []gitEntry
	section := ""
	lines := strings.Split(body, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
		if strings.HasPrefix(line, "[") {
			end := gitSectionEnd(line)
			if end < 0 {
				continue
			}
			section = gitSection(line[1:end])
			line = strings.TrimSpace(line[end+1:])
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		name, rest, eq := strings.Cut(line, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" || section == "" {
			continue
		}
		value := "true"
		if eq {
			// A value may go on over lines that end with a backslash.
			for strings.HasSuffix(rest, "\\") && !strings.HasSuffix(rest, "\\\\") && i+1 < len(lines) {
				i++
				rest = rest[:len(rest)-1] + strings.TrimSuffix(lines[i], "\r")
			}
			value = gitValue(rest)
		}
		out = append(out, gitEntry{key: section + "." + name, value: value})
	}
	return out
}

// gitSectionEnd finds the ] that closes a section header (a quoted
// subsection may hold one).
func gitSectionEnd(line string) int {
	quoted := false
	for i := 1; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ']' && !quoted:
			return i
		}
	}
	return -1
}

// gitSection reads a section header: section, section "subsection" (kept
// as written, escapes undone) or the old section.subsection (lower-cased).
func gitSection(h string) string {
	h = strings.TrimSpace(h)
	if name, sub, ok := strings.Cut(h, " "); ok {
		sub = strings.TrimSpace(sub)
		sub = strings.TrimSuffix(strings.TrimPrefix(sub, `"`), `"`)
		var b strings.Builder
		for i := 0; i < len(sub); i++ {
			if sub[i] == '\\' && i+1 < len(sub) {
				i++
			}
			b.WriteByte(sub[i])
		}
		return strings.ToLower(name) + "." + b.String()
	}
	return strings.ToLower(h)
}

// gitValue reads a value: quotes removed, escapes undone, a # or ; outside
// quotes ending it, blanks at its ends dropped.
func gitValue(s string) string {
	var b strings.Builder
	quoted := false
	pending := 0 // blanks seen outside quotes, kept only if more follows
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			quoted = !quoted
			continue
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			default:
				c = s[i]
			}
		case !quoted && (c == '#' || c == ';'):
			return b.String()
		case !quoted && (c == ' ' || c == '\t'):
			if b.Len() > 0 {
				pending++
			}
			continue
		}
		for ; pending > 0; pending-- {
			b.WriteByte(' ')
		}
		b.WriteByte(c)
	}
	return b.String()
}

func gitTruthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// last is the value of the last setting of key ("" when none).
func (conf gitConf) last(key string) string {
	v := ""
	for _, e := range conf.entries {
		if e.key == key {
			v = e.value
		}
	}
	return v
}

// all are the values of every setting of key.
func (conf gitConf) all(key string) []string {
	var out []string
	for _, e := range conf.entries {
		if e.key == key {
			out = append(out, e.value)
		}
	}
	return out
}

// rewrite applies url.<base>.insteadOf (and, for a push to a remote's
// url, pushInsteadOf first) to u: the longest matching prefix wins.
func (conf gitConf) rewrite(u string, push bool) string {
	best := func(kind string) (string, bool) {
		base, n, found := "", -1, false
		for _, e := range conf.entries {
			sub, ok := strings.CutPrefix(e.key, "url.")
			if !ok {
				continue
			}
			b, k, ok := cutLast(sub, ".")
			if !ok || k != kind || !strings.HasPrefix(u, e.value) || len(e.value) <= n {
				continue
			}
			base, n, found = b+u[len(e.value):], len(e.value), true
		}
		return base, found
	}
	if push {
		if r, ok := best("pushinsteadof"); ok {
			return r
		}
	}
	if r, ok := best("insteadof"); ok {
		return r
	}
	return u
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// pushURLs are where a push to the remote NAME goes, after the rewrites;
// ok is false when the configuration does not define the remote.
func (conf gitConf) pushURLs(name string) ([]string, bool) {
	var out []string
	for _, u := range conf.all("remote." + name + ".pushurl") {
		out = append(out, conf.rewrite(u, false))
	}
	if len(out) > 0 {
		return out, true
	}
	for _, u := range conf.all("remote." + name + ".url") {
		out = append(out, conf.rewrite(u, true))
	}
	return out, len(out) > 0
}

// defaultRemote is the remote a bare git push goes to: the branch's
// pushRemote, remote.pushDefault, the branch's remote, else origin.
func (cc *clientCall) defaultRemote(conf gitConf) string {
	branch := ""
	if conf.gitDir != "" {
		if f := cc.at.open(path.Join(conf.gitDir, "HEAD"), false); f.kind == confRead {
			branch, _ = strings.CutPrefix(strings.TrimSpace(f.body), "ref: refs/heads/")
		}
	}
	for _, k := range []string{"branch." + branch + ".pushremote", "remote.pushdefault", "branch." + branch + ".remote"} {
		if v := conf.last(k); v != "" && (branch != "" || !strings.HasPrefix(k, "branch.")) {
			return v
		}
	}
	return "origin"
}

// judgeGitConfURL judges what the configuration adds to a push to u: the
// proxy an http(s) push goes through, the command an ssh or git:// push
// runs, the remote helper and receive-pack a remote names. remote is the
// remote's name ("" for a URL given as it is).
func (cc *clientCall) judgeGitConfURL(conf gitConf, u, remote string) {
	lu := strings.ToLower(u)
	switch {
	case strings.HasPrefix(lu, "http://") || strings.HasPrefix(lu, "https://"):
		for _, e := range conf.entries {
			if e.key == "http.proxy" || strings.HasPrefix(e.key, "http.") && strings.HasSuffix(e.key, ".proxy") && strings.HasPrefix(lu, strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(e.key, "http."), ".proxy"))) ||
				remote != "" && e.key == "remote."+remote+".proxy" {
				cc.host(e.key+" ("+e.file+")", e.value, false, false)
			}
			if e.key == "http.curloptresolve" || strings.HasPrefix(e.key, "http.") && strings.HasSuffix(e.key, ".curloptresolve") {
				if parts := strings.SplitN(strings.TrimPrefix(e.value, "+"), ":", 3); len(parts) == 3 {
					for _, a := range strings.Split(parts[2], ",") {
						cc.host(e.key+" ("+e.file+")", a, false, false)
					}
				}
			}
		}
	case strings.HasPrefix(lu, "ssh://") || strings.HasPrefix(lu, "git+ssh://") || strings.HasPrefix(lu, "ssh+git://") || scpLike(u):
		for _, k := range []string{"core.sshcommand"} {
			if v := conf.last(k); v != "" {
				cc.unknowable(k, false, "git runs the ssh command "+k+" = "+v+" from its configuration, which may connect anywhere")
			}
		}
	case strings.HasPrefix(lu, "git://"):
		if v := conf.last("core.gitproxy"); v != "" {
			cc.unknowable("core.gitproxy", false, "git connects through core.gitproxy = "+v+" from its configuration, a program the hook does not know")
		}
	}
	if remote == "" {
		return
	}
	for _, k := range []string{"remote." + remote + ".vcs", "remote." + remote + ".receivepack"} {
		if v := conf.last(k); v != "" {
			cc.unknowable(k, false, "git's configuration sets "+k+" = "+v+", a program the hook does not know")
		}
	}
}

// gitDefaultPager is the pager git grep -O runs when it is given none:
// $GIT_PAGER, else core.pager of the configuration, else $PAGER, else less.
func (cc *clientCall) gitDefaultPager(conf gitConf) (pager, from string) {
	if v, ok := envDir(cc.env, "GIT_PAGER"); ok {
		return v, "GIT_PAGER"
	}
	for i := len(conf.entries) - 1; i >= 0; i-- {
		if e := conf.entries[i]; e.key == "core.pager" {
			return e.value, "core.pager in " + e.file
		}
	}
	if v, ok := envDir(cc.env, "PAGER"); ok {
		return v, "PAGER"
	}
	return "less", ""
}

// gitGrepOpens judges git grep -O with no pager given: the default pager
// runs as a command, whose own targets are judged as a call's would be.
func (cc *clientCall) gitGrepOpens(args []word) {
	if _, given, found := gitGrepPager(args); !found || given {
		return
	}
	conf := cc.gitConf()
	pager, from := cc.gitDefaultPager(conf)
	if from == "" || inertPagers()[strings.TrimSpace(pager)] {
		return
	}
	if pager == unknownValue {
		cc.unknowable(from, false, "git grep -O runs the pager "+from+", which is only known when it runs")
		return
	}
	an := analyseBash(pagerCode(pager), cc.env, nil, nil, nil)
	if an.unknown != "" {
		cc.unknowable(from, false, "git grep -O runs the pager "+from+" = "+clip.String(pager, 60)+", and the hook cannot tell what it runs: "+an.unknown)
		return
	}
	for _, c := range an.calls {
		c.set, c.env = c.env, overlay(cc.env, c.env)
		for k := range c.words {
			for _, o := range readClient(c, k, cc.line) {
				o.flag += " (the pager " + from + ")"
				cc.out = append(cc.out, o)
			}
		}
	}
}

// gitPagerTexts are what the default pager of git grep -O runs, for the
// filters (git.go reads a pager given on the command line as code).
func gitPagerTexts(c call, l *callLine) []string {
	if _, given, found := gitGrepPager(c.words[1:]); !found || given {
		return nil
	}
	cc := &clientCall{cl: gitClient, name: "git", set: c.set, env: l.envWith(c.set), at: l}
	cc.p = parseArgs(c.words[1:], gitGlobalOpts, firstOperand, false)
	pager, from := cc.gitDefaultPager(cc.gitConf())
	if from == "" || pager == unknownValue {
		return nil
	}
	var out []string
	for _, pc := range analyseBash(pagerCode(pager), cc.env, nil, nil, nil).calls {
		out = append(out, pc.texts()...)
		out = append(out, targetTexts(pc)...)
	}
	return out
}
