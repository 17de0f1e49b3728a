package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agent-eval/agent-eval/internal/testutil/mlflowserver"
)

// mlflowSetup starts a real MLflow tracking server for a script named
// mlflow_*: $MLFLOW_TRACKING_URI is its URL, and $MLFLOW_TEST_ARTIFACTS and
// $MLFLOW_TEST_DB its artifact folder and store, for mlflow-run and
// mlflow-secret-free to read back; $MLFLOW_TEST_PYTHON is the Python with
// the mlflow library (to log traces as an application does). Other scripts
// start none.
func mlflowSetup(env *testscript.Env) {
	tb, ok := env.T().(testing.TB)
	if !ok || !strings.HasPrefix(path.Base(tb.Name()), "mlflow_") {
		return
	}
	s := mlflowserver.Start(tb)
	env.Setenv("MLFLOW_TRACKING_URI", s.URL)
	env.Setenv("MLFLOW_TEST_ARTIFACTS", s.Artifacts)
	env.Setenv("MLFLOW_TEST_DB", s.DB)
	env.Setenv("MLFLOW_TEST_PYTHON", mlflowserver.Python(tb))
}

func scriptServer(ts *testscript.TestScript) *mlflowserver.Server {
	if ts.Getenv("MLFLOW_TEST_DB") == "" {
		ts.Fatalf("no MLflow server: only a script named mlflow_* gets one")
	}
	return &mlflowserver.Server{URL: ts.Getenv("MLFLOW_TRACKING_URI"), Artifacts: ts.Getenv("MLFLOW_TEST_ARTIFACTS"), DB: ts.Getenv("MLFLOW_TEST_DB")}
}

// cmdMLflowRun prints, as JSON on stdout, the runs named RUN_NAME in the
// experiment EXPERIMENT, read back through the server's API: info,
// params, tags, metrics, and every artifact's content.
func cmdMLflowRun(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: mlflow-run EXPERIMENT RUN_NAME")
	}
	runs, err := scriptServer(ts).Runs(args[0], args[1])
	if err != nil {
		if neg {
			return
		}
		ts.Fatalf("%v", err)
	}
	b, err := json.MarshalIndent(runs, "", "  ")
	ts.Check(err)
	_, _ = ts.Stdout().Write(append(b, '\n'))
}

// cmdMLflowTraces prints the traces of the experiment EXPERIMENT (with
// RUN_NAME, those linked to that run), read back through the server's
// API, sorted by their root span's name: a line "trace ROOT state=STATE",
// then a line per span, "  NAME < PARENT_NAME" (the root's parent is "-"),
// with " status=ERROR" when it failed, then a line per assessment of the
// trace, "  assessment NAME source=TYPE:ID value=VALUE rationale=\"…\"".
func cmdMLflowTraces(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: mlflow-traces EXPERIMENT [RUN_NAME]")
	}
	s := scriptServer(ts)
	id, err := s.ExperimentID(args[0])
	ts.Check(err)
	runID := ""
	if len(args) == 2 {
		runs, err := s.Runs(args[0], args[1])
		ts.Check(err)
		if len(runs) != 1 {
			ts.Fatalf("%d runs named %s", len(runs), args[1])
		}
		runID = runs[0].Info.RunID
	}
	traces, err := s.TracesOfRun(id, runID)
	ts.Check(err)
	var out []string
	for _, tr := range traces {
		spans, err := s.Spans(context.Background(), tr.TraceID)
		ts.Check(err)
		byID := map[string]string{"": "-"}
		root := ""
		for _, sp := range spans {
			byID[sp.SpanID] = sp.Name
			if sp.ParentID == "" {
				root = sp.Name
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "trace %s state=%s\n", root, tr.State)
		for _, sp := range spans {
			fmt.Fprintf(&b, "  %s < %s", sp.Name, byID[sp.ParentID])
			if strings.HasSuffix(sp.StatusCode, "ERROR") {
				b.WriteString(" status=ERROR")
			}
			b.WriteString("\n")
		}
		as, err := s.Assessments(tr.TraceID)
		ts.Check(err)
		for _, a := range as {
			var v any
			if a.Feedback != nil {
				v = a.Feedback.Value
			}
			fmt.Fprintf(&b, "  assessment %s source=%s:%s value=%v rationale=%q\n", a.Name, a.Source.Type, a.Source.ID, v, a.Rationale)
		}
		out = append(out, b.String())
	}
	sort.Strings(out)
	_, _ = io.WriteString(ts.Stdout(), strings.Join(out, ""))
}

// cmdMLflowSecretFree fails when VALUE is in any byte the server stored:
// its answers for the runs named RUN_NAME in EXPERIMENT and for the
// experiment's traces, its artifact folder, its store.
func cmdMLflowSecretFree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 || len(args[0]) < 8 {
		ts.Fatalf("usage: mlflow-secret-free VALUE EXPERIMENT RUN_NAME (VALUE 8 characters or more)")
	}
	s := scriptServer(ts)
	runs, err := s.Runs(args[1], args[2])
	ts.Check(err)
	b, _ := json.Marshal(runs)
	if strings.Contains(string(b), args[0]) {
		ts.Fatalf("the server's answers hold the secret")
	}
	id, err := s.ExperimentID(args[1])
	ts.Check(err)
	traces, err := s.Traces(context.Background(), id)
	ts.Check(err)
	for _, tr := range traces {
		spans, err := s.Spans(context.Background(), tr.TraceID)
		ts.Check(err)
		b, _ := json.Marshal([]any{tr, spans})
		if strings.Contains(string(b), args[0]) {
			ts.Fatalf("trace %s holds the secret", tr.TraceID)
		}
	}
	searched := 0
	for _, root := range []string{s.Artifacts, filepath.Dir(s.DB)} {
		ts.Check(filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			searched++
			if strings.Contains(string(b), args[0]) {
				ts.Fatalf("%s holds the secret", p)
			}
			return nil
		}))
	}
	ts.Logf("searched %d files of the server's", searched)
}
