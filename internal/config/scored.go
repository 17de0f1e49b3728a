package config

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/pathutil"
)

// handlersFile is the compiled inputs.tools beside eval.yaml, which the
// hook reads (hook.HandlersFile).
const handlersFile = "tool_handlers.yaml"

// ScoredFiles are the absolute paths the run's tamper check fingerprints:
// what scoring (and the hook) reads, not every file of eval.yaml's folder,
// so that a file the user writes there while the run goes on (run.log, from
// agent-eval run 2> run.log or | tee run.log) is no tampering. whole are
// read whole (a file, or a folder and everything under it); python are
// folders of which only what Python can import from them counts.
//
// whole holds:
//   - eval.yaml and its tool_handlers.yaml;
//   - the dataset (dataset.path) and the sources of shared workspace files
//     (relative to projectRoot);
//   - the files the judges name: an llm judge's prompt_file and context
//     files, a module judge's module file, an exec judge's program and the
//     paths in eval.yaml's folder its arguments (or the words of a shell
//     line) name, as execArgv reads them, and any judge's string arguments
//     that name a path in eval.yaml's folder (expected: answers.json);
//   - the judge's own folder, whole, when it is a folder below eval.yaml's
//     (judges/ for exec: judges/check.sh, python3 judges/score.py or
//     module: judges.score): what a judge reads beside itself (through
//     $AGENT_EVAL_CONFIG_DIR or __file__) is kept there.
//
// python holds eval.yaml's folder (and an exec judge's Python script's own
// folder outside it): check, module and exec judges import from there, and
// only .py sources are ever loaded (score's _source_only: no .pyc, .so or
// .pth), so its *.py files and links that could stand for a module or
// package count, and nothing else there does.
//
// Not covered: a file directly in eval.yaml's folder (or outside the
// judge's own folder) that a judge's code opens by itself without naming it
// in eval.yaml; keep such files in the judge's folder, or name them. Each
// path appears once; a path inside another is left out.
func (e *Eval) ScoredFiles(projectRoot string) (whole, python []string) {
	abs := func(base, p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		return filepath.Clean(p)
	}
	var dir string
	if e.path != "" {
		dir = abs(projectRoot, e.Dir())
		whole = append(whole, abs(projectRoot, e.originPath()), filepath.Join(dir, handlersFile))
		python = append(python, dir)
	}
	if d := e.DatasetDir(); d != "" {
		whole = append(whole, abs(projectRoot, d))
	}
	if w := e.Dataset.Workspace; w != nil {
		for _, f := range w.Files {
			if f.Source != "" {
				whole = append(whole, abs(projectRoot, f.Source))
			}
		}
	}
	if dir != "" {
		for _, j := range e.Judges {
			w, py := judgeFiles(dir, j)
			whole, python = append(whole, w...), append(python, py...)
		}
	}
	whole = outermost(whole)
	python = slices.DeleteFunc(outermost(python), func(p string) bool {
		return slices.ContainsFunc(whole, func(w string) bool { return pathutil.Within(p, w) })
	})
	return whole, python
}

// judgeFiles are what judge j reads of eval.yaml's folder dir (and, for an
// exec judge's program, outside it): its named files and its own folder,
// and the folder of a Python script outside dir.
func judgeFiles(dir string, j Judge) (whole, python []string) {
	in := func(p string) string { // p resolved in dir, "" when it leaves dir or is dir
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, filepath.FromSlash(p))
		}
		p = filepath.Clean(p)
		if p == dir || !pathutil.Within(p, dir) {
			return ""
		}
		return p
	}
	own := func(p string) { // the judge's own folder, when below dir
		if d := filepath.Dir(p); d != dir && pathutil.Within(d, dir) {
			whole = append(whole, d)
		}
	}
	add := func(p string) {
		if p != "" {
			whole = append(whole, p)
		}
	}
	if j.PromptFile != "" {
		add(in(j.PromptFile))
	}
	for _, c := range j.Context {
		add(in(c))
	}
	if j.Agent != nil {
		for _, c := range j.Agent.Context {
			add(in(c))
		}
	}
	for _, a := range argumentStrings(j.Arguments) {
		if namesPath(a) {
			add(in(a))
		}
	}
	if j.Module != "" {
		for _, f := range moduleFiles(dir, j.Module) {
			whole = append(whole, f)
			own(f)
		}
	}
	if len(j.Exec) > 0 {
		w, py := execFiles(dir, j.Exec, in, own)
		whole, python = append(whole, w...), append(python, py...)
	}
	return whole, python
}

// execFiles are what an exec judge's argv names: its program (argv[0]
// when it holds a "/" or is alone, as score's execArgv runs it), the paths
// in dir its other arguments and the words of a shell line name, and the
// judge's own folder (own): that of its program, else of the first path it
// names in a folder below dir (python3 judges/score.py), else of the
// module -m names. A Python script outside dir is read with its folder's
// modules.
func execFiles(dir string, argv []string, in func(string) string, own func(string)) (whole, python []string) {
	var words []string
	for _, a := range argv {
		if strings.ContainsAny(a, shellLineChars) {
			words = append(words, shellWords(a)...)
		} else {
			words = append(words, a)
		}
	}
	owned := false
	ownOnce := func(p string) {
		if d := filepath.Dir(p); !owned && d != dir && pathutil.Within(d, dir) {
			own(p)
			owned = true
		}
	}
	if a := argv[0]; !strings.ContainsAny(a, shellLineChars) && (len(argv) == 1 || strings.Contains(a, "/")) {
		program := a
		if !filepath.IsAbs(program) {
			program = filepath.Join(dir, program)
		}
		program = filepath.Clean(program)
		whole = append(whole, program) // inside dir or not: it is run
		ownOnce(program)
	}
	// words[0] is the program, or a name looked up on PATH (python3.12).
	for i := 1; i < len(words); i++ {
		w := words[i]
		if words[i-1] == "-m" && !strings.HasPrefix(w, "-") {
			for _, f := range moduleFiles(dir, w) {
				whole = append(whole, f)
				ownOnce(f)
			}
			continue
		}
		if !namesPath(w) {
			continue
		}
		if p := in(w); p != "" {
			whole = append(whole, p)
			ownOnce(p)
			continue
		}
		if p := w; strings.HasSuffix(p, ".py") {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			p = filepath.Clean(p)
			if !pathutil.Within(p, dir) {
				whole, python = append(whole, p), append(python, filepath.Dir(p))
			}
		}
	}
	return whole, python
}

// shellLineChars make an exec argument a shell line (score's shellChars):
// blanks and what a shell gives a meaning to.
const shellLineChars = " \t\n;&|<>()$`\\\"'*?[]{}~#=%!"

// shellWords are the words of a shell line that could be paths, with
// $AGENT_EVAL_CONFIG_DIR/ (eval.yaml's folder) taken as the start of a
// relative one.
func shellWords(line string) []string {
	for _, v := range []string{`"$AGENT_EVAL_CONFIG_DIR"/`, `"${AGENT_EVAL_CONFIG_DIR}"/`, `$AGENT_EVAL_CONFIG_DIR/`, `${AGENT_EVAL_CONFIG_DIR}/`} {
		line = strings.ReplaceAll(line, v, "")
	}
	return strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(shellLineChars, r) })
}

// namesPath reports whether an argument could name a file (score's
// execArgv takes it for one when it exists): it holds a "/" or a ".", and
// is no option, nor "." or "..".
func namesPath(a string) bool {
	return strings.ContainsAny(a, "/.") && !strings.HasPrefix(a, "-") && a != "." && a != ".."
}

// moduleFiles are the files under dir a dotted module name (or a .py path)
// may be loaded from, as score's moduleFile looks for them: a/b.py, then
// a/b/__init__.py.
func moduleFiles(dir, module string) []string {
	dotted := strings.TrimSuffix(strings.ReplaceAll(strings.TrimPrefix(module, "./"), "/", "."), ".py")
	parts := strings.Split(dotted, ".")
	if slices.Contains(parts, "") || slices.Contains(parts, "..") {
		return nil
	}
	base := filepath.Join(append([]string{dir}, parts...)...)
	return []string{base + ".py", filepath.Join(base, "__init__.py")}
}

// argumentStrings are the strings of a judge's arguments: its values, and
// the strings in its lists.
func argumentStrings(args map[string]any) []string {
	var out []string
	for _, v := range args {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}
