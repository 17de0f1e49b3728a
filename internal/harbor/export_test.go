package harbor_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/harbor"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

// fakeBinary writes the smallest file FindBinary accepts: an x86-64
// ELF header without program headers (so without PT_INTERP). Its bytes,
// and so the digests in the golden trees, never change.
func fakeBinary(t testing.TB) string {
	t.Helper()
	var h bytes.Buffer
	h.Write([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	le := binary.LittleEndian
	for _, v := range []any{uint16(2), uint16(62), uint32(1), uint64(0), uint64(0), uint64(0), uint32(0),
		uint16(64), uint16(56), uint16(0), uint16(64), uint16(0), uint16(0)} {
		_ = binary.Write(&h, le, v)
	}
	p := filepath.Join(t.TempDir(), "agent-eval")
	if err := os.WriteFile(p, h.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := harbor.FindBinary(p); err != nil {
		t.Fatalf("the fake binary: %v", err)
	}
	return p
}

// unpack writes a fixture's files into a new folder and loads its eval.
func unpack(t testing.TB, fixture string) (*config.Eval, string) {
	t.Helper()
	a, err := txtar.ParseFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range a.Files {
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatalf("load the fixture's eval: %v", err)
	}
	return ev, dir
}

// options are the export's options for a fixture in dir.
func options(t testing.TB, ev *config.Eval, dir string) harbor.Options {
	t.Helper()
	o := harbor.Options{Eval: ev, Out: filepath.Join(t.TempDir(), "tasks"), Image: "registry.test/agent-eval:1",
		Binary: fakeBinary(t), ProjectRoot: dir, Version: "test", Environ: os.Environ()}
	if hf := filepath.Join(dir, hook.HandlersFile); fileExists(hf) {
		f, err := hook.ReadHandlers(hf)
		if err != nil {
			t.Fatal(err)
		}
		o.Handlers = &f
	}
	return o
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// tree is an exported tree as a txtar archive: a listing with each file's
// mode and link count, then every file, the binary replaced by a line.
func tree(t testing.TB, dir, bin string) []byte {
	t.Helper()
	binInfo, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	var files []txtar.File
	var listing strings.Builder
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			fmt.Fprintf(&listing, "%s/ %#o\n", rel, fi.Mode().Perm())
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		links := fi.Sys().(*syscall.Stat_t).Nlink
		if b, _ := os.ReadFile(bin); bytes.Equal(data, b) && fi.Size() == binInfo.Size() {
			data = []byte("<the static linux/amd64 agent-eval>\n")
			fmt.Fprintf(&listing, "%s %#o binary, %d links\n", rel, fi.Mode().Perm(), links)
		} else {
			fmt.Fprintf(&listing, "%s %#o\n", rel, fi.Mode().Perm())
		}
		files = append(files, txtar.File{Name: rel, Data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return txtar.Format(&txtar.Archive{Comment: []byte(listing.String()), Files: files})
}

// TestExportGolden exports each fixture and compares the whole tree with its
// golden file (go test ./internal/harbor -run TestExportGolden -update).
// Each tree passes Check and Harbor's own loader (TestHarborAcceptsExports).
func TestExportGolden(t *testing.T) {
	t.Setenv("SECRET_SERVICE_TOKEN", "tok-3f9a-never-written")
	t.Setenv("SECRET_UPSTREAM_KEY", "key-77c1-never-written")
	for _, name := range []string{"single", "interception", "steps", "permissions", "envvar"} {
		t.Run(name, func(t *testing.T) {
			ev, dir := unpack(t, filepath.Join("testdata", "export", name+".txtar"))
			o := options(t, ev, dir)
			x, err := harbor.Export(context.Background(), o)
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			if len(x.Tasks) == 0 {
				t.Fatal("no task exported")
			}
			if ps := harbor.Check(o.Out); len(ps) > 0 {
				t.Errorf("Check finds problems in the export: %v", ps)
			}
			got := tree(t, o.Out, o.Binary)
			for _, secret := range []string{"tok-3f9a-never-written", "key-77c1-never-written"} {
				if bytes.Contains(got, []byte(secret)) {
					t.Errorf("the export holds the value %s of a $VAR", secret)
				}
			}
			if bytes.Contains(got, []byte(dir)) {
				t.Errorf("the export names the host folder %s", dir)
			}
			for _, task := range x.Tasks {
				checkTaskTOML(t, filepath.Join(task.Dir, harbor.TaskFile))
				if fileExists(filepath.Join(task.Dir, harbor.EnvironmentDir, "expected.md")) {
					t.Errorf("%s: an answer key in environment/", task.Dir)
				}
			}
			golden.Assert(t, filepath.Join("testdata", "golden", name+".txtar"), bytes.ReplaceAll(got, []byte(o.Out), []byte("$OUT")))
		})
	}
}

// checkTaskTOML parses task.toml back: every key known (none lost under
// the wrong table), the numbers bare.
func checkTaskTOML(t *testing.T, p string) {
	t.Helper()
	var doc map[string]any
	md, err := toml.DecodeFile(p, &doc)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if _, ok := doc["schema_version"].(string); !ok {
		t.Errorf("%s: schema_version is not a root string: %v", p, doc)
	}
	for _, table := range []string{"agent", "verifier"} {
		if _, ok := doc[table].(map[string]any)["timeout_sec"].(float64); !ok {
			t.Errorf("%s: [%s].timeout_sec is not a bare number", p, table)
		}
	}
	for _, k := range md.Keys() {
		if len(k) == 2 && (k[1] == "schema_version" || k[1] == "multi_step_reward_strategy") {
			t.Errorf("%s: root key %s under [%s]", p, k[1], k[0])
		}
	}
}

// TestExportRefuses: what a Harbor task cannot carry is refused, naming
// it, and nothing is written.
func TestExportRefuses(t *testing.T) {
	cases := []struct {
		name, yaml string
		edit       func(*harbor.Options)
		want       string
	}{
		{"batch", "execution: {mode: batch, prompt: p}\n", nil, "execution.mode batch"},
		{"repo", "execution: {prompt: p}\nrunner: {workspace_mode: repo}\n", nil, "workspace_mode repo"},
		{"cli runner", "execution: {prompt: p}\nrunner: {type: cli, command: [agent, '{prompt}']}\n", nil, "runner.type cli"},
		{"step reference", "execution:\n  steps:\n    - {id: a, prompt: p}\n    - {id: b, prompt: 'use {{ steps.a.output }}'}\n", nil, "execution.steps b: {{ steps.a.output }}"},
		{"step budget", "execution:\n  steps:\n    - {id: a, prompt: p, max_budget_usd: 1}\n", nil, "execution.steps a: a step's own max_budget_usd"},
		{"embedded variable", "execution: {prompt: p, env: {AUTH: 'Bearer $TOKEN'}}\n", nil, "execution.env.AUTH"},
		{"lifecycle hooks", "execution: {prompt: p}\nhooks: {before_each: [{command: 'true'}]}\n", nil, "hooks:"},
		{"canary prompt", "execution: {prompt: '# canary GUID 1234'}\n", nil, "canary"},
		{"workdir", "execution: {prompt: p}\n", func(o *harbor.Options) { o.Workdir = "/work space;rm" }, "--workdir"},
		{"no image", "execution: {prompt: p}\n", func(o *harbor.Options) { o.Image = "" }, "no image"},
		{"dynamic binary", "execution: {prompt: p}\n", func(o *harbor.Options) { o.Binary = "/bin/sh" }, "--binary /bin/sh"},
		{"dockerfile", "execution: {prompt: p}\ndataset: {path: cases, workspace: {files: [Dockerfile]}}\n", nil, "named Dockerfile"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "eval.yaml"), "name: r\nmodels: {skill: m}\n"+c.yaml)
			if !strings.Contains(c.yaml, "dataset:") {
				_ = os.WriteFile(filepath.Join(dir, "eval.yaml"), []byte("name: r\nmodels: {skill: m}\ndataset: {path: cases}\n"+c.yaml), 0o644)
			}
			write(t, filepath.Join(dir, "cases", "a", "input.yaml"), "x: 1\n")
			write(t, filepath.Join(dir, "cases", "a", "Dockerfile"), "FROM scratch\n")
			ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			o := options(t, ev, dir)
			if c.edit != nil {
				c.edit(&o)
			}
			_, err = harbor.Export(context.Background(), o)
			var refusal *harbor.RefusalError
			if !errors.As(err, &refusal) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a refusal naming %q", err, c.want)
			}
			if fileExists(o.Out) {
				t.Errorf("a refused export wrote %s", o.Out)
			}
		})
	}
}

// TestExportKeepsWhatIsThere: an export over a folder that is not an
// earlier export's changes nothing; --force replaces only task folders.
func TestExportKeepsWhatIsThere(t *testing.T) {
	ev, dir := unpack(t, filepath.Join("testdata", "export", "permissions.txtar"))
	o := options(t, ev, dir)
	write(t, filepath.Join(o.Out, "mine.txt"), "the user's\n")
	if _, err := harbor.Export(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("an export into a folder with files: %v, want a refusal saying --force", err)
	}
	write(t, filepath.Join(o.Out, "x", "notes.txt"), "the user's folder\n")
	o.Force = true
	if _, err := harbor.Export(context.Background(), o); err == nil || !strings.Contains(err.Error(), "no task folder") {
		t.Fatalf("--force over a folder of the user's: %v, want a refusal", err)
	}
	if err := os.RemoveAll(filepath.Join(o.Out, "x")); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second replaces the first
		if _, err := harbor.Export(context.Background(), o); err != nil {
			t.Fatalf("--force: %v", err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(o.Out, "mine.txt")); err != nil || string(b) != "the user's\n" {
		t.Errorf("the user's file: %q %v", b, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(o.Out))
	if len(entries) != 1 {
		t.Errorf("left beside the export: %v", entries)
	}
}

// hostileIDs are case ids a task name cannot hold as they are.
var hostileIDs = []string{"a b", "a'b", "a\"b", "-lead", "dots..in", "A b", "émoji☃", "x\x7fy", "new\nline", strings.Repeat("long", 40)}

// hostileExport exports an eval with a hostile name and description and
// a case per hostileIDs.
func hostileExport(t *testing.T) (harbor.Options, harbor.Exported) {
	t.Helper()
	dir := t.TempDir()
	desc := strings.Repeat("a \\\"quoted\\\" description\\twith\\u007f DEL ", 20)
	write(t, filepath.Join(dir, "eval.yaml"), "name: \"Ünïcode evál\"\ndescription: \""+desc+"\"\nmodels: {skill: m}\ndataset: {path: cases}\nexecution: {prompt: p}\n")
	for _, id := range hostileIDs {
		write(t, filepath.Join(dir, "cases", id, "input.yaml"), "x: 1\n")
	}
	ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o := options(t, ev, dir)
	x, err := harbor.Export(context.Background(), o)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	return o, x
}

// TestExportNames: hostile case ids become unique, valid names; the raw id
// stays in [metadata] and tests/case.json.
func TestExportNames(t *testing.T) {
	o, x := hostileExport(t)
	if ps := harbor.Check(o.Out); len(ps) > 0 {
		t.Errorf("Check: %v", ps)
	}
	seen := map[string]bool{}
	for _, task := range x.Tasks {
		if seen[strings.ToLower(task.Name)] {
			t.Errorf("name %s twice", task.Name)
		}
		seen[strings.ToLower(task.Name)] = true
		var doc struct {
			Task struct {
				Description string `toml:"description"`
			} `toml:"task"`
			Metadata struct {
				CaseID string `toml:"case_id"`
			} `toml:"metadata"`
		}
		if _, err := toml.DecodeFile(filepath.Join(task.Dir, harbor.TaskFile), &doc); err != nil || doc.Metadata.CaseID != task.CaseID {
			t.Errorf("%s: [metadata].case_id %q, want %q (%v)", task.Dir, doc.Metadata.CaseID, task.CaseID, err)
		}
		if d := doc.Task.Description; !strings.HasPrefix(d, "a \"quoted\" description with\x7f DEL") || len(d) > 120+len("…") {
			t.Errorf("%s: [task].description %q: the eval's, on one line, clipped", task.Dir, d)
		}
	}
	if len(x.Tasks) != len(hostileIDs) {
		t.Errorf("%d tasks for %d cases", len(x.Tasks), len(hostileIDs))
	}
}

func write(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
