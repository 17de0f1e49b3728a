package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/runner/fake"
)

// A plan's input overrides reach the prompt and the input.yaml of the
// workspace and of the case's folder, over the case's own fields.
func TestInputOverrides(t *testing.T) {
	t.Parallel()
	dir := project(t, `name: demo
execution: {prompt: "Hello {name} with {context}."}
models: {skill: m}
dataset: {path: cases}
`, "a")
	r := newRun(t, dir, map[string]fake.Script{"a": {Text: "ok"}})
	r.flags.InputOverrides = map[string]any{"context": "cognee", "name": "z"}
	if _, err := r.exec(context.Background(), t); err != nil {
		t.Fatal(err)
	}
	d := r.runDir()
	events, err := d.ReadTranscript("a")
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 || events[0].Text != "Hello z with cognee." {
		t.Errorf("prompt %+v, want the overrides rendered", events)
	}
	b, err := os.ReadFile(filepath.Join(d.Case("a"), "input.yaml"))
	if err != nil || !strings.Contains(string(b), "context: cognee") || !strings.Contains(string(b), "name: z") {
		t.Errorf("the case's input.yaml %q (%v), want the overrides", b, err)
	}
	if orig, _ := os.ReadFile(filepath.Join(dir, "cases", "a", "input.yaml")); string(orig) != "name: a\n" {
		t.Errorf("the dataset's input changed: %q", orig)
	}
}
