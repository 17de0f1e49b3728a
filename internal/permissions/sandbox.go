package permissions

import (
	"slices"
	"strings"

	"github.com/agent-eval/agent-eval/internal/pathutil"
)

// SandboxSpec is what a run knows when it compiles Claude Code's sandbox
// block for one workspace. Paths are absolute.
type SandboxSpec struct {
	// Network is permissions.network.allow; nil or empty allows no host
	// ("*" allows any).
	Network []string
	// AllowWrite are places outside the workspace the agent's commands must
	// keep writing: the caches under $HOME that builds use, an output folder
	// outside the project in repo mode.
	AllowWrite []string
	// DenyRead are places the harness keeps out of reach whatever the rules
	// say: the dataset the cases are copied from, the run directory, the
	// private root of every run's workspaces, the git baselines. They are
	// not writable either.
	DenyRead []string
	// AllowRead are places inside DenyRead the agent's commands may read
	// again: its own slot of the private root (workspace and home). A
	// DenyRead or DenyWrite entry at or above one is not made read-only
	// (denyWrite would take the agent's own workspace with it; what is
	// hidden cannot be written anyway).
	AllowRead []string
	// DenyWrite are places the agent's commands may read but never write:
	// what scoring reads (eval.yaml's folder, judge prompt files, the
	// hook's handlers).
	DenyWrite []string
	// InBoundary: Bash's sandbox is nested in the harness's boundary
	// (package boundary), whose proxy, on 127.0.0.1:ProxyPort, carries its
	// commands' traffic (the only way out of the boundary's network).
	InBoundary bool
	ProxyPort  int
}

// UnlimitedNetwork is the allowedDomains entry that lets sandboxed commands
// reach any host (through the sandbox's proxy), as they could without it.
const UnlimitedNetwork = "*"

// Sandbox compiles the "sandbox" block of a Claude Code settings document.
// Measured with Claude Code 2.1.332 (docs/security.md "Sandbox"):
//   - enabled runs every Bash command under bubblewrap; its denyRead and
//     denyWrite also take the paths of Read(...) and Edit(...) deny rules;
//   - failIfUnavailable refuses to run unsandboxed when bwrap or socat are
//     missing (without it claude only warns and goes on);
//   - allowUnsandboxedCommands: false ignores the model's
//     dangerouslyDisableSandbox, which would otherwise run a command outside;
//   - the network is closed unless allowedDomains lists the host (a
//     connection elsewhere gets "Connection blocked by network allowlist"
//     from the proxy, without a prompt in --print): "*" opens it;
//     "localhost" matches the name only, so its addresses are added;
//   - writes are confined to the working directory and $TMPDIR: the caches
//     (~/.cache: GOCACHE, pip, ...) are added so builds keep working.
func Sandbox(s SandboxSpec) map[string]any {
	domains := []string{}
	for _, d := range s.Network {
		domains = appendNew(domains, d)
		if d == "localhost" {
			domains = appendNew(domains, "127.0.0.1", "::1")
		}
	}
	allowWrite := appendNew([]string{"~/.cache"}, s.AllowWrite...)
	fs := map[string]any{"allowWrite": allowWrite}
	if len(s.DenyRead) > 0 {
		fs["denyRead"] = appendNew([]string{}, s.DenyRead...)
	}
	var denyWrite []string
	for _, d := range appendNew(appendNew([]string{}, s.DenyRead...), s.DenyWrite...) {
		if !slices.ContainsFunc(s.AllowRead, func(a string) bool { return pathutil.Within(a, d) }) {
			denyWrite = append(denyWrite, d)
		}
	}
	if len(denyWrite) > 0 {
		fs["denyWrite"] = denyWrite
	}
	if len(s.AllowRead) > 0 {
		fs["allowRead"] = appendNew([]string{}, s.AllowRead...)
	}
	network := map[string]any{"allowedDomains": domains}
	out := map[string]any{
		"enabled":                  true,
		"failIfUnavailable":        true,
		"allowUnsandboxedCommands": false,
		"autoAllowBashIfSandboxed": false,
		"network":                  network,
		"filesystem":               fs,
	}
	if s.InBoundary && s.ProxyPort > 0 {
		network["httpProxyPort"] = s.ProxyPort
	}
	return out
}

// WithSandbox returns settings with the sandbox block set: the runner's
// own settings (runner.settings, merged before) may add to it, but the keys
// that hold the enforcement (enabled, failIfUnavailable,
// allowUnsandboxedCommands) and the denied paths always come from block.
// Lists are unioned, the block's entries first, except the network
// allowlist: permissions.network decides it, and only without it (an empty
// list in block: validate refuses both at once) does the runner's own
// allowedDomains apply. block (from Sandbox) becomes part of the result.
func WithSandbox(settings, block map[string]any) map[string]any {
	out := cloneJSON(settings)
	user, _ := out["sandbox"].(map[string]any)
	merged := block
	for k, v := range user {
		switch k {
		case "enabled", "failIfUnavailable", "allowUnsandboxedCommands":
			continue // the harness's
		case "network", "filesystem":
			um, ok := v.(map[string]any)
			bm, _ := merged[k].(map[string]any)
			if !ok || bm == nil {
				continue
			}
			for kk, vv := range um {
				if k == "filesystem" && kk == "allowRead" {
					// Re-allowing reads is the harness's: the runner's
					// entries stay only clear of what the harness denies.
					deny, _ := bm["denyRead"].([]string)
					var keep []string
					for _, a := range stringList(vv) {
						if !slices.ContainsFunc(deny, func(d string) bool { return pathutil.Within(a, d) || pathutil.Within(d, a) }) {
							keep = append(keep, a)
						}
					}
					if l, _ := bm[kk].([]string); len(l)+len(keep) > 0 {
						bm[kk] = appendNew(slices.Clone(l), keep...)
					}
					continue
				}
				if l, ok := bm[kk].([]string); ok {
					if k == "network" && kk == "allowedDomains" {
						// permissions.network is the allowlist; without it
						// (nothing allowed) the runner's own list, if any,
						// is.
						if len(l) == 0 {
							bm[kk] = appendNew([]string{}, stringList(vv)...)
						}
						continue
					}
					bm[kk] = appendNew(slices.Clone(l), stringList(vv)...)
					continue
				}
				if _, taken := bm[kk]; !taken {
					bm[kk] = vv
				}
			}
		default:
			if _, taken := merged[k]; !taken {
				merged[k] = v
			}
		}
	}
	// The user's lists came through cloneJSON as []any.
	out["sandbox"] = normalise(merged)
	return out
}

func normalise(m map[string]any) map[string]any {
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			m[k] = normalise(x)
		case []any:
			if ss := stringList(x); len(ss) == len(x) {
				m[k] = ss
			}
		}
	}
	return m
}

func appendNew(list []string, items ...string) []string {
	for _, s := range items {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}
