package main

import (
	"path/filepath"

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
