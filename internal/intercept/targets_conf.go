package intercept

import (
	"path"
	"slices"
	"strings"
)

// The configuration layer: a client's real target is what it uses after it
// has read its configuration files (~/.curlrc, ~/.gitconfig, ~/.my.cnf, …).
// A file the command line writes before the client runs cannot be known,
// and neither can one the hook cannot read or locate; one that exists is
// read as the client reads it; one that does not exist changes nothing.

// lineFiles is where a command line runs: the request's filesystem (nil:
// none), its directory, and the hook's environment. Decide sets it on the
// analysis; every call's callLine points at it.
type lineFiles struct {
	fs  PathFS
	cwd string
	env map[string]string
}

// callLine is what the command line did before one of its calls: the files
// its redirects and copies wrote, the commands that may have written files,
// the calls before it, and whether it changed directory.
type callLine struct {
	files   *lineFiles
	written []string
	writers []writer
	before  []call
	cd      bool
}

// callLine snapshots the walk for the call about to be recorded (the
// redirects of its own statement are applied already; bash opens them
// before the program runs).
func (w *walker) callLine() *callLine {
	l := &callLine{files: &w.an.files, writers: w.writers[:len(w.writers):len(w.writers)],
		before: w.an.calls[:len(w.an.calls):len(w.an.calls)], cd: w.cd}
	for f := range w.written {
		l.written = append(l.written, f)
	}
	return l
}

// envWith is the environment the call runs under: the hook's, then what
// the line sets (set).
func (l *callLine) envWith(set map[string]string) map[string]string {
	if l == nil || l.files == nil {
		return set
	}
	return overlay(l.files.env, set)
}

// hasFS: the hook can look at the filesystem the call runs on.
func (l *callLine) hasFS() bool { return l != nil && l.files != nil && l.files.fs != nil }

// confKind is what the hook knows of a configuration file.
type confKind uint8

const (
	confAbsent confKind = iota // it does not exist and the line does not write it
	confRead                   // body holds it
	confCannot                 // why says what the hook cannot know
)

// confFile is one configuration file as the hook finds it.
type confFile struct {
	kind confKind
	body string
	// why completes "<client> reads <file>, …" when kind is confCannot.
	why string
	// written: the command line writes it before the call runs.
	written bool
}

// maxConfBytes bounds a configuration file the hook reads; maxConfDepth
// the files one file may pull in (curl -K inside a .curlrc, git's
// include.path, MySQL's !include).
const (
	maxConfBytes = 256 << 10
	maxConfDepth = 8
)

// open finds the configuration file p (absolute, or relative to the call's
// directory) as it will be when the call runs. named: the command line
// names it (-K FILE, CURL_HOME=…), so without a filesystem to look at the
// hook cannot know it; a default location is then taken as absent.
func (l *callLine) open(p string, named bool) confFile {
	switch {
	case p == "":
		return confFile{}
	case strings.Contains(p, unknownValue) || strings.Contains(p, unsetValue):
		if why := l.writes(p, p); why != "" {
			return confFile{kind: confCannot, why: why, written: true}
		}
		return confFile{kind: confCannot, why: "a path only known when it runs"}
	}
	abs := path.Clean(p)
	known := path.IsAbs(abs)
	if !known && l != nil && l.files != nil && path.IsAbs(l.files.cwd) && !l.cd {
		abs, known = path.Join(l.files.cwd, abs), true
	}
	if why := l.writes(p, abs); why != "" {
		return confFile{kind: confCannot, why: why, written: true}
	}
	if !known {
		switch {
		case l != nil && l.cd:
			return confFile{kind: confCannot, why: "a path relative to a directory the command line changes to first, which the hook does not follow"}
		case !named && !l.hasFS():
			return confFile{}
		}
		return confFile{kind: confCannot, why: "a path relative to a directory the hook does not know"}
	}
	if !l.hasFS() {
		if named {
			return confFile{kind: confCannot, why: "a file the hook cannot look at"}
		}
		return confFile{}
	}
	if strings.ContainsAny(abs, "*?[\\") {
		return confFile{kind: confCannot, why: "whose name the hook cannot look up (it holds glob characters)"}
	}
	if m, err := l.files.fs.Glob(abs); err != nil || len(m) == 0 {
		return confFile{}
	}
	fr, ok := l.files.fs.(FileReader)
	if !ok {
		return confFile{kind: confCannot, why: "whose options the hook does not read"}
	}
	b, err := fr.ReadFile(abs, maxConfBytes)
	if err != nil || slices.Contains(b, 0) {
		return confFile{kind: confCannot, why: "which the hook cannot read (unreadable, binary, or over 256 KiB)"}
	}
	return confFile{kind: confRead, body: string(b)}
}

// writes says how the command line may write file p (abs: its absolute
// form) before the call runs, "" when it does not.
func (l *callLine) writes(p, abs string) string {
	if l == nil {
		return ""
	}
	cwd := ""
	if l.files != nil {
		cwd = l.files.cwd
	}
	for _, f := range l.written {
		if sameConf(f, p, abs, cwd) {
			return "which this command line writes before it runs, so what it will hold cannot be known"
		}
	}
	for _, wr := range l.writers {
		for _, a := range wr.args {
			if sameFile(a, p) || sameFile(a, abs) || sameConf(a, p, abs, cwd) ||
				wr.content && distinctiveConf(path.Base(abs)) && strings.Contains(a, path.Base(abs)) {
				return "which " + wr.name + " earlier on this command line may write, so what it will hold cannot be known"
			}
		}
	}
	return ""
}

// sameConf: a path the line writes (as the shell word gave it) is the
// configuration file p / abs: the same path, or the same last two segments
// (.git/config), or the same distinctive name (.curlrc), however reached.
func sameConf(w, p, abs, cwd string) bool {
	w = path.Clean(w)
	switch {
	case w == path.Clean(p) || w == abs:
		return true
	case !path.IsAbs(w) && path.IsAbs(cwd) && path.Join(cwd, w) == abs:
		return true
	}
	if path.Base(w) != path.Base(abs) {
		return false
	}
	return distinctiveConf(path.Base(abs)) || path.Base(path.Dir(w)) == path.Base(path.Dir(abs)) && path.Dir(w) != "."
}

// distinctiveConf: a configuration file name no other file has by chance.
func distinctiveConf(base string) bool {
	switch strings.TrimPrefix(base, ".") {
	case "curlrc", "wgetrc", "wget2rc", "gitconfig", "my.cnf", "mylogin.cnf", "pg_service.conf", "psqlrc", "pgpass":
		return true
	}
	return false
}

// earlierTexts are the texts of the calls before this one: what a file the
// line writes, or a pipe, hands a client may be any of them.
func (l *callLine) earlierTexts() []string {
	if l == nil {
		return nil
	}
	var out []string
	for _, c := range l.before {
		out = append(out, c.texts()...)
	}
	return out
}

// homePath expands a leading ~/ with HOME (git's include.path, …).
func homePath(p string, env map[string]string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if h := env["HOME"]; h != "" && h != unknownValue && h != unsetValue {
			return path.Join(h, rest)
		}
		return unknownValue
	}
	return p
}

// envDir is a directory variable's value: ok is false when it is unset or
// empty (the client skips it); an unknown value is kept as unknownValue.
func envDir(env map[string]string, name string) (string, bool) {
	v, ok := env[name]
	if !ok || v == "" || v == unsetValue {
		return "", false
	}
	return v, true
}

// confVarSet: the command line sets one of vars for the call (a
// configuration location the hook must then look at).
func confVarSet(set map[string]string, vars ...string) bool {
	for _, v := range vars {
		if x, ok := set[v]; ok && x != unsetValue {
			return true
		}
	}
	return false
}
