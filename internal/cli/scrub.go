package cli

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"time"
)

// ScrubEnv is Claude Code's switch that runs the agent's commands (Bash,
// hooks' children aside) with the credentials taken out of their
// environment: measured with 2.1.332, ANTHROPIC_API_KEY,
// ANTHROPIC_AUTH_TOKEN, ANTHROPIC_CUSTOM_HEADERS, claude's own OAuth
// tokens, variables whose names look secret (*_TOKEN, *SECRET*, …) and URLs
// carrying credentials are gone; plain variables stay, and so does
// GITHUB_TOKEN. It needs bubblewrap.
const ScrubEnv = "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"

var (
	bwrapOnce sync.Once
	bwrapOK   bool
)

// bwrapWorks reports whether bubblewrap is installed and can start a
// sandbox here (once per process): Claude Code's scrub needs it, and
// without it the agent's commands would fail rather than run unscrubbed.
func bwrapWorks() bool {
	bwrapOnce.Do(func() {
		bin, err := exec.LookPath("bwrap")
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		bwrapOK = exec.CommandContext(ctx, bin, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-user", "--", "true").Run() == nil
	})
	return bwrapOK
}

// scrubDefault sets ScrubEnv in the agent's extra environment unless the
// eval set it (runner.env: {CLAUDE_CODE_SUBPROCESS_ENV_SCRUB: "0"} opts
// out), when bubblewrap works; else it warns, once per run.
func (st *runState) scrubDefault(extra map[string]string) {
	if _, set := extra[ScrubEnv]; set {
		return
	}
	if bwrapWorks() {
		extra[ScrubEnv] = "1"
		return
	}
	st.scrubWarn.Do(func() {
		fmt.Fprintln(st.e.Err, "agent-eval: warning: bubblewrap cannot start here, so the agent's commands see the harness's credentials (ANTHROPIC_API_KEY …); install bubblewrap (apt-get install bubblewrap) to have Claude Code scrub them")
	})
}
