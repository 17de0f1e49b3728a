package harbor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/harbor"
)

// exportedTree is a valid tree of two tasks (a, b) to break.
func exportedTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "eval.yaml"), "name: chk\nmodels: {skill: m}\ndataset: {path: cases}\nexecution: {prompt: p}\n")
	write(t, filepath.Join(dir, "cases", "a", "input.yaml"), "x: 1\n")
	write(t, filepath.Join(dir, "cases", "b", "input.yaml"), "x: 2\n")
	ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o := options(t, ev, dir)
	if _, err := harbor.Export(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return o.Out
}

// TestCheck breaks a valid exported tree one way at a time: each break is
// a problem naming its file (Harbor would skip the task silently, or fail
// it); the hostile strings our encoder writes are no problem.
func TestCheck(t *testing.T) {
	replaceTOML := func(old, new string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			p := filepath.Join(root, "a", harbor.TaskFile)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), old) {
				t.Fatalf("%s has no %q", p, old)
			}
			write(t, p, strings.Replace(string(b), old, new, 1))
		}
	}
	cases := []struct {
		name   string
		breaks func(t *testing.T, root string)
		file   string // the problem's file, relative to the tree
		want   string // "" : no problem
	}{
		{"valid", func(*testing.T, string) {}, "", ""},
		{"long description", replaceTOML(`description = "chk"`, `description = "`+strings.Repeat("long ", 400)+`"`), "", ""},
		{"escaped description", replaceTOML(`description = "chk"`, `description = "a \"quoted\"\nline\u007f é"`), "", ""},
		{"no task.toml", func(t *testing.T, r string) { _ = os.Remove(filepath.Join(r, "a", harbor.TaskFile)) }, "a/task.toml", "missing"},
		{"not TOML", replaceTOML(`schema_version = "1.4"`, `schema_version = `), "a/task.toml", "not valid TOML"},
		{"name with a space", replaceTOML(`name = "chk/a"`, `name = "chk/a b"`), "a/task.toml", "[task].name"},
		{"name with a quote", replaceTOML(`name = "chk/a"`, `name = "chk/a'b"`), "a/task.toml", "[task].name"},
		{"name with a newline", replaceTOML(`name = "chk/a"`, `name = "chk/a\nb"`), "a/task.toml", "[task].name"},
		{"name with DEL", replaceTOML(`name = "chk/a"`, `name = "chk/a\u007f"`), "a/task.toml", "[task].name"},
		{"name not ASCII", replaceTOML(`name = "chk/a"`, `name = "chk/é"`), "a/task.toml", "[task].name"},
		{"name with ..", replaceTOML(`name = "chk/a"`, `name = "chk/a..b"`), "a/task.toml", "[task].name"},
		{"name without org", replaceTOML(`name = "chk/a"`, `name = "a"`), "a/task.toml", "[task].name"},
		{"same name twice", replaceTOML(`name = "chk/a"`, `name = "chk/b"`), "b/task.toml", "a's too"},
		{"root key after a table", func(t *testing.T, r string) {
			replaceTOML(`schema_version = "1.4"`+"\n", "")(t, r)
			p := filepath.Join(r, "a", harbor.TaskFile)
			b, _ := os.ReadFile(p)
			write(t, p, string(b)+"schema_version = \"1.4\"\n")
		}, "a/task.toml", "schema_version is inside [verifier]"},
		{"timeout a string", replaceTOML(`timeout_sec = 300.0`, `timeout_sec = "300"`), "a/task.toml", "bare number"},
		{"workdir with ;", replaceTOML(`workdir = "/workspace"`, `workdir = "/work;rm -rf /"`), "a/task.toml", "workdir"},
		{"workdir with a space", replaceTOML(`workdir = "/workspace"`, `workdir = "/work space"`), "a/task.toml", "workdir"},
		{"no image", replaceTOML(`docker_image = "registry.test/agent-eval:1"`, `docker_image = ""`), "a/task.toml", "docker_image"},
		{"no environment", func(t *testing.T, r string) { _ = os.RemoveAll(filepath.Join(r, "a", "environment")) }, "a/environment", "missing"},
		{"a Dockerfile", func(t *testing.T, r string) { write(t, filepath.Join(r, "a", "environment", "Dockerfile"), "FROM x\n") }, "a/environment/Dockerfile", "building"},
		{"a link in environment", func(t *testing.T, r string) { _ = os.Symlink("input.yaml", filepath.Join(r, "a", "environment", "l")) }, "a/environment/l", "symbolic link"},
		{"no instruction", func(t *testing.T, r string) { _ = os.Remove(filepath.Join(r, "a", harbor.InstructionFile)) }, "a/instruction.md", "missing"},
		{"a canary line", func(t *testing.T, r string) {
			write(t, filepath.Join(r, "a", harbor.InstructionFile), "# BENCHMARK CANARY GUID x\ndo it\n")
		}, "a/instruction.md", "canary"},
		{"no test.sh", func(t *testing.T, r string) { _ = os.Remove(filepath.Join(r, "a", "tests", "test.sh")) }, "a/tests/test.sh", "missing"},
		{"test.sh without #!", func(t *testing.T, r string) { writeMode(t, filepath.Join(r, "a", "tests", "test.sh"), "echo\n", 0o755) }, "a/tests/test.sh", "#!"},
		{"test.sh 0644", func(t *testing.T, r string) { _ = os.Chmod(filepath.Join(r, "a", "tests", "test.sh"), 0o644) }, "a/tests/test.sh", "0755"},
		{"a link out of tests", func(t *testing.T, r string) { _ = os.Symlink("/etc", filepath.Join(r, "a", "tests", "etc")) }, "a/tests/etc", "leads out"},
		{"a folder that is no task", func(t *testing.T, r string) { _ = os.MkdirAll(filepath.Join(r, "notes"), 0o755) }, "notes/task.toml", "missing"},
		{"a folder name with a space", func(t *testing.T, r string) { _ = os.Rename(filepath.Join(r, "a"), filepath.Join(r, "a b")) }, "a b", "safe path segment"},
		{"a bad step name", replaceTOML("[agent]", "[[steps]]\n  name = \"a/b\"\n\n[agent]"), "a/task.toml", "step name"},
		{"a step without its folder", replaceTOML("[agent]", "[[steps]]\n  name = \"s1\"\n\n[agent]"), "a/steps/s1/instruction.md", "missing"},
		{"a bad strategy", replaceTOML(`schema_version = "1.4"`, "schema_version = \"1.4\"\nmulti_step_reward_strategy = \"max\""), "a/task.toml", "mean or final"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := exportedTree(t)
			c.breaks(t, root)
			got := harbor.Check(root)
			if c.want == "" {
				if len(got) > 0 {
					t.Fatalf("problems in a valid tree: %v", got)
				}
				return
			}
			for _, p := range got {
				if p.File == filepath.Join(root, c.file) && strings.Contains(p.Msg, c.want) {
					return
				}
			}
			t.Fatalf("no problem %q in %s; got %v", c.want, c.file, got)
		})
	}
}

// TestCheckOneTask: a task folder itself is checked as one task.
func TestCheckOneTask(t *testing.T) {
	root := exportedTree(t)
	if got := harbor.Check(filepath.Join(root, "a")); len(got) > 0 {
		t.Fatalf("a valid task: %v", got)
	}
	_ = os.Remove(filepath.Join(root, "a", harbor.InstructionFile))
	if got := harbor.Check(filepath.Join(root, "a")); len(got) != 1 {
		t.Fatalf("a task without its instruction: %v", got)
	}
	if got := harbor.Check(t.TempDir()); len(got) != 1 || !strings.Contains(got[0].Msg, "no task folder") {
		t.Fatalf("an empty folder: %v", got)
	}
}

func writeMode(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	write(t, p, s)
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
