package boundary

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Box is the outside of one agent process's network: a folder of unix
// sockets bound into its world (SocketDir), one per forwarded address and
// one for the proxy, each served here. Inside, the guard listens on the
// forwarded addresses and on the proxy's and relays each connection to its
// socket (GuardArgs).
type Box struct {
	dir      string
	hosts    []string
	forwards []string
	port     int // the proxy's port inside
	lns      []net.Listener
	wg       sync.WaitGroup
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	http     *http.Transport // plain requests to allowed hosts
	ctx      context.Context
	cancel   context.CancelFunc

	mu      sync.Mutex
	refused map[string]int
	order   []string
}

// Refusal is a host the proxy did not let the agent reach, and how often it
// tried.
type Refusal struct {
	Host  string `json:"host"`
	Count int    `json:"count"`
}

// OpenBox makes n's outside in the folder d, which it takes over (its path
// short: a socket's path holds at most 107 bytes, MaxSocketDir), and starts
// serving it.
func OpenBox(d string, n Net) (*Box, error) {
	if len(d) > MaxSocketDir {
		return nil, fmt.Errorf("the agent's network folder %s: a path longer than %d bytes cannot hold its sockets", d, MaxSocketDir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Box{dir: d, hosts: n.Hosts, refused: map[string]int{}, ctx: ctx, cancel: cancel,
		dial: (&net.Dialer{Timeout: 30 * time.Second}).DialContext}
	b.http = &http.Transport{DialContext: b.dial, Proxy: nil}
	b.port = ProxyPort
	for _, f := range n.Forward {
		if _, err := splitLoopback(f); err != nil {
			b.Close()
			return nil, err
		}
		b.forwards = append(b.forwards, f)
	}
	if taken(b.port, b.forwards) {
		b.Close()
		return nil, fmt.Errorf("the agent is pointed at 127.0.0.1:%d, the port the boundary's proxy takes inside its world: use another port", b.port)
	}
	for i, f := range b.forwards {
		target := f
		if err := b.serve(fmt.Sprintf("f%d.sock", i), func(c net.Conn) { b.relay(c, target) }); err != nil {
			b.Close()
			return nil, err
		}
	}
	if err := b.serve("proxy.sock", b.proxy); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// MaxSocketDir is the longest folder path a Box's sockets fit in.
const MaxSocketDir = 107 - len("/proxy.sock") - 8

// taken says whether port is the port of one of the forwarded addresses.
func taken(port int, forwards []string) bool {
	for _, f := range forwards {
		if _, p, err := net.SplitHostPort(f); err == nil && p == strconv.Itoa(port) {
			return true
		}
	}
	return false
}

// splitLoopback checks that addr is a loopback host:port and returns it.
func splitLoopback(addr string) (string, error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("forward %q: %w", addr, err)
	}
	if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("forward %q: not a loopback address", addr)
	}
	if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("forward %q: not a port", addr)
	}
	return addr, nil
}

func (b *Box) serve(name string, handle func(net.Conn)) error {
	ln, err := net.Listen("unix", filepath.Join(b.dir, name))
	if err != nil {
		return fmt.Errorf("listen for the agent's network: %w", err)
	}
	b.lns = append(b.lns, ln)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return nil
}

// GuardArgs are the guard's options that relay the world's addresses to
// the box's sockets.
func (b *Box) GuardArgs() []string {
	var a []string
	for i, f := range b.forwards {
		a = append(a, "--relay", f+"="+SocketDir+"/"+fmt.Sprintf("f%d.sock", i))
	}
	return append(a, "--relay", "127.0.0.1:"+strconv.Itoa(b.port)+"="+SocketDir+"/proxy.sock")
}

// ProxyURL is the proxy's URL inside the world.
func (b *Box) ProxyURL() string { return "http://127.0.0.1:" + strconv.Itoa(b.port) }

// ProxyPort is the proxy's port inside the world.
func (b *Box) ProxyPort() int { return b.port }

// Env are the variables that send the agent's HTTP(S) traffic to the
// proxy, but for loopback addresses (the forwarded ones).
func (b *Box) Env() []string {
	u := b.ProxyURL()
	no := "localhost,127.0.0.1,::1"
	if b.Allowed("localhost") || b.Allowed("127.0.0.1") {
		// The machine's own services are allowed: they are outside the
		// agent's namespace, reached through the proxy like any host.
		no = ""
		for _, f := range b.forwards {
			no += "," + f
		}
		no = strings.TrimPrefix(no, ",")
	}
	return []string{"HTTPS_PROXY=" + u, "https_proxy=" + u, "HTTP_PROXY=" + u, "http_proxy=" + u,
		"NO_PROXY=" + no, "no_proxy=" + no}
}

// Refused lists the hosts the proxy refused, in the order first refused.
func (b *Box) Refused() []Refusal {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Refusal, 0, len(b.order))
	for _, h := range b.order {
		out = append(out, Refusal{Host: h, Count: b.refused[h]})
	}
	return out
}

// Close stops serving and removes the box's folder.
func (b *Box) Close() error {
	b.cancel()
	for _, ln := range b.lns {
		_ = ln.Close()
	}
	b.wg.Wait()
	b.http.CloseIdleConnections()
	return os.RemoveAll(b.dir)
}

// relay copies c to and from a new connection to target.
func (b *Box) relay(c net.Conn, target string) {
	up, err := b.dial(b.ctx, "tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	Splice(c, up)
}

// Splice copies a to b and b to a until both sides are done (or one
// fails), closing each side's writing half when its reader ends.
func Splice(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			_ = dst.Close()
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
}

// Allowed says whether the proxy lets the agent reach host.
func (b *Box) Allowed(host string) bool { return HostAllowed(b.hosts, host) }

// HostAllowed says whether host matches one of the patterns: a name, or
// "*.domain" for the domain's subdomains. Names compare without case and
// a trailing dot; an IP address matches only itself.
func HostAllowed(patterns []string, host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return false
	}
	for _, p := range patterns {
		p = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(p)), ".")
		if p == "*" {
			return true
		}
		if sub, ok := strings.CutPrefix(p, "*."); ok {
			if strings.HasSuffix(host, "."+sub) {
				return true
			}
			continue
		}
		if p == host {
			return true
		}
	}
	return false
}

func (b *Box) refuse(host string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refused[host] == 0 {
		if len(b.order) >= 100 {
			host = "(other hosts)"
		}
		if b.refused[host] == 0 {
			b.order = append(b.order, host)
		}
	}
	b.refused[host]++
}

// proxy serves one connection of the proxy: CONNECT host:port, or requests
// with an absolute URL, to the allowed hosts only.
func (b *Box) proxy(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Minute))
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_ = c.SetReadDeadline(time.Time{})
		host := req.URL.Hostname()
		if req.Method == http.MethodConnect {
			host = hostOnly(req.Host)
		}
		if !b.Allowed(host) {
			b.refuse(host)
			msg := "agent-eval: the eval does not let the agent reach " + host + " (permissions.network)\n"
			fmt.Fprintf(c, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(msg), msg)
			return
		}
		if req.Method == http.MethodConnect {
			addr := req.Host
			if _, _, err := net.SplitHostPort(addr); err != nil {
				addr = net.JoinHostPort(addr, "443")
			}
			up, err := b.dial(b.ctx, "tcp", addr)
			if err != nil {
				fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
				return
			}
			defer up.Close()
			if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
				return
			}
			if n := br.Buffered(); n > 0 {
				pre, _ := br.Peek(n)
				if _, err := up.Write(pre); err != nil {
					return
				}
			}
			Splice(c, up)
			return
		}
		if req.URL.Scheme != "http" || req.URL.Host == "" {
			fmt.Fprintf(c, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
			return
		}
		req.RequestURI = ""
		req.Header.Del("Proxy-Connection")
		req.Header.Del("Proxy-Authorization")
		resp, err := b.http.RoundTrip(req.WithContext(b.ctx))
		if err != nil {
			fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
			return
		}
		err = resp.Write(c)
		resp.Body.Close()
		if err != nil || resp.Close || req.Close {
			return
		}
	}
}

// hostOnly is host:port's host.
func hostOnly(hp string) string {
	if h, _, err := net.SplitHostPort(hp); err == nil {
		return h
	}
	return strings.Trim(hp, "[]")
}
