package agentproc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/boundary"
)

// world is what one boundary needs outside it while the agent runs: the
// bubblewrap command line, the network's outside (box), and a scratch
// folder for both (the box's sockets, the empty file hidden files show).
type world struct {
	bwrap   string
	guard   string // the guard binary and the agent program, absolute
	program string
	args    []string // bubblewrap's, up to "--"
	box     *boundary.Box
	scratch string
	spec    boundary.Spec
}

// scratchParents are where a world's scratch folder may go: short, since a
// unix socket's path holds at most 107 bytes.
func scratchParents() []string { return []string{os.TempDir(), "/tmp", "/dev/shm"} }

func openWorld(s Spec) (*world, error) {
	bw, err := boundary.Bwrap()
	if err != nil {
		return nil, err
	}
	w := &world{bwrap: bw, spec: *s.Boundary}
	// Inside, only what is bound exists: the programs are named by the
	// paths they are bound at.
	if w.guard, err = absProgram(s.Guard, ""); err != nil {
		return nil, err
	}
	if w.program, err = absProgram(s.Path, s.Dir); err != nil {
		return nil, err
	}
	for _, p := range scratchParents() {
		if len(filepath.Join(p, "agent-eval-world-0123456789", "net")) > boundary.MaxSocketDir {
			continue
		}
		if w.scratch, err = os.MkdirTemp(p, "agent-eval-world-"); err == nil {
			break
		}
	}
	if w.scratch == "" {
		return nil, fmt.Errorf("make the agent's boundary folder: %w", err)
	}
	empty := filepath.Join(w.scratch, "empty")
	if err := os.WriteFile(empty, nil, 0o444); err != nil {
		w.close()
		return nil, fmt.Errorf("make the agent's boundary folder: %w", err)
	}
	spec := w.spec
	// The guard and the agent program are read where they are.
	spec.RO = append(spec.RO[:len(spec.RO):len(spec.RO)], w.guard, w.program)
	if spec.Net != nil {
		sockets := filepath.Join(w.scratch, "net")
		if err := os.Mkdir(sockets, 0o700); err != nil {
			w.close()
			return nil, fmt.Errorf("make the agent's network folder: %w", err)
		}
		if w.box, err = boundary.OpenBox(sockets, *spec.Net); err != nil {
			w.close()
			return nil, err
		}
	}
	if w.args, err = boundary.Args(spec, w.box, empty); err != nil {
		w.close()
		return nil, err
	}
	if s.Dir != "" {
		w.args = append(w.args[:len(w.args)-1], "--chdir", s.Dir, "--")
	}
	return w, nil
}

// command is bubblewrap's arguments: the world, then the guard with its
// relays and limits, then the agent.
func (w *world) command(s Spec) []string {
	a := append([]string{}, w.args...)
	a = append(a, w.guard, "guard", "--status-fd", "3")
	if w.box != nil {
		a = append(a, w.box.GuardArgs()...)
	}
	a = append(a, "--fsize", strconv.Itoa(boundary.FileBytes), "--", w.program)
	return append(a, s.Args...)
}

// env is what the world adds to the agent's environment: its proxy.
func (w *world) env() []string {
	if w.box == nil {
		return nil
	}
	return w.box.Env()
}

func (w *world) close() {
	if w.box != nil {
		_ = w.box.Close()
	}
	if w.scratch != "" {
		_ = os.RemoveAll(w.scratch)
	}
}

// absProgram is the absolute path of a program: looked up in PATH when it
// has no slash, else relative to dir.
func absProgram(p, dir string) (string, error) {
	switch {
	case !strings.Contains(p, "/"):
		lp, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("find %s: %w", p, err)
		}
		p = lp
	case !filepath.IsAbs(p) && dir != "":
		p = filepath.Join(dir, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", p, err)
	}
	return abs, nil
}
