package guard

import (
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/agent-eval/agent-eval/internal/boundary"
)

// relay is one --relay ADDR=SOCKET: the guard, inside an agent's network
// namespace, listens on ADDR and carries each connection to the unix
// socket SOCKET, which the harness serves outside (package boundary).
type relay struct{ addr, socket string }

func parseRelay(v string) (relay, error) {
	addr, sock, ok := strings.Cut(v, "=")
	if !ok || addr == "" || sock == "" {
		return relay{}, fmt.Errorf("--relay %q: want ADDR=SOCKET", v)
	}
	return relay{addr, sock}, nil
}

// start listens on r.addr and serves it until the guard ends.
func (r relay) start() error {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		return fmt.Errorf("relay %s: %w", r.addr, err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("unix", r.socket)
				if err != nil {
					return
				}
				defer up.Close()
				boundary.Splice(c, up)
			}()
		}
	}()
	return nil
}

// setFileLimit sets RLIMIT_FSIZE: no process of the agent writes a file
// past n bytes (it gets EFBIG, or SIGXFSZ).
func setFileLimit(n uint64) error {
	lim := syscall.Rlimit{Cur: n, Max: n}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return fmt.Errorf("limit the agent's file size: %w", err)
	}
	return nil
}
