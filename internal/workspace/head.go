package workspace

import (
	"context"
	"strings"
)

// ProjectHead is the git state of the work tree holding dir: its top
// folder, HEAD's commit ("" before the first commit) and whether tracked
// files differ from it (untracked files, such as a run's own folder, do not
// count; a status git cannot give counts as dirty). ok is false when dir
// is in no git work tree, or git is missing.
func ProjectHead(ctx context.Context, dir string) (top, commit string, dirty, ok bool) {
	out, err := inspectGit(ctx, dir, "rev-parse", "--path-format=absolute", "--show-toplevel")
	if err != nil || strings.TrimSpace(out) == "" {
		return "", "", false, false
	}
	top = strings.TrimSpace(out)
	if out, err := inspectGit(ctx, top, "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		commit = strings.TrimSpace(out)
	}
	status, err := inspectGit(ctx, top, "status", "--porcelain", "--untracked-files=no")
	return top, commit, err != nil || strings.TrimSpace(status) != "", true
}
