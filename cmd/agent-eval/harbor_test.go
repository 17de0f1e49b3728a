package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/harbor"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// TestHarbor runs testdata/harbor/*.txtar: the real Harbor (the pinned
// version scripts/install-harbor.sh installs) runs agent-eval's exported
// tasks with its own orchestrator, task loader, claude-code agent, verifier
// and reward reading. Only the container runtime is a stand-in: no
// container engine runs here, so Harbor gets the environment class in
// internal/harbor/testdata/localenv (-e module:Class), which runs each trial
// in a folder of its own under bubblewrap. In the trial run the real Claude
// Code CLI, against the fake model on 127.0.0.1, and agent-eval's hook and
// verifier (a static build, as the image carries).
//
// The scripts get: $HARBOR_BIN; $HARBOR_ENV (the environment class) and
// $HARBOR_IMAGE_DIR (its image: the claude shim and Claude Code), which
// `agent-eval run --backend harbor --harbor-env $HARBOR_ENV --harbor-ek
// image_dir=$HARBOR_IMAGE_DIR` passes on; $AGENT_EVAL_STATIC (the static
// agent-eval, for --binary).
func TestHarbor(t *testing.T) {
	if testing.Short() {
		t.Skip("the Harbor tests run the real Harbor and Claude Code")
	}
	harborBin := harborCLI(t)
	claude := claudeCLI(t)
	image := harborImage(t, claude)
	static := staticAgentEval(t)
	localenv, err := filepath.Abs(filepath.Join(repoRoot, "internal", "harbor", "testdata", "localenv"))
	if err != nil {
		t.Fatal(err)
	}
	quickstart, err := filepath.Abs(filepath.Join(repoRoot, "examples", "quickstart"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/harbor",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			if _, err := claudeScriptEnv(env, claude); err != nil {
				return err
			}
			env.Setenv("HARBOR_BIN", harborBin)
			env.Setenv("AGENT_EVAL_HARBOR", harborBin)
			env.Setenv("HARBOR_ENV", "agent_eval_localenv:LocalEnvironment")
			env.Setenv("HARBOR_IMAGE_DIR", image)
			env.Setenv("AGENT_EVAL_STATIC", static)
			env.Setenv("PYTHONPATH", localenv)
			// Harbor's model price table is fetched from the internet
			// unless told to use its own copy.
			env.Setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
			env.Setenv("ANTHROPIC_API_KEY", "fake-key-for-tests")
			for _, k := range []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING"} {
				env.Setenv(k, "1")
			}
			env.Setenv("AGENT_EVAL_RUNS_DIR", "")
			env.Setenv("QUICKSTART", quickstart)
			env.Setenv("IS_SANDBOX", "1")
			env.Setenv("CLAUDE_CODE_MAX_RETRIES", "1")
			return shortWorkspaces(env)
		},
		Condition: scriptCondition,
		Cmds:      map[string]func(ts *testscript.TestScript, neg bool, args []string){"same-verdict": cmdSameVerdict},
	})
}

// cmdSameVerdict is `same-verdict RUN_A RUN_B`: both runs were scored and
// gave the same verdict: passed or not, the same reward, denials and
// answers, every judge's pass rate and mean, and every case's status and
// per-judge value. It prints the verdict it compared.
func cmdSameVerdict(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: same-verdict RUN_A RUN_B")
	}
	read := func(p string) *rundir.Summary {
		s, err := rundir.Dir{Path: ts.MkAbs(p)}.ReadSummary()
		ts.Check(err)
		return s
	}
	a, b := read(args[0]), read(args[1])
	type judge struct {
		Name           string
		Scored, Errors int
		Mean, PassRate *float64
	}
	type verdict struct {
		Judge  string
		Value  *float64
		Passed *bool
	}
	type cas struct {
		ID, Status string
		Denials    int
		Verdicts   []verdict
	}
	type view struct {
		Passed  bool
		Reward  *float64
		Denials int
		Answers map[string]int
		Judges  []judge
		Cases   []cas
	}
	see := func(s *rundir.Summary) view {
		v := view{Passed: s.Passed, Reward: s.Reward, Denials: s.Denials, Answers: s.AnswersByTier}
		for _, j := range s.Judges {
			v.Judges = append(v.Judges, judge{j.Name, j.Scored, j.Errors, j.Mean, j.PassRate})
		}
		for _, c := range s.Cases {
			cv := cas{ID: c.ID, Status: c.Status, Denials: c.Denials}
			for _, d := range c.Verdicts {
				cv.Verdicts = append(cv.Verdicts, verdict{d.Judge, d.Value, d.Passed})
			}
			v.Cases = append(v.Cases, cv)
		}
		return v
	}
	va, vb := see(a), see(b)
	if diff := cmp.Diff(va, vb); diff != "" {
		ts.Fatalf("%s and %s gave different verdicts (-%s +%s):\n%s", args[0], args[1], args[0], args[1], diff)
	}
	fmt.Fprintf(ts.Stdout(), "same verdict: passed=%t, %d case(s), %d judge(s), %d denial(s)\n", va.Passed, len(va.Cases), len(va.Judges), va.Denials)
}

// harborCLI finds the pinned Harbor: $HARBOR_BIN, else the virtual
// environment scripts/install-harbor.sh made under .cache.
func harborCLI(t *testing.T) string {
	t.Helper()
	v, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "harbor.version"))
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(v))
	bin := os.Getenv("HARBOR_BIN")
	if bin == "" {
		bin = filepath.Join(repoRoot, ".cache", "harbor-"+version, "bin", "harbor")
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		need.Missing(t, fmt.Sprintf("Harbor %s is not usable at %s: %v", version, bin, err), need.Install("harbor"))
	}
	if got := strings.TrimSpace(string(out)); got != version {
		t.Fatalf("%s --version = %q, want %s", bin, got, version)
	}
	return bin
}

// harborImage is the trials' image folder, bound at /image: bin/claude is
// the image's shim (harbor.ClaudeShim, as the Dockerfile installs it) over
// lib/claude, Claude Code's native binary (linked, else copied).
func harborImage(t *testing.T, claude string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(claude)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, d := range []string{"bin", "lib"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lib := filepath.Join(dir, "lib", "claude")
	if err := harbor.LinkOrCopy(real, lib); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "claude"), []byte(harbor.ClaudeShim("/image/lib/claude")), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// staticAgentEval builds agent-eval as `make build` does (static, so it
// runs in any container): the test binary itself may be linked against
// libc (-race).
func staticAgentEval(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agent-eval")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build a static agent-eval: %v\n%s", err, out)
	}
	return bin
}

// claudeScriptEnv gives a script of the real Claude Code a home of its own
// and the CLI first on PATH, and returns the home.
func claudeScriptEnv(env *testscript.Env, claude string) (string, error) {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", err
	}
	env.Setenv("HOME", home)
	env.Setenv("PATH", filepath.Dir(claude)+string(os.PathListSeparator)+env.Getenv("PATH"))
	return home, nil
}
