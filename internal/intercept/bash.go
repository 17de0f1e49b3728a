package intercept

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/shellname"
)

// analysis is what the hook reads from a Bash command line before it runs:
// every simple command it would run, with its words as the shell will see
// them, and why what would run cannot be known, if it cannot.
type analysis struct {
	calls []call
	// unknown is set when the command line runs something whose name (or
	// code) is only known when it runs: "$a$b" with unknown a/b, eval of a
	// non-literal, source, a shell reading its script from stdin, a glob or
	// $(…) in command position, a wrapper whose command comes from its input.
	unknown string
	// sockets are the hosts bash itself connects to through /dev/tcp/HOST/PORT
	// or /dev/udp/… redirects, as tcp://HOST:PORT (unknownValue: not known).
	sockets []string
	// files is where the line runs (set by Decide), for the configuration
	// files its clients read (targets_conf.go).
	files lineFiles
}

// word is one shell word after expansion.
type word struct {
	s string
	// dyn: the word depends on something only known when the command runs
	// (an unknown variable, $(…), $@, an xargs/find replacement).
	dyn bool
	// glob: the word has an unquoted glob in it (matters in command position).
	glob bool
}

// call is one simple command of a Bash command line, with the environment
// it runs under as far as the command line itself sets it.
type call struct {
	text  string // as printed (quoting kept)
	words []word // after quote removal, brace and known-variable expansion
	// env holds the variables the command line assigns before or inline
	// with this call; a value of unknownValue could not be read statically.
	env map[string]string
	// set is env as the command line set it, kept when env is widened to
	// the full environment for the checks.
	set map[string]string
	// opaque names the program the analysis does not know whose arguments
	// this call was read from: it may run it, under an environment and with
	// options the hook cannot see.
	opaque string
	// suffix: the call is an unknown program's arguments from an operand
	// on, read as a command as they stand (not code parsed out of a word).
	suffix bool
	// line is what the command line did before the call (targets_conf.go).
	line *callLine
}

// unknownValue marks an assignment whose value is not known statically.
const unknownValue = "\x00unknown"

// unsetValue marks a variable the command line removes (unset X, env -u X,
// env -i): the call runs without it, whatever the hook's environment says.
const unsetValue = "\x00unset"

// maxNesting bounds bash -c / eval / alias re-parsing.
const maxNesting = 4

// analyseBash parses a command line. base is the hook's environment: the
// variables the command starts with.
func analyseBash(command string, base map[string]string, read func(string) (string, bool), exists func(name, pathVar string) bool, isLink func(string) bool) *analysis {
	a := &analysis{}
	w := &walker{an: a, base: base, printer: syntax.NewPrinter(), written: map[string]string{}, taint: map[string]bool{},
		numeric: map[string]bool{}, intVars: map[string]bool{}, piped: map[*syntax.Stmt]bool{}, pipeIn: map[*syntax.Stmt]string{}, funcs: map[string]bool{}, read: read, exists: exists, isLink: isLink}
	w.env.base, w.env.taint = base, w.taint
	w.cfg = &expand.Config{Env: &w.env,
		CmdSubst:  func(io.Writer, *syntax.CmdSubst) error { w.env.missing = true; return nil },
		ProcSubst: func(*syntax.ProcSubst) (string, error) { w.env.missing = true; return "/dev/fd/63", nil },
	}
	if controlBytes(command) {
		w.deny("the command holds control bytes (NUL, CR, …) that bash drops or reads differently from what is shown")
		return a
	}
	w.nested(command, map[string]string{}, 0)
	return a
}

// lineEnv is the environment expansion reads: the command line's own
// assignments over the hook's environment. Reading a variable neither
// defines (or one assigned a non-literal) marks the word as dynamic.
type lineEnv struct {
	base, line map[string]string
	taint      map[string]bool
	missing    bool
}

func (e *lineEnv) Get(name string) expand.Variable {
	if e.taint[name] {
		e.missing = true
		return expand.Variable{}
	}
	v, ok := e.line[name]
	if !ok {
		v, ok = e.base[name]
	}
	if v == unsetValue {
		return expand.Variable{} // known to be empty
	}
	if !ok || v == unknownValue {
		// IFS and PWD are read by every expansion: unset, they take their
		// defaults; an IFS assigned a value only known at run time splits
		// words in ways the hook cannot follow.
		if (name != "IFS" && name != "PWD") || v == unknownValue {
			e.missing = true
		}
		return expand.Variable{}
	}
	return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}
}

func (e *lineEnv) Each(func(string, expand.Variable) bool) {}

type walker struct {
	an *analysis
	// written maps the files this command line writes (cat > x.sh <<EOF)
	// to their content when it is a literal here-doc, else to unknownValue.
	written map[string]string
	base    map[string]string
	env     lineEnv
	cfg     *expand.Config
	printer *syntax.Printer
	// assigned logs every variable the line assigns, exports or unsets, in
	// order; taint holds those changed by code the walk reads apart from
	// the line's own state (eval, trap, alias, builtin/command export,
	// ${X:=v}): from then on their values are unknown.
	assigned []string
	taint    map[string]bool
	// lenient > 0 while scanning quoted text that might run later as code
	// (bash evaluates a[$(cmd)] in arithmetic): its commands are recorded,
	// nothing in it is denied.
	lenient int
	// opaque is the unknown program whose arguments are being read as
	// code (calls found there are recorded as opaque).
	opaque string
	// writers are the commands of the line that may write files the
	// analysis cannot follow; a file run after one may be its output.
	writers []writer
	suffix  bool // the next call recorded is an opaque suffix
	// numeric holds variables whose value is unknown but free of code (a
	// loop over literal words, an arithmetic result): safe in arithmetic.
	numeric map[string]bool
	// intVars are declared -i: every value assigned to them is arithmetic.
	intVars map[string]bool
	// stmt is the statement being walked; piped holds those that read a
	// pipe (where an interpreter's program may come from).
	stmt  *syntax.Stmt
	piped map[*syntax.Stmt]bool
	// pipeIn holds the text a piped statement reads when the command
	// before it prints what the hook knows (printf 'cmd' | ed).
	pipeIn map[*syntax.Stmt]string
	// read returns a script file's content from the filesystem (nil: no
	// filesystem); cd is set once the line changes directory, after which
	// relative names are not read.
	read func(string) (string, bool)
	cd   bool
	// exists reports whether a bare command name finds a program in a
	// PATH (nil: the hook cannot look, so every name may).
	exists func(name, pathVar string) bool
	// isLink reports a symbolic link (nil: the hook cannot tell): a file
	// read from disk through one may be a file the line wrote.
	isLink func(string) bool
	// funcs are the functions the line defines.
	funcs map[string]bool
	// hasInput: the line redirects input, pipes or uses exec somewhere;
	// shadowed: it defines aliases or enables builtins, so echo and
	// printf may not be the builtins.
	hasInput, shadowed bool
}

func (w *walker) deny(format string, args ...any) {
	if w.an.unknown == "" && w.lenient == 0 {
		w.an.unknown = fmt.Sprintf(format, args...)
	}
}

// nested parses and walks code (the whole line, or a bash -c / eval /
// alias string) under env.
func (w *walker) nested(code string, env map[string]string, depth int) {
	if depth > maxNesting {
		w.deny("the command nests shell code more than %d levels deep", maxNesting)
		return
	}
	f, ok := w.parse(code, depth)
	if !ok {
		return
	}
	if in, sh := lineInput(f); w.lenient == 0 {
		w.hasInput, w.shadowed = w.hasInput || in, w.shadowed || sh
	}
	saved := w.stmt
	defer func() { w.stmt = saved }()
	state := clone(env)
	// Assignments in a subshell, $(…), <(…), a pipe or a background job do
	// not reach the rest of the line; those in a branch, loop, function body
	// or after && / || may or may not: on leaving such a node, the state is
	// restored, or every variable it changed becomes unknown.
	type frame struct {
		role scopeRole
		snap map[string]string
	}
	var stack []frame
	roles := map[syntax.Node]scopeRole{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			fr := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			w.leaveScope(state, fr.role, fr.snap)
			return true
		}
		fr := frame{role: w.scopeOf(n, roles)}
		if fr.role != scopeNone {
			fr.snap = clone(state)
		}
		stack = append(stack, fr)
		w.visit(n, state, depth)
		return true
	})
}

// parse parses code as bash; a failure denies the line (unless lenient),
// and ok is false.
func (w *walker) parse(code string, depth int) (_ *syntax.File, ok bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(code), "")
	if err != nil && w.lenient > 0 {
		return nil, false
	}
	if err != nil {
		if depth == 0 {
			w.deny("the command does not parse as shell (%v)", err)
		} else {
			w.deny("it runs shell code that does not parse (%v)", err)
		}
		return nil, false
	}
	dropBytes(f)
	return f, true
}

// scopeOf is how leaving n treats the assignments made inside it; roles
// holds what n's parent decided for its children (a pipe's sides, what
// follows && / ||).
func (w *walker) scopeOf(n syntax.Node, roles map[syntax.Node]scopeRole) scopeRole {
	role := roles[n]
	switch n := n.(type) {
	case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
		role = scopeRestore
	case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause, *syntax.FuncDecl:
		role = max(role, scopeMerge)
	case *syntax.Stmt:
		if n.Background || n.Coprocess {
			role = scopeRestore
		}
	case *syntax.BinaryCmd:
		switch n.Op {
		case syntax.Pipe, syntax.PipeAll:
			roles[n.X], roles[n.Y] = scopeRestore, scopeRestore
			w.piped[n.Y] = true
		case syntax.AndStmt, syntax.OrStmt:
			roles[n.Y] = max(roles[n.Y], scopeMerge)
		}
	}
	return role
}

// visit judges one node of the line under state, and applies what it
// assigns.
func (w *walker) visit(n syntax.Node, state map[string]string, depth int) {
	switch n := n.(type) {
	case *syntax.Stmt:
		w.redirects(n, state)
		w.stmt = n
	case *syntax.SglQuoted:
		// '$(cmd)' or '`cmd`' is text here, but bash runs it when the
		// text reaches an arithmetic context: x='a[$(cmd)]'; [[ $x -eq 1 ]].
		if strings.Contains(n.Value, "$(") || strings.Contains(n.Value, "`") {
			w.lenient++
			w.nested(`: "`+n.Value+`"`, clone(state), depth+1)
			w.lenient--
		}
	case *syntax.ParamExp:
		// ${X:=v} and ${X=v} assign X as they expand.
		if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
			w.taint[n.Param.Value] = true
		}
		w.paramExp(state, n)
		w.promptExp(state, n)
	case *syntax.ArrayElem:
		if n.Index != nil {
			w.arith(state, n.Index)
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet {
			if wd, ok := n.X.(*syntax.Word); ok {
				for _, x := range w.expandWord(state, wd) {
					w.subscripted(state, x, "[[ -v … ]]")
				}
			}
		}
	case *syntax.ArithmExp:
		w.arith(state, n.X)
	case *syntax.ArithmCmd:
		w.arith(state, n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			w.arith(state, x)
		}
	case *syntax.Assign:
		if n.Index != nil {
			w.arith(state, n.Index)
		}
	case *syntax.BinaryTest:
		if isTestArith(n.Op) {
			for _, x := range []syntax.TestExpr{n.X, n.Y} {
				if wd, ok := x.(*syntax.Word); ok {
					w.arithWord(state, wd)
				}
			}
		}
	case *syntax.DeclClause:
		w.declClause(n, state)
	case *syntax.ForClause:
		w.forClause(n, state)
	case *syntax.FuncDecl:
		if n.Name != nil {
			w.funcs[n.Name.Value] = true
		}
	case *syntax.BinaryCmd:
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			w.pipeText(n, state)
		}
	case *syntax.CallExpr:
		w.callExpr(n, state, depth)
	}
}

// declClause applies declare / local / export … with their options: -n
// is denied, -i marks integer variables, any option makes a value unknown.
func (w *walker) declClause(n *syntax.DeclClause, state map[string]string) {
	flagged := false // declare -n (nameref), -a, -i, …: not a plain value
	flags := ""
	for _, a := range n.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			flagged = true
			if lit, ok := wordLit(a.Value); ok && strings.HasPrefix(lit, "-") {
				flags += lit[1:]
			} else {
				w.deny("%s is given options only known when it runs", n.Variant.Value)
			}
		}
	}
	if strings.Contains(flags, "n") {
		w.deny("%s -n makes a name refer to another variable, so what its assignments change is not known", n.Variant.Value)
	}
	for _, a := range n.Args {
		if strings.Contains(flags, "i") && a.Name != nil {
			w.intVars[a.Name.Value] = true
		}
		w.persist(state, a)
		if flagged && a.Name != nil {
			state[a.Name.Value] = unknownValue
		}
	}
}

// forClause makes a loop's variable and arithmetic known as far as they
// can be before the loop runs.
func (w *walker) forClause(n *syntax.ForClause, state map[string]string) {
	// The loop variable takes values only known as the loop runs;
	// over literal words, it holds no code.
	if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
		w.loopVar(state, wi)
	}
	if cl, ok := n.Loop.(*syntax.CStyleLoop); ok {
		for _, x := range []syntax.ArithmExpr{cl.Init, cl.Cond, cl.Post} {
			if x != nil {
				w.arith(state, x)
			}
		}
	}
}

// callExpr judges one simple command: a bare VAR=x persists; otherwise the
// command is judged with its words and env, and the builtins that assign
// (export, unset, read, …) change state.
func (w *walker) callExpr(n *syntax.CallExpr, state map[string]string, depth int) {
	if len(n.Args) == 0 {
		for _, a := range n.Assigns {
			w.persist(state, a) // a bare VAR=x persists
		}
		return
	}
	callEnv := clone(state)
	for k := range w.taint {
		callEnv[k] = unknownValue
	}
	for _, a := range n.Assigns {
		w.assign(callEnv, a) // VAR=x cmd: only for this call
	}
	var words []word
	for _, a := range n.Args {
		words = append(words, w.expandWord(state, a)...)
	}
	var buf bytes.Buffer
	_ = w.printer.Print(&buf, &syntax.CallExpr{Args: n.Args})
	w.command(buf.String(), words, callEnv, depth, false)
	w.copies(words)
	if len(words) > 0 && !words[0].dyn {
		w.builtinAssigns(words, state, buf.String())
	}
}

// builtinAssigns applies what an assigning builtin (export, readonly,
// declare, typeset, local, unset, read, …) does to state; line is the
// command, for messages.
func (w *walker) builtinAssigns(words []word, state map[string]string, line string) {
	switch words[0].s {
	case "export", "readonly", "declare", "typeset", "local":
		for _, a := range words[1:] {
			if k, v, found := strings.Cut(a.s, "="); found && envName(k) {
				if a.dyn {
					v = unknownValue
				}
				w.special(k, v, a.dyn, line)
				setPersistent(state, k, v)
				w.assigned = append(w.assigned, k)
			}
		}
	case "unset":
		fn := false
		for _, a := range words[1:] {
			switch {
			case a.dyn:
				w.deny("unset removes variables only known when it runs (%q)", clip.String(line, 80))
			case a.s == "-f":
				fn = true
			case !fn && envName(a.s):
				setPersistent(state, a.s, unsetValue)
				w.assigned = append(w.assigned, a.s)
			default:
				w.subscripted(state, a, line)
			}
		}
	case "read", "mapfile", "readarray", "getopts", "printf", "wait":
		w.readsInto(state, words, line)
	}
}

// redirects records the files a statement writes, with the here-doc or
// here-string that fills them when there is one.
func (w *walker) redirects(st *syntax.Stmt, state map[string]string) {
	body, hasBody := unknownValue, false
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if text, ok := w.docText(r.Hdoc, state); ok {
				body, hasBody = text, true
			} else {
				body, hasBody = unknownValue, true // expanded when it runs
			}
		case syntax.WordHdoc:
			if r.Word != nil {
				if ws := w.expandWord(state, r.Word); len(ws) == 1 && !ws[0].dyn {
					body, hasBody = ws[0].s, true
				}
			}
		}
	}
	if hasBody && !w.catsStdin(st, state) {
		body = unknownValue // base64 -d <<< x > f: not the here-doc's text
	}
	if ce, ok := st.Cmd.(*syntax.CallExpr); ok && !hasBody && len(ce.Assigns) == 0 && len(ce.Args) > 0 && len(st.Redirs) == 1 &&
		(st.Redirs[0].Op == syntax.RdrOut || st.Redirs[0].Op == syntax.RdrClob) && st.Redirs[0].N == nil {
		// echo/printf of literal words > file: its content is known.
		var words []word
		for _, a := range ce.Args {
			words = append(words, w.expandWord(state, a)...)
		}
		if len(words) > 0 && (words[0].s == "echo" || words[0].s == "printf") {
			body, hasBody = w.printed(words)
			if !hasBody {
				body = unknownValue
			}
		}
	}
	for _, r := range st.Redirs {
		if r.Word == nil {
			continue
		}
		for _, t := range w.expandWord(state, r.Word) {
			rest, ok := strings.CutPrefix(path.Clean(t.s), "/dev/tcp/")
			if !ok {
				rest, ok = strings.CutPrefix(path.Clean(t.s), "/dev/udp/")
			}
			switch {
			case ok && t.dyn:
				w.an.sockets = append(w.an.sockets, unknownValue)
			case ok:
				host, port, _ := strings.Cut(rest, "/")
				w.an.sockets = append(w.an.sockets, "tcp://"+host+":"+port)
			case t.dyn && strings.HasPrefix(t.s, "/dev/"):
				w.an.sockets = append(w.an.sockets, unknownValue)
			}
		}
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
			if r.Word == nil {
				continue
			}
			for _, t := range w.expandWord(state, r.Word) {
				if t.dyn {
					continue
				}
				if hasBody {
					w.written[cleanPath(t.s)] = body
				} else {
					w.written[cleanPath(t.s)] = unknownValue
				}
			}
		}
	}
}

func cleanPath(p string) string { return path.Clean(p) }

// copies records the file a cp, ln, mv or install writes as one whose
// content the hook cannot read: a program copied or linked under another
// name (ln -s /usr/bin/j* /tmp/x; /tmp/x issue create) runs unrecognised.
func (w *walker) copies(words []word) {
	if len(words) < 3 || words[0].dyn {
		return
	}
	switch path.Base(words[0].s) {
	case "cp", "ln", "mv", "install", "rsync":
	default:
		return
	}
	if dest := words[len(words)-1]; !dest.dyn && !strings.HasPrefix(dest.s, "-") {
		w.written[cleanPath(dest.s)] = unknownValue // copied over: what it held before is gone
	}
}

// runsWritten handles a command or script this command line wrote itself:
// its here-doc is read as code; other content cannot be.
func (w *walker) runsWritten(file, text string, env map[string]string, depth int) bool {
	// The same file spelled another way (x.sh, $PWD/x.sh, /tmp/x.sh after
	// cd /tmp) is matched by its base name, and then its content is not
	// known: it may be another file.
	body, ok := w.writtenText(file)
	if !ok {
		for _, wr := range w.writers {
			if wr.content || slices.ContainsFunc(wr.args, func(a string) bool { return sameFile(a, file) }) {
				w.deny("it runs %s, which %s earlier on the line may have written, with content the hook cannot read (%q)", file, wr.name, clip.String(text, 80))
				return true
			}
		}
		w.readScript(file, env, depth)
		return false
	}
	if body == unknownValue {
		w.deny("it runs %s, which this command line writes with content the hook cannot read (%q)", file, clip.String(text, 80))
		return true
	}
	w.nested(body, env, depth+1)
	return true
}

func envName(s string) bool { return s != "" && envNameRE().MatchString(s) }

// expandWord expands one word as the shell would in an argument: quotes
// removed, braces expanded, known variables substituted. It never fails: a
// word that cannot be expanded is kept as printed and marked dynamic.
func (w *walker) expandWord(env map[string]string, wd *syntax.Word) []word {
	w.env.line, w.env.missing = env, false
	fields, err := expand.Fields(w.cfg, wd)
	glob := hasGlob(wd)
	if err != nil {
		var buf bytes.Buffer
		_ = w.printer.Print(&buf, wd)
		return []word{{s: buf.String(), dyn: true, glob: glob}}
	}
	dyn := w.env.missing
	if len(fields) == 0 {
		if dyn {
			return []word{{dyn: true}}
		}
		return nil
	}
	out := make([]word, len(fields))
	for i, f := range fields {
		out[i] = word{s: f, dyn: dyn, glob: glob}
	}
	return out
}

// assign records an assignment's value in env: its expansion when it is
// known, unknownValue when it is not.
func (w *walker) assign(env map[string]string, a *syntax.Assign) {
	if v, ok := w.value(env, a); ok {
		env[a.Name.Value] = v
		w.special(a.Name.Value, v, false, a.Name.Value+"=…")
	}
}

// value is what an assignment sets its variable to, read under env; ok is
// false when it sets nothing (declare x, a flag).
func (w *walker) value(env map[string]string, a *syntax.Assign) (string, bool) {
	switch {
	case a.Name == nil || a.Naked:
		return "", false
	case a.Array != nil || a.Append || a.Index != nil:
		return unknownValue, true
	case a.Value == nil:
		return "", true
	}
	w.env.line, w.env.missing = env, false
	v, err := expand.Literal(w.cfg, a.Value)
	if err != nil || w.env.missing {
		v = unknownValue
	}
	return v, true
}

// persist records an assignment that outlives its statement. The walk
// reads the line in order but does not follow subshells, branches or loops,
// so a variable given two different values is only known at run time:
// x=jira; (x=ls); $x runs jira.
func (w *walker) persist(state map[string]string, a *syntax.Assign) {
	if v, ok := w.value(state, a); ok {
		k := a.Name.Value
		w.special(k, v, false, k+"=…")
		prev, had := state[k]
		setPersistent(state, k, v)
		// Two code-free values (i=0 … i=1) leave it unknown but code-free.
		w.numeric[k] = had && state[k] == unknownValue && (codeFree(prev) || w.numeric[k]) && codeFree(v)
		w.assigned = append(w.assigned, a.Name.Value)
	}
}

// scopeRole is what leaving a node does to the line's variables.
type scopeRole int

const (
	scopeNone    scopeRole = iota
	scopeMerge             // may or may not have run: changes become unknown
	scopeRestore           // ran in a subshell: changes are dropped
)

// leaveScope applies role to state on leaving a node; snap is the state on
// entering it.
func (w *walker) leaveScope(state map[string]string, role scopeRole, snap map[string]string) {
	switch role {
	case scopeRestore:
		clear(state)
		for k, v := range snap {
			state[k] = v
		}
	case scopeMerge:
		for k, v := range state {
			old, ok := snap[k]
			if !ok {
				if old, ok = w.base[k]; !ok {
					old = unsetValue
				}
			}
			if old != v {
				state[k] = unknownValue
				w.numeric[k] = (codeFree(old) || w.numeric[k]) && (codeFree(v) || w.numeric[k])
			}
		}
	}
}

func setPersistent(state map[string]string, k, v string) {
	if old, ok := state[k]; ok && old != v {
		v = unknownValue
	}
	state[k] = v
}

// hasGlob reports an unquoted, unescaped glob character in a word.
func hasGlob(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.ExtGlob:
			return true
		case *syntax.Lit:
			esc := false
			for i, r := range p.Value {
				switch {
				case esc:
					esc = false
				case r == '\\':
					esc = true
				case r == '*' || r == '?':
					return true
				case r == '[' && strings.Contains(p.Value[i+1:], "]"):
					return true
				}
			}
		}
	}
	return false
}

// command records one simple command and what it runs in turn: the real
// command of a wrapper, the code of eval / sh -c / alias / trap, the
// command of find -exec. appended: the command's arguments get more words
// from its input (xargs), so a wrapper left with no command runs input.
func (w *walker) command(text string, words []word, env map[string]string, depth int, appended bool) {
	w.an.calls = append(w.an.calls, call{text: text, words: words, env: env, opaque: w.opaque, suffix: w.suffix, line: w.callLine()})
	w.suffix = false
	if len(words) == 0 {
		return
	}
	name := words[0]
	// A glob character in the name, even one that came out of a variable
	// (x='j*'; $x), is matched against files only when it runs.
	if name.dyn || name.glob || strings.ContainsAny(name.s, "*?") || strings.Contains(name.s, "[") && strings.Contains(name.s[strings.Index(name.s, "[")+1:], "]") {
		w.deny("the command name in %q is only known when it runs", clip.String(text, 80))
		return
	}
	base := path.Base(name.s)
	args := words[1:]
	defer w.noteWriter(base, args)
	if base == "cd" || base == "pushd" || base == "popd" {
		w.cd = true
	}
	if !strings.Contains(name.s, "/") {
		w.pathLookup(name.s, text, env)
	}
	if (base == "test" || base == "[") && len(args) > 1 {
		for i, a := range args[:len(args)-1] {
			if a.s == "-v" {
				w.subscripted(env, args[i+1], text)
			}
		}
	}
	if strings.Contains(name.s, "/") && w.runsWritten(name.s, text, env, depth) {
		return
	}
	code := func(from []word, what string) {
		for _, a := range from {
			if a.dyn {
				w.deny("%s runs code that is only known when it runs (%q)", what, clip.String(text, 80))
				return
			}
		}
		w.nested(joinWords(from), env, depth+1)
	}
	// Code that runs in this shell (eval, trap, alias) is walked apart: what
	// it assigns is unknown to the rest of the line.
	from := len(w.assigned)
	defer func() {
		for _, k := range w.assigned[from:] {
			w.taint[k] = true
		}
	}()
	switch {
	case base == "eval":
		code(args, "eval")
	case base == "source" || base == ".":
		w.source(base, text, args, env, depth)
	case base == "parallel":
		w.deny("parallel runs commands built from its input (%q)", clip.String(text, 80))
	case base == "fc" && !slices.ContainsFunc(args, func(a word) bool { return !a.dyn && strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "l") }):
		w.deny("fc runs commands from the shell's history, which the hook does not read (%q)", clip.String(text, 80))
	case shellname.Is(base):
		w.projectCode(base, text, wordTexts(args))
		w.shell(base, text, args, env, depth, appended)
	case w.callbacks(base, text, args, env, depth, code):
	case base == "alias":
		for _, a := range args {
			if _, v, ok := strings.Cut(a.s, "="); ok {
				code([]word{{s: v, dyn: a.dyn}}, "alias")
			}
		}
	case base == "find":
		w.findExec(args, env, depth)
	default:
		if spec, ok := wrappers()[base]; ok {
			w.unwrap(base, text, spec, args, clone(env), depth, appended)
			return
		}
		w.programOptions(base, text, args, env, depth)
		w.stdinProgram(base, text, args, env, depth)
		if _, runner := stdinRunners()[base]; runner || !slices.Contains(interpreters, base) && !strings.HasPrefix(base, "python") {
			w.stdinCode(base, text, args, env, depth, appended)
		}
		if base == "git" {
			w.gitPager(args, env, depth) // git grep -O runs a pager command (git.go)
		}
		if !w.interpreterCode(base, text, args) && !dataPrograms.has(base) && !(base == "git" && gitTakesData(args, env)) {
			w.unknownProgram(base, args, env, depth)
		}
	}
}

// shell handles sh/bash/…: -c code is parsed; a script file is a command
// like any other; reading the script from stdin cannot be checked.
func (w *walker) shell(name, text string, args []word, env map[string]string, depth int, appended bool) {
	sawC, sawS := false, false
	var operand *word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dyn {
			w.deny("%s is given words only known when it runs (%q)", name, clip.String(text, 80))
			return
		}
		s := a.s
		if s == "-" || s == "--" {
			sawS = sawS || s == "-"
			if i+1 < len(args) {
				operand = &args[i+1]
			}
			break
		}
		if len(s) > 1 && (s[0] == '-' || s[0] == '+') {
			switch s {
			case "--rcfile", "--init-file":
				w.deny("%s %s sources a file the hook does not read (%q)", name, s, clip.String(text, 80))
				return
			case "-o", "+o", "-O", "+O":
				i++
				continue
			}
			if !strings.HasPrefix(s, "--") {
				sawC = sawC || strings.ContainsRune(s, 'c')
				sawS = sawS || strings.ContainsRune(s, 's')
			}
			continue
		}
		operand = &args[i]
		break
	}
	for _, v := range []string{"BASH_ENV", "ENV"} {
		if env[v] != "" {
			w.deny("%s makes %s source a file first, which the hook does not read (%q)", v, name, clip.String(text, 80))
			return
		}
	}
	if !sawC && operand != nil {
		switch p := cleanPath(operand.s); {
		case p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/"):
			sawS = true
		case w.runsWritten(operand.s, text, env, depth):
			return
		}
	}
	switch {
	case sawC && operand == nil:
		w.deny("%s -c gets its code from its input (%q)", name, clip.String(text, 80))
	case sawC && operand.dyn:
		w.deny("%s -c runs code only known when it runs (%q)", name, clip.String(text, 80))
	case sawC:
		w.nested(operand.s, env, depth+1)
	case (sawS || operand == nil) && !appended && w.stmt != nil && w.stdinOf(w.stmt, w.env.line).kind == inKnown:
		w.nested(w.stdinOf(w.stmt, w.env.line).text, env, depth+1)
	case sawS || operand == nil:
		w.deny("%s reads its script from standard input (a pipe, here-doc, here-string or file), which the hook cannot read (%q)", name, clip.String(text, 80))
	}
}

// unwrap finds the command a wrapper runs and records it in turn.
func (w *walker) unwrap(name, text string, spec wrapper, args []word, env map[string]string, depth int, appended bool) {
	wr := splitWrapper(name, spec, args)
	if wr.dyn {
		w.deny("%s is given options only known when it runs (%q)", name, clip.String(text, 80))
		return
	}
	if wr.clear {
		// The command runs with only what follows.
		for k := range w.base {
			env[k] = unsetValue
		}
		for k := range env {
			env[k] = unsetValue
		}
	}
	for k, v := range wr.env {
		env[k] = v
		w.special(k, v, false, text)
	}
	for _, code := range wr.code {
		w.nested(code, env, depth+1)
	}
	if wr.noRun {
		return
	}
	replace := wr.replace
	rest := wr.rest
	if len(rest) == 0 {
		if appended {
			w.deny("%s runs a command that comes from its input (%q)", name, clip.String(text, 80))
		}
		if bareShells()[name] && len(wr.code) == 0 && !appended {
			// su, chroot, unshare … with no command run a shell, which
			// reads its commands from stdin.
			switch src := w.stdinOf(w.stmt, w.env.line); src.kind {
			case inKnown:
				w.stdinCommands(name, runsShell, src.text, env, depth)
			case inUnknown:
				w.deny("%s runs a shell that reads its commands from stdin (%s), which the hook cannot read (%q)", name, src.from, clip.String(text, 80))
			}
		}
		return // xargs alone runs echo; env alone prints
	}
	if name == "xargs" {
		rest = markReplaced(rest, replace)
		appended = true
	}
	if spec.joinCode {
		for _, a := range rest {
			if a.dyn {
				w.deny("%s runs code only known when it runs (%q)", name, clip.String(text, 80))
				return
			}
		}
		w.nested(joinWords(rest), env, depth+1)
		return
	}
	switch path.Base(rest[0].s) {
	case "export", "declare", "typeset", "readonly", "local", "unset", "read", "mapfile", "readarray", "printf", "getopts":
		// builtin export X=…, command export X=…: the shell's own state.
		for _, a := range rest[1:] {
			if k, _, _ := strings.Cut(a.s, "="); envName(k) {
				w.taint[k] = true
			}
		}
	}
	w.command(joinWords(rest), rest, env, depth, appended)
}

// findExec records the commands of find's -exec, -execdir, -ok and -okdir.
func (w *walker) findExec(args []word, env map[string]string, depth int) {
	for i := 0; i < len(args); i++ {
		switch args[i].s {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(args) && args[j].s != ";" && args[j].s != "+" {
			j++
		}
		sub := markReplaced(args[i+1:j], "{}")
		w.command(joinWords(sub), sub, env, depth, false)
		i = j
	}
}

// markReplaced marks the words that xargs or find fill in from their input.
func markReplaced(words []word, replace string) []word {
	if replace == "" {
		return words
	}
	out := make([]word, len(words))
	for i, a := range words {
		out[i] = a
		if strings.Contains(a.s, replace) {
			out[i].dyn = true
		}
	}
	return out
}

func joinWords(words []word) string {
	var b strings.Builder
	for i, a := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.s)
	}
	return b.String()
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// texts are the forms of a call the filters are tried on: as printed, with
// the shell's quoting undone, and with the words between the command and
// each of its next few words left out (kubectl --context prod apply is also
// read as "kubectl prod apply" and "kubectl apply"), the command named by
// its base name.
func (c call) texts() []string {
	out := []string{c.text}
	if len(c.words) == 0 {
		return out
	}
	if u := joinWords(c.words); u != c.text {
		out = append(out, u)
	}
	name := path.Base(c.words[0].s)
	if name != c.words[0].s {
		out = append(out, name+" "+joinWords(c.words[1:]))
	}
	// A few later words, options or not, may be the sub-command: options
	// with values (--context prod), braces ({kubectl,x} apply).
	for i := 2; i < len(c.words) && i <= 5; i++ {
		out = append(out, name+" "+joinWords(c.words[i:]))
	}
	return out
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
