package claudecode

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/pathutil"
	"github.com/agent-eval/agent-eval/internal/permissions"
)

// CredentialPaths are the folders and files of the user's home that hold
// credentials: hidden from the agent whatever its HOME (it gets one of its
// own), in case it reaches the user's by an absolute path.
var CredentialPaths = []string{".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub", ".docker", ".kube",
	".ssh", ".gnupg", ".netrc", ".git-credentials", ".config/git/credentials", ".npmrc", ".pypirc", ".pgpass", ".my.cnf",
	".vault-token", ".terraform.d", ".config/rclone", ".local/share/keyrings", ".password-store", ".cargo/credentials",
	".cargo/credentials.toml", ".gem/credentials", ".m2/settings.xml", ".gradle/gradle.properties", ".config/op", ".claude",
	".claude.json", ".config/anthropic"}

// hiddenPaths is what the agent of one workspace may not see, by any tool:
// the sandbox's denyRead for Bash, Read and Edit deny rules for the file
// tools (which run outside the sandbox), and the hook's denied paths when
// the sandbox is off.
type hiddenPaths struct {
	paths []string // absolute and existing: hidden whole
	// roots are the private root's spellings (as named and real), hidden
	// but for slots, the workspace's own slot's spellings.
	roots, slots []string
	rules        []string // Read(…) and Edit(…) deny rules of all of it
	hook         []string // the same paths as the hook's denied_paths
}

// hidden lists what the agent working in ws may not see: the dataset (every
// case's files), eval.yaml and its handlers file, the runs folder (every
// run's results and the fake model's request log), the sources of
// dataset.workspace.files, the user's credential folders, and the private
// root (every run's workspaces, config and credentials, baselines) but for
// ws's own slot. Only paths that exist are listed: Claude Code's sandbox
// leaves a placeholder where a hidden path does not exist, which races
// with whatever makes it later.
func (r *started) hidden(ws string) (hiddenPaths, error) {
	var h hiddenPaths
	ev := r.s.Eval
	var cands []string
	add := func(p string) {
		if p == "" {
			return
		}
		if abs, err := filepath.Abs(p); err == nil {
			cands = append(cands, abs)
		}
	}
	add(ev.DatasetDir())
	add(filepath.Dir(r.s.RunDir))
	add(r.s.Baselines)
	add(r.credDir)
	if r.configDir != "" {
		add(filepath.Join(r.configDir, "projects"))
	}
	if r.s.Repo == "" {
		if p := ev.Path(); p != "" {
			add(p)
			add(filepath.Join(ev.Dir(), hook.HandlersFile))
		}
		if w := ev.Dataset.Workspace; w != nil {
			for _, f := range w.Files {
				add(f.Source)
			}
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		for _, c := range CredentialPaths {
			add(filepath.Join(home, c))
		}
	}
	slot := filepath.Dir(ws)
	root := r.s.WorkspaceRoot
	inRoot := root != "" && filepath.Dir(slot) == filepath.Clean(root)
	if inRoot {
		h.roots, h.slots = spellings(root), spellings(slot)
		if len(h.roots) != len(h.slots) {
			h.roots, h.slots = h.roots[:1], h.slots[:1]
		}
	} else {
		for _, other := range r.s.Workspaces {
			if other != ws && r.s.Repo == "" {
				add(other)
			}
		}
	}
	for _, p := range cands {
		if pathutil.Within(ws, p) || slices.ContainsFunc(h.slots, func(s string) bool { return pathutil.Within(s, p) }) {
			continue // never the agent's own folder
		}
		for _, sp := range spellings(p) {
			if !slices.Contains(h.paths, sp) {
				h.paths = append(h.paths, sp)
			}
		}
	}
	for _, p := range h.paths {
		pats := []string{"/" + p}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			pats = append(pats, "/"+p+"/**")
		}
		h.hook = append(h.hook, "/"+p)
		for _, pat := range pats {
			h.rules = append(h.rules, "Read("+pat+")", "Edit("+pat+")")
		}
	}
	for i := range h.roots {
		pats, err := permissions.ExceptPatterns(h.roots[i], filepath.Join(h.roots[i], filepath.Base(h.slots[i])))
		if err != nil {
			return h, fmt.Errorf("keep the agent to its own workspace: %w", err)
		}
		h.hook = append(h.hook, pats...)
		for _, pat := range pats {
			h.rules = append(h.rules, "Read("+pat+")", "Edit("+pat+")")
		}
	}
	return h, nil
}

// spellings are p and, when a link leads there, its real path; nothing
// when p does not exist.
func spellings(p string) []string {
	if _, err := os.Lstat(p); err != nil {
		return nil
	}
	out := []string{p}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		out = append(out, real)
	}
	return out
}

// networkSpec is the sandbox's part that is the eval's alone, wherever the
// agent runs: the hosts its commands may reach.
func networkSpec(ev *config.Eval) permissions.SandboxSpec {
	var spec permissions.SandboxSpec
	if n := ev.Permissions.Network; n != nil {
		spec.Network = slices.Clone(n.Allow)
	}
	return spec
}

// sandboxSpec is what the OS sandbox lets the agent in ws write, read and
// reach.
func (r *started) sandboxSpec(ws string, h hiddenPaths) permissions.SandboxSpec {
	spec := networkSpec(r.s.Eval)
	if r.s.Repo != "" {
		spec.AllowWrite = append(spec.AllowWrite, ws)
	}
	if home := r.s.OwnHome(ws); home != "" {
		spec.AllowWrite = append(spec.AllowWrite, home) // the agent's own home, its workspace's slot
	}
	spec.DenyRead = append(slices.Clone(h.paths), h.roots...)
	spec.AllowRead = slices.Clone(h.slots)
	spec.DenyWrite = r.protectedWrites(ws) // what scoring reads (protect.go)
	if r.s.Boundary.On {
		// Inside the harness's boundary only the agent's own folders exist:
		// the sandbox is told of nothing else (it would fail to hide a path
		// that is not there).
		in := r.inWorld(ws)
		spec.DenyRead = slices.DeleteFunc(spec.DenyRead, func(p string) bool { return !in(p) })
		spec.DenyWrite = slices.DeleteFunc(spec.DenyWrite, func(p string) bool { return !in(p) })
		spec.InBoundary, spec.ProxyPort = true, boundary.ProxyPort
	}
	return spec
}

// inWorld says whether a path exists in the world the boundary draws for
// the agent of ws: it is in the slot, the project (repo mode) or the run's
// config or credentials folder, or it is a folder above the slot (which
// holds it there, empty but for it).
func (r *started) inWorld(ws string) func(p string) bool {
	slot := filepath.Dir(ws)
	bound := []string{slot, ws, r.credDir, r.s.Repo}
	return func(p string) bool {
		for _, d := range bound {
			if d != "" && pathutil.Within(p, d) {
				return true
			}
		}
		return pathutil.Within(slot, p)
	}
}
