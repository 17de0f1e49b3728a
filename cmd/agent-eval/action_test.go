package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
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
	// Go's own settings, for build-from-source.
	for _, k := range []string{"GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
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
	bin := buildAgentEval(t)
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
// $GH_RECORD/args and keeps the pull request's comments in $GH_RECORD
// (ids, one a line; body.ID), enough for gh api's list, POST and PATCH of
// issue comments; an artifacts listing prints $GH_ARTIFACT_ID and an
// artifact's zip is $GH_ARTIFACT_ZIP. It does not evaluate --jq: each of
// our comments carries the marker, so every id is one of ours.
const ghComments = `#!/bin/sh
set -eu
printf '%s\n' "$*" >> "$GH_RECORD/args"
[ "$1" = api ] || exit 64
shift
method=GET body=
while [ $# -gt 0 ]; do
	case "$1" in
	--method) method=$2; shift 2 ;;
	--paginate) shift ;;
	--jq) shift 2 ;;
	-F) body=${2#body=@}; shift 2 ;;
	*) path=$1; shift ;;
	esac
done
case "$method $path" in
"GET "*/actions/artifacts\?*) echo "$GH_ARTIFACT_ID" ;;
"GET "*/actions/artifacts/*/zip) cat "$GH_ARTIFACT_ZIP" ;;
"GET "*/issues/*/comments) cat "$GH_RECORD/ids" 2>/dev/null || true ;;
"POST "*/issues/*/comments)
	id=$((1000 + $(cat "$GH_RECORD/ids" 2>/dev/null | wc -l)))
	echo "$id" >> "$GH_RECORD/ids"
	cp "$body" "$GH_RECORD/body.$id"
	echo '{}' ;;
"PATCH "*/issues/comments/*)
	id=${path##*/}
	grep -qx "$id" "$GH_RECORD/ids" || { echo "gh: HTTP 404" >&2; exit 1; }
	cp "$body" "$GH_RECORD/body.$id"
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
	bin := buildAgentEval(t)
	tools := t.TempDir()
	if err := os.WriteFile(filepath.Join(tools, "gh"), []byte(ghComments), 0o755); err != nil {
		t.Fatal(err)
	}
	record := t.TempDir()
	path := []string{filepath.Dir(bin), tools}
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
		"GITHUB_BASE_REF=main", "GITHUB_RUN_ID=501", "GH_RECORD="+record, "GH_ARTIFACT_ID=77", "GH_ARTIFACT_ZIP="+artifact)
	baseline, errs, code := script(t, repo, prEnv, "baseline.sh", "agent-eval-run")
	baseline = strings.TrimSpace(baseline)
	if code != 0 || baseline == "" {
		t.Fatalf("baseline.sh failed (%d) or found none (%q):\n%s", code, baseline, errs)
	}
	if _, err := os.Stat(filepath.Join(baseline, "summary.yaml")); err != nil {
		t.Fatalf("the baseline artifact was not unpacked into %s: %v", baseline, err)
	}
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
	want := []string{"POST repos/octo/evals/issues/17/comments", "PATCH repos/octo/evals/issues/comments/1000"}
	if !slices.Equal(writes, want) {
		t.Errorf("gh wrote %q, want %q; all calls:\n%s", writes, want, strings.Join(args, "\n"))
	}
	if ids := readOr(t, filepath.Join(record, "ids")); ids != "1000\n" {
		t.Errorf("the pull request has comments %q, want the one 1000", ids)
	}
	body := readOr(t, filepath.Join(record, "body.1000"))
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
