package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ScoredFiles names what each kind of judge reads of eval.yaml's folder
// (and an exec judge's program outside it), not the folder whole; the
// folder's Python sources are always in, as what a judge could import.
func TestScoredFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		judges string
		whole  []string // relative to eval.yaml's folder, or absolute
		python []string
	}{
		{"no judge", ``, nil, nil},
		{"llm", `{name: j, prompt_file: prompts/rubric.md, context: [guide.md, docs/style.md]}`,
			[]string{"prompts/rubric.md", "guide.md", "docs/style.md"}, nil},
		{"check", `{name: j, check: "return True"}`, nil, nil},
		{"module in a folder of its own", `{name: j, module: graders.score, function: grade}`,
			[]string{"graders"}, nil},
		{"module beside eval.yaml", `{name: j, module: score, function: grade}`,
			[]string{"score.py", "score"}, nil},
		{"exec program in a folder of its own", `{name: j, exec: [./judges/check.sh, --strict]}`,
			[]string{"judges"}, nil},
		{"exec program beside eval.yaml", `{name: j, exec: [./check.sh]}`,
			[]string{"check.sh"}, nil},
		{"exec python script and a data file", `{name: j, exec: [python3, -u, judges/score.py, expected.json, "3.5"]}`,
			[]string{"judges", "expected.json", "3.5"}, nil},
		{"exec python module", `{name: j, exec: [python3, -m, graders.score]}`,
			[]string{"graders"}, nil},
		{"exec shell line", `{name: j, exec: [sh, -c, 'python3 "$AGENT_EVAL_CONFIG_DIR"/judges/x.py < answers.txt']}`,
			[]string{"judges", "answers.txt"}, nil},
		{"exec program outside", `{name: j, exec: [/opt/judges/run, /etc/judge.conf]}`,
			[]string{"/opt/judges/run"}, nil},
		{"exec python script outside", `{name: j, exec: [python3, /opt/judges/score.py]}`,
			[]string{"/opt/judges/score.py"}, []string{"/opt/judges"}},
		{"arguments naming files", `{name: j, expr: "true", arguments: {expected: answers/a.json, also: [b.txt, 3], dir: ., up: ../x, flag: -v}}`,
			[]string{"answers/a.json", "b.txt"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "eval", "eval.yaml")
			if err := os.MkdirAll(filepath.Join(dir, "eval", "cases"), 0o755); err != nil {
				t.Fatal(err)
			}
			body := "execution: {prompt: x}\ndataset: {path: cases}\n"
			if tc.judges != "" {
				body += "judges:\n  - " + tc.judges + "\n"
			}
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			ev, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			evalDir := filepath.Join(dir, "eval")
			abs := func(ps []string) []string {
				var out []string
				for _, p := range ps {
					if !filepath.IsAbs(p) {
						p = filepath.Join(evalDir, filepath.FromSlash(p))
					}
					out = append(out, p)
				}
				slices.Sort(out)
				return out
			}
			wantWhole := abs(append([]string{"eval.yaml", "tool_handlers.yaml", "cases"}, tc.whole...))
			wantPython := abs(append([]string{evalDir}, tc.python...))
			whole, python := ev.ScoredFiles(dir)
			if !slices.Equal(whole, wantWhole) || !slices.Equal(python, wantPython) {
				t.Errorf("ScoredFiles() =\n%s\n%s\nwant\n%s\n%s", strings.Join(whole, "\n"), strings.Join(python, "\n"), strings.Join(wantWhole, "\n"), strings.Join(wantPython, "\n"))
			}
		})
	}
}
