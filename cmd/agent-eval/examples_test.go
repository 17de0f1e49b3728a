package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// setExamples gives a script $EXAMPLES, the absolute path of the examples/
// gallery, so that a script copies an example into its own $WORK and runs it
// there as a user would (testdata/script/examples_validate.txtar validates
// every one; testdata/e2e/examples_*.txtar run them with the real agents
// against the fake model and assert the verdicts their READMEs promise).
func setExamples(env *testscript.Env) error {
	dir, err := filepath.Abs(filepath.Join(repoRoot, "examples"))
	if err != nil {
		return err
	}
	env.Setenv("EXAMPLES", dir)
	return nil
}

// TestExamplesListed keeps the gallery whole: every example folder (one with
// an eval.yaml) is validated by testdata/script/examples_gallery.txtar and
// has a row in examples/README.md, so a new example cannot go untested or
// unlisted.
func TestExamplesListed(t *testing.T) {
	evals, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*", "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(evals) < 7 {
		t.Fatalf("found %d examples under examples/, want the quickstart and the six of the gallery", len(evals))
	}
	script, err := os.ReadFile(filepath.Join("testdata", "script", "examples_gallery.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(repoRoot, "examples", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evals {
		name := filepath.Base(filepath.Dir(e))
		if !strings.Contains(string(script), "$EXAMPLES/"+name+"/eval.yaml") && !strings.Contains(string(script), "cd $EXAMPLES/"+name+"\n") {
			t.Errorf("examples/%s is not validated by testdata/script/examples_gallery.txtar", name)
		}
		if !strings.Contains(string(index), "| ["+name+"](") {
			t.Errorf("examples/%s has no row in examples/README.md's table", name)
		}
	}
}
