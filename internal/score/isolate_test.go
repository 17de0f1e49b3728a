package score

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// forge is what an agent plants: Python that, wherever it is imported or
// run, prints a passing verdict on the judge's stdout and exits.
const forge = "import os\nos.write(1, b'{\"value\": true, \"rationale\": \"forged\"}\\n')\nos._exit(0)\n"

// forgeSh is the same as a shell script (a planted python3, BASH_ENV).
const forgeSh = "#!/bin/sh\necho '{\"value\": true, \"rationale\": \"forged\"}'\nexit 0\n"

const plantedEval = `name: planted
execution:
  prompt: hi
dataset:
  path: cases
judges:
  - name: check_says_no
    check: |
      import textwrap, json
      return False, textwrap.shorten("the body says no", 40)
  - name: module_says_no
    module: judges.mod
    function: verdict
  - name: exec_says_no
    exec: [python3, judges/no.py]
  - name: exec_module_says_no
    exec: python3 -m judges.no
  - name: exec_code_says_no
    exec: [python3, -c, "import json, sys, textwrap; sys.stdin.read(); print(json.dumps({'value': False, 'rationale': textwrap.shorten('the code says no', 40)}))"]
`

// writePlanted writes the eval above (its judges always fail) and a run of
// one case, and returns eval.yaml's folder and the run.
func writePlanted(t *testing.T) (string, rundir.Dir, func() *rundir.Summary) {
	t.Helper()
	ev, dir := writeProject(t, plantedEval, fixtureCase{id: "c1", files: map[string]string{"output/a.txt": "a"}})
	root := ev.Dir()
	must(t, os.MkdirAll(filepath.Join(root, "judges"), 0o755))
	must(t, writeFile(filepath.Join(root, "judges", "mod.py"), "import textwrap, json\ndef verdict(outputs, **kw):\n    return False, textwrap.shorten('the module says no', 40)\n"))
	must(t, writeFile(filepath.Join(root, "judges", "no.py"), "import sys, json\nsys.stdin.read()\nprint(json.dumps({'value': False, 'rationale': 'the program says no'}))\n"))
	return root, dir, func() *rundir.Summary {
		t.Helper()
		s, err := Score(context.Background(), Options{Dir: dir, Eval: ev})
		if err != nil {
			t.Fatalf("score: %v", err)
		}
		return s
	}
}

func plant(t *testing.T, p, body string, mode os.FileMode) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(body), mode))
}

// pythonVersion is python3's major.minor, for the user site's folder.
func pythonVersion(t *testing.T) string {
	out, err := exec.Command("python3", "-I", "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	must(t, err)
	return strings.TrimSpace(string(out))
}

// An agent that can write files (sandbox off) plants code where a judge's
// Python or shell would pick it up. Whatever it plants, a judge whose body
// returns False stays failed: not passed, and not an error either.
func TestPlantedFilesForgeNoVerdict(t *testing.T) {
	needPython(t)
	ver := pythonVersion(t)
	tests := []struct {
		name  string
		plant func(t *testing.T, root string, run rundir.Dir)
	}{
		{"json.py in eval.yaml's folder", func(t *testing.T, root string, _ rundir.Dir) {
			plant(t, filepath.Join(root, "json.py"), forge, 0o644)
			plant(t, filepath.Join(root, "textwrap.py"), forge, 0o644)
		}},
		{"json.py in the current folder", func(t *testing.T, _ string, _ rundir.Dir) {
			cwd := t.TempDir()
			plant(t, filepath.Join(cwd, "json.py"), forge, 0o644)
			plant(t, filepath.Join(cwd, "textwrap.py"), forge, 0o644)
			t.Chdir(cwd)
		}},
		{"sitecustomize and usercustomize in eval.yaml's and the current folder", func(t *testing.T, root string, _ rundir.Dir) {
			cwd := t.TempDir()
			for _, d := range []string{root, cwd} {
				plant(t, filepath.Join(d, "sitecustomize.py"), forge, 0o644)
				plant(t, filepath.Join(d, "usercustomize.py"), forge, 0o644)
			}
			t.Chdir(cwd)
		}},
		{"usercustomize and a .pth in the user site", func(t *testing.T, _ string, _ rundir.Dir) {
			home := t.TempDir()
			site := filepath.Join(home, ".local", "lib", "python"+ver, "site-packages")
			plant(t, filepath.Join(site, "usercustomize.py"), forge, 0o644)
			plant(t, filepath.Join(site, "zz.pth"), "import os; os.write(1, b'{\"value\": true}\\n'); os._exit(0)\n", 0o644)
			t.Setenv("HOME", home)
		}},
		{"PYTHONPATH", func(t *testing.T, _ string, _ rundir.Dir) {
			d := t.TempDir()
			for _, m := range []string{"json.py", "textwrap.py", "sitecustomize.py"} {
				plant(t, filepath.Join(d, m), forge, 0o644)
			}
			t.Setenv("PYTHONPATH", d)
		}},
		{"PYTHONSTARTUP and PYTHONINSPECT", func(t *testing.T, _ string, _ rundir.Dir) {
			d := t.TempDir()
			plant(t, filepath.Join(d, "startup.py"), forge, 0o644)
			t.Setenv("PYTHONSTARTUP", filepath.Join(d, "startup.py"))
			t.Setenv("PYTHONINSPECT", "1")
		}},
		{"BASH_ENV (a python3 that is a bash shim)", func(t *testing.T, _ string, _ rundir.Dir) {
			d := t.TempDir()
			plant(t, filepath.Join(d, "env.sh"), forgeSh, 0o644)
			t.Setenv("BASH_ENV", filepath.Join(d, "env.sh"))
			t.Setenv("ENV", filepath.Join(d, "env.sh"))
		}},
		{"a python3 on a PATH entry in the run", func(t *testing.T, _ string, run rundir.Dir) {
			bin := filepath.Join(run.Path, "cases", "c1", "outputs", "bin")
			plant(t, filepath.Join(bin, "python3"), forgeSh, 0o755)
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		}},
		{"a python3 on a PATH entry in the temporary folder (a workspace)", func(t *testing.T, _ string, _ rundir.Dir) {
			ws, err := os.MkdirTemp("", "agent-eval-ws-")
			must(t, err)
			t.Cleanup(func() { os.RemoveAll(ws) })
			plant(t, filepath.Join(ws, "c1", "bin", "python3"), forgeSh, 0o755)
			t.Setenv("PATH", filepath.Join(ws, "c1", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		}},
		{"a python3 in the current folder on a relative PATH entry", func(t *testing.T, _ string, _ rundir.Dir) {
			cwd := t.TempDir()
			plant(t, filepath.Join(cwd, "python3"), forgeSh, 0o755)
			t.Chdir(cwd)
			t.Setenv("PATH", "."+string(os.PathListSeparator)+os.Getenv("PATH"))
		}},
		{"a python3 in eval.yaml's folder on PATH", func(t *testing.T, root string, _ rundir.Dir) {
			plant(t, filepath.Join(root, "bin", "python3"), forgeSh, 0o755)
			t.Setenv("PATH", filepath.Join(root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		}},
		{"a .pth and sitecustomize in the interpreter's own site-packages (a virtualenv the agent can write)", func(t *testing.T, _ string, _ rundir.Dir) {
			venv := writableVenv(t)
			site := filepath.Join(venv, "lib", "python"+ver, "site-packages")
			// It lets python3's probes by (their program names version_info
			// or <check>) and forges every judge's answer.
			quiet := "import os; c = open('/proc/self/cmdline', 'rb').read(); b'version_info' in c or b'<check>' in c or (os.write(1, b'{\"value\": true, \"rationale\": \"forged\"}\\n'), os._exit(0))\n"
			plant(t, filepath.Join(site, "zz.pth"), quiet, 0o644)
			plant(t, filepath.Join(site, "sitecustomize.py"), "exec("+strconv.Quote(quiet)+")\n", 0o644)
			t.Setenv("PATH", filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		}},
		{"json.py beside the exec judge's script", func(t *testing.T, root string, _ rundir.Dir) {
			for _, m := range []string{"json.py", "textwrap.py", "sys.py", "os.py"} {
				plant(t, filepath.Join(root, "judges", m), forge, 0o644)
			}
		}},
		{"a module and a package beside the judge's module", func(t *testing.T, root string, _ rundir.Dir) {
			plant(t, filepath.Join(root, "judges", "mod", "__init__.py"), forge, 0o644)
			plant(t, filepath.Join(root, "judges", "mod.cpython-"+strings.ReplaceAll(ver, ".", "")+"-x86_64-linux-gnu.so"), "not an ELF", 0o755)
			plant(t, filepath.Join(root, "judges", "mod.abi3.so"), "not an ELF", 0o755)
		}},
		{"a compiled module in __pycache__ matching the source's stamp", func(t *testing.T, root string, _ rundir.Dir) {
			src := filepath.Join(root, "judges", "mod.py")
			prog := `import importlib._bootstrap_external as be, importlib.util, os, sys
src = sys.argv[1]; st = os.stat(src)
code = compile(sys.argv[2], src, "exec")
out = importlib.util.cache_from_source(src)
os.makedirs(os.path.dirname(out), exist_ok=True)
open(out, "wb").write(be._code_to_timestamp_pyc(code, st.st_mtime, st.st_size))
`
			if out, err := exec.Command("python3", "-I", "-c", prog, src, forge).CombinedOutput(); err != nil {
				t.Fatalf("compile the planted module: %v: %s", err, out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, run, score := writePlanted(t)
			tt.plant(t, root, run)
			s := score()
			if len(s.Cases[0].Verdicts) != 5 {
				t.Fatalf("verdicts = %+v", s.Cases[0].Verdicts)
			}
			for _, v := range s.Cases[0].Verdicts {
				if v.Passed == nil || *v.Passed || v.Error != "" || strings.Contains(v.Rationale, "forged") {
					t.Errorf("%s: passed %v, error %q, rationale %q; want failed by its own body", v.Judge, ptr(v.Passed), v.Error, v.Rationale)
				}
			}
			if s.Passed && len(s.Thresholds) > 0 {
				t.Errorf("the run passed")
			}
		})
	}
}

// writableVenv makes a virtualenv of python3 where the judges trust a
// PATH entry (outside the temporary folder and any world-writable one: the
// package's folder), as a user's own pyenv or virtualenv is, which an agent
// running as the user (sandbox off) can write.
func writableVenv(t *testing.T) string {
	t.Helper()
	base, err := os.Getwd()
	must(t, err)
	if real, err := filepath.EvalSymlinks(base); err != nil || worldWritable(real) != "" || inAny(real, []string{os.TempDir()}) {
		// A checkout under /tmp: judges take nothing from there, so the
		// venv goes where the user's own installs go.
		base, err = os.UserCacheDir()
		must(t, err)
		must(t, os.MkdirAll(base, 0o755))
	}
	d, err := os.MkdirTemp(base, ".venv-test-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(d) })
	if out, err := exec.Command("python3", "-m", "venv", "--without-pip", d).CombinedOutput(); err != nil {
		need.Missing(t, fmt.Sprintf("python3 -m venv: %v: %s", err, out), need.Install("python3"))
	}
	return d
}

func ptr(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// look.py reports what a judge sees: its environment, working folder and
// whether it could change the run's files.
const lookPy = `import json, os, sys
d = json.load(sys.stdin)
o = d["outputs"]
wrote = []
for p in [os.path.join(o["case_dir"], "run_result.json"), o.get("output_file", "")]:
    try:
        with open(p, "a") as f:
            f.write("changed by the judge")
        wrote.append(p)
    except OSError:
        pass
print(json.dumps({"value": True, "rationale": json.dumps({
    "env": sorted(os.environ), "home": os.environ.get("HOME", ""), "tmp": os.environ.get("TMPDIR", ""),
    "cwd": os.getcwd(), "listing": os.listdir("."), "case_dir": o["case_dir"], "output_file": o.get("output_file", ""),
    "config_dir": os.environ.get("AGENT_EVAL_CONFIG_DIR", ""), "case_env": os.environ.get("AGENT_EVAL_CASE_DIR", ""),
    "token": os.environ.get("DEPLOY_TOKEN", ""), "path": os.environ.get("PATH", "")})}))
`

type looked struct {
	Env        []string `json:"env"`
	Home       string   `json:"home"`
	Tmp        string   `json:"tmp"`
	Cwd        string   `json:"cwd"`
	Listing    []string `json:"listing"`
	CaseDir    string   `json:"case_dir"`
	OutputFile string   `json:"output_file"`
	ConfigDir  string   `json:"config_dir"`
	CaseEnv    string   `json:"case_env"`
	Token      string   `json:"token"`
	Path       string   `json:"path"`
}

// An exec judge runs with an allowlisted environment (no secrets unless
// its env: names them), a fresh empty working folder and HOME that are
// gone afterwards, and a copy of the case: what it writes there does not
// change the run.
func TestExecJudgeIsolation(t *testing.T) {
	needPython(t)
	t.Setenv("DEPLOY_TOKEN", "tok-not-for-judges")
	t.Setenv("ANTHROPIC_API_KEY", "sk-not-for-judges")
	t.Setenv("PYTHONSTARTUP", "/nowhere")
	t.Setenv("LD_PRELOAD", "")
	t.Setenv("LC_ALL", "C.UTF-8")
	// The interpreter itself, not a shim that sets variables of its own.
	exe, err := exec.Command("python3", "-I", "-c", "import sys; print(sys.executable)").Output()
	must(t, err)
	py := strings.TrimSpace(string(exe))
	ev, dir := writeProject(t, fmt.Sprintf(`name: look
execution:
  prompt: hi
dataset:
  path: cases
outputs:
  - path: output
judges:
  - name: look
    exec: [%s, judges/look.py]
  - name: look_with_token
    exec: "%s judges/look.py"
    env: [DEPLOY_TOKEN]
`, py, py), fixtureCase{id: "c1", files: map[string]string{"output/a.txt": "the agent's output"}})
	root := ev.Dir()
	plant(t, filepath.Join(root, "judges", "look.py"), lookPy, 0o644)
	before, err := os.ReadFile(dir.CaseResult("c1"))
	must(t, err)
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev})
	must(t, err)
	var seen []looked
	for _, v := range s.Cases[0].Verdicts {
		if v.Error != "" {
			t.Fatalf("%s: %s", v.Judge, v.Error)
		}
		var l looked
		if err := json.Unmarshal([]byte(v.Rationale), &l); err != nil {
			t.Fatalf("%s: rationale %q: %v", v.Judge, v.Rationale, err)
		}
		seen = append(seen, l)
	}
	for i, l := range seen {
		for _, k := range l.Env {
			allowed := slices.Contains(append(allowedEnv, "HOME", "TMPDIR", "PATH", EnvConfigDir, EnvCaseDir), k) || strings.HasPrefix(k, "LC_") ||
				i == 1 && k == "DEPLOY_TOKEN"
			if !allowed {
				t.Errorf("judge %d got $%s", i, k)
			}
		}
		if !slices.Contains(l.Env, "LC_ALL") {
			t.Errorf("judge %d lost the locale: %v", i, l.Env)
		}
		if len(l.Listing) != 0 {
			t.Errorf("judge %d's working folder holds %v", i, l.Listing)
		}
		for what, p := range map[string]string{"cwd": l.Cwd, "HOME": l.Home, "TMPDIR": l.Tmp, "case_dir": l.CaseDir} {
			if !strings.Contains(p, "agent-eval-judge-") {
				t.Errorf("judge %d's %s is %s, not a folder of its own", i, what, p)
			}
			if _, err := os.Stat(p); err == nil {
				t.Errorf("judge %d's %s %s is still there", i, what, p)
			}
		}
		if l.CaseEnv != l.CaseDir || !strings.HasPrefix(l.OutputFile, l.CaseDir+"/") {
			t.Errorf("judge %d: case_dir %s, $AGENT_EVAL_CASE_DIR %s, output_file %s: want the copy", i, l.CaseDir, l.CaseEnv, l.OutputFile)
		}
		if want, _ := filepath.Abs(root); l.ConfigDir != want {
			t.Errorf("judge %d: $AGENT_EVAL_CONFIG_DIR = %s, want %s", i, l.ConfigDir, want)
		}
		for _, d := range filepath.SplitList(l.Path) {
			if !filepath.IsAbs(d) || strings.HasPrefix(d, os.TempDir()) {
				t.Errorf("judge %d's PATH has %s", i, d)
			}
		}
	}
	if seen[0].Token != "" || seen[1].Token == "" {
		t.Errorf("DEPLOY_TOKEN: %q without env:, %q with it; want only the judge that names it to get it", seen[0].Token, seen[1].Token)
	}
	after, err := os.ReadFile(dir.CaseResult("c1"))
	must(t, err)
	out, err := os.ReadFile(filepath.Join(dir.Outputs("c1"), "output", "a.txt"))
	must(t, err)
	if string(after) != string(before) || string(out) != "the agent's output" {
		t.Errorf("the judge changed the run's files: run_result.json %q, output %q", after, out)
	}
}

// A judge never runs a program in the run being scored (the agent wrote
// the run's outputs), nor one on a PATH entry there, unless its env: asks
// for score's PATH as it is.
func TestExecJudgeProgramInTheRun(t *testing.T) {
	ev, dir := writeProject(t, "name: x\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - name: planted\n    exec: [runs/r1/cases/c1/outputs/judge.sh]\n",
		fixtureCase{id: "c1"})
	plant(t, filepath.Join(dir.Outputs("c1"), "judge.sh"), forgeSh, 0o755)
	_, err := Score(context.Background(), Options{Dir: dir, Eval: ev})
	if err == nil || !strings.Contains(err.Error(), "inside the run being scored") {
		t.Errorf("score = %v, want a config error saying the program is inside the run", err)
	}

	ev, dir = writeProject(t, "name: x\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - name: planted\n    exec: [judge-tool, --x]\n",
		fixtureCase{id: "c1"})
	bin := filepath.Join(dir.Path, "bin")
	plant(t, filepath.Join(bin, "judge-tool"), forgeSh, 0o755)
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev, Environ: []string{"PATH=" + bin + ":/usr/bin:/bin"}})
	must(t, err)
	if v := s.Cases[0].Verdicts[0]; v.Error == "" || !strings.Contains(v.Error, "not on PATH") {
		t.Errorf("verdict = %+v, want an error: judge-tool is not on the trusted PATH", v)
	}

	// Unless the eval's author asks for score's own PATH, knowingly.
	ev, _ = writeProject(t, "name: x\nexecution:\n  prompt: hi\ndataset:\n  path: cases\njudges:\n  - name: planted\n    exec: [judge-tool, --x]\n    env: [PATH]\n",
		fixtureCase{id: "c1"})
	s, err = Score(context.Background(), Options{Dir: dir, Eval: ev, Environ: []string{"PATH=" + bin + ":/usr/bin:/bin"}})
	must(t, err)
	if v := s.Cases[0].Verdicts[0]; v.Error != "" || v.Passed == nil || !*v.Passed {
		t.Errorf("with env: [PATH], verdict = %+v, want judge-tool's", v)
	}
}

// trustedPath keeps only absolute folders outside the run, the temporary
// folder, eval.yaml's folder and world-writable folders.
func TestTrustedPath(t *testing.T) {
	tmp := t.TempDir()
	run, project := filepath.Join(tmp, "p", "runs", "r1"), filepath.Join(tmp, "p")
	shared := filepath.Join(tmp, "shared")
	for _, d := range []string{run, shared, filepath.Join(run, "bin"), filepath.Join(project, "bin")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.MkdirAll(filepath.Join(shared, "sub", "bin"), 0o755))
	must(t, os.Chmod(shared, 0o777|os.ModeSticky))
	list := strings.Join([]string{".", "", "bin", "/usr/bin", filepath.Join(run, "bin"), filepath.Join(project, "bin"), shared, "/no/such/dir", "/usr/bin/", "/bin"}, ":")
	got := trustedPath(list, []string{run, project, os.TempDir()})
	if want := []string{"/usr/bin", "/bin"}; !slices.Equal(got, want) {
		t.Errorf("trustedPath(%s) = %v, want %v", list, got, want)
	}
	// Inside a world-writable folder, even when the entry itself is the
	// user's own, and whatever the untrusted roots are.
	if got := trustedPath(shared+":"+filepath.Join(shared, "sub", "bin"), nil); len(got) != 0 {
		t.Errorf("a folder in a world-writable folder is kept: %v", got)
	}
}

// execArgv makes an exec judge's paths in eval.yaml's folder absolute, so
// it runs from its fresh working folder as it did from eval.yaml's.
func TestExecArgv(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "judges"), 0o755))
	// An agent that can write eval.yaml's folder plants files named as a
	// judge's shell line: the line stays a shell line.
	for _, f := range []string{"judges/score.py", "expected.json", "check.sh", "cases", "echo not json", `echo '{"value": false}'`, "test -s x && echo ok"} {
		must(t, writeFile(filepath.Join(root, f), ""))
	}
	j := func(p string) string { return filepath.Join(root, p) }
	tests := []struct {
		in, want []string
	}{
		{[]string{"python3", "judges/score.py", "--strict"}, []string{"python3", j("judges/score.py"), "--strict"}},
		{[]string{"./judges/check.sh", "expected.json"}, []string{j("judges/check.sh"), j("expected.json")}},
		{[]string{"check.sh"}, []string{j("check.sh")}},
		{[]string{"echo not json"}, []string{"sh", "-c", "echo not json"}},
		{[]string{`echo '{"value": false}'`}, []string{"sh", "-c", `echo '{"value": false}'`}},
		{[]string{"test -s x && echo ok"}, []string{"sh", "-c", "test -s x && echo ok"}},
		{[]string{"grep", "-q", "cases", "missing.json", "/abs/x.py", "-", "."}, []string{"grep", "-q", "cases", "missing.json", "/abs/x.py", "-", "."}},
		{[]string{"node", "--require=./x.js"}, []string{"node", "--require=./x.js"}},
	}
	for _, tt := range tests {
		if got := execArgv(root, tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("execArgv(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A judge that leaves read-only folders behind still has its folder
// removed.
func TestJudgeFolderRemoved(t *testing.T) {
	c, err := newCall("")
	must(t, err)
	must(t, os.MkdirAll(filepath.Join(c.work, "a", "b"), 0o755))
	must(t, writeFile(filepath.Join(c.work, "a", "b", "f"), "x"))
	must(t, os.Chmod(filepath.Join(c.work, "a", "b"), 0o500))
	must(t, os.Chmod(filepath.Join(c.work, "a"), 0o500))
	must(t, c.close())
	if _, err := os.Stat(c.root); err == nil {
		t.Errorf("%s is still there", c.root)
	}

	// A case folder larger than the bound (a sparse file here) is not
	// copied once per judge: the call is an error, and leaves nothing.
	src := t.TempDir()
	f, err := os.Create(filepath.Join(src, "huge"))
	must(t, err)
	must(t, f.Truncate(maxCaseCopy+1))
	must(t, f.Close())
	t.Setenv("TMPDIR", t.TempDir())
	if c, err := newCall(src); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("newCall(a folder of %d bytes) = %v, %v; want an error", maxCaseCopy+1, c, err)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "agent-eval-judge-*")); len(left) > 0 {
		t.Errorf("the failed call left %v", left)
	}
}

// A Python exec judge still imports its own siblings (python3 script.py
// puts the script's folder on sys.path, python3 -m the project's) and gets
// its arguments, and a check imports eval.yaml's folder's modules; they
// only lose the power to be shadowed.
func TestPythonExecJudge(t *testing.T) {
	needPython(t)
	ev, dir := writeProject(t, `name: py
execution:
  prompt: hi
dataset:
  path: cases
judges:
  - name: script
    exec: [python3, judges/score.py, --want, c1]
  - name: module
    exec: python3 -m judges.score --want c1
  - name: with_flags
    exec: python3 -u -X utf8 judges/score.py --want c1
  - name: wrong_case
    exec: [python3, judges/score.py, --want, c2]
  - name: check_imports
    check: |
      import sys
      from judges import helper
      return helper.same(outputs["case_id"], "c1"), sys.argv[0] + " judges/score.py"
`, fixtureCase{id: "c1"})
	root := ev.Dir()
	plant(t, filepath.Join(root, "judges", "helper.py"), "def same(a, b):\n    return a == b\n", 0o644)
	plant(t, filepath.Join(root, "judges", "score.py"), `import json, sys
try:
    import helper
except ImportError:
    from judges import helper
d = json.load(sys.stdin)
want = sys.argv[sys.argv.index("--want") + 1]
print(json.dumps({"value": helper.same(d["case_id"], want), "rationale": sys.argv[0]}))
`, 0o644)
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev})
	must(t, err)
	for _, v := range s.Cases[0].Verdicts {
		want := v.Judge != "wrong_case"
		if v.Error != "" || v.Passed == nil || *v.Passed != want {
			t.Errorf("%s: %+v, want passed %v", v.Judge, v, want)
		}
		if !strings.HasSuffix(v.Rationale, filepath.Join("judges", "score.py")) {
			t.Errorf("%s: sys.argv[0] = %q, want the script", v.Judge, v.Rationale)
		}
	}
}

// pythonExec recognises the forms of a Python exec judge that would put a
// folder first on sys.path, the interpreter's own options before them
// included.
func TestPythonExec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		argv, pass []string
		want       *pyExec
	}{
		{[]string{"python3", "/p/judges/s.py", "-v"}, nil, &pyExec{mode: "script", target: "/p/judges/s.py", args: []string{"-v"}}},
		{[]string{"/usr/bin/python3.12", "s.py"}, nil, &pyExec{mode: "script", target: "/p/s.py", args: []string{}}},
		{[]string{"python", "-m", "judges.score", "--x"}, nil, &pyExec{mode: "module", target: "judges.score", args: []string{"--x"}}},
		{[]string{"python3", "-u", "-X", "utf8", "-Wignore", "-OO", "s.py"}, nil, &pyExec{flags: []string{"-u", "-X", "utf8", "-Wignore", "-OO"}, mode: "script", target: "/p/s.py", args: []string{}}},
		{[]string{"python3", "-c", "print(1)", "a"}, nil, &pyExec{mode: "command", target: "print(1)", args: []string{"a"}}},
		{[]string{"python3", "-i", "s.py"}, nil, nil},
		{[]string{"python3", "s.py"}, []string{"PYTHONPATH"}, nil},
		{[]string{"python3"}, nil, nil},
		{[]string{"python3", "-u"}, nil, nil},
		{[]string{"node", "s.py"}, nil, nil},
		{[]string{"pythonista", "s.py"}, nil, nil},
	}
	for _, tt := range tests {
		got := pythonExec("/p", tt.argv, tt.pass)
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(pyExec{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("pythonExec(%q) (-want +got):\n%s", tt.argv, diff)
		}
	}
}

// -P exists from Python 3.11 (an older python3 stops at an unknown
// option); -I, which implies it there, is always given.
func TestInterpreterArgv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		major, minor int
		want         []string
	}{
		{3, 10, []string{"/py", "-I", "-S", "-B", "-c", "prog"}},
		{3, 11, []string{"/py", "-I", "-P", "-S", "-B", "-c", "prog"}},
		{3, 13, []string{"/py", "-I", "-P", "-S", "-B", "-c", "prog"}},
		{4, 0, []string{"/py", "-I", "-P", "-S", "-B", "-c", "prog"}},
	}
	for _, tt := range tests {
		py := &interpreter{path: "/py", major: tt.major, minor: tt.minor}
		if got := py.argv("prog"); !slices.Equal(got, tt.want) {
			t.Errorf("python %d.%d: argv = %q, want %q", tt.major, tt.minor, got, tt.want)
		}
	}
}

// Without site at startup (-S), judges still import what the interpreter
// has installed: a virtualenv's site-packages, and a folder a .pth file
// names (an editable install's path line). Only the code site would run is
// left out.
func TestJudgesImportInstalledPackages(t *testing.T) {
	needPython(t)
	venv := writableVenv(t)
	site := filepath.Join(venv, "lib", "python"+pythonVersion(t), "site-packages")
	plant(t, filepath.Join(site, "installed_helper.py"), "def no():\n    return False, 'the installed helper says no'\n", 0o644)
	linked := filepath.Join(venv, "src")
	plant(t, filepath.Join(linked, "linked_helper.py"), "def no():\n    return False, 'the linked helper says no'\n", 0o644)
	plant(t, filepath.Join(site, "linked.pth"), "# an editable install\n"+linked+"\n", 0o644)
	t.Setenv("PATH", filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	ev, dir := writeProject(t, `name: installed
execution:
  prompt: hi
dataset:
  path: cases
judges:
  - name: installed
    check: |
      import installed_helper
      return installed_helper.no()
  - name: linked
    check: |
      import linked_helper
      return linked_helper.no()
  - name: exec_linked
    exec: [python3, -c, "import json, linked_helper; v, why = linked_helper.no(); print(json.dumps({'value': v, 'rationale': why}))"]
`, fixtureCase{id: "c1"})
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev})
	if err != nil {
		t.Fatalf("score: %v", err)
	}
	for _, v := range s.Cases[0].Verdicts {
		if v.Error != "" || v.Passed == nil || *v.Passed || !strings.Contains(v.Rationale, "helper says no") {
			t.Errorf("%s: passed %v, error %q, rationale %q; want the helper's no", v.Judge, ptr(v.Passed), v.Error, v.Rationale)
		}
	}
}

// The case's copy counts each file when it walks the folder; by the time
// it reads one, a process the agent left could have swapped it for a link
// (to /dev/zero, a secret), a FIFO or a bigger file. copyFile reads only a
// regular file, never through a link, without blocking, at most the size
// that was counted.
func TestCopyFileSwapped(t *testing.T) {
	d := t.TempDir()
	secret := filepath.Join(d, "secret")
	must(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
	link := filepath.Join(d, "link")
	must(t, os.Symlink(secret, link))
	fifo := filepath.Join(d, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o600))
	big := filepath.Join(d, "big")
	must(t, os.WriteFile(big, []byte("0123456789"), 0o600))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, p := range []string{link, fifo} {
			to := p + ".copy"
			if err := copyFile(p, to, 1<<20); err != nil {
				t.Errorf("copyFile(%s): %v", filepath.Base(p), err)
			}
			if _, err := os.Stat(to); err == nil {
				t.Errorf("copyFile(%s) copied it", filepath.Base(p))
			}
		}
		must(t, copyFile(big, big+".copy", 4))
		if b, _ := os.ReadFile(big + ".copy"); string(b) != "0123" {
			t.Errorf("copyFile read %q of a file counted at 4 bytes", b)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("copyFile blocked on a FIFO")
	}
}

// An agent that fails a case can make its judge error there instead (leave
// out the file the check opens, fill its folder past what a judge copies,
// write an output the check cannot parse): an error sample is no verdict,
// and a pass rate over the other cases alone would pass the gate. A gate
// counts a case its judge errored on as not passed.
func TestErrorSamplesPassNoGate(t *testing.T) {
	needPython(t)
	ev, dir := writeProject(t, `name: errors
execution:
  prompt: hi
dataset:
  path: cases
judges:
  - name: answer_ok
    check: |
      import os
      with open(os.path.join(outputs["case_dir"], "outputs", "answer.txt")) as f:
          return f.read() == "ok"
  - name: answer_score
    score_range: [0, 10]
    check: |
      import os
      with open(os.path.join(outputs["case_dir"], "outputs", "answer.txt")) as f:
          return 10 if f.read() == "ok" else 0
thresholds:
  answer_ok: {min_pass_rate: 1.0}
  answer_score: {min_mean: 10}
`, fixtureCase{id: "good", files: map[string]string{"answer.txt": "ok"}}, fixtureCase{id: "evasive"})
	s, err := Score(context.Background(), Options{Dir: dir, Eval: ev})
	if err != nil {
		t.Fatalf("score: %v", err)
	}
	for _, j := range s.Judges {
		if j.Errors != 1 || j.Scored != 1 {
			t.Fatalf("%s: scored %d, errors %d; want 1 and 1", j.Name, j.Scored, j.Errors)
		}
	}
	if s.Passed {
		t.Errorf("the run passed: %+v", s.Thresholds)
	}
	for _, th := range s.Thresholds {
		if th.OK {
			t.Errorf("%s %s passed with a case errored: %+v", th.Judge, th.Metric, th)
		}
	}
}

// A record's file listed as regular and then swapped for a link or a FIFO
// is read neither through the link nor by waiting on the FIFO.
func TestReadBoundedSwapped(t *testing.T) {
	d := t.TempDir()
	secret := filepath.Join(d, "secret")
	must(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
	link := filepath.Join(d, "link")
	must(t, os.Symlink(secret, link))
	fifo := filepath.Join(d, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, p := range []string{link, fifo} {
			if v, ok := readBounded(p, filepath.Base(p)).(string); ok {
				t.Errorf("readBounded(%s) = %q, want an error entry", filepath.Base(p), v)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("readBounded blocked on a FIFO")
	}
}
