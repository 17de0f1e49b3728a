package agentproc

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
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

	"github.com/agent-eval/agent-eval/internal/guard"
	"github.com/agent-eval/agent-eval/internal/testutil"
	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// pidnsHow says what gives the agent a pid namespace: root, or unprivileged
// user namespaces (docs/auth.md#containment-of-the-agents-processes).
const pidnsHow = "run as root, or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, kernel.apparmor_restrict_unprivileged_userns=0)"

// TestMain lets the test binary stand in for agent-eval's guard verb.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "guard" {
		os.Exit(guard.Main(os.Args[2:], os.Stderr))
	}
	if len(os.Args) > 2 && os.Args[1] == "attacker" {
		os.Exit(attacker(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// modes are the containments an agent under the guard gets here: the pid
// namespace where this machine can make one (else it is skipped, saying
// why), and the subreaper sweep.
func modes(t *testing.T) (self string, ms []Mode) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := probe(self)
	if c.Mode == PIDNamespace {
		ms = append(ms, PIDNamespace)
	} else {
		t.Logf("the pid namespace is not tested here: %s", c)
	}
	return self, append(ms, Subreaper)
}

// marker is a sleep duration no other process has: its command line names
// the processes of one test.
func marker(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.ParseUint(hex.EncodeToString(b), 16, 32)
	return fmt.Sprintf("300.%d", n)
}

// marked lists the live processes whose command line holds m.
func marked(m string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(m)) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// hostPIDs maps the pids a process in root's pid namespace wrote (as it
// sees them) to this process's, from NSpid in /proc/PID/status; a pid of
// root's own namespace maps to itself.
func hostPIDs(t *testing.T, root int, pids []int) []int {
	t.Helper()
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", root))
	if err != nil {
		t.Fatalf("the guard's pid namespace: %v", err)
	}
	if self, _ := os.Readlink("/proc/self/ns/pid"); self == ns {
		return pids
	}
	want := map[int]bool{}
	for _, p := range pids {
		want[p] = true
	}
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if l, _ := os.Readlink("/proc/" + e.Name() + "/ns/pid"); l != ns {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 3 && f[0] == "NSpid:" {
				inner, _ := strconv.Atoi(f[len(f)-1])
				host, _ := strconv.Atoi(f[1])
				if want[inner] {
					out = append(out, host)
				}
			}
		}
	}
	if len(out) != len(pids) {
		t.Fatalf("found %d of the %d pids %v in the guard's namespace", len(out), len(pids), pids)
	}
	return out
}

// waitFile waits for path to hold a full last line, and returns its fields.
func waitFile(t *testing.T, path string) []int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			continue
		}
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s: %q", path, b)
			}
			pids = append(pids, n)
		}
		return pids
	}
	t.Fatalf("%s never appeared", path)
	return nil
}

// The escape of issue 17: the agent starts sleepers that leave its tree
// every way a shell can (setsid nohup in the background, a double fork
// with setsid and closed descriptors, one with its environment cleared,
// one that joins the run's process group) and then SIGKILLs its guard
// (its parent); then it exits, or runs until the timeout or an interrupt.
// In a namespace the guard is out of the agent's reach. When Run returns, none of them
// runs: checked by their pids and by a marker in their command lines.
func TestNothingOutlivesTheRun(t *testing.T) {
	t.Parallel()
	self, ms := modes(t)
	for _, mode := range ms {
		for _, end := range []string{"exits", "timeout", "interrupt"} {
			t.Run(string(mode)+"/"+end, func(t *testing.T) {
				t.Parallel()
				m := marker(t)
				dir := t.TempDir()
				pids := filepath.Join(dir, "pids")
				// In subreaper mode a sleeper with a clean environment must
				// be seen before the guard dies (the documented window).
				pause := "0"
				if mode == Subreaper {
					pause = strconv.FormatFloat(4*TrackEvery.Seconds(), 'f', 2, 64)
				}
				script := `m=` + m + `
setsid nohup sleep $m </dev/null >/dev/null 2>&1 &
a=$!
( setsid sh -c 'sleep '$m' & echo $! > p2; exec 0<&- 1>&- 2>&-' & ) ; while [ ! -s p2 ]; do :; done
( exec env -i setsid sleep $m </dev/null >/dev/null 2>&1 & echo $! > p3 ) ; while [ ! -s p3 ]; do :; done
rp=$(ps -o pgid= -p $(ps -o ppid= -p $PPID) 2>/dev/null)
python3 -c 'import os, sys
try: os.setpgid(0, int(sys.argv[1]))
except Exception: pass
os.execvp("sleep", ["sleep", sys.argv[2]])' "${rp:-0}" $m 2>/dev/null &
d=$!
echo $a $(cat p2) $(cat p3) $d > pids.tmp && mv pids.tmp pids
while [ ! -e go ]; do sleep 0.01; done
sleep ` + pause + `
kill -9 $PPID
` + map[bool]string{true: "exit 0", false: "sleep 300"}[end == "exits"] + `
`
				ctx, cancel := context.WithCancel(testutil.Context(t, time.Minute))
				defer cancel()
				spec := Spec{Path: "sh", Args: []string{"-c", script}, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")},
					Guard: self, Containment: mode, Grace: 300 * time.Millisecond}
				guardPID := make(chan int, 1)
				spec.Started = func(pgid int) { guardPID <- pgid }
				if end == "timeout" {
					spec.Timeout = 2 * time.Second
				}
				var inner []int
				var host []int
				done := make(chan Result, 1)
				go func() { done <- Run(ctx, spec) }()
				g := <-guardPID
				inner = waitFile(t, pids)
				if mode == PIDNamespace {
					host = hostPIDs(t, g, inner)
				} else {
					host = inner
				}
				if got := marked(m); len(got) < len(host) {
					t.Errorf("marker: %d live sleepers %v, want %d (the attack did not run)", len(got), got, len(host))
				}
				if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				switch end {
				case "interrupt":
					cancel()
				}
				var res Result
				select {
				case res = <-done:
				case <-time.After(30 * time.Second):
					t.Fatal("Run did not return")
				}
				if res.Containment != mode {
					t.Errorf("Run's containment %q, want %q", res.Containment, mode)
				}
				for _, pid := range host {
					if alive(pid) {
						_ = syscall.Kill(pid, syscall.SIGKILL)
						t.Errorf("sleeper %d (%v as the agent saw it) still runs after Run returned (%+v)", pid, inner, res)
					}
				}
				if left := marked(m); len(left) > 0 {
					for _, pid := range left {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
					t.Errorf("processes with the marker still run after Run returned: %v", left)
				}
			})
		}
	}
}

// In a pid namespace the agent sees only its own processes and signals
// nothing outside: not the guard, not a process of the run it knows the
// pid of.
func TestNamespaceIsolates(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if c := probe(self); c.Mode != PIDNamespace || c.Detail != "" {
		need.Missing(t, fmt.Sprintf("no full pid namespace here: %s", c), pidnsHow)
	}
	outside := exec.Command("sleep", "300")
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = outside.Process.Kill(); _ = outside.Wait() }()
	script := fmt.Sprintf(`kill -9 %d 2>/dev/null && echo killed-outside
kill -9 $PPID; kill -9 1
echo ppid=$PPID procs=$(ls /proc | grep -c '^[0-9]') uid=$(id -u)
grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status | tr -d '\t' | tr '\n' ' '
cat /proc/1/environ >/dev/null 2>&1 && echo guard-environ-readable || true`, outside.Process.Pid)
	var out bytes.Buffer
	res := Run(testutil.Context(t, time.Minute), Spec{Path: "sh", Args: []string{"-c", script}, Env: []string{"PATH=" + os.Getenv("PATH")},
		Guard: self, Containment: PIDNamespace, Stdout: &out})
	if res.ExitCode != 0 || res.Err != nil {
		t.Fatalf("Run = %+v, output %q", res, out.String())
	}
	// The guard (1), its threads, the shell, ls and grep: a handful.
	var ppid, procs, uid int
	if _, err := fmt.Sscanf(out.String(), "ppid=%d procs=%d uid=%d", &ppid, &procs, &uid); err != nil || ppid != 1 || procs > 30 || uid != os.Getuid() {
		t.Errorf("the agent saw %q; want its guard as pid 1, only its own processes, its own uid (%d)", out.String(), os.Getuid())
	}
	// As a user, the agent has no capability in its user namespace (the
	// guard's CAP_SYS_ADMIN was for /proc) and cannot read the guard.
	if os.Getuid() != 0 {
		if want := "CapInh:0000000000000000 CapPrm:0000000000000000 CapEff:0000000000000000 CapAmb:0000000000000000"; !strings.Contains(out.String(), want) {
			t.Errorf("the agent's capabilities: %q; want %s", out.String(), want)
		}
		if strings.Contains(out.String(), "guard-environ-readable") {
			t.Errorf("the agent read its guard's environment")
		}
	}
	if !alive(outside.Process.Pid) {
		t.Errorf("the agent killed a process outside its namespace")
	}
}

// The agent's exit code and a signal's death reach the caller as they
// would without the guard, in every mode.
func TestExitStatus(t *testing.T) {
	t.Parallel()
	self, ms := modes(t)
	for _, mode := range append(ms, ProcessGroup) {
		for script, want := range map[string]int{"exit 7": 7, "exit 0": 0, "kill -TERM $$": -1, "kill -KILL $$": -1} {
			g := self
			if mode == ProcessGroup {
				g = ""
			}
			res := Run(testutil.Context(t, time.Minute), Spec{Path: "sh", Args: []string{"-c", script}, Env: []string{"PATH=" + os.Getenv("PATH")},
				Guard: g, Containment: mode})
			if res.ExitCode != want || res.Err != nil || res.Containment != mode {
				t.Errorf("%s: %q = exit %d, %v, %s; want %d", mode, script, res.ExitCode, res.Err, res.Containment, want)
			}
		}
	}
}

// A bad $AGENT_EVAL_CONTAINMENT is an error that names it; "subreaper"
// asks for the sweep, and says so.
func TestProbeChoice(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(ModeEnv, "chroot")
	if _, err := Probe(self); err == nil || !strings.Contains(err.Error(), ModeEnv) {
		t.Errorf("Probe with %s=chroot = %v, want an error naming it", ModeEnv, err)
	}
	t.Setenv(ModeEnv, "subreaper")
	if c, err := Probe(self); err != nil || c.Mode != Subreaper || !strings.Contains(c.String(), ModeEnv) {
		t.Errorf("Probe with %s=subreaper = %v, %v", ModeEnv, c, err)
	}
	if c, err := Probe(""); err != nil || c.Mode != ProcessGroup {
		t.Errorf("Probe without a guard = %v, %v", c, err)
	}
}

// BenchmarkRun is what each containment adds to starting an agent:
// `true` run bare, under the guard's sweep and in a namespace.
func BenchmarkRun(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []Mode{ProcessGroup, Subreaper, PIDNamespace} {
		g := self
		if mode == ProcessGroup {
			g = ""
		}
		b.Run(string(mode), func(b *testing.B) {
			for b.Loop() {
				if res := Run(context.Background(), Spec{Path: "true", Env: []string{"PATH=" + os.Getenv("PATH")}, Guard: g, Containment: mode}); res.ExitCode != 0 {
					b.Fatalf("Run = %+v", res)
				}
			}
		})
	}
}

// probe tells a namespace from a partial one and from none by the guard's
// answer, and a guard that cannot start is no namespace.
func TestProbeAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, tt := range []struct {
		script string
		want   Mode
		detail string
	}{
		{"exit 0", PIDNamespace, ""},
		{fmt.Sprintf("echo no proc >&2; exit %d", guard.ProbePartial), PIDNamespace, "no proc"},
		{fmt.Sprintf("echo not init >&2; exit %d", guard.ProbeNoNamespace), Subreaper, "not init"},
		{"exit 2", Subreaper, "exit status 2"},
	} {
		bin := filepath.Join(dir, fmt.Sprintf("guard%d", i))
		if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		// A parallel test's fork can hold the script's write descriptor
		// open until its child execs (Go issue 22315): exec then fails with
		// "text file busy" for a moment; try again.
		c := probe(bin)
		for try := 0; try < 50 && strings.Contains(c.Detail, "text file busy"); try++ {
			time.Sleep(20 * time.Millisecond)
			c = probe(bin)
		}
		if c.Mode == Subreaper && strings.Contains(c.Detail, "operation not permitted") {
			need.Missing(t, fmt.Sprintf("no namespace here: %s", c), pidnsHow)
		}
		if c.Mode != tt.want || !strings.Contains(c.Detail, tt.detail) || (tt.detail == "" && c.Detail != "") {
			t.Errorf("probe of a guard that runs %q = %+v; want %s with %q", tt.script, c, tt.want, tt.detail)
		}
	}
	if c := probe(filepath.Join(dir, "missing")); c.Mode != Subreaper || !strings.Contains(c.Detail, "no pid namespace") {
		t.Errorf("probe of a missing guard = %+v", c)
	}
}

// An agent with the capabilities of the run (a run as root) unmounts the
// namespace's /proc to uncover the host's under it (the run's processes,
// their command lines and environments, their open files), and tries to
// enter the pid namespace of a process it finds there to start a sleeper
// outside. It finds none, and nothing of it runs once Run returns.
func TestNoReentryIntoTheHostNamespace(t *testing.T) {
	t.Parallel()
	self, ms := modes(t)
	if !slices.Contains(ms, PIDNamespace) {
		need.Missing(t, "no pid namespace here", pidnsHow)
	}
	need.Program(t, "nsenter")
	m := marker(t)
	dir := t.TempDir()
	script := `m=` + m + `
umount -l /proc 2>/dev/null
me=$(readlink /proc/self/ns/pid)
for p in /proc/[0-9]*; do
  [ -e $p/ns/pid ] || continue
  [ "$(readlink $p/ns/pid 2>/dev/null)" = "$me" ] && continue
  echo "${p#/proc/}" >> outside
  nsenter -t ${p#/proc/} -p -- setsid sleep $m </dev/null >/dev/null 2>&1 &
done
sleep 0.5
echo done > out
`
	spec := Spec{Path: "sh", Args: []string{"-c", script}, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")},
		Guard: self, Containment: PIDNamespace, Grace: 300 * time.Millisecond, Timeout: 20 * time.Second}
	res := Run(testutil.Context(t, time.Minute), spec)
	if _, err := os.Stat(filepath.Join(dir, "out")); err != nil {
		t.Fatalf("the attack did not run: %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "outside")); err == nil {
		t.Errorf("the agent saw %d processes outside its namespace under /proc", strings.Count(string(b), "\n"))
	}
	time.Sleep(200 * time.Millisecond)
	if left := marked(m); len(left) > 0 {
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("sleepers started in the host's pid namespace still run after Run returned: %v", left)
	}
}
