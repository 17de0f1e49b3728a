package claudecode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// hiddenSetup is a run of two cases in a private root, with a project, a
// runs folder and a user's home holding credentials.
func hiddenSetup(t *testing.T) (st *started, ws, other, project, home string) {
	t.Helper()
	base := t.TempDir()
	project, home = filepath.Join(base, "project"), filepath.Join(base, "home")
	for _, d := range []string{"cases/a", "cases/b", "fixtures", "runs/e/r1"} {
		if err := os.MkdirAll(filepath.Join(project, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"fixtures/shared.txt", "cases/b/answers.yaml"} {
		if err := os.WriteFile(filepath.Join(project, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".netrc"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	cfg := filepath.Join(project, "eval.yaml")
	// Sources are relative to the working directory (the project root):
	// absolute here, the test's working directory being elsewhere.
	body := "name: e\nexecution: {prompt: hi}\npermissions: {allow: [Read, Bash]}\n" +
		"dataset: {path: cases, workspace: {files: [{dest: shared.txt, source: " + project + "/fixtures/shared.txt}, {dest: gone.txt, source: " + project + "/fixtures/gone.txt}]}}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	var slots []string
	for range 3 {
		s, err := workspace.NewSlot(root)
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, s)
	}
	ws, other = filepath.Join(slots[1], "a"), filepath.Join(slots[2], "b")
	for _, d := range []string{ws, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	st = &started{s: runner.RunSetup{Eval: ev, RunDir: filepath.Join(project, "runs", "e", "r1"), WorkspaceRoot: root, Private: slots[0],
		Baselines: filepath.Join(slots[0], "gone"), Workspaces: []string{ws, other}, Sandbox: config.SandboxDecision{On: true}}}
	return st, ws, other, project, home
}

// What the harness hides is hidden from the file tools by absolute rules,
// and from Bash by the sandbox, the root but for the case's own slot; only
// what exists is listed (a hidden path that does not exist would get a
// placeholder from the sandbox).
func TestHidden(t *testing.T) {
	st, ws, other, project, home := hiddenSetup(t)
	h, err := st.hidden(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Read(/" + project + "/cases)", "Read(/" + project + "/cases/**)", "Edit(/" + project + "/cases/**)",
		"Read(/" + project + "/runs/e)", "Read(/" + project + "/fixtures/shared.txt)", "Read(/" + project + "/eval.yaml)",
		"Read(/" + home + "/.aws/**)", "Read(/" + home + "/.netrc)", "Edit(/" + home + "/.netrc)",
	} {
		if !slices.Contains(h.rules, want) {
			t.Errorf("no rule %s in %v", want, h.rules)
		}
	}
	for _, r := range h.rules {
		for _, absent := range []string{"gone", ".kube", ".ssh"} {
			if strings.Contains(r, absent) {
				t.Errorf("rule %s names a path that does not exist", r)
			}
		}
	}
	pats, _ := permissions.ExceptPatterns(st.s.WorkspaceRoot, filepath.Dir(ws))
	for _, p := range pats {
		if !slices.Contains(h.rules, "Read("+p+")") || !slices.Contains(h.rules, "Edit("+p+")") || !slices.Contains(h.hook, p) {
			t.Errorf("the root's pattern %s is not denied to every tool", p)
		}
	}
	if !matchesRoot(pats, other) || matchesRoot(pats, ws) || !matchesRoot(pats, st.s.Private) {
		t.Errorf("the root's patterns do not keep to the own slot: other %v own %v private %v", matchesRoot(pats, other), matchesRoot(pats, ws), matchesRoot(pats, st.s.Private))
	}
	spec := st.sandboxSpec(ws, h)
	if !slices.Contains(spec.DenyRead, st.s.WorkspaceRoot) || !slices.Equal(spec.AllowRead, []string{filepath.Dir(ws)}) ||
		!slices.Contains(spec.AllowWrite, filepath.Dir(ws)) || !slices.Contains(spec.DenyRead, filepath.Join(project, "cases")) {
		t.Errorf("sandbox spec %+v", spec)
	}
}

// matchesRoot: one of the //abs patterns names p or a folder above it.
func matchesRoot(pats []string, p string) bool {
	for _, pat := range pats {
		for q := p; q != "/"; q = filepath.Dir(q) {
			if ok, _ := filepath.Match(strings.TrimPrefix(pat, "/"), q); ok {
				return true
			}
		}
	}
	return false
}

// The agent's HOME is its slot and its TMPDIR a folder in there, unless
// runner.env names them; runner.home_files are copied in.
func TestAgentHome(t *testing.T) {
	st, ws, _, _, home := hiddenSetup(t)
	if err := os.WriteFile(filepath.Join(home, "dotfile"), []byte("linked"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "dotfile"), filepath.Join(home, ".gitconfig")); err != nil {
		t.Fatal(err)
	}
	st.s.Eval.Runner.HomeFiles = []string{".netrc", ".gitconfig"}
	if err := st.fillHome(st.s.OwnHome(ws)); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range st.agentEnv("a", ws, nil) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	slot := filepath.Dir(ws)
	if env["HOME"] != slot || env["TMPDIR"] != filepath.Join(slot, TempDirName) {
		t.Errorf("HOME=%s TMPDIR=%s, want %s and its %s", env["HOME"], env["TMPDIR"], slot, TempDirName)
	}
	if b, err := os.ReadFile(filepath.Join(slot, ".netrc")); err != nil || string(b) != "x" {
		t.Errorf("runner.home_files .netrc not copied: %q %v", b, err)
	}
	if fi, err := os.Lstat(filepath.Join(slot, ".gitconfig")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("a home_files entry that is a link is not copied as a file: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(slot, ".aws")); err == nil {
		t.Errorf("the user's .aws reached the agent's home without home_files")
	}
	st.s.Eval.Runner.HomeFiles = []string{".kube"}
	if err := st.fillHome(slot); err == nil {
		t.Errorf("a home_files entry missing from %s gave no error", home)
	}
	st.s.Eval.Runner.Env = config.EnvMap{"HOME": "/elsewhere"}
	for _, kv := range st.agentEnv("a", ws, nil) {
		if kv == "HOME=/elsewhere" {
			return
		}
	}
	t.Errorf("runner.env HOME did not win")
}

// With the sandbox off, the hook's path layer (where the hook is wired)
// keeps Bash away from what the harness hides, naming why; with the sandbox
// on, or with no hook to wire, it is left out.
func TestHookFileHidesTheHarnessPaths(t *testing.T) {
	st, ws, other, project, _ := hiddenSetup(t)
	h, err := st.hidden(ws)
	if err != nil {
		t.Fatal(err)
	}
	st.s.Sandbox.On = false
	st.s.Permissions = permissions.Compile(nil, []config.PermissionRule{{Path: "secret/", Tools: []string{"Read", "Bash"}}})
	f := st.hookFile(ws, nil, h)
	if f == nil {
		t.Fatal("no hook file")
	}
	if !slices.Contains(f.DeniedPaths, "/"+filepath.Join(project, "cases")) || f.DeniedPathReasons["/"+filepath.Join(project, "cases")] != HiddenReason {
		t.Errorf("the dataset is not in the hook's denied paths: %v", f.DeniedPaths)
	}
	for _, p := range h.hook {
		if !slices.Contains(f.DeniedPaths, p) {
			t.Errorf("hidden %s not in the hook's denied paths", p)
		}
	}
	if !matchesRoot(f.DeniedPaths, other) {
		t.Errorf("the other case's workspace %s is not denied to Bash", other)
	}
	st.s.Sandbox.On = true
	if f := st.hookFile(ws, nil, h); f != nil {
		t.Errorf("a hook file under the sandbox with nothing else to do: %v", f.DeniedPaths)
	}
	st.s.Sandbox.On = false
	st.s.Permissions = permissions.Compile(nil, nil)
	if f := st.hookFile(ws, nil, h); f != nil {
		t.Errorf("the hook is wired for the hidden paths alone: %v", f.DeniedPaths)
	}
}
