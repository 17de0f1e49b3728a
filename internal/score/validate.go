package score

import (
	"errors"
	"os"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
)

// Check builds the eval's judges as score would, without a run, and
// reports, as config.Errors at each judge's line, what score would refuse
// and what it would error on for every case: an exec judge's program that
// is not found, a module judge's missing module. validate (and run
// --score) call it, so these surface before any agent runs.
func Check(ev *config.Eval, getenv func(string) string) config.Errors {
	env := &Env{Eval: ev, Dir: ev.Dir(), Model: JudgeModel(ev, getenv), LLM: &LLMRunner{}}
	h := env.host()
	if p, err := h.lookPath("python3", nil); err == nil {
		env.Python = p
	}
	if env.Model == "" {
		// Like the API key, the judge model may come from score's own
		// environment ($EVAL_JUDGE_MODEL), or --fake-model's default.
		env.Model = FakeJudgeModel
	}
	var errs config.Errors
	if _, err := Build(ev, env, Kinds()); err != nil {
		if !errors.As(err, &errs) {
			errs = config.Errors{{File: ev.Path(), Code: config.CodeSemantic, Msg: err.Error()}}
		}
	}
	add := func(field, format string, args ...any) {
		var es config.Errors
		if errors.As(configError(ev, field, format, args...), &es) {
			errs = append(errs, es...)
		}
	}
	for i, j := range ev.Judges {
		switch j.Type() {
		case "exec":
			argv := execArgv(h.project, j.Exec)
			if len(j.Exec) == 1 && !strings.ContainsAny(j.Exec[0], shellChars) {
				argv = []string{j.Exec[0]} // a program by its path, run as a shell line only because it is missing
			}
			p, err := h.lookPath(argv[0], j.Env)
			switch {
			case err != nil:
				add(judgeField(i, "exec"), "judge %q: %v, so it would error on every case", j.Name, err)
			case !exists(p):
				add(judgeField(i, "exec"), "judge %q: %s does not exist (a relative path is relative to eval.yaml's folder), so it would error on every case", j.Name, argv[0])
			}
		case "code":
			if dotted, file := moduleFile(h.project, j.Module); file == "" {
				p := strings.ReplaceAll(dotted, ".", "/")
				add(judgeField(i, "module"), "judge %q: module %s is neither %s.py nor %s/__init__.py in eval.yaml's folder, so it would error on every case", j.Name, j.Module, p, p)
			}
		}
	}
	return errs
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
