package claudecode

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/agent-eval/agent-eval/internal/pathutil"
	"github.com/agent-eval/agent-eval/internal/permissions"
)

// protectedWrites are the places the agent in ws must not write, whatever
// the sandbox's own defaults (Claude Code 2.1.332 binds /home, /root, /tmp,
// /var, /opt, /run and /mnt writable inside it): what scoring reads and
// the runs folder. A protected folder that holds the workspace, the
// run's own folders, $HOME or $TMPDIR (which the sandbox mounts over) is
// replaced by its other entries, walked as deep as needed.
func (r *started) protectedWrites(ws string) []string {
	roots := r.s.Eval.ScoringInputs(projectRoot())
	if r.s.RunDir != "" {
		roots = append(roots, pathutil.Abs(filepath.Dir(r.s.RunDir)))
	}
	hold := []string{pathutil.Abs(ws)}
	for _, d := range []string{r.configDir, r.credDir, r.s.Repo} {
		if d != "" {
			hold = append(hold, pathutil.Abs(d)) // repo mode guards the project on its own
		}
	}
	around := []string{pathutil.Abs(os.TempDir())}
	if home, err := os.UserHomeDir(); err == nil {
		around = append(around, pathutil.Abs(home))
	}
	var out []string
	for _, root := range roots {
		out = carve(out, root, hold, around)
	}
	// The user's own home is not the agent's (it has a home of its own in
	// its slot): nothing there is its to write, so no ~/.bashrc, ~/.profile
	// or ~/.config file it leaves runs on the user's next login. What the
	// run keeps there (the workspace, the agent's home, the project in repo
	// mode) is carved out.
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		if own := r.s.OwnHome(ws); own != "" {
			hold = append(hold, pathutil.Abs(own))
		}
		out = carve(out, pathutil.Abs(home), hold, []string{pathutil.Abs(os.TempDir())})
	}
	return out
}

// protectedEditDenies are Edit deny rules for the protected places: the
// Write and Edit tools do not run inside the sandbox.
func (r *started) protectedEditDenies(ws string) []string {
	var out []string
	for _, p := range r.protectedWrites(ws) {
		pat := permissions.PathPattern(p)
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			pat = permissions.PathPattern(p + "/")
		}
		out = append(out, "Edit("+pat+")")
	}
	return out
}

// carve appends to out the path p, or, when p holds a place in hold or
// around, its entries (recursively). p is left out when it is inside a
// place in hold, or is one in around.
func carve(out []string, p string, hold, around []string) []string {
	if slices.ContainsFunc(hold, func(k string) bool { return pathutil.Within(p, k) }) || slices.Contains(around, p) {
		return out
	}
	inside := func(k string) bool { return pathutil.Within(k, p) }
	if !slices.ContainsFunc(hold, inside) && !slices.ContainsFunc(around, inside) {
		if _, err := os.Lstat(p); err == nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
		return out
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return out
	}
	for _, e := range entries {
		out = carve(out, filepath.Join(p, e.Name()), hold, around)
	}
	return out
}

// projectRoot is the folder relative paths of eval.yaml's shared files are
// read from: the working directory of the run.
func projectRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}
