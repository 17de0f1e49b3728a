package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
)

// startFakeModel serves the cases' fake_model.yaml scripts; what the model
// was sent is kept beside the results, for debugging an eval's wiring.
func (st *state) startFakeModel() (stop func(), err error) {
	logFile, err := os.Create(filepath.Join(st.dir.Path, rundir.FakeModelLog))
	if err != nil {
		return nil, fmt.Errorf("--fake-model: %w", err)
	}
	// The log is redacted with the run's redactor, which learns the hooks'
	// outputs and the cases' variables as they come.
	opts := fakeapi.Options{Log: logFile, Redactor: st.runRedactor()}
	var srv *fakeapi.Server
	if st.p.Replay.Path != "" {
		srv = st.replayModel(opts)
	} else {
		srv, err = FakeModel(st.ev, st.p.Mode, st.units(), st.callsModel(), opts, st.obs.Warn)
	}
	if err == nil {
		st.fake = srv
		st.fakeURL, err = srv.Start("")
	}
	if err != nil {
		_ = logFile.Close()
		return nil, err
	}
	return func() {
		srv.Close()
		if err := logFile.Close(); err != nil {
			st.obs.Warn(fmt.Sprintf("--fake-model: write %s: %v", rundir.FakeModelLog, err))
		}
	}, nil
}

// FakeModel is the fake Messages API of --fake-model, not yet started:
// each case's fake_model.yaml under its name (ScriptURL), each pipeline
// step's fake_model.<step>.yaml under <case>/<step>, the batch's at the
// dataset's root. calls names what calls the model ("" when nothing is
// known to: a case without a script then gets an error naming it, not a
// refusal).
func FakeModel(ev *config.Eval, mode Mode, cases []string, calls string, opts fakeapi.Options, warn func(string)) (*fakeapi.Server, error) {
	srv := fakeapi.New(opts)
	ds := ev.DatasetDir()
	scripts := map[string]string{BatchID: filepath.Join(ds, FakeModelScript)}
	if mode == ModeCase {
		scripts = map[string]string{}
		exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
		for _, key := range cases {
			// Attempt n of a case may have a script of its own,
			// fake_model@<n>.yaml (a flaky case), else the case's.
			id, n := rundir.SplitAttempt(key)
			scripts[key] = filepath.Join(ds, id, FakeModelScript)
			if p := filepath.Join(ds, id, fmt.Sprintf("fake_model@%d.yaml", n)); n > 1 && exists(p) {
				scripts[key] = p
			}
			// A pipeline's steps are separate conversations: each may have
			// its own fake_model.<step>.yaml (fake_model@<n>.<step>.yaml
			// for attempt n).
			for _, step := range ev.StepIDs() {
				p := filepath.Join(ds, id, fmt.Sprintf("fake_model@%d.%s.yaml", n, step))
				if n == 1 || !exists(p) {
					p = filepath.Join(ds, id, "fake_model."+step+".yaml")
				}
				if !exists(p) {
					p = scripts[key]
				}
				scripts[key+"/"+step] = p
			}
		}
	}
	names := make([]string, 0, len(scripts))
	for name := range scripts {
		names = append(names, name)
	}
	sort.Strings(names)
	var unscripted []string
	for _, name := range names {
		p := scripts[name]
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) && calls == "" {
			// A cli agent may call no model: it needs no script, and a
			// call it does make gets an error saying why.
			if !strings.Contains(name, "/") {
				unscripted = append(unscripted, name)
			}
			srv.SetScript(name, noScript(rel(ds, p)))
			continue
		}
		script, err := fakeapi.LoadScript(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usageErrorf("--fake-model: %s has no %s, which scripts the model's answers: %s calls the model (see agent-eval fake-model --help)", caseLabel(name), p, calls)
		}
		if err != nil {
			return nil, usageErrorf("--fake-model: %v", err)
		}
		srv.SetScript(name, script)
	}
	if len(unscripted) > 0 {
		what := caseLabel(unscripted[0]) + " has no " + rel(ds, scripts[unscripted[0]])
		if n := len(unscripted); n > 1 {
			list := strings.Join(unscripted[:min(n, 3)], ", ")
			if n > 3 {
				list += ", …"
			}
			what = fmt.Sprintf("%d cases (%s) have no %s", n, list, FakeModelScript)
		}
		warn(fmt.Sprintf("--fake-model: %s; runner cli is not known to call a model, so the fake answers any call with an error naming the missing script", what))
	}
	return srv, nil
}

// callsModel names what calls the model in this run's cases ("" when
// nothing is known to): the claude-code runner does, and so does a cli
// runner declared to run Claude Code; any other cli command may not.
func (st *state) callsModel() string {
	switch {
	case st.p.Runner != runner.TypeCLI:
		return "runner " + string(st.p.Runner)
	case st.ev.Runner.Agent != "":
		return "runner.agent " + st.ev.Runner.Agent
	}
	return ""
}

// noScript answers every request with an error naming the missing script.
func noScript(name string) *fakeapi.Script {
	t := fakeapi.Turn{Error: &fakeapi.APIError{Status: 500, Type: "api_error",
		Message: "agent-eval --fake-model: there is no " + name + " to script this model call; write one (see agent-eval fake-model --help)"}}
	return &fakeapi.Script{AfterEnd: &t, Side: &t}
}
