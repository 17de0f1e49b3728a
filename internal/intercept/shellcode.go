package intercept

// The command-resolution table both Bash layers share: which programs are
// shells, which run another command given in their arguments (wrappers),
// and how to find that command.

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// wrapper describes a command that runs another command given in its
// arguments (sudo cmd, timeout 5 cmd, xargs cmd).
type wrapper struct {
	value       []string // options that take a value (-u user, --signal=KILL)
	positionals int      // operands before the command (timeout's duration)
	code        []string // options whose value is shell code (su -c, flock -c)
	onlyCode    bool     // runs nothing but its code option (su, script)
	noRun       []string // options after which nothing runs (command -v)
	assigns     bool     // NAME=value words set the command's environment (env)
	joinCode    bool     // the rest is joined and run by sh -c (watch)
}

var wrappers = sync.OnceValue(func() map[string]wrapper {
	return map[string]wrapper{
		"sudo": {value: []string{"-u", "-g", "-h", "-p", "-C", "-r", "-t", "-U", "-D", "-R", "-T",
			"--user", "--group", "--host", "--prompt", "--close-from", "--role", "--type", "--other-user", "--chdir", "--chroot", "--command-timeout"}, assigns: true},
		"doas":             {value: []string{"-u", "-C"}},
		"env":              {value: []string{"-u", "--unset", "-C", "--chdir"}, code: []string{"-S", "--split-string"}, assigns: true},
		"nohup":            {},
		"setsid":           {},
		"builtin":          {},
		"unbuffer":         {},
		"busybox":          {},
		"chroot":           {value: []string{"--userspec", "--groups"}, positionals: 1},
		"unshare":          {value: []string{"-S", "--setuid", "-G", "--setgid", "--propagation", "-R", "--root", "-w", "--wd"}},
		"nsenter":          {value: []string{"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "--root", "-w", "--wd"}},
		"setpriv":          {value: []string{"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--selinux-label", "--apparmor-profile"}},
		"taskset":          {value: []string{"-c", "--cpu-list"}, positionals: 1},
		"chrt":             {positionals: 1},
		"firejail":         {},
		"proxychains":      {value: []string{"-f"}},
		"proxychains4":     {value: []string{"-f"}},
		"torsocks":         {},
		"sg":               {code: []string{"-c"}, positionals: 1, joinCode: true}, // sg group 'cmd' runs sh -c cmd
		"catchsegv":        {},
		"fakeroot":         {},
		"systemd-run":      {value: []string{"-u", "--unit", "-p", "--property", "--slice", "-E", "--setenv", "--uid", "--gid", "-M", "--machine", "--description", "--working-directory"}},
		"dbus-run-session": {},
		"exec":             {value: []string{"-a"}},
		"command":          {noRun: []string{"-v", "-V"}},
		"nice":             {value: []string{"-n", "--adjustment"}},
		"ionice":           {value: []string{"-c", "-n", "--class", "--classdata"}},
		"timeout":          {value: []string{"-s", "--signal", "-k", "--kill-after"}, positionals: 1},
		"gtimeout":         {value: []string{"-s", "--signal", "-k", "--kill-after"}, positionals: 1},
		"time":             {value: []string{"-f", "--format", "-o", "--output"}},
		"stdbuf":           {value: []string{"-i", "-o", "-e", "--input", "--output", "--error"}},
		"flock":            {value: []string{"-w", "--timeout", "-E", "--conflict-exit-code"}, code: []string{"-c", "--command"}, positionals: 1},
		"su":               {value: []string{"-s", "--shell", "-g", "--group", "-G", "--supp-group"}, code: []string{"-c", "--command"}, onlyCode: true},
		"runuser":          {value: []string{"-s", "--shell", "-g", "--group", "-G", "--supp-group", "-u", "--user"}, code: []string{"-c", "--command"}},
		"script":           {value: []string{"-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing"}, code: []string{"-c", "--command"}, onlyCode: true},
		"strace":           {value: []string{"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X"}},
		"ltrace":           {value: []string{"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-n"}},
		"watch":            {value: []string{"-n", "--interval", "-d", "--differences", "-q", "--equexit"}, joinCode: true},
		"prlimit":          {value: []string{"-p", "--pid", "-o", "--output"}},
		"runcon":           {value: []string{"-u", "--user", "-r", "--role", "-t", "--type", "-l", "--range", "-c", "--compute"}},
		"numactl":          {value: []string{"-i", "--interleave", "-N", "--cpunodebind", "-m", "--membind", "-p", "--preferred", "-C", "--physcpubind"}},
		"setarch":          {positionals: 1},
		"linux32":          {},
		"linux64":          {},
		"chpst":            {value: []string{"-u", "-U", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c"}},
		"cgexec":           {value: []string{"-g"}},
		"faketime":         {value: []string{"-f"}, positionals: 1},
		"dbus-launch":      {},
		"chronic":          {},
		"xargs": {value: []string{"-I", "-n", "-P", "-L", "-l", "-s", "-d", "-E", "-e", "-a", "--max-args", "--max-procs",
			"--max-lines", "--max-chars", "--delimiter", "--eof", "--arg-file", "--process-slot-var"}},
	}
})

// dataPrograms never run their arguments as commands: the words after
// them are data (text, patterns, paths, URLs). Any other program the
// analysis does not know may run what it is given (a wrapper not in the
// table, a tool taking a script), so its arguments are read as code too.
var dataPrograms = wordSet{ // sorted
	":", "[", "[[", "base64", "basename", "break", "bzip2", "cat", "cd", "cd-", "chgrp", "chmod", "chown",
	"cmp", "column", "comm", "continue", "cp", "curl", "cut", "date", "dd", "declare", "df", "diff", "dirname",
	"dirs", "du", "echo", "egrep", "exit", "export", "false", "fgrep", "file", "fmt", "fold", "getopts", "grep",
	"gunzip", "gzip", "head", "history", "hostname", "id", "install", "jobs", "join", "jq", "kill", "less",
	"ln", "local", "ls", "md5sum", "mkdir", "mktemp", "more", "mv", "nc", "ncat", "nl", "od", "openssl",
	"paste", "popd", "printf", "pushd", "pwd", "read", "readlink", "readonly", "realpath", "return", "rev",
	"rg", "rm", "rmdir", "seq", "set", "sha1sum", "sha256sum", "sha512sum", "shift", "shopt", "sleep", "sort",
	"stat", "tac", "tail", "tee", "telnet", "test", "touch", "tr", "tree", "true", "type", "typeset", "ulimit",
	"umask", "uname", "uniq", "unset", "unzip", "wait", "wc", "wget", "which", "whoami", "xxd", "xz", "yes",
	"yq", "zcat",
}

// wrapped is what a wrapper's arguments say: the command it runs, the
// shell code its options carry, the environment it changes.
type wrapped struct {
	rest    []word            // the command it runs; empty: none
	code    []string          // values of its code options (su -c, flock -c)
	env     map[string]string // NAME=value it sets (unsetValue: removes)
	clear   bool              // env -i: the command runs with only env
	replace string            // xargs -I: the words it fills in from input
	dyn     bool              // an option only known when it runs
	noRun   bool              // nothing runs (command -v)
}

// splitWrapper reads a wrapper's arguments by its table entry.
func splitWrapper(name string, spec wrapper, args []word) wrapped {
	var out wrapped
	setEnv := func(k, v string) {
		if out.env == nil {
			out.env = map[string]string{}
		}
		out.env[k] = v
	}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a.dyn {
			out.dyn = true
			return out
		}
		s := a.s
		if s == "--" {
			i++
			break
		}
		if spec.assigns {
			if k, v, ok := strings.Cut(s, "="); ok && (envName(k) || strings.HasPrefix(k, "BASH_FUNC_")) {
				setEnv(k, v)
				continue
			}
			switch {
			case s == "-" || s == "-i" || s == "--ignore-environment":
				out.clear = true
				continue
			case strings.HasPrefix(s, "-u") && len(s) > 2:
				setEnv(s[2:], unsetValue)
				continue
			}
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		opt, val, hasVal := strings.Cut(s, "=")
		if containsStr(spec.noRun, opt) {
			out.noRun = true
			return out
		}
		isCode, isValue := containsStr(spec.code, opt), containsStr(spec.value, opt)
		if !isCode && !isValue && !hasVal && len(s) > 2 && s[1] != '-' {
			// A cluster of short flags (-qc, -lc) ending in one that takes a
			// value takes it from the next word; a code flag with its value
			// glued on (su -c'…', env -S'…') carries it.
			last := "-" + s[len(s)-1:]
			isCode, isValue = containsStr(spec.code, last), containsStr(spec.value, last)
			for j := 2; !isCode && !isValue && j < len(s); j++ {
				if f := "-" + s[j-1:j]; containsStr(spec.code, f) {
					isCode, val, hasVal = true, s[j:], true
				}
			}
		}
		if (isCode || isValue) && !hasVal && i+1 < len(args) {
			i++
			val, hasVal = args[i].s, true
			if args[i].dyn {
				out.dyn = true
				return out
			}
		}
		if isCode && hasVal {
			out.code = append(out.code, val)
		}
		if spec.assigns && hasVal && (opt == "-u" || opt == "--unset") {
			setEnv(val, unsetValue)
		}
		if name == "systemd-run" && hasVal && (opt == "-E" || opt == "--setenv") {
			if k, v, ok := strings.Cut(val, "="); ok && envName(k) {
				setEnv(k, v)
			}
		}
		if name == "xargs" {
			switch {
			case opt == "-I" && hasVal:
				out.replace = val
			case strings.HasPrefix(s, "-I") && len(s) > 2:
				out.replace = s[2:]
			case s == "-i" || s == "--replace":
				out.replace = "{}"
			case strings.HasPrefix(s, "-i") || opt == "--replace":
				out.replace = strings.TrimPrefix(strings.TrimPrefix(s, "-i"), "--replace=")
			}
		}
	}
	if spec.onlyCode {
		// su dev -c '…', script /dev/null -qc '…': options after operands.
		for ; i < len(args); i++ {
			s := args[i].s
			if len(s) < 2 || s[0] != '-' || strings.HasPrefix(s, "--") && !containsStr(spec.code, strings.SplitN(s, "=", 2)[0]) {
				continue
			}
			if v, ok := strings.CutPrefix(s, "--command="); ok {
				out.code = append(out.code, v)
				continue
			}
			for j := 1; j < len(s); j++ {
				if !containsStr(spec.code, "-"+s[j:j+1]) {
					continue
				}
				if j+1 < len(s) {
					out.code = append(out.code, s[j+1:])
				} else if i+1 < len(args) {
					i++
					if args[i].dyn {
						out.dyn = true
						return out
					}
					out.code = append(out.code, args[i].s)
				}
				break
			}
		}
		return out
	}
	for n := 0; n < spec.positionals && i < len(args); n++ {
		i++
	}
	if i < len(args) {
		out.rest = args[i:]
	}
	if name == "sudo" && out.rest != nil && slices.ContainsFunc(args[:i], func(a word) bool {
		return a.s == "--shell" || a.s == "--login" || len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-' && strings.ContainsAny(a.s, "si")
	}) {
		// sudo -s/-i cmd runs cmd through the shell's -c.
		out.code = append(out.code, joinWords(out.rest))
		out.rest = nil
	}
	return out
}

// unwrap drops wrapper commands (sudo, env X=y, timeout 5, su -c …) by the
// table the handler layer uses and returns the arguments from the command
// that really runs, with its base name, and the shell code the wrappers'
// options carry.
func unwrap(args []string) ([]string, string, []string) {
	var codes []string
	for len(args) > 0 {
		name := path.Base(args[0])
		spec, ok := wrappers()[name]
		if !ok || name == "xargs" {
			return args, name, codes // the path layer judges xargs itself
		}
		ws := make([]word, len(args)-1)
		for i, a := range args[1:] {
			ws[i] = word{s: a}
		}
		wr := splitWrapper(name, spec, ws)
		codes = append(codes, wr.code...)
		if wr.noRun {
			return nil, "", codes
		}
		args = args[len(args)-len(wr.rest):]
		if spec.joinCode && len(args) > 0 {
			codes = append(codes, strings.Join(args, " "))
			return nil, "", codes
		}
	}
	return nil, "", codes
}

// nonWriters never write a file's content (what their redirects write is
// followed apart): a file run after them is as it was.
var nonWriters = wordSet{ // sorted
	":", "[", "[[", "basename", "break", "cat", "cd", "chgrp", "chmod", "chown", "cmp", "command", "continue",
	"cut", "date", "declare", "df", "diff", "dirname", "du", "echo", "egrep", "env", "exit", "export", "false",
	"fgrep", "file", "find", "getopts", "grep", "head", "hostname", "id", "jobs", "jq", "kill", "less", "local",
	"ls", "mapfile", "mkdir", "more", "popd", "printf", "pushd", "pwd", "read", "readarray", "readlink",
	"readonly", "realpath", "return", "rg", "rm", "rmdir", "seq", "set", "shift", "shopt", "sleep", "stat",
	"tail", "test", "touch", "tr", "tree", "true", "type", "typeset", "ulimit", "umask", "uname", "unset",
	"wait", "wc", "which", "whoami",
}

// mayWrite reports whether a command may write files the analysis does
// not follow (tee, dd, sort -o, an archiver, an interpreter, a program it
// does not know).
func mayWrite(name string, args []string) bool {
	if !nonWriters.has(name) {
		return true
	}
	if name == "find" {
		return slices.ContainsFunc(args, func(a string) bool {
			return a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir" || a == "-fprint" || a == "-fprintf" || a == "-fls" || a == "-fprint0"
		})
	}
	return false
}

// dropBytes makes a parsed script read as bash runs it: a NUL in an ANSI-C
// string ($'\0', $'\x00', $'\c@') ends that string there, so ji$'\c@'ra
// runs jira. Each $'…' becomes the plain text bash makes of it.
func dropBytes(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		sq, ok := n.(*syntax.SglQuoted)
		if !ok || !sq.Dollar {
			return true
		}
		sq.Value = ctrlEscapes(sq.Value)
		// A config of its own: with nil, expand prepares one shared default
		// config, a data race between concurrent decisions.
		s, err := expand.Literal(&expand.Config{}, &syntax.Word{Parts: []syntax.WordPart{sq}})
		if err != nil {
			return true
		}
		if i := strings.IndexByte(s, 0); i >= 0 {
			s = s[:i]
		}
		sq.Dollar, sq.Value = false, s
		return true
	})
}

// controlBytes reports a byte in a command line that bash drops or that
// reads differently from what is shown (NUL, CR, other control bytes).
func controlBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 && b != '\t' && b != '\n' || b == 0x7f {
			return true
		}
	}
	return false
}

// writer is a command that may write files the analysis does not follow.
type writer struct {
	name    string
	args    []string
	content bool // it writes content it is given or unpacks (tee, tar, cp …)
}

// contentWriter reports a command that writes files with content it is
// given, copies or unpacks: whatever such a line runs next may be its
// output, named or not (tar xf a.tar; ./run.sh).
func contentWriter(name string, args []string) bool {
	switch name {
	case "tee", "dd", "cp", "mv", "install", "ln", "rsync", "scp", "tar", "bsdtar", "unzip", "cpio", "pax", "7z", "7za", "7zz",
		"ar", "patch", "truncate", "curl", "wget", "ed", "ex", "vim", "vi", "busybox", "gunzip", "bunzip2", "unxz", "unzstd",
		"base64", "base32", "xxd", "uudecode", "openssl", "split", "csplit", "sponge", "rclone", "uniq":
		return true
	case "sort":
		return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-o") || strings.HasPrefix(a, "--output") })
	case "sed":
		return true // -i, or a w command in its script
	case "awk", "gawk", "mawk", "nawk", "perl", "ruby", "node", "nodejs", "php", "lua":
		return true
	case "git":
		// Sub-commands that write the work tree (what a later command on the
		// line runs may be what they checked out).
		for _, a := range args {
			switch a {
			case "checkout", "switch", "pull", "merge", "rebase", "reset", "restore", "stash", "cherry-pick", "revert",
				"apply", "am", "clone", "worktree", "archive", "read-tree", "checkout-index", "submodule":
				return true
			}
		}
		return false
	case "gzip", "xz", "zstd", "bzip2":
		return slices.Contains(args, "-d") || slices.Contains(args, "--decompress")
	}
	if strings.HasPrefix(name, "python") {
		return slices.ContainsFunc(args, func(a string) bool { return a == "-c" || a == "tarfile" || a == "zipfile" || a == "shutil" })
	}
	return false
}

// sameFile reports whether a writer's argument names the file run (as
// written, or as its base name).
func sameFile(arg, file string) bool {
	if v, ok := strings.CutPrefix(arg, "of="); ok {
		arg = v
	}
	return arg != "" && (path.Clean(arg) == path.Clean(file) || path.Base(arg) == path.Base(file) && strings.Contains(arg, "/"))
}

// ctrlEscapes spells bash's \cX escapes (which the expander does not know)
// as \xNN; \c@ (NUL) ends the string.
func ctrlEscapes(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 >= len(v) {
			b.WriteByte(v[i])
			continue
		}
		if v[i+1] == 'c' && i+2 < len(v) {
			ctrl := v[i+2] & 0x1f
			if ctrl == 0 {
				break
			}
			fmt.Fprintf(&b, "\\x%02x", ctrl)
			i += 2
			continue
		}
		b.WriteString(v[i : i+2])
		i++
	}
	return b.String()
}

// Limits on what the Bash layers parse: nested $( was analysed in about
// quadratic time (7,000 levels took 43 s, past Claude Code's hook timeout),
// so a command over them is denied before it is parsed.
const (
	maxCommandBytes = 256 << 10
	maxParenDepth   = 128
	maxBackquotes   = 256
)

// overLimits says why a command is too large or too deeply nested to be
// analysed ("" when it is not).
func overLimits(command string) string {
	if len(command) > maxCommandBytes {
		return fmt.Sprintf("the command is %d bytes, more than the %d the hook analyses", len(command), maxCommandBytes)
	}
	depth, quotes := 0, 0
	for i := 0; i < len(command); i++ {
		switch command[i] {
		case '(', '{':
			if depth++; depth > maxParenDepth {
				return fmt.Sprintf("the command nests brackets more than %d deep", maxParenDepth)
			}
		case ')', '}':
			depth = max(depth-1, 0)
		case '`':
			if quotes++; quotes > maxBackquotes {
				return fmt.Sprintf("the command has more than %d backquotes", maxBackquotes)
			}
		}
	}
	return ""
}
