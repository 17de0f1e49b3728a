package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

// TestUpstreamFormats holds upstream's own eval.yaml files (testdata/upstream,
// unchanged copies of agent-eval-harness examples), the eval.yaml shapes its
// docs show (testdata/upstream-docs) and the upstream formats issue 11 added
// (testdata/formats) at exactly the errors and warnings they give today:
// each either loads (warnings allowed) or fails for a reason docs/differences.md
// "Differences from agent-eval-harness" names.
func TestUpstreamFormats(t *testing.T) {
	var paths []string
	for _, dir := range []string{"testdata/upstream", "testdata/upstream-docs", "testdata/formats"} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".yaml") && (dir != "testdata/upstream" || d.Name() == "eval.yaml") {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(paths) < 14 {
		t.Fatalf("found %d files, want at least 14", len(paths))
	}
	for _, path := range paths {
		name := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(path, "testdata/"), ".yaml"), "/", "__")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ev, err := Load(path)
			golden.Assert(t, filepath.Join("testdata", "formats-golden", name+".golden"), []byte(render(ev, err)))
		})
	}
}

// The four upstream evals load; the one that does not fails only on its
// placeholder dataset.path (a difference docs/differences.md names).
func TestUpstreamExamplesLoad(t *testing.T) {
	for _, path := range []string{
		"testdata/upstream/eval/opencode-smoke/eval.yaml",
		"testdata/upstream/eval/anova-example/eval.yaml",
		"testdata/upstream/tests/fixtures/evalhub-smoke/eval.yaml",
	} {
		if _, err := Load(path); err != nil {
			t.Errorf("Load(%s):\n%v", path, err)
		}
	}
	_, err := Load("testdata/upstream/eval.yaml")
	if err == nil || strings.Count(err.Error(), "\n") > 0 || !strings.Contains(err.Error(), "dataset.path") {
		t.Errorf("Load(testdata/upstream/eval.yaml) = %v, want only the missing dataset.path", err)
	}
}

func TestPathRuleReason(t *testing.T) {
	ev, err := Load("testdata/formats/permissions-path-reason.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.Permissions.Deny[0].Reason; got != "holds the answer key" {
		t.Errorf("reason = %q", got)
	}
}

func TestMatrixNotice(t *testing.T) {
	ev, err := Load("testdata/formats/matrix-ok.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := "declares 6 cells (model 2 × tone 3) × 2 replications; run runs the base configuration once: run every cell with agent-eval matrix run"
	if got := ev.MatrixNotice(); got != want {
		t.Errorf("notice = %q, want %q", got, want)
	}
	if ev.Judges != nil || ev.Matrix.FactorNames()[1] != "tone" {
		t.Errorf("unexpected eval %+v", ev.Matrix)
	}
}

func TestJudgePromptSource(t *testing.T) {
	tests := []struct {
		j    Judge
		want string
	}{
		{Judge{LLMRubric: "r", Prompt: "p", PromptFile: "f"}, "llm_rubric"},
		{Judge{Prompt: "p", PromptFile: "f"}, "prompt_file"},
		{Judge{PromptFile: "f"}, "prompt_file"},
		{Judge{LLMRubric: " ", Prompt: "p"}, "prompt"},
		{Judge{Check: "True"}, ""},
	}
	for _, tt := range tests {
		if got := tt.j.PromptSource(); got != tt.want {
			t.Errorf("%+v: PromptSource() = %q, want %q", tt.j, got, tt.want)
		}
	}
}
