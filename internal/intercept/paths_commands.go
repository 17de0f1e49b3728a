package intercept

// What each kind of command does with the paths it is given: readers,
// copiers, listers, tree readers, git, cd.

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/shellname"
)

// Commands by what they do with a directory argument.
var (
	interpreters = []string{"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "luajit", "Rscript", "tclsh", "jshell", "osascript", "pwsh", "irb", "gawk", "awk", "mawk", "nawk", "busybox",
		"R", "julia", "elixir", "groovy", "scala", "racket", "ghc", "clojure", "kotlin", "crystal", "nim", "raku", "guile", "erl", "sbcl", "clisp", "ecl", "expect", "gdb", "sqlite3", "duckdb"}
	// copiers read their sources whole, directories included when asked.
	copiers = []string{"cp", "mv", "ln", "install", "rsync", "scp", "rclone", "link", "ditto"}
	// treeReaders read the contents of every file below a directory.
	treeReaders = []string{"rg", "ag", "ack", "ugrep", "rgrep", "tar", "bsdtar", "zip", "7z", "7za", "7zz", "jar", "pax", "cpio", "mksquashfs", "genisoimage", "mkisofs", "duplicity", "borg", "restic", "tree-sitter", "sha256deep", "md5deep", "hashdeep", "ctags", "cscope", "rm", "shred", "diff", "colordiff", "git"}
	// listers print names only.
	listers = []string{"find", "fd", "fdfind", "ls", "tree", "du", "locate"}
	// consumers turn names they read into arguments.
	consumers = []string{"xargs", "parallel", "read", "mapfile", "readarray", "cpio"}
	// walkIdioms in interpreter code walk a directory tree.
	walkIdioms = lazyre.New(`chdir|os\.walk|\bwalk\(|rglob|recursive\s*=\s*True|\bglob\(|\bglob\.glob|iglob|listdir|scandir|readdirSync|readdir|Dir\.glob|Dir\[|Find\.find|File::Find|opendir|\bfind\b|os\.system|subprocess|exec\(|child_process|spawn|system\(|\bopen\(\s*[^'"\s)]|getline|` + "`")
	// buildIdioms build a string at run time (concatenation, decoding,
	// formatting): denied when the code also opens or reads files.
	buildIdioms = lazyre.New(`["']\s*\*\s*["']|\bjoin\(|\.join\b|"\s+"|'\s+'|["']\s*[+.]\s*["']|["']\s*\.\.\s*["']|b64decode|base64|atob|Buffer\.from|decode\(|unpack|\bchr\(|fromCharCode|\\x[0-9a-fA-F]|\\[0-7]{3}|%c|sprintf|format\(|\bf["']|\$\{|reverse|\[::-1\]`)
	fileIdioms  = lazyre.New(`open|read|File|fs\.|Path|cat\b|<\s*\w|\bio\.|require|import|load|include|eval`)
)

// call applies what a simple command does with its arguments: the code
// its wrappers run, the code it runs besides itself, the directory it runs
// in, the names computed when it runs, then what its kind of command does.
func (c *pathCheck) call(ce *syntax.CallExpr, depth int) *pathDeny {
	for _, a := range ce.Assigns {
		c.assign(a)
	}
	if pd := c.laterCode(ce); pd != nil {
		return pd
	}
	name, args, argWords, pd := c.unwrapCall(ce, depth)
	if pd != nil || name == "" {
		return pd
	}
	rest := args[1:]
	defer c.noteWriter(name, rest)
	if pd := c.runsOtherCode(name, args, depth); pd != nil {
		return pd
	}
	if pd := c.chdirOption(name, rest); pd != nil {
		return pd
	}
	if pd := c.computedNames(ce, name, rest, argWords, depth); pd != nil {
		return pd
	}
	return c.byKind(ce, name, rest, depth)
}

// unwrapCall expands the command's words and drops its wrappers (env,
// nice, su -c, …), judging the shell code they run. name is the command
// left ("" if none), args its fields from its name on, argWords the words
// after its name.
func (c *pathCheck) unwrapCall(ce *syntax.CallExpr, depth int) (name string, args []string, argWords []*syntax.Word, _ *pathDeny) {
	ends := make([]int, len(ce.Args)) // ends[i]: the fields of words up to i
	for i, w := range ce.Args {
		args = append(args, c.words(w)...)
		ends[i] = len(args)
	}
	all := len(args)
	args, name, codes := unwrap(args)
	for _, code := range codes {
		// su -c, flock -c, script -c, sg -c, env -S, watch: shell code.
		if c.builtAtRunTime(ce) {
			return "", nil, nil, c.cannot("a wrapper runs shell code that is built when the command runs, so the paths it reads cannot be checked")
		}
		if pd := c.analyse(code, depth+1); pd != nil {
			return "", nil, nil, pd
		}
	}
	// argWords are the words after the command's name (pathWrappers dropped).
	argWords = ce.Args[len(ce.Args):]
	for i, e := range ends {
		if e > all-len(args) {
			argWords = ce.Args[i+1:]
			break
		}
	}
	return name, args, argWords, nil
}

// runsOtherCode judges the code a command runs besides itself: a
// convention's (a Makefile, package.json scripts, …), less's !cmd, a
// program given by path, options that run a command.
func (c *pathCheck) runsOtherCode(name string, args []string, depth int) *pathDeny {
	rest := args[1:]
	if c.lenient == 0 {
		if why := conventionCode(name, rest, slices.Collect(maps.Keys(c.written)), c.writers); why != "" {
			return c.cannot(why + ", so the files it opens cannot be checked")
		}
	}
	if name == "less" || name == "more" {
		for _, a := range rest {
			if cmd, ok := strings.CutPrefix(a, "+"); ok && strings.ContainsAny(cmd, "!|") {
				c.lenient++
				pd := c.analyse(cmd[strings.IndexAny(cmd, "!|")+1:], depth+1)
				c.lenient--
				if pd != nil {
					return pd
				}
			}
		}
	}
	if strings.Contains(args[0], "/") {
		if pd := c.runsFile(args[0], depth); pd != nil {
			return pd
		}
	}
	if slices.Contains(consumers, name) {
		c.consumer = name
	}
	if runsArgs.has(name) {
		// tar -I/--to-command, zip -TT, rsync -e, ssh, git -c: options that
		// run a command.
		if pd := c.opaque(rest, depth); pd != nil {
			return pd
		}
	}
	return nil
}

// chdirOption denies a command whose -C / --directory / --cwd … option
// makes it run in a denied directory.
func (c *pathCheck) chdirOption(name string, rest []string) *pathDeny {
	for i, a := range rest {
		dir, ok := "", false
		switch {
		case (a == "-C" || a == "--directory" || a == "--prefix" || a == "--cwd" || a == "--chdir" || a == "-chdir" || a == "--workdir" || a == "-w" && name == "docker") && i+1 < len(rest):
			dir, ok = rest[i+1], true
		case strings.HasPrefix(a, "--directory=") || strings.HasPrefix(a, "--prefix=") || strings.HasPrefix(a, "-chdir=") || strings.HasPrefix(a, "--cwd=") || strings.HasPrefix(a, "--chdir="):
			dir, ok = a[strings.Index(a, "=")+1:], true
		}
		if !ok {
			continue
		}
		if class, rule, abs := c.classify(dir); class != classNone {
			if inner, _ := c.classOf(c.normalise(dir) + "/x"); inner == classHit || class == classHit {
				return &pathDeny{rule: rule, why: fmt.Sprintf("%s runs in %s, a denied directory", name, c.show(abs))}
			}
		}
	}
	return nil
}

// computedNames denies a command that works on names computed when it
// runs (decoded text, a file xargs reads, $(…) in a reader's file names).
func (c *pathCheck) computedNames(ce *syntax.CallExpr, name string, rest []string, argWords []*syntax.Word, depth int) *pathDeny {
	if decoder(name, rest) {
		if c.subst {
			return c.cannot(name + " decodes text into a command's arguments, so the paths they name cannot be checked")
		}
		c.decoded = name
	}
	if name == "xargs" || name == "parallel" {
		if name == "xargs" {
			if pd, ok := c.xargsInput(ce, rest, depth); ok {
				return pd // names the hook reads
			}
		}
		if kind, _ := c.stdin(ce); kind == stdinFile || slices.ContainsFunc(rest, func(a string) bool { return strings.HasPrefix(a, "-a") || strings.HasPrefix(a, "--arg-file") }) {
			return c.cannot(name + " takes the names it works on from a file the hook cannot read")
		}
	}
	if slices.Contains(readers, name) && slices.ContainsFunc(fileWords(name, argWords), c.computed) {
		return c.cannot(name + " reads a file whose name is computed when the command runs ($(…) or a variable the hook cannot know)")
	}
	if c.decoded != "" && (name == "xargs" || name == "parallel") {
		return c.cannot("xargs runs on names that " + c.decoded + " decodes, so the paths they name cannot be checked")
	}
	return nil
}

// byKind applies what the command's kind does with its arguments: cd,
// eval, source, shells, interpreters, copiers, listers, grep -r, tree
// readers; a program it does not know is judged by its arguments.
func (c *pathCheck) byKind(ce *syntax.CallExpr, name string, rest []string, depth int) *pathDeny {
	switch {
	case name == "cd" || name == "pushd" || name == "popd":
		c.cd(name, rest)
		return nil
	case name == "eval":
		for _, w := range ce.Args[1:] {
			if _, lit := wordLit(w); !lit {
				return c.cannot("eval runs a string that is built when the command runs, so the paths it reads cannot be checked")
			}
		}
		return c.analyse(strings.Join(rest, " "), depth+1)
	case name == "source" || name == ".":
		if len(rest) > 0 && activation(rest[0]) {
			return nil // a virtualenv or shell set-up script (docs/security.md#which-layer-stops-what)
		}
		if len(rest) > 0 && rest[0] == "--" {
			rest = rest[1:]
		}
		if len(rest) == 0 || strings.Contains(rest[0], unknownGlob) {
			return c.cannot(name + " runs the commands of a file named only when it runs, so the paths they touch cannot be checked")
		}
		if !strings.Contains(rest[0], "/") && c.onPath(rest[0]) {
			return c.cannot(fmt.Sprintf("%s %s may find a file of that name on PATH, which the hook does not read; give its path (./%s)", name, rest[0], rest[0]))
		}
		return c.runsFile(rest[0], depth) // read like a script it runs
	case shellname.Is(name) || name == "busybox":
		return c.shell(ce, name, rest, depth)
	case name == "sqlite3" || name == "duckdb":
		return c.sqlite(ce, name, rest, depth)
	case stdinRunners()[name] == runsVim && readsCommands(name, rest):
		// vim's Ex commands can build a name and open it (:execute "e " . f).
		if kind, doc := c.stdin(ce); kind == stdinDoc {
			for _, line := range strings.Split(doc, "\n") {
				if !vimPlain(line) {
					return c.cannot(name + " runs Ex commands from its input that may build a file name, so what it opens cannot be checked")
				}
			}
		} else if kind == stdinPipe || kind == stdinFile {
			return c.cannot(name + " runs Ex commands from input the hook does not read, so what it opens cannot be checked")
		}
	case slices.Contains(interpreters, name):
		if module, ops, ok := pythonArchiver(rest); ok && strings.HasPrefix(name, "python") {
			return c.treeRead(name+" -m "+module, ops)
		}
		if server(name, rest) {
			return c.treeRead(name+" serving files", []string{"."})
		}
		return c.interpreter(ce, name, rest)
	case slices.Contains(copiers, name):
		return c.copier(name, rest)
	case slices.Contains(listers, name):
		return c.lister_(name, rest)
	case name == "grep" || name == "egrep" || name == "fgrep" || name == "zgrep":
		if recursive(rest, "rR", "--recursive", "--dereference-recursive", "--directories=recurse", "-drecurse") || hasPair(rest, "-d", "recurse") || hasPair(rest, "--directories", "recurse") {
			skip := 1 // the pattern, unless -e or -f gives it
			if slices.ContainsFunc(rest, func(a string) bool {
				return a == "-e" || a == "-f" || strings.HasPrefix(a, "--regexp") || strings.HasPrefix(a, "--file") || strings.HasPrefix(a, "-e") && len(a) > 2
			}) {
				skip = 0
			}
			ops := operands(withoutValues(rest, "-e", "-f", "-d", "-m", "-A", "-B", "-C", "--include", "--exclude", "--exclude-dir"), skip)
			if len(ops) == 0 {
				ops = []string{"."} // grep -r with no file searches the cwd
			}
			if !recursive(rest, "R", "--dereference-recursive") {
				ops = c.withoutExcluded(ops, rest)
				if len(ops) == 0 {
					return nil
				}
			} else if pd := c.followRead(name+" -R", ops); pd != nil {
				return pd
			}
			return c.treeRead(name+" -r", ops)
		}
	case slices.Contains(treeReaders, name):
		return c.treeReader(name, rest)
	case name == "chmod" || name == "chown" || name == "chgrp" || name == "touch" || name == "mkdir" || name == "stat" || name == "test" || name == "[" || name == "[[" || name == "file" || name == "realpath" || name == "readlink" || name == "basename" || name == "dirname":
		return nil
	}
	if !knownProgram(name) {
		return c.opaque(rest, depth)
	}
	return nil
}

// shell judges a shell run with -c code, a script file or a script on
// its stdin.
func (c *pathCheck) shell(ce *syntax.CallExpr, name string, rest []string, depth int) *pathDeny {
	if code, ok := codeArg(name, rest); ok {
		if !c.literalCode(ce, name) {
			return c.cannot(name + " -c runs a script that is built when the command runs, so the paths it reads cannot be checked")
		}
		return c.analyse(code, depth+1)
	}
	if file := scriptArg(rest); file != "" && file != "-" && file != "/dev/stdin" && !slices.Contains(rest, "-s") {
		return c.runsFile(file, depth) // a script file: runs like ./script (docs/security.md#which-layer-stops-what: what the layer cannot see)
	}
	switch kind, doc := c.stdin(ce); kind {
	case stdinDoc:
		return c.analyse(doc, depth+1)
	case stdinPipe:
		return c.cannot(name + " reads its script from a pipe, so the commands it runs cannot be checked")
	case stdinFile:
		if file := c.stdinFile(ce); file != "" && file != "/dev/null" {
			return c.runsFile(file, depth) // sh < script.sh: runs like sh script.sh
		}
	}
	return nil
}

func (c *pathCheck) cd(name string, rest []string) {
	target := ""
	for _, a := range rest {
		if a != "--" && !(strings.HasPrefix(a, "-") && a != "-") {
			target = a
			break
		}
	}
	prev := c.cwd
	switch {
	case name == "popd":
		return
	case target == "":
		target = c.env["HOME"]
	case target == "-":
		target = c.oldpwd
	}
	if target == "" || strings.Contains(target, unknownGlob) {
		// An unknown directory: keep judging from the root, where the
		// denied paths are, and from every directory it may be (cd sec*,
		// cd $(echo secret)).
		if c.fs != nil && target != "" {
			if m, err := c.fs.Glob(c.normalise(target)); err == nil {
				for _, d := range m {
					if d = c.resolve(d); !slices.Contains(c.cwds, d) {
						c.cwds = append(c.cwds, d)
					}
				}
			}
		}
		c.cwd = c.p.root
	} else {
		c.cwd = c.normalise(target)
		if c.fs != nil {
			c.cwd = c.resolve(c.cwd)
		}
	}
	c.oldpwd = prev
	if !slices.Contains(c.cwds, c.cwd) {
		c.cwds = append(c.cwds, c.cwd)
	}
}

// copier: cp/mv/ln/rsync of a denied path or a directory holding one is a
// read of it (the copy or link escapes the rule; the link may not exist
// yet when the hook runs).
func (c *pathCheck) copier(name string, rest []string) *pathDeny {
	ops := operands(rest, 0)
	srcs := ops
	if len(ops) > 1 && !slices.ContainsFunc(rest, func(a string) bool { return a == "-t" || strings.HasPrefix(a, "--target-directory") }) {
		srcs = ops[:len(ops)-1]
	}
	for _, s := range srcs {
		if class, rule, abs := c.classify(s); class != classNone {
			return &pathDeny{rule: rule, why: fmt.Sprintf("%s of %s would copy or link a denied path out of the rule's reach", name, c.show(abs))}
		}
	}
	return nil
}

// lister_: names only, allowed, unless it runs a command per file
// (find -exec) or the line hands its names on.
func (c *pathCheck) lister_(name string, rest []string) *pathDeny {
	ops := operands(rest, 0)
	if name == "find" {
		ops = nil
		for _, a := range rest {
			if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
				break
			}
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	if name == "ls" && !recursive(rest, "R", "--recursive") {
		// Plain ls lists a denied directory's own files only when given it.
		for _, o := range ops {
			if class, _, abs := c.classify(o); class == classAncestor {
				if inner, _ := c.classOf(abs + "/x"); inner == classHit {
					c.lister = "ls " + c.show(abs)
					if c.subst {
						c.consumer = "a command substitution"
					}
				}
			}
		}
		return nil
	}
	if name == "find" && slices.ContainsFunc(rest, func(a string) bool { return a == "-execdir" || a == "-okdir" }) {
		if _, ok := findExpr(rest); !ok {
			return c.cannot("find -execdir runs a command in each folder it finds, where its relative names or code mean other files")
		}
	}
	if name == "find" && slices.ContainsFunc(rest, func(a string) bool { return a == "-L" || a == "-follow" || a == "-H" }) {
		if pd := c.followRead("find", ops); pd != nil {
			return pd
		}
	}
	for _, o := range ops {
		class, rule, abs := c.classify(o)
		if class == classNone {
			continue
		}
		if name == "find" && c.findMissesDenied(rest, o, abs) {
			continue // its tests select none of the denied files there
		}
		if name == "find" && slices.ContainsFunc(rest, func(a string) bool {
			return a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir" || a == "-delete" || a == "-fprint" || a == "-fls"
		}) {
			return &pathDeny{rule: rule, why: fmt.Sprintf("find runs a command on the files below %s, which holds a denied path", c.show(abs))}
		}
		c.lister = name + " " + c.show(abs)
		if c.subst {
			c.consumer = "a command substitution"
		}
	}
	return nil
}

// treeReader: archivers, recursive searchers, git's tree commands.
func (c *pathCheck) treeReader(name string, rest []string) *pathDeny {
	switch name {
	case "tar", "bsdtar":
		if !tarCreates(rest) {
			return nil
		}
		if slices.ContainsFunc(rest, func(a string) bool {
			return tarLong(a) == "--dereference" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && tarShortFlag(a, 'h')
		}) {
			if pd := c.followRead(name+" -h", tarOperands(rest)); pd != nil {
				return pd
			}
		}
		if v, ok := c.env["TAR_OPTIONS"]; ok && v != "" {
			return c.cannot("tar takes options from TAR_OPTIONS, so what it reads cannot be checked")
		}
		if pd := c.tarFilesFrom(rest); pd != nil {
			return pd
		}
		ops := tarOperands(rest)
		if ops = c.withoutTarExcluded(ops, rest); len(ops) == 0 && len(tarExcludes(rest)) > 0 {
			return nil
		}
		return c.treeRead(name, ops)
	case "zip":
		if !recursive(rest, "rR", "--recurse-paths") {
			return nil
		}
		if !slices.Contains(rest, "-y") && !slices.Contains(rest, "--symlinks") {
			if pd := c.followRead("zip -r", operands(rest, 1)); pd != nil {
				return pd // zip follows links unless -y
			}
		}
		return c.treeRead(name, operands(rest, 1))
	case "rm", "shred":
		if name == "rm" && !recursive(rest, "rR", "--recursive") {
			return nil
		}
		return c.treeRead(name+" -r", operands(rest, 0))
	case "diff", "colordiff":
		if !recursive(rest, "r", "--recursive") {
			return nil
		}
		return c.treeRead(name+" -r", operands(rest, 0))
	case "git":
		return c.git(rest)
	case "rg", "ag", "ack", "ugrep":
		if slices.Contains(rest, "--files") {
			c.lister = name + " --files"
			return nil
		}
		return c.treeRead(name, operands(rest, 1))
	}
	return c.treeRead(name, operands(rest, 0))
}

// treeRead denies when any operand (the cwd when there is none) is a
// directory that holds a denied path.
func (c *pathCheck) treeRead(what string, ops []string) *pathDeny {
	if len(ops) == 0 {
		ops = []string{"."}
	}
	for _, o := range ops {
		if class, rule, abs := c.classify(o); class != classNone {
			hint := ""
			if strings.HasPrefix(what, "grep -r") {
				hint = " (exclude it with --exclude-dir, or search the directories beside it)"
			}
			return &pathDeny{rule: rule, why: fmt.Sprintf("%s reads every file below %s, which holds a denied path%s", what, c.show(abs), hint)}
		}
	}
	return nil
}

func (c *pathCheck) git(rest []string) *pathDeny {
	saved := c.cwd
	defer func() { c.cwd = saved }()
	i := 0
	for i < len(rest) && strings.HasPrefix(rest[i], "-") {
		if (rest[i] == "-C" || rest[i] == "-c" || rest[i] == "--git-dir" || rest[i] == "--work-tree") && i+1 < len(rest) {
			if rest[i] == "-C" {
				c.cwd = c.normalise(rest[i+1])
			}
			i++
		}
		i++
	}
	if i >= len(rest) {
		return nil
	}
	sub, args := rest[i], rest[i+1:]
	switch sub {
	case "add", "grep", "archive":
		if sub == "add" && slices.ContainsFunc(args, func(a string) bool { return a == "-A" || a == "--all" }) {
			return c.treeRead("git add -A", []string{"."})
		}
		ops := operands(args, 0)
		if sub == "grep" {
			ops = operands(args, 1)
		}
		if sub == "archive" {
			return c.treeRead("git archive", []string{"."})
		}
		if sub == "add" && len(ops) == 0 {
			return nil
		}
		return c.treeRead("git "+sub, ops)
	case "stash":
		if slices.ContainsFunc(args, func(a string) bool { return a == "-u" || a == "--include-untracked" || a == "-a" || a == "--all" }) {
			return c.treeRead("git stash -u", []string{"."})
		}
	case "ls-files":
		// Untracked files are listed by name, denied ones included; the
		// names are then as good as find's (git ls-files -o | xargs cat).
		if slices.ContainsFunc(args, func(a string) bool {
			return a == "--others" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "o")
		}) {
			ops := operands(args, 0)
			if len(ops) == 0 {
				ops = []string{"."}
			}
			for _, o := range ops {
				if class, _, abs := c.classify(o); class != classNone {
					c.lister = "git ls-files --others " + c.show(abs)
					if c.subst {
						c.consumer = "a command substitution"
					}
				}
			}
		}
	case "cat-file":
		// A blob named by its hash cannot be told apart from any other.
		return c.cannot("git cat-file prints objects by hash, which may be a denied file's content")
	}
	switch sub {
	case "log", "show", "diff", "blame", "annotate", "format-patch", "whatchanged", "grep", "archive", "stash", "difftool":
		// Content from history: a pathspec at or below a denied directory.
		for _, o := range operands(args, 0) {
			if class, rule, abs := c.classify(o); class == classAncestor {
				if inner, _ := c.classOf(abs + "/x"); inner == classHit {
					return &pathDeny{rule: rule, why: fmt.Sprintf("git %s prints the content of %s from history, a denied path", sub, c.show(abs))}
				}
			}
		}
	}
	return nil
}

// operands are the non-option arguments after skip of them (a pattern).
func operands(args []string, skip int) []string {
	var out []string
	dashdash := false
	for _, a := range args {
		if !dashdash && a == "--" {
			dashdash = true
			continue
		}
		if !dashdash && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	if len(out) < skip {
		return nil
	}
	return out[skip:]
}

// recursive reports whether args hold a short flag among letters or one of
// the long forms.
func recursive(args []string, letters string, long ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			if slices.Contains(long, a) {
				return true
			}
			continue
		}
		if strings.HasPrefix(a, "-") && strings.ContainsAny(a[1:], letters) {
			return true
		}
	}
	return false
}

// hasPair reports whether args hold flag immediately followed by value.
func hasPair(args []string, flag, value string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag && args[i+1] == value {
			return true
		}
	}
	return false
}

// withoutValues drops the value after each of the given options (-e PAT,
// --include GLOB), so that it is not taken for an operand.
func withoutValues(args []string, flags ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if slices.Contains(flags, args[i]) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// decoder reports whether a command turns encoded text into other text
// (which may be a path): base64 -d, xxd -r, rev, tr, printf with escapes …
func decoder(name string, rest []string) bool {
	switch name {
	case "base64", "base32", "basenc":
		return slices.ContainsFunc(rest, func(a string) bool {
			return a == "-d" || a == "--decode" || strings.HasPrefix(a, "-") && strings.Contains(a, "d") && !strings.HasPrefix(a, "--")
		})
	case "xxd":
		return slices.ContainsFunc(rest, func(a string) bool { return strings.HasPrefix(a, "-r") || a == "-revert" })
	case "openssl", "uudecode", "rev", "tr", "zcat", "gunzip", "gzip", "bzcat", "xzcat", "zstdcat", "unxz", "iconv", "recode", "od", "hexdump":
		return name != "gzip" || slices.Contains(rest, "-d")
	case "printf", "echo":
		for _, a := range rest {
			if strings.Contains(a, "\\") {
				return true
			}
		}
	}
	return false
}

// readers print or copy the contents of the files they are given.
var readers = []string{"cat", "tac", "head", "tail", "less", "more", "most", "nl", "rev", "sort", "uniq", "cut", "paste", "fold", "fmt", "pr",
	"od", "xxd", "hexdump", "hd", "strings", "base64", "base32", "basenc", "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "sed", "awk", "gawk",
	"cp", "mv", "ln", "rsync", "scp", "tar", "zip", "gzip", "bzip2", "xz", "zstd", "dd", "diff", "cmp", "comm", "join", "wc",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "iconv", "jq", "yq", "vi", "vim", "view", "nano", "emacs", "ed", "ex"}

// fileWords are the words of a reader's arguments that may name files:
// for grep, sed, awk and friends, not the pattern or program that comes
// first (unless -e/-f gives it).
func fileWords(name string, args []*syntax.Word) []*syntax.Word {
	switch name {
	case "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "sed", "awk", "gawk", "jq", "yq":
	default:
		return args
	}
	for i, w := range args {
		lit, ok := wordLit(w)
		if ok && (lit == "-e" || lit == "-f" || strings.HasPrefix(lit, "--regexp") || strings.HasPrefix(lit, "--file") || lit == "--expression") {
			return args
		}
		if !ok || !strings.HasPrefix(lit, "-") {
			return append(slices.Clone(args[:i]), args[i+1:]...)
		}
	}
	return args
}

// activation reports whether a sourced file is a virtualenv or shell set-up
// script: sourcing those is everyday work, and they run no more than
// `bash script.sh` would (which the layer does not see into either).
func activation(file string) bool {
	base := path.Base(file)
	return strings.HasSuffix(file, "bin/activate") || base == "nvm.sh" || strings.HasSuffix(file, ".cargo/env") ||
		base == ".bashrc" || base == ".profile" || base == ".bash_profile" || base == ".zshrc"
}

// withoutExcluded drops the grep -r operands whose denied paths below
// are all excluded by --exclude-dir (matched, as grep does, against
// directory names).
func (c *pathCheck) withoutExcluded(ops, args []string) []string {
	var excludes []string
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--exclude-dir="); ok {
			excludes = append(excludes, strings.Trim(v, "/"))
		} else if a == "--exclude-dir" && i+1 < len(args) {
			excludes = append(excludes, strings.Trim(args[i+1], "/"))
		}
	}
	return c.notExcluded(ops, excludes)
}

// notExcluded drops the operands whose denied paths below are all
// excluded: the denied pattern's next directory below the operand must be
// a literal name one of the exclude patterns matches.
func (c *pathCheck) notExcluded(ops, excludes []string) []string {
	if len(excludes) == 0 {
		return ops
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	var out []string
	for _, o := range ops {
		abs := c.normalise(o)
		if c.fs != nil {
			if r, err := c.fs.EvalSymlinks(abs); err != nil || r != abs {
				out = append(out, o) // a link (link/ → secret): judged whole
				continue
			}
		}
		segs := splitPath(abs)
		covered := true
		for _, d := range c.denied {
			if hit, anc := matchSegs(d.segs, segs); !hit && !anc {
				continue
			}
			next := ""
			if len(d.segs) > len(segs) && slices.Equal(d.segs[:len(segs)], segs) {
				next = d.segs[len(segs)]
			}
			if next == "" || hasMeta(next) || !slices.ContainsFunc(excludes, func(e string) bool { ok, _ := fnmatch(e, next); return ok }) {
				covered = false
				break
			}
		}
		if !covered {
			out = append(out, o)
		}
	}
	return out
}
