package agentproc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agent-eval/agent-eval/internal/boundary"
)

// world is what one boundary needs outside it while the agent runs: the
// bubblewrap command line, the network's outside (box), and a scratch
// folder for both (the box's sockets, the empty file hidden files show).
type world struct {
	bwrap   string
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
	spec.RO = append(spec.RO[:len(spec.RO):len(spec.RO)], s.Guard)
	if filepath.IsAbs(s.Path) {
		spec.RO = append(spec.RO, s.Path)
	}
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
	a = append(a, s.Guard, "guard", "--status-fd", "3")
	if w.box != nil {
		a = append(a, w.box.GuardArgs()...)
	}
	fsize := w.spec.FileBytes
	if fsize <= 0 {
		fsize = boundary.DefaultFileBytes
	}
	a = append(a, "--fsize", strconv.FormatInt(fsize, 10), "--", s.Path)
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
