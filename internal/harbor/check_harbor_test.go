package harbor_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/harbor"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// harborPython is the Python of the pinned Harbor's virtual environment:
// next to $HARBOR_BIN, else where scripts/install-harbor.sh installs it.
func harborPython(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("HARBOR_BIN")
	if bin == "" {
		version, err := os.ReadFile(filepath.Join("..", "..", "scripts", "harbor.version"))
		if err != nil {
			t.Fatal(err)
		}
		cache := os.Getenv("AGENT_EVAL_CACHE")
		if cache == "" {
			cache = filepath.Join("..", "..", ".cache")
		}
		bin = filepath.Join(cache, "harbor-"+strings.TrimSpace(string(version)), "bin", "harbor")
	}
	py := filepath.Join(filepath.Dir(bin), "python")
	if _, err := os.Stat(py); err != nil {
		need.Missing(t, "the pinned Harbor ("+bin+")", "run scripts/install-harbor.sh and set HARBOR_BIN to the path it prints")
	}
	return py
}

// loader asks Harbor's own task model about each folder: is_valid_dir (what
// harbor run -p uses to pick a dataset's tasks) and, when valid, what
// Task() loads of it.
const loader = `
import json, sys
from pathlib import Path
from harbor.models.task.task import Task
out = {}
for d in sys.argv[1:]:
    r = {"valid": Task.is_valid_dir(Path(d))}
    if r["valid"]:
        t = Task(Path(d))
        r["name"] = t.name
        r["instruction"] = t.instruction
        r["agent_timeout"] = t.config.agent.timeout_sec
        r["env"] = t.config.environment.env
        r["workdir"] = t.config.environment.workdir
        r["steps"] = [s.name for s in t.config.steps or []]
    out[d] = r
print(json.dumps(out))
`

type loaded struct {
	Valid        bool              `json:"valid"`
	Name         string            `json:"name"`
	Instruction  string            `json:"instruction"`
	AgentTimeout float64           `json:"agent_timeout"`
	Env          map[string]string `json:"env"`
	Workdir      string            `json:"workdir"`
	Steps        []string          `json:"steps"`
}

func harborLoad(t *testing.T, py string, dirs []string) map[string]loaded {
	t.Helper()
	cmd := exec.Command(py, append([]string{"-c", loader}, dirs...)...)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("Harbor's loader: %v\n%s", err, stderrOf(err))
	}
	var out map[string]loaded
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("Harbor's loader printed %s: %v", b, err)
	}
	return out
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestHarborAcceptsExports: Harbor 0.26's own task loader accepts every
// task of every golden fixture's export (and of hostile case names), and
// reads back what the export meant: the name, the instruction, the agent's
// timeout, the env templates, the steps.
func TestHarborAcceptsExports(t *testing.T) {
	py := harborPython(t)
	t.Setenv("SECRET_SERVICE_TOKEN", "x")
	var dirs []string
	want := map[string]harbor.Task{}
	for _, name := range []string{"single", "interception", "steps", "permissions", "envvar"} {
		ev, dir := unpack(t, filepath.Join("testdata", "export", name+".txtar"))
		o := options(t, ev, dir)
		x, err := harbor.Export(context.Background(), o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, task := range x.Tasks {
			dirs = append(dirs, task.Dir)
			want[task.Dir] = task
		}
	}
	_, hostile := hostileExport(t)
	for _, task := range hostile.Tasks {
		dirs = append(dirs, task.Dir)
		want[task.Dir] = task
	}
	got := harborLoad(t, py, dirs)
	for _, d := range dirs {
		g := got[d]
		if !g.Valid {
			t.Errorf("Harbor does not take %s for a task", d)
			continue
		}
		if g.Name != want[d].Name || g.Workdir != harbor.Workdir || g.AgentTimeout <= 0 {
			t.Errorf("%s: Harbor reads name %q workdir %q agent timeout %v; want %q, %s", d, g.Name, g.Workdir, g.AgentTimeout, want[d].Name, harbor.Workdir)
		}
		if b, _ := os.ReadFile(filepath.Join(d, harbor.InstructionFile)); len(g.Steps) == 0 && g.Instruction != string(b) {
			t.Errorf("%s: Harbor's instruction %q, the file's %q", d, g.Instruction, b)
		}
	}
	for d, g := range got {
		switch filepath.Base(filepath.Dir(d)) + "/" + filepath.Base(d) {
		case "tasks/one":
			if strings.Join(g.Steps, ",") != "plan,do" {
				t.Errorf("%s: steps %v", d, g.Steps)
			}
		case "tasks/e":
			if g.Env["SERVICE_TOKEN"] != "${SECRET_SERVICE_TOKEN:-}" {
				t.Errorf("%s: env %v", d, g.Env)
			}
		}
	}
}

// TestCheckAgreesWithHarbor: trees Harbor's loader refuses (it would skip
// them in a dataset without a word) are problems for Check too.
func TestCheckAgreesWithHarbor(t *testing.T) {
	py := harborPython(t)
	breaks := map[string]func(t *testing.T, task string){
		"bad name": func(t *testing.T, task string) {
			edit(t, filepath.Join(task, harbor.TaskFile), `name = "chk/a"`, `name = "chk/a b"`)
		},
		"no instruction": func(t *testing.T, task string) {
			_ = os.Remove(filepath.Join(task, harbor.InstructionFile))
		},
		"no test.sh": func(t *testing.T, task string) { _ = os.Remove(filepath.Join(task, "tests", "test.sh")) },
		"bad step name": func(t *testing.T, task string) {
			edit(t, filepath.Join(task, harbor.TaskFile), "[agent]", "[[steps]]\n  name = \"a:b\"\n\n[agent]")
		},
		"missing step": func(t *testing.T, task string) {
			edit(t, filepath.Join(task, harbor.TaskFile), "[agent]", "[[steps]]\n  name = \"s1\"\n\n[agent]")
		},
		"bad strategy": func(t *testing.T, task string) {
			edit(t, filepath.Join(task, harbor.TaskFile), `schema_version = "1.4"`, "schema_version = \"1.4\"\nmulti_step_reward_strategy = \"max\"")
		},
		"link out": func(t *testing.T, task string) { _ = os.Symlink("/etc", filepath.Join(task, "tests", "etc")) },
		"not TOML": func(t *testing.T, task string) {
			edit(t, filepath.Join(task, harbor.TaskFile), `schema_version = "1.4"`, "schema_version =")
		},
		"task no name":   func(t *testing.T, task string) { edit(t, filepath.Join(task, harbor.TaskFile), `name = "chk/a"`, ``) },
		"unchanged (ok)": func(*testing.T, string) {},
	}
	dirs := map[string]string{}
	var list []string
	for name, br := range breaks {
		task := filepath.Join(exportedTree(t), "a")
		br(t, task)
		dirs[task] = name
		list = append(list, task)
	}
	got := harborLoad(t, py, list)
	for task, name := range dirs {
		problems := harbor.Check(task)
		if got[task].Valid == (len(problems) > 0) {
			t.Errorf("%s: Harbor valid=%v, Check %v", name, got[task].Valid, problems)
		}
	}
}

func edit(t *testing.T, p, old, new string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(b), old) {
		t.Fatalf("%s: no %q (%v)", p, old, err)
	}
	write(t, p, strings.Replace(string(b), old, new, 1))
}

// TestHarborTakesAgentArgs: Harbor's own --ak parser and claude-code options
// read AgentArgs' values as a local run passes them to Claude Code: the
// permission mode (not Harbor's bypassPermissions), effort, budget and the
// appended system prompt, quotes and newlines kept.
func TestHarborTakesAgentArgs(t *testing.T) {
	py := harborPython(t)
	ev, _ := unpack(t, filepath.Join("testdata", "export", "single.txtar"))
	ev.Runner.SystemPrompt = "Be brief.\nSay \"done\" at the end."
	ev.Runner.Effort = "high"
	ev.Permissions.Allow = []config.PermissionRule{{Pattern: "Bash(ls:*)"}}
	args := harbor.AgentArgs(ev, "claude-sonnet-4-5")
	var kwargs []string
	for i, a := range args {
		if a == "--ak" {
			kwargs = append(kwargs, args[i+1])
		}
	}
	const script = `
import json, sys
from harbor.cli.utils import parse_kwargs
from harbor.agents.installed.claude_code import ClaudeCodeOptions
o = ClaudeCodeOptions(**parse_kwargs(sys.argv[1:]))
print(json.dumps({"permission_mode": o.permission_mode, "reasoning_effort": o.reasoning_effort,
    "allowed_tools": o.allowed_tools, "disallowed_tools": o.disallowed_tools,
    "max_budget_usd": o.max_budget_usd, "append_system_prompt": o.append_system_prompt}))
`
	b, err := exec.Command(py, append([]string{"-c", script}, kwargs...)...).Output()
	if err != nil {
		t.Fatalf("Harbor's options: %v\n%s", err, stderrOf(err))
	}
	var got map[string]string
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"permission_mode": "default", "reasoning_effort": "high", "max_budget_usd": "100",
		"allowed_tools": "Bash(ls:*)", "disallowed_tools": "WebFetch,Edit(.claude/**),Edit(tool_handlers.yaml),Edit(hook_decisions.jsonl),Read(//logs/**),Edit(//logs/**),Read(//tests/**),Edit(//tests/**)",
		"append_system_prompt": claudecode.SystemPrompt(ev.Runner.SystemPrompt)}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: Harbor reads %q, want %q", k, got[k], v)
		}
	}
}
