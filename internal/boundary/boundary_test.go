package boundary

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestHostAllowed(t *testing.T) {
	tests := []struct {
		patterns []string
		host     string
		want     bool
	}{
		{[]string{"api.example"}, "api.example", true},
		{[]string{"api.example"}, "API.Example.", true},
		{[]string{"api.example"}, "evil.api.example", false},
		{[]string{"api.example"}, "api.example.evil", false},
		{[]string{"*.example"}, "a.b.example", true},
		{[]string{"*.example"}, "example", false},
		{[]string{"*.example"}, "badexample", false},
		{[]string{"*"}, "anything.at.all", true},
		{nil, "api.example", false},
		{[]string{"api.example"}, "", false},
		{[]string{"10.0.0.1"}, "10.0.0.1", true},
		{[]string{"10.0.0.1"}, "10.0.0.2", false},
	}
	for _, tt := range tests {
		if got := HostAllowed(tt.patterns, tt.host); got != tt.want {
			t.Errorf("HostAllowed(%q, %q) = %v, want %v", tt.patterns, tt.host, got, tt.want)
		}
	}
}

// TestArgsOrder: binds come parents first and before the hidden paths in
// them, a read-write bind of a path wins over a read-only one, the system
// folders are bound read-only (or linked as they are), and the root ends
// read-only.
func TestArgsOrder(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "slot", "ws")
	if err := os.MkdirAll(filepath.Join(ws, "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, "notes.env")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(base, "empty")
	spec := Spec{RW: []string{filepath.Join(base, "slot")}, RO: []string{ws, filepath.Join(base, "absent"), "/usr/bin/env"},
		Hide: []string{filepath.Join(ws, "secret"), file, "/etc/passwd"}, Net: &Net{},
		Freeze: []string{file, filepath.Join(ws, "secret"), ws, filepath.Join(base, "slot", "gone"), "/etc/hosts"}}
	a, err := Args(spec, nil, empty)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Join(a, " ")
	idx := func(sub string) int {
		i := strings.Index(s, sub)
		if i < 0 {
			t.Fatalf("%q not in %s", sub, s)
		}
		return i
	}
	slot := idx("--bind " + filepath.Join(base, "slot") + " ")
	if idx("--ro-bind "+ws+" "+ws) < slot {
		t.Errorf("the workspace is bound before the slot holding it")
	}
	if idx("--tmpfs "+filepath.Join(ws, "secret")) < slot || idx("--ro-bind "+empty+" "+file) < slot {
		t.Errorf("a hidden path comes before the bind it is in")
	}
	if strings.Count(s, "--ro-bind "+ws+" "+ws) != 2 || idx("--ro-bind "+ws+" "+ws+" --ro-bind "+ws+" "+ws) < 0 {
		t.Errorf("the frozen workspace is not bound read-only after its read-only bind")
	}
	if strings.Contains(s, "--ro-bind "+file+" "+file) || strings.Contains(s, "gone") || strings.Contains(s, "/etc/hosts") {
		t.Errorf("a hidden, absent or unbound path is frozen: %s", s)
	}
	if strings.Contains(s, "absent") || strings.Contains(s, "/usr/bin/env") {
		t.Errorf("an absent path or one under a system folder is bound: %s", s)
	}
	if strings.Contains(s, "/etc/passwd") {
		t.Errorf("a hidden path outside every bind is mounted over: %s", s)
	}
	for _, want := range []string{"--unshare-net", "--cap-drop ALL", "--die-with-parent", "--as-pid-1", "--proc /proc", "--tmpfs /tmp"} {
		idx(want)
	}
	if !strings.HasSuffix(s, "--remount-ro / --") {
		t.Errorf("the command line does not end with the root read-only: %s", s)
	}
	if _, err := Args(Spec{RW: []string{filepath.Join(base, "no-such")}}, nil, empty); err == nil {
		t.Errorf("a missing read-write folder is no error")
	}
	a, _ = Args(Spec{}, nil, empty)
	if slices.Contains(a, "--unshare-net") {
		t.Errorf("no Net, yet the network is unshared")
	}
}

// TestBoxProxy: the proxy tunnels CONNECT and forwards plain requests to
// an allowed host, refuses any other with 403 and records it; a forwarded
// address relays.
func TestBoxProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "upstream "+r.URL.Path) })}
	go srv.Serve(ln)
	defer srv.Close()
	dir, err := os.MkdirTemp("", "box-")
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenBox(dir, Net{Forward: []string{ln.Addr().String()}, Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dial := func(name string) net.Conn {
		c, err := net.DialTimeout("unix", filepath.Join(dir, name), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		return c
	}
	// CONNECT to the allowed host: a tunnel to the server.
	c := dial("proxy.sock")
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", ln.Addr(), ln.Addr())
	br := bufio.NewReader(c)
	if line, _ := br.ReadString('\n'); !strings.Contains(line, "200") {
		t.Fatalf("CONNECT answered %q", line)
	}
	_, _ = br.ReadString('\n')
	fmt.Fprintf(c, "GET /tunnel HTTP/1.0\r\nHost: x\r\n\r\n")
	body, _ := io.ReadAll(br)
	if !strings.Contains(string(body), "upstream /tunnel") {
		t.Errorf("through the tunnel: %q", body)
	}
	c.Close()
	// A plain request with an absolute URL.
	c = dial("proxy.sock")
	fmt.Fprintf(c, "GET http://%s/plain HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", ln.Addr(), ln.Addr())
	body, _ = io.ReadAll(c)
	if !strings.Contains(string(body), "upstream /plain") {
		t.Errorf("a plain request: %q", body)
	}
	c.Close()
	// Anything else is refused, and said.
	for _, host := range []string{"exfil.example:443", "exfil.example:80", "169.254.169.254:80"} {
		c = dial("proxy.sock")
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
		line, _ := bufio.NewReader(c).ReadString('\n')
		if !strings.Contains(line, "403") {
			t.Errorf("CONNECT %s answered %q", host, line)
		}
		c.Close()
	}
	got := b.Refused()
	if len(got) != 2 || got[0] != (Refusal{"exfil.example", 2}) || got[1].Host != "169.254.169.254" {
		t.Errorf("refused = %+v", got)
	}
	// The forwarded address relays.
	c = dial("f0.sock")
	fmt.Fprintf(c, "GET /relayed HTTP/1.0\r\nHost: x\r\n\r\n")
	body, _ = io.ReadAll(c)
	if !strings.Contains(string(body), "upstream /relayed") {
		t.Errorf("relayed: %q", body)
	}
	c.Close()
	if env := strings.Join(b.Env(), " "); !strings.Contains(env, "HTTPS_PROXY=http://127.0.0.1:3128") {
		t.Errorf("env = %s", env)
	}
}

func TestOpenBoxRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []Net{{Forward: []string{"10.0.0.1:80"}}, {Forward: []string{"127.0.0.1:3128"}}, {Forward: []string{"127.0.0.1"}}} {
		d, err := os.MkdirTemp(dir, "b")
		if err != nil {
			t.Fatal(err)
		}
		if b, err := OpenBox(d, n); err == nil {
			b.Close()
			t.Errorf("OpenBox(%+v) is no error", n)
		}
	}
	if _, err := OpenBox("/"+strings.Repeat("x", MaxSocketDir), Net{}); err == nil {
		t.Errorf("a folder too long for its sockets is no error")
	}
}
