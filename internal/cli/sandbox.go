package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/runner/claudecode"
)

// checkSandbox decides whether the run's agents get Claude Code's OS
// sandbox and, when they do, checks before any agent starts that it can
// work: a run is refused (exit 2) rather than left unsandboxed.
func (st *runState) checkSandbox(ctx context.Context, ids []string) error {
	st.sandbox, st.caseIDs = st.ev.Sandbox(), ids
	if !st.sandbox.On {
		return nil
	}
	if err := claudecode.CheckSandbox(ctx, os.Getenv("PATH")); err != nil {
		// Exit 2 like a configuration problem, without the usage hint.
		return &codedError{ExitUsage, fmt.Errorf("%w (the sandbox is on because %s; permissions.sandbox: off runs without it)", err, st.sandbox.Why)}
	}
	return nil
}

// baselineDir is where the git baseline of a case's workspace lives.
func (st *runState) baselineDir(id string) string {
	return filepath.Join(st.baselines, id+".git")
}

// sandboxSpec is what the sandbox of workspace ws must allow and keep out
// of reach besides the eval's own rules: the dataset the cases come from,
// the sources of shared workspace files, the eval's runs, the git baselines,
// the run's transcripts and the other cases' workspaces stay unreadable; in repo mode the output
// folder stays writable.
func (st *runState) sandboxSpec(ws string) permissions.SandboxSpec {
	var spec permissions.SandboxSpec
	if n := st.ev.Permissions.Network; n != nil {
		spec.Network = append([]string{}, n.Allow...)
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return a
	}
	if st.repo != "" {
		spec.AllowWrite = append(spec.AllowWrite, abs(ws))
	}
	if d := st.ev.DatasetDir(); d != "" {
		spec.DenyRead = append(spec.DenyRead, abs(d))
	}
	spec.DenyRead = append(spec.DenyRead, abs(filepath.Dir(st.dir)), abs(st.baselines))
	if st.credDir != "" {
		spec.DenyRead = append(spec.DenyRead, st.credDir) // the hook model's credentials
	}
	if st.configDir != "" {
		// The transcripts of every case of the run (Claude Code's shell
		// snapshots beside them must stay readable).
		spec.DenyRead = append(spec.DenyRead, filepath.Join(abs(st.configDir), "projects"))
	}
	if w := st.ev.Dataset.Workspace; w != nil && st.repo == "" {
		// The originals of the shared {dest, source} files: the workspace has
		// its copy, under the rules of its own paths.
		for _, f := range w.Files {
			if f.Source != "" {
				spec.DenyRead = append(spec.DenyRead, abs(f.Source))
			}
		}
	}
	for _, id := range st.caseIDs {
		if other := filepath.Join(st.wsRoot, id); other != ws && st.repo == "" {
			spec.DenyRead = append(spec.DenyRead, abs(other))
		}
	}
	return spec
}
