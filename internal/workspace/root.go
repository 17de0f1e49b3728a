package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// The private root holds every run's workspaces and the harness's own
// folders of a run (the agent's config, the hook's credentials, the git
// baselines), for every run of the user at once. It is one folder per
// user, mode 0700, and nothing in it is named by anyone but agent-eval:
// each run and each case gets a slot, a folder named by SlotNameLen
// random hex digits, so that an agent can be shown its own slot and kept
// out of the rest of the root (permissions.ExceptPatterns), including
// slots of runs that start after it.

// SlotNameLen is the length of a slot's name: hex digits.
const SlotNameLen = 8

// RootEnv names the folder the private root goes in, instead of the
// first suitable of $TMPDIR, /tmp and /var/tmp.
const RootEnv = "AGENT_EVAL_WORKSPACES"

// MaxRootLen is the longest private root chosen by itself: Claude Code's
// sandbox puts its proxy's sockets in the agent's temp folder
// (<root>/<slot>/.tmp/claude-http-<16 hex>.sock), and a socket's path
// holds at most 107 bytes.
const MaxRootLen = 56

// rootCandidates are where the private root may go, first choice first:
// the temp folder ($TMPDIR), then the usual system ones.
func rootCandidates() []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"} {
		if d = filepath.Clean(d); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// PrivateRoot returns the user's private root, made if needed: in the first
// candidate folder short enough (MaxRootLen) that has no git repository
// around it (Claude Code takes
// the folder holding a .git above the workspace as the project, and its
// trust and settings from there), else in the temp folder. gitRoot is then
// the folder holding that .git, which the runner must trust; "" when none
// holds one.
// $AGENT_EVAL_WORKSPACES, when set, is used as it is.
func PrivateRoot() (root, gitRoot string, err error) {
	name := "agent-eval-" + strconv.Itoa(os.Getuid())
	dir := os.Getenv(RootEnv)
	if dir != "" {
		if dir, err = filepath.Abs(dir); err != nil {
			return "", "", fmt.Errorf("%s: %w", RootEnv, err)
		}
	} else {
		cands := rootCandidates()
		dir = cands[0]
		for _, c := range cands {
			if fi, err := os.Stat(c); err != nil || !fi.IsDir() || len(filepath.Join(c, name)) > MaxRootLen {
				continue
			}
			if GitAbove(c) == "" {
				dir = c
				break
			}
		}
	}
	root = filepath.Join(dir, name)
	if err := ensurePrivate(root); err != nil {
		return "", "", err
	}
	return root, GitAbove(root), nil
}

// GitAbove returns the nearest folder at or above dir that holds a .git
// (a folder or a file), or "".
func GitAbove(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// ensurePrivate makes root a folder only the user can enter, or checks
// that the one there is: a real folder (not a link), owned by the user.
// Its mode is set to 0700 whatever it was.
func ensurePrivate(root string) error {
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("make the private workspace root %s: %w", root, err)
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("check the private workspace root: %w", err)
	}
	if !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("the private workspace root %s is not a folder (a link or a file is there); remove it", root)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the private workspace root %s belongs to user %d, not to you (%d); remove it", root, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(root, 0o700); err != nil {
			return fmt.Errorf("make the private workspace root private: %w", err)
		}
	}
	return nil
}

// NewSlot makes a new slot in root: a folder of its own (mode 0700) named
// by SlotNameLen random hex digits.
func NewSlot(root string) (string, error) {
	for range 100 {
		b := make([]byte, SlotNameLen/2)
		if _, err := rand.Read(b); err != nil {
			return "", fmt.Errorf("name a slot: %w", err)
		}
		p := filepath.Join(root, hex.EncodeToString(b))
		err := os.Mkdir(p, 0o700)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("make a slot: %w", err)
		}
	}
	return "", fmt.Errorf("make a slot in %s: every name tried is taken", root)
}

// HomeDir is the agent's own home: its workspace's slot, the workspace's
// parent. The home holds the workspace because Claude Code's sandbox
// guards the settings files (.claude/settings.json, .mcp.json, …) of every
// folder from the working directory up to the home, or up to / when the
// home is not above it, with a placeholder where such a file does not
// exist: folders shared by concurrent agents (the root, $TMPDIR, /tmp)
// then get placeholders that one agent removes while another's bubblewrap
// mounts them ("bwrap: Can't find source path …/.mcp.json"). Stopping at
// the slot, the walk touches only the case's own folders.
func HomeDir(ws string) string { return filepath.Dir(ws) }
