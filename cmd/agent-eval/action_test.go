package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// The GitHub Action (action.yml at the repository's root) tried off
// GitHub: its YAML checked against itself and the example workflow, and
// its shell steps (scripts/action/*.sh) run as the composite action runs
// them, with the built agent-eval, a fake release served from file://, and
// a stand-in gh that keeps the pull request's comments (gh and GitHub's API
// are not ours; actions/upload-artifact is not run).

// actionFile is the part of action.yml the tests read.
type actionFile struct {
	Inputs  map[string]struct{ Default string } `yaml:"inputs"`
	Outputs map[string]struct{ Value string }   `yaml:"outputs"`
	Runs    struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			ID    string            `yaml:"id"`
			If    string            `yaml:"if"`
			Uses  string            `yaml:"uses"`
			Run   string            `yaml:"run"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			With  map[string]string `yaml:"with"`
			Dir   string            `yaml:"working-directory"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) (actionFile, string) {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("parse action.yml: %v", err)
	}
	return a, string(b)
}

// TestActionYAML: every input action.yml reads is declared, every step it
// names by id exists, every script it calls is there and executable, and
// the example workflow passes only declared inputs.
func TestActionYAML(t *testing.T) {
	a, text := readAction(t)
	inputRef := regexp.MustCompile(`\binputs\.([A-Za-z0-9_-]+)`)
	stepRef := regexp.MustCompile(`\bsteps\.([A-Za-z0-9_-]+)\.`)
	scriptRef := regexp.MustCompile(`scripts/action/[A-Za-z0-9_.-]+`)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using is %q, want composite", a.Runs.Using)
	}
	for _, want := range []string{"version", "config", "args", "fake-model", "baseline", "comment", "upload-artifact", "working-directory", "agent-bin"} {
		if _, ok := a.Inputs[want]; !ok {
			t.Errorf("action.yml declares no input %q", want)
		}
	}
	for _, want := range []string{"run-dir", "verdict", "exit-code"} {
		if _, ok := a.Outputs[want]; !ok {
			t.Errorf("action.yml declares no output %q", want)
		}
	}
	for _, m := range inputRef.FindAllStringSubmatch(text, -1) {
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("action.yml reads inputs.%s, which it does not declare", m[1])
		}
	}
	ids := map[string]bool{}
	for i, s := range a.Runs.Steps {
		if s.ID != "" {
			ids[s.ID] = true
		}
		switch {
		case s.Name == "":
			t.Errorf("step %d has no name", i)
		case (s.Uses == "") == (s.Run == ""):
			t.Errorf("step %q: want one of uses and run", s.Name)
		case s.Run != "" && s.Shell != "bash":
			t.Errorf("step %q: a composite run step needs shell: bash, has %q", s.Name, s.Shell)
		}
	}
	for _, m := range stepRef.FindAllStringSubmatch(text, -1) {
		if !ids[m[1]] {
			t.Errorf("action.yml reads steps.%s, which no step has as id", m[1])
		}
	}
	scripts := scriptRef.FindAllString(text, -1)
	if len(scripts) < 4 {
		t.Errorf("action.yml calls %d scripts, want install, baseline, run and comment: %v", len(scripts), scripts)
	}
	for _, s := range scripts {
		fi, err := os.Stat(filepath.Join("../..", s))
		if err != nil {
			t.Errorf("action.yml calls %s: %v", s, err)
		} else if fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable", s)
		}
	}

	// The example workflow uses the action with declared inputs only.
	b, err := os.ReadFile("../../examples/ci/github-workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Uses string         `yaml:"uses"`
				With map[string]any `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("parse github-workflow.yml: %v", err)
	}
	if _, ok := wf.On["pull_request"]; !ok {
		t.Error("github-workflow.yml does not run on pull_request")
	}
	used := 0
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			if !strings.HasPrefix(s.Uses, "agent-eval/agent-eval@") {
				continue
			}
			used++
			for k := range s.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("github-workflow.yml passes with: %s, which action.yml does not declare", k)
				}
			}
			if _, ok := s.With["baseline"]; !ok {
				t.Error("github-workflow.yml passes no baseline")
			}
		}
	}
	if used != 1 {
		t.Errorf("github-workflow.yml uses the action %d times, want 1", used)
	}
}

// actionEnv is a runner's environment for the action's scripts: PATH with
// the folders given first and the system's, and the files GitHub gives a step.
func actionEnv(t *testing.T, path []string, extra ...string) ([]string, map[string]string) {
	t.Helper()
	files := map[string]string{}
	dir := t.TempDir()
	for _, k := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_PATH"} {
		files[k] = filepath.Join(dir, strings.ToLower(k))
		if err := os.WriteFile(files[k], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + strings.Join(append(path, "/usr/local/bin", "/usr/bin", "/bin"), string(os.PathListSeparator)),
		"HOME=" + home, "TMPDIR=" + os.TempDir(), "RUNNER_TEMP=" + dir, "CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_REPOSITORY=octo/evals", "GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ATTEMPT=1",
	}
	for k, v := range files {
		env = append(env, k+"="+v)
	}
	// Go's caches, for build-from-source (their defaults are under $HOME).
	goVars := []string{"GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY"}
	b, err := exec.Command("go", append([]string{"env"}, goVars...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	for i, v := range strings.SplitN(strings.TrimRight(string(b), "\n"), "\n", len(goVars)) {
		env = append(env, goVars[i]+"="+v)
	}
	return append(env, extra...), files
}

// script runs scripts/action/NAME with env in dir; it returns stdout,
// stderr and the exit code.
func script(t *testing.T, dir string, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("../../scripts/action", name))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(p, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.String(), errb.String(), code
}

// outputs reads NAME=value lines of a $GITHUB_OUTPUT file.
func outputs(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			m[k] = v
		}
	}
	return m
}

// fakeRelease writes a release of bin as make release names it:
// DIR/v0.9.0/agent-eval_0.9.0_<os>_<arch>.tar.gz and checksums.txt, the
// checksum of the archive corrupted when corrupt.
func fakeRelease(t *testing.T, bin string, corrupt bool) string {
	t.Helper()
	dir := t.TempDir()
	rel := filepath.Join(dir, "v0.9.0")
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	base := "agent-eval_0.9.0_" + runtime.GOOS + "_" + runtime.GOARCH
	archive := filepath.Join(rel, base+".tar.gz")
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, e := range []struct {
		name string
		body []byte
		mode int64
	}{{base + "/README.md", []byte("agent-eval\n"), 0o644}, {base + "/agent-eval", exe, 0o755}} {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, gz, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if corrupt {
		sum[0] ^= 0xff
	}
	lines := hex.EncodeToString(make([]byte, 32)) + "  agent-eval_0.9.0_plan9_mips.tar.gz\n" +
		hex.EncodeToString(sum[:]) + "  " + base + ".tar.gz\n"
	if err := os.WriteFile(filepath.Join(rel, "checksums.txt"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestActionInstall runs scripts/action/install.sh against a fake release
// on file://: a good archive installs a working agent-eval and puts its
// folder on $GITHUB_PATH; a checksum that does not match installs nothing
// and fails; build-from-source builds this checkout with the version given.
func TestActionInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agent-eval")
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh knows linux and darwin")
	}
	// Built as make build and release build it (static, -trimpath), which
	// build-from-source does too: its build below is a link.
	bin := filepath.Join(t.TempDir(), "agent-eval")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build agent-eval: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name    string
		corrupt bool
		version string
	}{{"good", false, "v0.9.0"}, {"bare version", false, "0.9.0"}, {"checksum mismatch", true, "v0.9.0"}} {
		t.Run(tc.name, func(t *testing.T) {
			rel := fakeRelease(t, bin, tc.corrupt)
			into := filepath.Join(t.TempDir(), "bin")
			env, files := actionEnv(t, nil, "AGENT_EVAL_VERSION="+tc.version, "AGENT_EVAL_INSTALL_DIR="+into,
				"AGENT_EVAL_DOWNLOAD_URL=file://"+rel+"/{tag}/agent-eval_{version}_{os}_{arch}.tar.gz")
			out, errs, code := script(t, t.TempDir(), env, "install.sh")
			installed := filepath.Join(into, "agent-eval")
			if tc.corrupt {
				if code == 0 {
					t.Fatalf("install.sh took an archive whose checksum does not match:\n%s", errs)
				}
				mustContain(t, "install.sh's stderr", errs, "checksum mismatch for agent-eval_0.9.0_")
				if _, err := os.Stat(installed); err == nil {
					t.Error("install.sh installed the archive whose checksum does not match")
				}
				return
			}
			if code != 0 {
				t.Fatalf("install.sh failed (%d):\n%s", code, errs)
			}
			if got := strings.TrimSpace(out); got != into {
				t.Errorf("install.sh printed %q, want %q", got, into)
			}
			if got := readOr(t, files["GITHUB_PATH"]); got != into+"\n" {
				t.Errorf("$GITHUB_PATH is %q, want %q", got, into+"\n")
			}
			v, err := exec.Command(installed, "version").CombinedOutput()
			if err != nil || !strings.HasPrefix(string(v), "agent-eval ") {
				t.Errorf("the installed agent-eval version: %v: %s", err, v)
			}
		})
	}
	t.Run("no checksum line", func(t *testing.T) {
		rel := fakeRelease(t, bin, false)
		if err := os.WriteFile(filepath.Join(rel, "v0.9.0", "checksums.txt"), []byte("00  other.tar.gz\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		env, _ := actionEnv(t, nil, "AGENT_EVAL_VERSION=v0.9.0", "AGENT_EVAL_INSTALL_DIR="+t.TempDir(),
			"AGENT_EVAL_DOWNLOAD_URL=file://"+rel+"/{tag}/agent-eval_{version}_{os}_{arch}.tar.gz")
		_, errs, code := script(t, t.TempDir(), env, "install.sh")
		if code == 0 {
			t.Fatal("install.sh took an archive checksums.txt does not list")
		}
		mustContain(t, "install.sh's stderr", errs, "checksums.txt has no line for agent-eval_0.9.0_")
	})
	t.Run("build from source", func(t *testing.T) {
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Skip("no go")
		}
		into := t.TempDir()
		env, _ := actionEnv(t, []string{filepath.Dir(goBin)}, "AGENT_EVAL_VERSION=v0.0.0-action-test",
			"AGENT_EVAL_BUILD_FROM_SOURCE=true", "AGENT_EVAL_INSTALL_DIR="+into)
		_, errs, code := script(t, t.TempDir(), env, "install.sh")
		if code != 0 {
			t.Fatalf("install.sh build-from-source failed (%d):\n%s", code, errs)
		}
		v, err := exec.Command(filepath.Join(into, "agent-eval"), "version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(v), "agent-eval v0.0.0-action-test") {
			t.Errorf("the built agent-eval version: %v: %s", err, v)
		}
	})
}

// ghComments stands in for gh: it records each call's arguments in
// $GH_RECORD/args and keeps the pull request's comments as the API's JSON
// in $GH_RECORD/comments.json, enough for gh api's list, POST and PATCH of
// issue comments; an artifacts listing is $GH_ARTIFACTS and an artifact's
// zip $GH_ARTIFACT_ZIP. --jq is applied with jq, as gh would.
const ghComments = `#!/bin/sh
set -eu
printf '%s\n' "$*" >> "$GH_RECORD/args"
[ "$1" = api ] || exit 64
shift
method=GET body= filter=.
while [ $# -gt 0 ]; do
	case "$1" in
	--method) method=$2; shift 2 ;;
	--paginate) shift ;;
	--jq) filter=$2; shift 2 ;;
	-F) body=${2#body=@}; shift 2 ;;
	*) path=$1; shift ;;
	esac
done
store="$GH_RECORD/comments.json"
[ -f "$store" ] || echo '[]' > "$store"
case "$method $path" in
"GET "*/actions/artifacts\?*) jq -r "$filter" "$GH_ARTIFACTS" ;;
"GET "*/actions/artifacts/*/zip) cat "$GH_ARTIFACT_ZIP" ;;
"GET "*/issues/*/comments) jq -r "$filter" "$store" ;;
"POST "*/issues/*/comments)
	id=$((1000 + $(jq length "$store")))
	jq --argjson id "$id" --rawfile b "$body" '. + [{id: $id, body: $b}]' "$store" > "$store.new"
	mv "$store.new" "$store"
	echo '{}' ;;
"PATCH "*/issues/comments/*)
	id=${path##*/}
	[ "$(jq --argjson id "$id" 'map(select(.id == $id)) | length' "$store")" = 1 ] || { echo "gh: HTTP 404" >&2; exit 1; }
	jq --argjson id "$id" --rawfile b "$body" 'map(if .id == $id then .body = $b else . end)' "$store" > "$store.new"
	mv "$store.new" "$store"
	echo '{}' ;;
*) echo "gh stand-in: unexpected $method $path" >&2; exit 64 ;;
esac
`

// zipDir packs dir's files into a zip as upload-artifact does (paths
// relative to dir).
func zipDir(t *testing.T, dir, into string) {
	t.Helper()
	f, err := os.Create(into)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestActionSteps runs the action's steps as on two workflow runs: a push
// to main (run.sh: passes, no baseline), then a pull request that breaks a
// case, with the push's run as the baseline artifact (baseline.sh through
// gh), scored against it (run.sh: failed, exit 1) and commented twice
// (comment.sh): one comment is created, then that same one is updated.
func TestActionSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agent-eval and runs the eval twice")
	}
	jq := need.Program(t, "jq") // the stand-in gh applies --jq with jq
	bin := buildAgentEval(t)
	tools := t.TempDir()
	if err := os.WriteFile(filepath.Join(tools, "gh"), []byte(ghComments), 0o755); err != nil {
		t.Fatal(err)
	}
	record := t.TempDir()
	// Somebody else's comments are there first, one quoting our marker.
	writeFiles(t, record, map[string]string{
		"comments.json": `[{"id": 998, "body": "LGTM"}, {"id": 999, "body": "why is <!-- agent-eval --> red?"}]`,
		// Newest first: expired, another branch's, then the one.
		"artifacts.json": `{"artifacts": [
  {"id": 70, "expired": true, "workflow_run": {"head_branch": "main"}},
  {"id": 71, "expired": false, "workflow_run": {"head_branch": "feature"}},
  {"id": 77, "expired": false, "workflow_run": {"head_branch": "main"}}]}`,
	})
	path := []string{filepath.Dir(bin), tools, filepath.Dir(jq)}
	repo := t.TempDir()
	writeFiles(t, repo, ciEval)

	// The push to main.
	env, files := actionEnv(t, path, "GITHUB_EVENT_NAME=push", "GITHUB_REF=refs/heads/main", "GITHUB_REF_NAME=main",
		"GITHUB_RUN_ID=500", "GH_RECORD="+record)
	_, errs, code := script(t, repo, env, "run.sh")
	if code != 0 {
		t.Fatalf("run.sh on main failed (%d):\n%s", code, errs)
	}
	out := outputs(t, files["GITHUB_OUTPUT"])
	if out["verdict"] != "passed" || out["exit-code"] != "0" || !filepath.IsAbs(out["run-dir"]) {
		t.Fatalf("run.sh on main: outputs %v, want passed, 0 and an absolute run-dir\n%s", out, errs)
	}
	mustContain(t, "the step summary", readOr(t, files["GITHUB_STEP_SUMMARY"]), "## ✅ agent-eval ci-demo: PASSED")
	mainRun := out["run-dir"]
	if filepath.Base(mainRun) != "ci-500-1" {
		t.Errorf("run-dir is %s, want the run id ci-500-1", mainRun)
	}
	artifact := filepath.Join(t.TempDir(), "artifact.zip")
	zipDir(t, mainRun, artifact)

	// The pull request, baseline from the artifact.
	writeFiles(t, repo, ciBreakingChange)
	prEnv, prFiles := actionEnv(t, path, "GITHUB_EVENT_NAME=pull_request", "GITHUB_REF=refs/pull/17/merge",
		"GITHUB_BASE_REF=main", "GITHUB_RUN_ID=501", "GH_RECORD="+record, "GH_ARTIFACTS="+filepath.Join(record, "artifacts.json"), "GH_ARTIFACT_ZIP="+artifact)
	baseline, errs, code := script(t, repo, prEnv, "baseline.sh", "agent-eval-run")
	baseline = strings.TrimSpace(baseline)
	if code != 0 || baseline == "" {
		t.Fatalf("baseline.sh failed (%d) or found none (%q):\n%s", code, baseline, errs)
	}
	mustContain(t, "baseline.sh's stderr", errs, "artifact agent-eval-run (77) of branch main")
	if _, err := os.Stat(filepath.Join(baseline, "summary.yaml")); err != nil {
		t.Fatalf("the baseline artifact was not unpacked into %s: %v", baseline, err)
	}
	// A base branch with no such artifact: no baseline, a warning, not a failure.
	none, errs, code := script(t, repo, append(slices.Clone(prEnv), "GITHUB_BASE_REF=release"), "baseline.sh", "agent-eval-run")
	if code != 0 || strings.TrimSpace(none) != "" {
		t.Errorf("baseline.sh for a branch without the artifact: exit %d, printed %q, want 0 and nothing", code, none)
	}
	mustContain(t, "baseline.sh's stderr", errs, "::warning title=agent-eval::no baseline: no artifact agent-eval-run from branch release")
	_, errs, code = script(t, repo, append(prEnv, "AGENT_EVAL_BASELINE="+baseline), "run.sh")
	if code != 0 {
		t.Fatalf("run.sh must leave the failure to the action's last step, exited %d:\n%s", code, errs)
	}
	out = outputs(t, prFiles["GITHUB_OUTPUT"])
	if out["verdict"] != "failed" || out["exit-code"] != "1" {
		t.Errorf("run.sh on the pull request: outputs %v, want failed and 1\n%s", out, errs)
	}
	mustContain(t, "the step summary", readOr(t, prFiles["GITHUB_STEP_SUMMARY"]), "## ❌ agent-eval ci-demo: FAILED",
		"### Against the baseline `ci-500-1`")

	// Two pushes to the pull request: one comment, created then updated.
	for i := range 2 {
		if _, errs, code := script(t, repo, prEnv, "comment.sh", out["run-dir"]); code != 0 {
			t.Fatalf("comment.sh #%d failed (%d):\n%s", i+1, code, errs)
		}
	}
	args := strings.Split(strings.TrimSpace(readOr(t, filepath.Join(record, "args"))), "\n")
	var writes []string
	for _, a := range args {
		if strings.Contains(a, "--method") {
			writes = append(writes, strings.Fields(a)[2]+" "+strings.Fields(a)[3])
		}
	}
	want := []string{"POST repos/octo/evals/issues/17/comments", "PATCH repos/octo/evals/issues/comments/1002"}
	if !slices.Equal(writes, want) {
		t.Errorf("gh wrote %q, want %q; all calls:\n%s", writes, want, strings.Join(args, "\n"))
	}
	var comments []struct {
		ID   int    `json:"id"`
		Body string `json:"body"`
	}
	if err := json.Unmarshal([]byte(readOr(t, filepath.Join(record, "comments.json"))), &comments); err != nil {
		t.Fatal(err)
	}
	if len(comments) != 3 || comments[0].Body != "LGTM" || comments[2].ID != 1002 {
		t.Fatalf("the pull request's comments: %+v, want the two others and ours, 1002", comments)
	}
	body := comments[2].Body
	if !strings.HasPrefix(body, "<!-- agent-eval -->\n") {
		t.Errorf("the comment does not start with the marker:\n%s", body)
	}
	mustContain(t, "the comment", body, "## ❌ agent-eval ci-demo: FAILED", "### Against the baseline")

	// Not a pull request: no comment, no gh.
	before := readOr(t, filepath.Join(record, "args"))
	if _, errs, code := script(t, repo, env, "comment.sh", out["run-dir"]); code != 0 {
		t.Fatalf("comment.sh on a push failed (%d):\n%s", code, errs)
	}
	if after := readOr(t, filepath.Join(record, "args")); after != before {
		t.Errorf("comment.sh called gh on a push: %s", strings.TrimPrefix(after, before))
	}
}

// composite runs action.yml's steps as GitHub's runner runs a composite
// action, as far as that goes off GitHub: ${{ inputs.X }} (with, else the
// default), ${{ steps.ID.outputs.X }} (from each step's $GITHUB_OUTPUT),
// ${{ github.X }} from gh, step conditions of && terms (always(),
// A == 'v', A != 'v', steps.ID.outcome) and working-directory under
// workspace; a uses: step is recorded, not run. It returns whether the
// action succeeded, the names of the steps run and the action's outputs.
func composite(t *testing.T, a actionFile, workspace string, env []string, with, gh map[string]string) (ok bool, ran []string, outs map[string]string) {
	t.Helper()
	expr := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
	stepOut := map[string]map[string]string{}
	outcome := map[string]string{}
	value := func(ref string) string {
		switch parts := strings.Split(ref, "."); {
		case len(parts) == 2 && parts[0] == "inputs":
			if v, ok := with[parts[1]]; ok {
				return v
			}
			return expr.ReplaceAllStringFunc(a.Inputs[parts[1]].Default, func(string) string { return gh["token"] })
		case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
			return stepOut[parts[1]][parts[3]]
		case len(parts) == 3 && parts[0] == "steps" && parts[2] == "outcome":
			return outcome[parts[1]]
		case len(parts) == 2 && parts[0] == "github":
			return gh[parts[1]]
		}
		t.Fatalf("action.yml: the test cannot evaluate %q", ref)
		return ""
	}
	subst := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string { return value(expr.FindStringSubmatch(m)[1]) })
	}
	cond := func(c string) bool {
		if c == "" {
			return ok // success()
		}
		for _, term := range strings.Split(c, "&&") {
			term = strings.TrimSpace(term)
			if term == "always()" {
				continue
			}
			op := " == "
			if strings.Contains(term, " != ") {
				op = " != "
			}
			l, r, found := strings.Cut(term, op)
			if !found {
				t.Fatalf("action.yml: the test cannot evaluate the condition %q", term)
			}
			eq := value(strings.TrimSpace(l)) == strings.Trim(strings.TrimSpace(r), "'")
			if eq != (op == " == ") {
				return false
			}
		}
		return true
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ok = true
	for _, s := range a.Runs.Steps {
		if !cond(s.If) {
			continue
		}
		ran = append(ran, s.Name)
		if s.Uses != "" {
			continue
		}
		out := filepath.Join(t.TempDir(), "output")
		if err := os.WriteFile(out, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", subst(s.Run))
		cmd.Dir = filepath.Join(workspace, subst(s.Dir))
		cmd.Env = append(slices.Clone(env), "GITHUB_ACTION_PATH="+root, "GITHUB_OUTPUT="+out)
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+subst(v))
		}
		b, err := cmd.CombinedOutput()
		t.Logf("step %s:\n%s", s.Name, b)
		if err != nil {
			ok = false
		}
		outcome[s.ID] = map[bool]string{true: "success", false: "failure"}[err == nil]
		if s.ID != "" {
			stepOut[s.ID] = outputs(t, out)
		}
		// What a step put on $GITHUB_PATH is on PATH for the next ones.
		absorbPath(t, env)
	}
	outs = map[string]string{}
	for k, o := range a.Outputs {
		outs[k] = subst(o.Value)
	}
	return ok, ran, outs
}

// TestActionComposite runs action.yml itself (composite above): installed
// from a fake release, a push to main that passes, then a pull request
// that breaks a case against the push's run as baseline: the action fails
// with exit 1, after uploading the run and commenting.
func TestActionComposite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agent-eval and runs the eval twice")
	}
	jq := need.Program(t, "jq") // the stand-in gh applies --jq with jq
	a, _ := readAction(t)
	bin := buildAgentEval(t)
	rel := fakeRelease(t, bin, false)
	tools, record := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(tools, "gh"), []byte(ghComments), 0o755); err != nil {
		t.Fatal(err)
	}
	workspace := t.TempDir()
	writeFiles(t, filepath.Join(workspace, "evals"), ciEval)
	with := map[string]string{"version": "v0.9.0", "working-directory": "evals",
		"download-url": "file://" + rel + "/{tag}/agent-eval_{version}_{os}_{arch}.tar.gz"}
	// agent-eval is not on PATH: the install step must put it there.
	path := []string{tools, filepath.Dir(jq)}

	env, _ := actionEnv(t, path, "GITHUB_EVENT_NAME=push", "GITHUB_RUN_ID=600", "GH_RECORD="+record)
	ok, ran, outs := composite(t, a, workspace, env, with, map[string]string{"event_name": "push", "token": "tok", "action_ref": "main"})
	if !ok || outs["verdict"] != "passed" || outs["exit-code"] != "0" {
		t.Fatalf("the action on a push: ok %v, outputs %v, steps %q", ok, outs, ran)
	}
	wantRan := []string{"Install agent-eval", "Run and score the eval", "Upload the run directory", "Exit with agent-eval's code"}
	if !slices.Equal(ran, wantRan) {
		t.Errorf("on a push the action ran %q, want %q", ran, wantRan)
	}

	writeFiles(t, filepath.Join(workspace, "evals"), ciBreakingChange)
	with["baseline"] = outs["run-dir"]
	env, files := actionEnv(t, path, "GITHUB_EVENT_NAME=pull_request", "GITHUB_REF=refs/pull/9/merge",
		"GITHUB_BASE_REF=main", "GITHUB_RUN_ID=601", "GH_RECORD="+record)
	ok, ran, outs = composite(t, a, workspace, env, with, map[string]string{"event_name": "pull_request", "token": "tok", "action_ref": "main"})
	if ok || outs["verdict"] != "failed" || outs["exit-code"] != "1" {
		t.Fatalf("the action on a breaking pull request: ok %v, outputs %v, steps %q", ok, outs, ran)
	}
	wantRan = []string{"Install agent-eval", "Find the baseline", "Run and score the eval", "Upload the run directory",
		"Comment on the pull request", "Exit with agent-eval's code"}
	if !slices.Equal(ran, wantRan) {
		t.Errorf("on a pull request the action ran %q, want %q", ran, wantRan)
	}
	mustContain(t, "the step summary", readOr(t, files["GITHUB_STEP_SUMMARY"]), "### Against the baseline `ci-600-1`")
	mustContain(t, "the comments", readOr(t, filepath.Join(record, "comments.json")), `<!-- agent-eval -->\n## ❌ agent-eval ci-demo: FAILED`)
}

// absorbPath puts the folders a step wrote to env's $GITHUB_PATH first on
// env's PATH, as the runner does, and empties the file.
func absorbPath(t *testing.T, env []string) {
	t.Helper()
	var file string
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "GITHUB_PATH="); ok {
			file = p
		}
	}
	for _, dir := range strings.Fields(readOr(t, file)) {
		for i, kv := range env {
			if p, ok := strings.CutPrefix(kv, "PATH="); ok {
				env[i] = "PATH=" + dir + string(os.PathListSeparator) + p
			}
		}
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
