package agentproc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/testutil"
)

// attacker is what the test binary does as the agent in a boundary: it
// tries what it is told and prints what it got, one line per try.
func attacker(args []string) int {
	switch args[0] {
	case "dial": // dial NETWORK ADDR
		c, err := net.DialTimeout(args[1], args[2], 2*time.Second)
		if err != nil {
			fmt.Println("refused:", err)
			return 0
		}
		defer c.Close()
		fmt.Fprintf(c, "GET / HTTP/1.0\r\nHost: x\r\n\r\n")
		b, _ := io.ReadAll(io.LimitReader(c, 4096))
		fmt.Printf("reached: %q\n", firstLine(b))
	case "connect": // connect PROXY HOST:PORT
		c, err := net.DialTimeout("tcp", args[1], 2*time.Second)
		if err != nil {
			fmt.Println("no proxy:", err)
			return 0
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", args[2], args[2])
		line, _ := bufio.NewReader(c).ReadString('\n')
		fmt.Printf("proxy: %s\n", strings.TrimSpace(line))
	}
	return 0
}

func firstLine(b []byte) string {
	l, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(l)
}

// needBoundary skips where bubblewrap cannot draw a boundary (it fails the
// test under CI=true, where scripts/install-sandbox.sh installs it).
func needBoundary(t *testing.T) {
	t.Helper()
	if err := boundary.Probe(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no boundary in CI: %v", err)
		}
		t.Skipf("no boundary here: %v", err)
	}
}

// TestBoundaryHolds runs an attacker inside a boundary and checks, with its
// own evidence, what it could read, write and reach.
func TestBoundaryHolds(t *testing.T) {
	needBoundary(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	slot := filepath.Join(base, "slot")
	ws := filepath.Join(slot, "ws")
	must(t, os.MkdirAll(filepath.Join(ws, "secret"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "secret", "key.txt"), []byte("TOPSECRET-KEY"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "notes.env"), []byte("TOPSECRET-ENV"), 0o644))
	must(t, os.MkdirAll(filepath.Join(ws, "frozen"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "frozen", "f.txt"), []byte("orig"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "frozen.txt"), []byte("orig"), 0o644))
	outside := filepath.Join(base, "eval.yaml")
	must(t, os.WriteFile(outside, []byte("TOPSECRET-EVAL"), 0o644))
	summary := filepath.Join(base, "step_summary.md")
	must(t, os.WriteFile(summary, []byte("# verdict\n"), 0o644))
	hostTmp, err := os.CreateTemp("/tmp", "left-by-another-case-")
	must(t, err)
	hostTmp.Close()
	t.Cleanup(func() { os.Remove(hostTmp.Name()) })

	// A server the run forwards, one it does not, a unix socket and an
	// abstract one on the machine.
	allowed := serve(t, "tcp", "127.0.0.1:0", "allowed-server")
	other := serve(t, "tcp", "127.0.0.1:0", "other-server")
	sock := filepath.Join("/tmp", fmt.Sprintf("agent-eval-test-%d.sock", os.Getpid()))
	serve(t, "unix", sock, "unix-server")
	abstract := fmt.Sprintf("@agent-eval-test-%d", os.Getpid())
	serve(t, "unix", abstract, "abstract-server")

	// A process of the machine the agent must not see.
	m := marker(t)
	sleeper := exec.Command("sleep", m)
	must(t, sleeper.Start())
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	script := strings.Join([]string{
		`echo "read-secret: $(cat secret/key.txt 2>&1)"`,
		`echo "read-env: $(cat notes.env 2>&1)"`,
		`echo "read-outside: $(cat ` + outside + ` 2>&1)"`,
		`echo "ls-root: $(ls /root 2>&1 | head -1)"`,
		`echo "write-usr: $(touch /usr/planted 2>&1 && echo written)"`,
		`echo "write-summary: $(echo PASSED >> ` + summary + ` 2>&1 && echo written)"`,
		`echo "write-ws: $(echo mine > out.txt && cat out.txt)"`,
		`echo "host-tmp: $(ls ` + hostTmp.Name() + ` 2>&1)"`,
		`echo "unhide: $(umount secret 2>&1 || true; cat secret/key.txt 2>&1)"`,
		`echo "remount: $(mount -o remount,rw,bind /usr 2>&1; touch /usr/planted2 2>&1 && echo written)"`,
		`echo "frozen: $(echo x > frozen/f.txt; echo x > frozen/new.txt; rm -f frozen/f.txt; mv frozen frozen2; echo x > frozen.txt; rm -f frozen.txt; mv frozen.txt moved.txt; cat frozen/f.txt frozen.txt 2>&1)"`,
		`echo "uid: $(id -u)"`,
		`echo "forwarded $(` + self + ` attacker dial tcp ` + allowed + `)"`,
		`echo "other $(` + self + ` attacker dial tcp ` + other + `)"`,
		`echo "unix $(` + self + ` attacker dial unix ` + sock + `)"`,
		`echo "abstract $(` + self + ` attacker dial unix ` + abstract + `)"`,
		`echo "proxy-denied $(` + self + ` attacker connect 127.0.0.1:3128 exfil.example:443)"`,
		`echo "proc: $(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' '\n' | grep -cx '` + strings.ReplaceAll(m, ".", `\.`) + `')"`,
		// The backgrounded sleep may not have exec'd yet when /proc is first read: poll (bounded) until it shows.
		`echo "own-proc: $(sleep 30.25 & p=$!; n=0; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do n=$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' '\n' | grep -cx '30\.25'); [ "$n" = 1 ] && break; sleep 0.1; done; echo $n; kill $p)"`,
	}, "\n")
	var out, errb bytes.Buffer
	spec := &boundary.Spec{RW: []string{slot}, RO: []string{self}, Hide: []string{filepath.Join(ws, "secret"), filepath.Join(ws, "notes.env")},
		Freeze: []string{filepath.Join(ws, "frozen"), filepath.Join(ws, "frozen.txt")},
		Net:    &boundary.Net{Forward: []string{allowed}, Hosts: []string{"api.example"}}}
	res := Run(testutil.Context(t, 2*time.Minute), Spec{Path: "/bin/sh", Args: []string{"-c", script}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Guard: self, Boundary: spec, Stdout: &out, Stderr: &errb, Timeout: time.Minute})
	if res.Err != nil || res.ExitCode != 0 {
		t.Fatalf("agent: %+v\nstderr: %s", res, errb.String())
	}
	got := out.String()
	t.Logf("what the attacker saw:\n%s", got)
	if strings.Contains(got, "TOPSECRET") {
		t.Errorf("a secret reached the agent")
	}
	for _, want := range []string{"write-ws: mine", "forwarded reached: \"HTTP/1.0 200 OK\"", "proxy-denied proxy: HTTP/1.1 403 Forbidden", "proc: 0", "own-proc: 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q", want)
		}
	}
	for _, bad := range []string{"write-usr: written", "remount: written", "other reached", "unix reached", "abstract reached", "uid: 0"} {
		if strings.Contains(got, bad) {
			t.Errorf("the attacker got %q", bad)
		}
	}
	// The summary's path is the agent's own /tmp inside: the file outside
	// is the evidence.
	if b, _ := os.ReadFile(summary); string(b) != "# verdict\n" {
		t.Errorf("step summary changed: %q", b)
	}
	if _, err := os.Stat("/usr/planted"); err == nil {
		t.Errorf("/usr/planted exists")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(b) != "mine\n" {
		t.Errorf("the workspace write did not land: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "secret", "key.txt")); string(b) != "TOPSECRET-KEY" {
		t.Errorf("the hidden file changed: %q", b)
	}
	for _, f := range []string{"frozen/f.txt", "frozen.txt"} {
		if b, _ := os.ReadFile(filepath.Join(ws, f)); string(b) != "orig" {
			t.Errorf("the write-denied %s changed: %q", f, b)
		}
	}
	for _, f := range []string{"frozen/new.txt", "frozen2", "moved.txt"} {
		if _, err := os.Lstat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s was made beside a write-denied path", f)
		}
	}
	if !strings.Contains(got, "frozen: origorig") {
		t.Errorf("the write-denied files do not read as they were")
	}
	if len(res.Refused) != 1 || res.Refused[0].Host != "exfil.example" {
		t.Errorf("refused = %+v, want exfil.example", res.Refused)
	}
	if res.Containment != Boundary {
		t.Errorf("containment = %s", res.Containment)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// serve answers HTTP on a new listener with body and returns its address.
func serve(t *testing.T, network, addr, body string) string {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// TestBoundaryHoldsForAnotherUser runs TestBoundaryHolds again as a user
// that is not root (nobody), where bubblewrap makes its namespaces without
// privileges, as on a CI runner that runs as a user: the same attacks
// fail. It needs root to switch users, and skips otherwise.
func TestBoundaryHoldsForAnotherUser(t *testing.T) {
	needBoundary(t)
	if os.Geteuid() != 0 {
		t.Skip("switching to another user needs root; TestBoundaryHolds itself runs as this user")
	}
	if os.Getenv("AGENT_EVAL_TEST_AS_NOBODY") != "" {
		t.Skip("already the other user")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy of the test binary the other user can run.
	dir, err := os.MkdirTemp("", "agent-eval-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "agentproc.test")
	b, err := os.ReadFile(self)
	must(t, err)
	must(t, os.WriteFile(bin, b, 0o755))
	cmd := exec.CommandContext(testutil.Context(t, 5*time.Minute), bin, "-test.run", "^TestBoundaryHolds$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=/tmp", "HOME=" + dir, "AGENT_EVAL_TEST_AS_NOBODY=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestBoundaryHolds") {
		t.Fatalf("TestBoundaryHolds as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "uid: 65534") {
		t.Errorf("the agent did not run as nobody:\n%s", out)
	}
}

// TestBoundaryQuota: an agent whose folders pass the boundary's quota while
// it runs is stopped, a sparse file counted at its apparent size and a
// flood of small files by their number; one within it runs to its end.
func TestBoundaryQuota(t *testing.T) {
	needBoundary(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	quotaEveryNS.Store(int64(50 * time.Millisecond))
	t.Cleanup(func() { quotaEveryNS.Store(0) })
	for _, tt := range []struct {
		name, script, want string
	}{
		{"sparse", "truncate -s 64M big.bin; sleep 20", "disk_bytes"},
		{"files", "mkdir many; for i in $(seq 300); do : > many/$i; done; sleep 20", "disk_files"},
		{"within", "head -c 1000 /dev/zero > small.bin; echo done", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			slot := filepath.Join(t.TempDir(), "slot")
			must(t, os.MkdirAll(slot, 0o755))
			spec := &boundary.Spec{RW: []string{slot}, RO: []string{self}, Quota: &boundary.Quota{Bytes: 8 << 20, Files: 200}}
			var out bytes.Buffer
			res := Run(testutil.Context(t, time.Minute), Spec{Path: "/bin/sh", Args: []string{"-c", tt.script}, Dir: slot, Env: []string{"PATH=/usr/bin:/bin"},
				Guard: self, Boundary: spec, Stdout: &out, Timeout: 15 * time.Second})
			if res.TimedOut {
				t.Fatalf("the agent ran to its timeout: %+v", res)
			}
			if tt.want == "" {
				if res.OverQuota != "" || res.Err != nil || res.ExitCode != 0 {
					t.Errorf("an agent within its quota: %+v", res)
				}
				return
			}
			if !strings.Contains(res.OverQuota, tt.want) || res.Err == nil || !strings.Contains(res.Err.Error(), tt.want) {
				t.Errorf("over quota = %q, err = %v; want %s named", res.OverQuota, res.Err, tt.want)
			}
		})
	}
}
