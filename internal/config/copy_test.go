package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
)

// A run's copy of eval.yaml is read as the original: its relative paths
// resolve against the original's folder and its name derives from it;
// errors and Path name the copy.
func TestParseCopy(t *testing.T) {
	t.Parallel()
	orig := filepath.Join(t.TempDir(), "eval", "greet.yaml")
	if err := os.MkdirAll(filepath.Join(filepath.Dir(orig), "cases"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "config", "eval.yaml")
	for _, tc := range []struct {
		name, yaml, wantErr string
	}{
		{"resolves against the original", "execution: {prompt: hi}\ndataset: {path: cases}\n", ""},
		{"names the copy in errors", "execution: {prompt: hi}\ndataset: {path: gone}\n", copyPath + ":2:17: dataset.path: gone: no such directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := config.ParseCopy(copyPath, []byte(tc.yaml), orig)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseCopy = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Path() != copyPath || ev.Dir() != filepath.Dir(orig) || ev.DatasetDir() != filepath.Join(filepath.Dir(orig), "cases") {
				t.Errorf("Path, Dir, DatasetDir = %s, %s, %s; want the copy, then the original's folder", ev.Path(), ev.Dir(), ev.DatasetDir())
			}
			if ev.EvalName() != "greet" || ev.DisplayName() != "greet" {
				t.Errorf("EvalName, DisplayName = %s, %s; want greet (the original's stem)", ev.EvalName(), ev.DisplayName())
			}
			if string(ev.Source()) != tc.yaml {
				t.Errorf("Source = %q, want %q", ev.Source(), tc.yaml)
			}
		})
	}
}
