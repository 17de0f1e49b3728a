// Package mlflowserver starts a real MLflow tracking server for a test: the
// pinned MLflow (scripts/install-mlflow.sh), on 127.0.0.1, with a SQLite
// backend store and a proxied artifact store in the test's temporary
// folder. The server is stopped, its process group killed, when the test
// ends. Imported by tests only.
package mlflowserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/testutil/need"
)

// Server is a running MLflow tracking server.
type Server struct {
	// URL is its tracking URI, http://127.0.0.1:PORT.
	URL string
	// Artifacts is the folder its artifact store writes to.
	Artifacts string
	// Log is the file the server's output goes to.
	Log string
	// DB is its SQLite backend store.
	DB string
	// NoProxy: it does not serve artifacts (StartWithoutProxy), so Runs
	// reads none.
	NoProxy bool
}

// Bin finds the pinned MLflow: $MLFLOW_BIN, else the virtual environment
// scripts/install-mlflow.sh made under <repo>/.cache. A missing or other
// version ends the test as need.Missing does.
func Bin(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	v, err := os.ReadFile(filepath.Join(root, "scripts", "mlflow.version"))
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(v))
	bin := os.Getenv("MLFLOW_BIN")
	if bin == "" {
		bin = filepath.Join(root, ".cache", "mlflow-"+version, "bin", "mlflow")
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		need.Missing(t, fmt.Sprintf("MLflow %s is not usable at %s: %v", version, bin, err), need.Install("mlflow"))
	}
	if f := strings.Fields(string(out)); len(f) == 0 || f[len(f)-1] != version {
		t.Fatalf("%s --version = %q, want %s", bin, out, version)
	}
	return bin
}

// Start starts a tracking server and waits until it answers /health.
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t, true)
}

// StartWithoutProxy starts a tracking server that does not serve
// artifacts (--no-serve-artifacts): its runs' artifact_uri is a folder
// (Artifacts) that a client writes itself.
func StartWithoutProxy(t testing.TB) *Server {
	t.Helper()
	return start(t, false)
}

func start(t testing.TB, proxy bool) *Server {
	t.Helper()
	bin := Bin(t)
	dir := t.TempDir()
	port := freePort(t)
	s := &Server{
		URL:       fmt.Sprintf("http://127.0.0.1:%d", port),
		Artifacts: filepath.Join(dir, "artifacts"),
		Log:       filepath.Join(dir, "server.log"),
		DB:        filepath.Join(dir, "mlflow.db"),
		NoProxy:   !proxy,
	}
	log, err := os.Create(s.Log)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"server", "--backend-store-uri", "sqlite:///" + s.DB}
	if proxy {
		args = append(args, "--serve-artifacts", "--artifacts-destination", s.Artifacts)
	} else {
		args = append(args, "--no-serve-artifacts", "--default-artifact-root", s.Artifacts)
	}
	cmd := exec.Command(bin, append(args, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--workers", "1")...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	// The server's telemetry stays off, and nothing is fetched.
	cmd.Env = append(os.Environ(), "MLFLOW_DISABLE_TELEMETRY=true", "DO_NOT_TRACK=true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mlflow server: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		log.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case err := <-done:
			b, _ := os.ReadFile(s.Log)
			t.Fatalf("mlflow server exited before answering (%v):\n%s", err, b)
		case <-ctx.Done():
			b, _ := os.ReadFile(s.Log)
			t.Fatalf("mlflow server did not answer /health in 2 minutes:\n%s", b)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// repoRoot is the module's root: this file is internal/testutil/mlflowserver.
func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the repository root")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Python is the Python of the pinned MLflow's virtual environment, with
// the mlflow library, for a test that logs traces as an application
// would.
func Python(t testing.TB) string {
	t.Helper()
	return filepath.Join(filepath.Dir(Bin(t)), "python")
}
