package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/runner/fake"
)

// TestCaseWithoutItsWorkspaceFileErrors: a case that lacks a per-case
// dataset.workspace.files entry is an error saying which file (the agent
// must not work without it); the case that has it gets it in its
// workspace and completes.
func TestCaseWithoutItsWorkspaceFileErrors(t *testing.T) {
	t.Parallel()
	evalYAML := strings.Replace(caseEval, "dataset: {path: cases}", "dataset: {path: cases, workspace: {files: [repo.txt]}}", 1)
	dir := project(t, evalYAML, "has", "lacks")
	if err := os.WriteFile(filepath.Join(dir, "cases", "has", "repo.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRun(t, dir, map[string]fake.Script{
		"has": {Do: func(ws string) error {
			if b, err := os.ReadFile(filepath.Join(ws, "repo.txt")); err != nil || string(b) != "hello\n" {
				return fmt.Errorf("repo.txt in the workspace: %q, %v", b, err)
			}
			return nil
		}},
		"lacks": {},
	})
	res, err := r.exec(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.PerCase["has"]; c == nil || c.Status != results.StatusCompleted {
		t.Errorf("has: %+v; want completed with repo.txt in its workspace", c)
	}
	c := res.PerCase["lacks"]
	if c == nil || c.Status != results.StatusError || !strings.Contains(c.Error, "the case has no repo.txt") {
		t.Errorf("lacks: %+v; want an error naming repo.txt", c)
	}
}
