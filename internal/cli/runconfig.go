package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// runEval is the eval that score, report and compare read for the finished
// run in dir, and the file it came from. With -c (configSet) it is
// configFile. Otherwise it is the run's own copy, config/eval.yaml, with
// its relative paths resolved against the folder of the eval.yaml the run
// loaded (run_result.json's config.dir), and stderr says when that
// eval.yaml has changed since; verb names the command ("score"). A run
// without a copy (made before layout 2) or without run_result.json (killed)
// falls back to configFile; the eval
// is nil when that is missing too and not configSet (report then runs
// without one).
func runEval(e env, dir rundir.Dir, configFile string, configSet bool, verb string) (ev *config.Eval, file string, err error) {
	fallback := func() (*config.Eval, string, error) {
		if _, err := os.Stat(configFile); errors.Is(err, fs.ErrNotExist) && !configSet {
			return nil, "", nil
		}
		ev, err := config.Load(configFile)
		if err != nil {
			return nil, "", err
		}
		return ev, configFile, nil
	}
	if configSet {
		return fallback()
	}
	data, err := os.ReadFile(dir.EvalCopy())
	if errors.Is(err, fs.ErrNotExist) {
		return fallback()
	}
	if err != nil {
		return nil, "", fmt.Errorf("read the run's own eval.yaml: %w", err)
	}
	// run_result.json says where the original was; a run killed before it
	// wrote one is read with configFile, as before layout 2.
	r, err := dir.ReadRun()
	if errors.Is(err, rundir.ErrNewerLayout) {
		return nil, "", err
	}
	if err != nil || r.Config == nil || r.Config.Path == "" {
		return fallback()
	}
	src := r.Config
	if fi, err := os.Stat(src.Dir); err != nil || !fi.IsDir() {
		return nil, "", &codedError{ExitUsage, fmt.Errorf("the run's own eval.yaml (%s) resolves its relative paths (dataset, judges, prompt files) against %s, "+
			"the folder of the eval.yaml it ran, which is gone; restore it, or give -c FILE to %s with another eval.yaml", dir.EvalCopy(), src.Dir, verb)}
	}
	ev, err = config.ParseCopy(dir.EvalCopy(), data, src.Path)
	if err != nil {
		return nil, "", &codedError{ExitUsage, fmt.Errorf("the run's own eval.yaml, with its relative paths resolved against %s (the folder of the eval.yaml it ran; -c FILE %ss with another): %w",
			src.Dir, verb, err)}
	}
	doing := strings.TrimSuffix(verb, "e") + "ing"
	switch b, err := os.ReadFile(src.Path); {
	case err != nil:
		fmt.Fprintf(e.Err, "agent-eval: %s: eval.yaml is gone since the run; %s with the run's own config\n", src.Path, doing)
	case !src.Matches(b):
		fmt.Fprintf(e.Err, "agent-eval: %s: eval.yaml has changed since the run; %s with the run's own config (-c FILE %ss with the current one)\n", src.Path, doing, verb)
	}
	return ev, dir.EvalCopy(), nil
}

// compareEval is the eval compare reads for the pairwise judge's prompt and
// model: -c's file, else the run's own copy (compare passes NEW, the run it
// writes into; else eval.yaml here, if any). A
// copy that no longer loads only costs the eval's pairwise settings.
func compareEval(e env, opts compareOptions, run rundir.Dir) (*config.Eval, error) {
	if opts.configSet {
		return config.Load(opts.config)
	}
	ev, _, err := runEval(e, run, opts.config, false, "compare")
	if err != nil {
		fmt.Fprintf(e.Err, "agent-eval: warning: %v; comparing without the eval's pairwise judge settings\n", err)
		return nil, nil
	}
	return ev, nil
}
