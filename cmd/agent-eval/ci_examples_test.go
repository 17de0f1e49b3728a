package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// The CI examples (examples/ci) tried the way CI runs them: each shell step
// of the GitHub Actions workflow and the GitLab CI job's script run in
// order, under bash as the runners start it, in a checkout of an eval that
// needs no model, with the environment the runner gives a job
// ($GITHUB_STEP_SUMMARY, $GITHUB_ENV, $GITHUB_PATH, $GITHUB_OUTPUT, CI_*),
// the built agent-eval on PATH and a stand-in gh that records what it was
// given (the one fake: GitHub is not ours). Steps that use an action are
// skipped: checkout is the temporary folder being the checkout, setup-go
// that go is here; the cache between two pipelines is the folder kept.

// ciEval is the repository CI checks out: an eval whose agent is a shell
// line, so it runs offline in a fraction of a second. The agent answers
// every case but one whose text is "x"; the threshold wants every case
// answered.
var ciEval = map[string]string{
	"eval.yaml": `name: ci-demo
execution:
  prompt: "{text}"
runner:
  type: cli
  command: sh -c 'test "$0" = x || printf %s "$0" > output/answer.txt' {text}
models:
  skill: none
dataset:
  path: cases
outputs:
  - path: output
judges:
  - name: answered
    expr: 'len(output_content ?? "") > 0'
thresholds:
  answered:
    min_pass_rate: 1.0
`,
	"cases/a/input.yaml": "text: hello\n",
	"cases/b/input.yaml": "text: world\n",
}

// ghStandIn records its arguments and its stdin in $GH_RECORD.
const ghStandIn = `#!/bin/sh
printf '%s\n' "$*" >> "$GH_RECORD/args"
cat >> "$GH_RECORD/body"
`

// ciJob is one job of a CI example being tried.
type ciJob struct {
	t    *testing.T
	repo string // the checkout, and each step's working folder
	env  map[string]string
	// out is what every step printed, in order.
	out strings.Builder
}

// newCIJob is a checkout of ciEval under a runner whose PATH holds the
// built agent-eval and the stand-in gh, and nothing else but the system's.
func newCIJob(t *testing.T, repo, bin string) *ciJob {
	t.Helper()
	tools := filepath.Join(filepath.Dir(bin), "gh-bin")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "gh"), []byte(ghStandIn), 0o755); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(filepath.Dir(bin), "gh-record")
	if err := os.MkdirAll(record, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(filepath.Dir(bin), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	return &ciJob{t: t, repo: repo, env: map[string]string{
		"PATH": filepath.Dir(bin) + string(os.PathListSeparator) + tools + string(os.PathListSeparator) + "/usr/local/bin:/usr/bin:/bin",
		"HOME": home, "GH_RECORD": record, "CI": "true", "TMPDIR": os.TempDir(),
	}}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// set adds vars to the job's environment. A value that is a GitHub
// expression (${{ … }}) is empty: the secrets and tokens it reads are
// GitHub's.
func (j *ciJob) set(vars map[string]string) {
	for k, v := range vars {
		if strings.Contains(v, "${{") {
			v = ""
		}
		j.env[k] = v
	}
}

func (j *ciJob) environ(extra map[string]string) []string {
	var env []string
	for k, v := range j.env {
		if _, ok := extra[k]; !ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range extra {
		if strings.Contains(v, "${{") {
			v = ""
		}
		env = append(env, k+"="+v)
	}
	return env
}

// step runs one shell step with bash as the runner starts it (GitHub:
// bash --noprofile --norc -eo pipefail; GitLab's shell also stops at the
// first failing command) and reports whether it succeeded.
func (j *ciJob) step(name, script string, env map[string]string) bool {
	j.t.Helper()
	f := filepath.Join(j.t.TempDir(), "step.sh")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		j.t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", f)
	cmd.Dir, cmd.Env = j.repo, j.environ(env)
	out, err := cmd.CombinedOutput()
	j.out.WriteString("## step " + name + "\n")
	j.out.Write(out)
	if err != nil {
		j.out.WriteString("## step " + name + " failed: " + err.Error() + "\n")
		return false
	}
	return true
}

// absorb applies what a step left in $GITHUB_ENV (NAME=value lines) and
// $GITHUB_PATH (one folder a line, put first on PATH), as the runner does
// before the next step, and empties both.
func (j *ciJob) absorb() {
	j.t.Helper()
	for _, kind := range []string{"GITHUB_ENV", "GITHUB_PATH"} {
		f, err := os.Open(j.env[kind])
		if err != nil {
			j.t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if kind == "GITHUB_PATH" {
				j.env["PATH"] = line + string(os.PathListSeparator) + j.env["PATH"]
			} else if k, v, ok := strings.Cut(line, "="); ok {
				j.env[k] = v
			}
		}
		f.Close()
		if err := os.WriteFile(j.env[kind], nil, 0o644); err != nil {
			j.t.Fatal(err)
		}
	}
}

// githubWorkflow is the part of a workflow the test reads.
type githubWorkflow struct {
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// runGitHub runs the workflow's job as the runner would on event (push or
// pull_request) as workflow run runID; it returns whether the job succeeded and the names of the
// shell steps that ran.
func runGitHub(t *testing.T, j *ciJob, event, runID string) (ok bool, ran []string) {
	t.Helper()
	b, err := os.ReadFile("../../examples/ci/github-actions.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf githubWorkflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("parse github-actions.yml: %v", err)
	}
	job, found := wf.Jobs["eval"]
	if !found || len(wf.Jobs) != 1 {
		t.Fatalf("github-actions.yml: want the one job eval, have %d", len(wf.Jobs))
	}
	files := t.TempDir()
	for _, k := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT"} {
		p := filepath.Join(files, strings.ToLower(k))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		j.env[k] = p
	}
	j.set(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_REPOSITORY": "octo/evals",
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": runID, "GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_WORKSPACE": j.repo, "RUNNER_TEMP": files})
	if event == "pull_request" {
		j.set(map[string]string{"GITHUB_REF": "refs/pull/17/merge", "GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "skill-change"})
	} else {
		j.set(map[string]string{"GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main"})
	}
	j.set(job.Env)
	for i, s := range job.Steps {
		switch {
		case s.Uses != "" && s.Run != "":
			t.Fatalf("step %d has both uses and run", i)
		case s.Uses != "":
			continue // checkout: j.repo is the checkout; setup-go: go is here; cache, artifacts: the folder stays
		case s.Name == "":
			t.Fatalf("step %d (%q) has no name", i, s.Run)
		}
		ran = append(ran, s.Name)
		if !j.step(s.Name, s.Run, s.Env) {
			return false, ran
		}
		j.absorb()
	}
	return true, ran
}

// gitlabJob is the part of a GitLab CI job the test reads.
type gitlabJob struct {
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
	Artifacts struct {
		Paths   []string `yaml:"paths"`
		Reports struct {
			JUnit string `yaml:"junit"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

func readGitLab(t *testing.T) gitlabJob {
	t.Helper()
	b, err := os.ReadFile("../../examples/ci/gitlab-ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var jobs map[string]gitlabJob
	if err := yaml.Unmarshal(b, &jobs); err != nil {
		t.Fatalf("parse gitlab-ci.yml: %v", err)
	}
	job, ok := jobs["agent-eval"]
	if !ok || len(job.Script) == 0 {
		t.Fatalf("gitlab-ci.yml has no job agent-eval with a script")
	}
	return job
}

// runGitLab runs the job's script, its lines in one shell as GitLab's
// runner does, with the variables of a pipeline: on the default branch, or
// for a merge request.
func runGitLab(t *testing.T, j *ciJob, job gitlabJob, mergeRequest bool) bool {
	t.Helper()
	j.set(map[string]string{"GITLAB_CI": "true", "CI_PROJECT_DIR": j.repo, "CI_DEFAULT_BRANCH": "main",
		"CI_JOB_URL": "https://gitlab.example/octo/evals/-/jobs/99", "CI_JOB_ID": "99", "CI_PIPELINE_ID": "7"})
	if mergeRequest {
		j.set(map[string]string{"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "5", "CI_COMMIT_BRANCH": "",
			"CI_JOB_ID": "100", "CI_JOB_URL": "https://gitlab.example/octo/evals/-/jobs/100"})
	} else {
		j.set(map[string]string{"CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BRANCH": "main"})
	}
	j.set(job.Variables)
	return j.step("script", strings.Join(job.Script, "\n"), nil)
}

// buildAgentEval builds agent-eval into a folder of its own.
func buildAgentEval(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agent-eval")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build agent-eval: %v\n%s", err, out)
	}
	return bin
}

func readOr(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func mustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

// A change that breaks a case (b's text is the one the agent does not
// answer) after a passing run on the default branch.
var ciBreakingChange = map[string]string{"cases/b/input.yaml": "text: x\n"}

// TestCIExamples runs each example twice, as CI would: on the default
// branch, then for a change that breaks a case. agent-eval is built once.
func TestCIExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agent-eval and runs four CI jobs")
	}
	bin := buildAgentEval(t)
	t.Run("github-actions", func(t *testing.T) { tryGitHubActions(t, bin) })
	t.Run("gitlab-ci", func(t *testing.T) { tryGitLab(t, bin) })
}

func tryGitHubActions(t *testing.T, bin string) {
	repo := t.TempDir()
	writeFiles(t, repo, ciEval)

	// A push to main: the eval passes, the job succeeds, the run is kept
	// as the baseline; no comment (no pull request).
	push := newCIJob(t, repo, bin)
	ok, _ := runGitHub(t, push, "push", "4242")
	if !ok {
		t.Fatalf("the job on a push to main failed:\n%s", push.out.String())
	}
	mustContain(t, "the step summary", readOr(t, push.env["GITHUB_STEP_SUMMARY"]), "## ✅ agent-eval ci-demo: PASSED",
		"in the artifacts of [the CI run](https://github.com/octo/evals/actions/runs/4242)")
	mustContain(t, "the job's log", push.out.String(), "::notice title=agent-eval ci-demo%3A PASSED::")
	if _, err := os.Stat(filepath.Join(repo, ".agent-eval/baseline/summary.yaml")); err != nil {
		t.Errorf("the push kept no baseline: %v\n%s", err, push.out.String())
	}
	if got := readOr(t, filepath.Join(push.env["GH_RECORD"], "args")); got != "" {
		t.Errorf("gh was called on a push: %s", got)
	}

	// A pull request that breaks a case: scored against the baseline, the
	// verdict on the summary page and as a comment, an annotation per
	// breach, and the job fails at its last step.
	writeFiles(t, repo, ciBreakingChange)
	pr := newCIJob(t, repo, bin)
	ok, ran := runGitHub(t, pr, "pull_request", "4243")
	log := pr.out.String()
	if ok {
		t.Fatalf("the job on a pull request that breaks a threshold succeeded:\n%s", log)
	}
	if last := ran[len(ran)-1]; last != "Fail on a breached threshold" {
		t.Errorf("the job failed at step %q, want its last step:\n%s", last, log)
	}
	summary := readOr(t, pr.env["GITHUB_STEP_SUMMARY"])
	mustContain(t, "the step summary", summary, "## ❌ agent-eval ci-demo: FAILED", "### Against the baseline `ci-4242-1`",
		"- `answered` `min_pass_rate`: want ≥ 1, got 0.5", "| `b` | completed | `answered` | failed |")
	mustContain(t, "the job's log", log, "::error title=agent-eval%3A threshold breached%3A answered min_pass_rate::answered min_pass_rate: want 1, got 0.5",
		"::warning title=agent-eval%3A worse than the baseline%3A answered::", "::notice title=agent-eval ci-demo%3A FAILED::")
	rec := pr.env["GH_RECORD"]
	if got := readOr(t, filepath.Join(rec, "args")); got != "pr comment 17 --repo octo/evals --body-file -\n" {
		t.Errorf("gh got %q, want one pr comment on 17", got)
	}
	body := readOr(t, filepath.Join(rec, "body"))
	mustContain(t, "the comment", body, "## ❌ agent-eval ci-demo: FAILED", "### Against the baseline")
	if i := strings.LastIndex(summary, "## ❌"); i < 0 || strings.TrimSpace(body) != strings.TrimSpace(summary[i:]) {
		t.Errorf("the comment is not the step summary's verdict:\n%s\n---\n%s", body, summary)
	}
	if _, err := os.Stat(filepath.Join(repo, ".agent-eval/baseline/summary.yaml")); err != nil {
		t.Errorf("the baseline is gone: %v", err)
	}
}

func tryGitLab(t *testing.T, bin string) {
	job := readGitLab(t)
	if job.Artifacts.Reports.JUnit == "" {
		t.Fatal("gitlab-ci.yml publishes no artifacts:reports:junit")
	}
	repo := t.TempDir()
	writeFiles(t, repo, ciEval)

	onMain := newCIJob(t, repo, bin)
	if !runGitLab(t, onMain, job, false) {
		t.Fatalf("the job on the default branch failed:\n%s", onMain.out.String())
	}
	mustContain(t, "the job's log", onMain.out.String(), "## ✅ agent-eval ci-demo: PASSED")
	if _, err := os.Stat(filepath.Join(repo, ".agent-eval/baseline/summary.yaml")); err != nil {
		t.Errorf("the default branch kept no baseline: %v\n%s", err, onMain.out.String())
	}

	writeFiles(t, repo, ciBreakingChange)
	if err := os.Remove(filepath.Join(repo, job.Artifacts.Reports.JUnit)); err != nil {
		t.Fatal(err)
	}
	mr := newCIJob(t, repo, bin)
	if runGitLab(t, mr, job, true) {
		t.Fatalf("the job on a merge request that breaks a threshold succeeded:\n%s", mr.out.String())
	}
	if !strings.HasSuffix(mr.out.String(), "exit status 1\n") {
		t.Errorf("the job did not end with exit 1:\n%s", mr.out.String())
	}
	md := readOr(t, filepath.Join(repo, "agent-eval.md"))
	mustContain(t, "agent-eval.md", md, "## ❌ agent-eval ci-demo: FAILED", "### Against the baseline `ci-7-99`",
		"[report.html](https://gitlab.example/octo/evals/-/jobs/100/artifacts/file/.agent-eval/runs/ci-demo/ci-7-100/report.html)")
	junit := readOr(t, filepath.Join(repo, job.Artifacts.Reports.JUnit))
	mustContain(t, "the junit report", junit, `<testcase classname="answered" name="b"`, "<failure")
	for _, p := range job.Artifacts.Paths {
		if _, err := os.Stat(filepath.Join(repo, p)); err != nil {
			t.Errorf("artifact path %s: %v", p, err)
		}
	}
}
