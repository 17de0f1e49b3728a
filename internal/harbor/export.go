package harbor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// Defaults of the export's flags.
const (
	DefaultVerifierTimeout = 300 * time.Second
	// GeneratedBy is [metadata].generated_by.
	GeneratedBy = "agent-eval harbor export"
)

// Options say what to export and where.
type Options struct {
	Eval *config.Eval
	// Cases are the case ids to export (nil: every case of the dataset).
	Cases []string
	// Out is the folder of task folders.
	Out string
	// Image is [environment].docker_image (the agent CLI, agent-eval's
	// needs, bubblewrap); Workdir its workdir (default Workdir).
	Image, Workdir string
	// Binary is the static linux/amd64 agent-eval the hook and the
	// verifier run ("": this executable, when it is one).
	Binary string
	// AgentTimeout (0: execution.timeout) and VerifierTimeout (0:
	// DefaultVerifierTimeout).
	AgentTimeout, VerifierTimeout time.Duration
	// Force replaces the task folders of an earlier export in Out.
	Force bool
	// Handlers are the compiled inputs.tools (nil: none).
	Handlers *intercept.File
	// ProjectRoot is where relative dataset.workspace.files sources are
	// read from (a run's working directory).
	ProjectRoot string
	// Environ is the caller's environment: the secrets hidden in the
	// bundled eval.yaml.
	Environ []string
	// Version is the agent-eval exporting.
	Version string
	// CaseEnv, when set, gives a case's literal [environment].env entries
	// (never a secret: a run with --fake-model points each trial's model
	// at its case's script with it).
	CaseEnv func(caseID string) map[string]string
}

// Task is one exported task.
type Task struct {
	CaseID string `json:"case_id"`
	// Dir is the task's folder; Name its [task].name.
	Dir  string `json:"dir"`
	Name string `json:"name"`
}

// Exported is what Export wrote.
type Exported struct {
	Dir   string `json:"dir"`
	Tasks []Task `json:"tasks"`
}

// RefusalError is an eval or case a Harbor task cannot carry: the user's
// to change (exit 2).
type RefusalError struct{ Err error }

func (e *RefusalError) Error() string { return e.Err.Error() }
func (e *RefusalError) Unwrap() error { return e.Err }

func refusef(format string, a ...any) error {
	return &RefusalError{fmt.Errorf(format, a...)}
}

// workdirRE is what a workdir may hold: it is pasted into shell command
// lines and the hook's settings unquoted.
var workdirRE = lazyre.New(`^/[A-Za-z0-9/_.-]*$`)

// stepRefRE finds a step prompt's {{ steps.<id>… }} reference.
var stepRefRE = lazyre.New(`\{\{[^}]*\bsteps\.[A-Za-z0-9_.-]+[^}]*\}\}`)

// canaryRE is a line Harbor strips from the start of an instruction
// (models/task/task.py).
var canaryRE = lazyre.New(`(?i)^(<!--.*canary.*-->|#.*canary.*)$`)

// Export writes one Harbor task per selected case into o.Out, checks the
// tree with Check and moves it into place only when it passes: a failed
// export leaves o.Out as it was.
func Export(ctx context.Context, o Options) (Exported, error) {
	var out Exported
	if o.Workdir == "" {
		o.Workdir = Workdir
	}
	if err := refusals(o); err != nil {
		return out, err
	}
	ids, err := selectCases(o.Eval, o.Cases)
	if err != nil {
		return out, err
	}
	bin, err := FindBinary(o.Binary)
	if err != nil {
		return out, &RefusalError{err}
	}
	abs, err := filepath.Abs(o.Out)
	if err != nil {
		return out, err
	}
	out.Dir = abs
	names := uniqueNames(ids)
	if err := checkTarget(abs, names, o.Force); err != nil {
		return out, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return out, fmt.Errorf("make the export's folder: %w", err)
	}
	stage, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".export-")
	if err != nil {
		return out, fmt.Errorf("make the export's staging folder: %w", err)
	}
	defer os.RemoveAll(stage)
	x := &exporter{o: o, bin: bin, copy: engine.ConfigCopy(o.Eval, o.Environ)}
	if x.binDigest, err = fileDigest(bin); err != nil {
		return out, fmt.Errorf("read the agent-eval binary: %w", err)
	}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		t, err := x.task(filepath.Join(stage, names[i]), id)
		if err != nil {
			return out, fmt.Errorf("export case %s: %w", id, err)
		}
		t.Dir = filepath.Join(abs, names[i])
		out.Tasks = append(out.Tasks, t)
	}
	if problems := Check(stage); len(problems) > 0 {
		return out, &ProblemsError{Problems: problems}
	}
	return out, place(stage, abs, names)
}

// refusals are what a Harbor task cannot honour of the eval.
func refusals(o Options) error {
	ev := o.Eval
	switch {
	case o.Image == "":
		return refusef("no image: pass --image, the container image the tasks run in (the agent CLI, agent-eval's needs, bubblewrap)")
	case !workdirRE().MatchString(o.Workdir) || strings.Contains(o.Workdir, ".."):
		return refusef("--workdir %q: an absolute path of letters, digits and /_.- only (it goes into shell command lines)", o.Workdir)
	case ev.Mode() == "batch":
		return refusef("execution.mode batch: a Harbor task is one case; exporting a batch comes in a later release (use mode case)")
	case ev.Runner.WorkspaceMode == "repo":
		return refusef("runner.workspace_mode repo: a Harbor trial has no project of yours to run in; exporting it comes in a later release")
	case ev.RunnerType() != string(runner.TypeClaudeCode):
		return refusef("runner.type %s: only claude-code tasks are exported (Harbor's own claude-code agent runs them, with the hook and settings the export compiles); run the %s runner locally (--backend local)", ev.RunnerType(), ev.RunnerType())
	case len(ev.Runner.PluginDirs) > 0:
		return refusef("runner.plugin_dirs: a Harbor task does not carry plugins; bake them into the image (Harbor's --skill) and drop them from the eval to export")
	case len(ev.Runner.HomeFiles) > 0:
		return refusef("runner.home_files: a Harbor trial has no home of yours to copy from")
	}
	h := ev.Hooks
	if len(h.BeforeAll)+len(h.AfterAll)+len(h.BeforeEach)+len(h.AfterEach)+len(h.BeforeStep)+len(h.AfterStep) > 0 {
		return refusef("hooks: lifecycle hooks run on the host around each case; a Harbor trial does not run them")
	}
	for _, env := range []struct {
		key string
		m   config.EnvMap
	}{{"execution.env", ev.Execution.Env}, {"runner.env", ev.Runner.Env}} {
		for k, v := range env.m {
			if strings.Contains(v, "$") && !envRefRE().MatchString(v) {
				return refusef("%s.%s: %q names a variable inside a longer value; Harbor's env templates take a whole value only (${VAR})", env.key, k, v)
			}
		}
	}
	for _, s := range ev.Execution.Steps {
		switch {
		case s.Runner != nil:
			return refusef("execution.steps %s: a step's own runner: a Harbor task runs one agent", s.ID)
		case len(s.Env) > 0:
			return refusef("execution.steps %s: a step's own env: Harbor's environment is the task's, for every step", s.ID)
		case s.MaxBudgetUSD != nil:
			return refusef("execution.steps %s: a step's own max_budget_usd: Harbor's agent has one budget for every step", s.ID)
		}
		tpl := s.Prompt + " " + s.Arguments
		if ref := stepRefRE().FindString(tpl); ref != "" {
			return refusef("execution.steps %s: %s is an earlier step's result, unknown when the task is exported; pass it through a file in the workspace instead", s.ID, ref)
		}
	}
	return nil
}

var envRefRE = lazyre.New(`^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})$`)

// selectCases are the dataset's case ids, or want's, in the dataset's order.
func selectCases(ev *config.Eval, want []string) ([]string, error) {
	ids, err := ev.CaseIDs()
	if err != nil {
		return nil, fmt.Errorf("list the cases: %w", err)
	}
	if len(want) == 0 {
		if len(ids) == 0 {
			return nil, refusef("%s holds no case", ev.DatasetDir())
		}
		return ids, nil
	}
	for _, c := range want {
		if !slices.Contains(ids, c) {
			return nil, refusef("--cases: %s is not a case of %s", c, ev.DatasetDir())
		}
	}
	return want, nil
}

// checkTarget refuses to write over what is not an earlier export's task.
func checkTarget(out string, names []string, force bool) error {
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", out, err)
	}
	if len(entries) > 0 && !force {
		return refusef("%s is not empty; pass --force to replace the task folders of an earlier export", out)
	}
	for _, n := range names {
		p := filepath.Join(out, n)
		if _, err := os.Lstat(p); err == nil {
			if _, err := os.Stat(filepath.Join(p, TaskFile)); err != nil {
				return refusef("%s exists and is no task folder (no %s); it is left alone, move it away", p, TaskFile)
			}
		}
	}
	return nil
}

// place moves the staged tasks into out, each replacing an earlier
// export's folder of its name.
func place(stage, out string, names []string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("make %s: %w", out, err)
	}
	for _, n := range names {
		dst := filepath.Join(out, n)
		if err := os.RemoveAll(dst); err != nil {
			return fmt.Errorf("replace %s: %w", dst, err)
		}
		if err := os.Rename(filepath.Join(stage, n), dst); err != nil {
			return fmt.Errorf("move the task into %s: %w", dst, err)
		}
	}
	return nil
}

// exporter writes tasks.
type exporter struct {
	o         Options
	bin       string // the binary to link
	binDigest string
	linked    string            // the first copy, which the other tasks link
	copy      []byte            // the bundled eval.yaml
	testFiles map[string]string // the current task's tests/ files (CaseInfo.Tests)
}

// task writes the case id's task into dir.
func (x *exporter) task(dir, id string) (Task, error) {
	ev := x.o.Eval
	caseDir := filepath.Join(ev.DatasetDir(), id)
	name := Segment(ev.EvalName(), "eval") + "/" + filepath.Base(dir)
	t := Task{CaseID: id, Name: name}
	env := filepath.Join(dir, EnvironmentDir)
	if err := os.MkdirAll(env, 0o755); err != nil {
		return t, err
	}
	input, err := workspace.ReadInput(caseDir)
	if err != nil {
		return t, err
	}
	if err := engine.FillWorkspace(ev, x.o.ProjectRoot, env, caseDir); err != nil {
		return t, fmt.Errorf("fill the environment: %w", err)
	}
	for _, n := range []string{"Dockerfile", "docker-compose.yaml", "docker-compose.yml"} {
		if _, err := os.Lstat(filepath.Join(env, n)); err == nil {
			return t, refusef("the workspace holds a file named %s, which would switch Harbor to building an image; rename it", n)
		}
	}
	if err := x.claudeFiles(env, caseDir); err != nil {
		return t, err
	}
	if err := x.link(filepath.Join(env, filepath.FromSlash(HookBinary))); err != nil {
		return t, err
	}
	baseline, err := x.digests(env, HookBinary, "")
	if err != nil {
		return t, fmt.Errorf("take the environment's baseline: %w", err)
	}
	info := CaseInfo{CaseID: id, EvalName: ev.EvalName(), AgentEvalVersion: x.o.Version}
	if err := x.tests(filepath.Join(dir, TestsDirName), caseDir, info, baseline); err != nil {
		return t, err
	}
	cfg := taskTOML{SchemaVersion: "1.4",
		Task:        taskInfo{Name: name, Description: description(ev)},
		Metadata:    taskMetadata{EvalName: ev.EvalName(), CaseID: id, GeneratedBy: GeneratedBy, AgentEvalVersion: x.o.Version},
		Environment: taskEnv{DockerImage: x.o.Image, Workdir: x.o.Workdir, Env: x.caseEnv(id)},
		Agent:       timeoutSection{seconds(x.o.AgentTimeout, ev.Timeout())},
		Verifier:    timeoutSection{seconds(x.o.VerifierTimeout, DefaultVerifierTimeout)},
	}
	if len(ev.Execution.Steps) == 0 {
		prompt, err := engine.Prompt(ev, input, x.o.Workdir)
		if err != nil {
			return t, fmt.Errorf("render the prompt: %w", err)
		}
		if err := writeInstruction(filepath.Join(dir, InstructionFile), prompt); err != nil {
			return t, err
		}
	} else {
		cfg.MultiStepRewardStrategy = "final"
		for _, s := range ev.Execution.Steps {
			st := taskStep{Name: s.ID, Agent: cfg.Agent, Verifier: cfg.Verifier}
			if s.Timeout != nil {
				st.Agent.TimeoutSec = float64(*s.Timeout)
			}
			cfg.Steps = append(cfg.Steps, st)
			if err := x.step(dir, s, input, info); err != nil {
				return t, fmt.Errorf("step %s: %w", s.ID, err)
			}
		}
	}
	b, err := encodeTOML(cfg)
	if err != nil {
		return t, fmt.Errorf("write %s: %w", TaskFile, err)
	}
	return t, os.WriteFile(filepath.Join(dir, TaskFile), b, 0o644)
}

// step writes steps/<id>/: its instruction and its tests/case.json.
func (x *exporter) step(dir string, s config.Step, input map[string]any, info CaseInfo) error {
	prompt, err := engine.StepPrompt(s, input, x.o.Workdir, map[string]any{})
	if err != nil {
		return fmt.Errorf("render the prompt: %w", err)
	}
	sd := filepath.Join(dir, StepsDirName, s.ID)
	if err := os.MkdirAll(filepath.Join(sd, TestsDirName), 0o755); err != nil {
		return err
	}
	if err := writeInstruction(filepath.Join(sd, InstructionFile), prompt); err != nil {
		return err
	}
	info.Step, info.Tests = s.ID, x.testFiles // the shared tests/ is what /tests holds
	return writeJSON(filepath.Join(sd, TestsDirName, CaseFile), info)
}

// writeInstruction writes an instruction: the prompt as a run sends it.
// One that Harbor would take for a canary line is refused.
func writeInstruction(p, prompt string) error {
	first, _, _ := strings.Cut(strings.TrimLeft(prompt, "\n"), "\n")
	if canaryRE().MatchString(strings.TrimSpace(first)) {
		return refusef("the instruction starts with %q, which Harbor strips as a canary line; reword the prompt's first line", clip.String(first, 80))
	}
	if strings.TrimSpace(prompt) == "" {
		return refusef("the instruction is empty")
	}
	return os.WriteFile(p, []byte(prompt), 0o644)
}

// AgentArgs are the harbor run flags that give Harbor's claude-code agent
// what a local run passes Claude Code on its command line: the model, the
// permission mode (Harbor's default, bypassPermissions, is not a local
// run's), the permission rules, the effort, the budget and the appended
// system prompt (runner.system_prompt and the harness's). Values go as JSON strings, which
// Harbor's --ak parser reads back as the strings its options expect.
func AgentArgs(ev *config.Eval, model string) []string {
	ak := func(k, v string) []string {
		b, _ := json.Marshal(v)
		return []string{"--ak", k + "=" + string(b)}
	}
	args := []string{"-a", string(runner.TypeClaudeCode)}
	if model != "" {
		args = append(args, "-m", model)
	}
	mode := ev.Runner.PermissionMode
	if mode == "" {
		mode = "default"
	}
	args = append(args, ak("permission_mode", mode)...)
	if ev.Runner.Effort != "" {
		args = append(args, ak("reasoning_effort", ev.Runner.Effort)...)
	}
	// A trial's Claude Code does not trust the workspace (a local run seeds
	// the trust), so the allow rules of its .claude/settings.json are
	// inert there: the compiled rules go on its command line as well, as a
	// local run puts rules without paths.
	c := permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny)
	if len(c.Allow) > 0 {
		args = append(args, ak("allowed_tools", strings.Join(c.Allow, ","))...)
	}
	args = append(args, ak("disallowed_tools", strings.Join(append(append(slices.Clone(c.Deny), workspace.ProtectedDenies()...), ContainerDenies()...), ","))...)
	args = append(args, ak("max_budget_usd", strconv.FormatFloat(ev.MaxBudgetUSD(), 'f', -1, 64))...)
	return append(args, ak("append_system_prompt", claudecode.SystemPrompt(ev.Runner.SystemPrompt))...)
}

// ContainerDenies keep the agent out of what the trial's verifier and the
// host read, as a local run keeps it out of its run directory: Harbor's
// logs folder (its own log there is what import parses; the verifier
// writes beside it) and the tests folder (Harbor uploads tests/ over what
// is there after the agent ran). Read and Edit denies: the file tools are
// denied them, the sandbox takes them as denyRead and denyWrite, and with
// the sandbox off the hook's path layer denies the Bash commands naming
// them.
func ContainerDenies() []string {
	var out []string
	for _, d := range []string{path.Dir(AgentLogsDir), TestsDir} {
		out = append(out, "Read(/"+d+"/**)", "Edit(/"+d+"/**)")
	}
	return out
}

// claudeFiles writes the workspace's .claude/settings.json and, when the
// hook has work, tool_handlers.yaml: compiled by the claude-code runner's
// own compiler for an agent at the workdir.
func (x *exporter) claudeFiles(env, caseDir string) error {
	ev := x.o.Eval
	overrides, err := workspace.CaseOverrides(caseDir)
	if err != nil {
		return err
	}
	c := permissions.Compile(ev.Permissions.Allow, ev.Permissions.Deny)
	c.Deny = append(c.Deny, ContainerDenies()...)
	setup := runner.RunSetup{Eval: ev, Handlers: x.o.Handlers, Sandbox: ev.Sandbox(), Permissions: c}
	literal := map[string]string{}
	for k, v := range ev.Execution.Env {
		if !strings.Contains(v, "$") {
			literal[k] = v
		}
	}
	files, err := claudecode.ContainerWorkspace(setup, x.o.Workdir, overrides, literal, func(handlers, digest, canary string) string {
		return HookCommand(x.o.Workdir, handlers, digest, canary)
	})
	if err != nil {
		return fmt.Errorf("compile the workspace's settings: %w", err)
	}
	if files.Handlers != nil {
		if err := os.WriteFile(filepath.Join(env, hook.HandlersFile), files.Handlers, 0o644); err != nil {
			return err
		}
	}
	_, err = workspace.WriteSettings(env, files.Settings)
	return err
}

// HookCommand is the hook's command line in the container. The binary may
// have lost its exec bit on the way (Kubernetes uploads reset modes to
// 0644): sh sets it, or runs a copy in a temp file when it cannot. Claude
// Code runs a call whose hook fails with anything but exit 2, so every
// other outcome — the binary missing, not startable, crashing — becomes
// exit 2 with the reason on stderr: the call is denied.
func HookCommand(workdir, handlers, digest, canary string) string {
	flags := ""
	if canary != "" {
		flags = " --canary " + canary
	}
	script := `b=` + path.Join(workdir, HookBinary) + `; t=; ` +
		`[ -x "$b" ] || chmod +x "$b" 2>/dev/null; ` +
		`if [ ! -x "$b" ] && [ -f "$b" ]; then t=$(mktemp) && cp "$b" "$t" && chmod 700 "$t" && b=$t; fi; ` +
		`"$b" hook --handlers ` + handlers + ` --sha256 ` + digest + flags + `; s=$?; ` +
		`[ -z "$t" ] || rm -f "$t"; ` +
		`case $s in 0|2) exit $s;; esac; ` +
		`echo "agent-eval hook: $b could not run or failed (exit $s): the call is denied" >&2; exit 2`
	return "sh -c " + intercept.ShellQuote(script)
}

// tests writes tests/: test.sh, the binary, the bundled eval.yaml,
// case.json, the case's dataset folder and the environment's baseline.
func (x *exporter) tests(dir, caseDir string, info CaseInfo, baseline map[string]string) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, TestScript), []byte(testScript(x.o.Workdir)), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(filepath.Join(dir, TestScript), 0o755); err != nil { // whatever the umask
		return err
	}
	if err := x.link(filepath.Join(dir, BinaryName)); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, EvalFile), x.copy, 0o644); err != nil {
		return err
	}
	if err := workspace.CopyTree(caseDir, filepath.Join(dir, CaseDataDir)); err != nil {
		return fmt.Errorf("copy the case's folder: %w", err)
	}
	if err := writeJSON(filepath.Join(dir, BaselineFile), baseline); err != nil {
		return err
	}
	// Last: what the verifier finds in /tests besides what is listed here
	// was planted there.
	if x.testFiles, err = x.digests(dir, BinaryName, CaseFile); err != nil {
		return fmt.Errorf("list the tests' files: %w", err)
	}
	info.Tests = x.testFiles
	return writeJSON(filepath.Join(dir, CaseFile), info)
}

// testScript is tests/test.sh: it clears what reward files the agent left
// and runs the verifier, which writes reward.json; Harbor ignores its exit
// code, and so does the script's author.
func testScript(workdir string) string {
	return "#!/bin/bash\n" +
		"# Written by agent-eval harbor export: the case's judges, run on what the agent left.\n" +
		"mkdir -p " + VerifierLogsDir + "\n" +
		"rm -f " + path.Join(VerifierLogsDir, RewardJSON) + " " + path.Join(VerifierLogsDir, RewardTXT) + "\n" +
		path.Join(TestsDir, BinaryName) + " harbor verify --tests " + TestsDir + " --workdir " + workdir +
		" --agent-logs " + AgentLogsDir + " --out " + VerifierLogsDir + "\n" +
		"exit 0\n"
}

// link puts the binary at p: a hard link to the export's first copy, a
// copy where linking fails (another file system).
func (x *exporter) link(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if x.linked != "" {
		if err := os.Link(x.linked, p); err == nil {
			return nil
		}
	}
	if err := copyBinary(x.bin, p); err != nil {
		return fmt.Errorf("copy the agent-eval binary: %w", err)
	}
	if x.linked == "" {
		x.linked = p
	}
	return nil
}

func copyBinary(src, dst string) error {
	if err := workspace.CopyTree(src, dst); err != nil {
		return err
	}
	return os.Chmod(dst, 0o755)
}

// digests is relative path → sha256 of every file in dir but skip (the
// binary's digest known once, at binary).
func (x *exporter) digests(dir, binary, skip string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch rel {
		case skip:
			return nil
		case binary:
			out[rel] = x.binDigest
			return nil
		}
		sum, err := fileDigest(p)
		out[rel] = sum
		return err
	})
	return out, err
}

func fileDigest(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// caseEnv is the case's [environment].env: the eval's templates and what
// Options.CaseEnv adds.
func (x *exporter) caseEnv(id string) map[string]string {
	env := envTemplates(x.o.Eval)
	if x.o.CaseEnv == nil {
		return env
	}
	for k, v := range x.o.CaseEnv(id) {
		if env == nil {
			env = map[string]string{}
		}
		env[k] = v
	}
	return env
}

// envTemplates are execution.env's and runner.env's $VAR values as Harbor
// env templates: the value never leaves the host that runs harbor. The
// literal values of runner.env (the agent's process environment) go here
// too; execution.env's go into the settings, as a local run puts them.
func envTemplates(ev *config.Eval) map[string]string {
	out := map[string]string{}
	for k, v := range ev.Runner.Env {
		out[k] = template(v)
	}
	for k, v := range ev.Execution.Env {
		if strings.Contains(v, "$") {
			out[k] = template(v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// template spells a whole-value $VAR or ${VAR} as ${VAR:-}: unset where
// harbor runs, it is empty, as in a local run (Harbor refuses to start a
// job over a bare ${VAR} that is unset).
func template(v string) string {
	if !strings.HasPrefix(v, "$") {
		return v
	}
	name := strings.Trim(strings.TrimPrefix(v, "$"), "{}")
	return "${" + name + ":-}"
}

// description is [task].description: the eval's description (or name) on
// one line, clipped.
func description(ev *config.Eval) string {
	d := strings.Join(strings.Fields(ev.Description), " ")
	if d == "" {
		d = ev.EvalName()
	}
	return clip.String(d, 120)
}

func seconds(d, fallback time.Duration) float64 {
	if d <= 0 {
		d = fallback
	}
	return d.Seconds()
}
