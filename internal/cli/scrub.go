package cli

// ScrubEnv is Claude Code's switch that runs the agent's commands (Bash,
// hooks' children aside) with the credentials taken out of their
// environment: measured with 2.1.332, ANTHROPIC_API_KEY,
// ANTHROPIC_AUTH_TOKEN, ANTHROPIC_CUSTOM_HEADERS, claude's own OAuth
// tokens, variables whose names look secret (*_TOKEN, *SECRET*, …) and URLs
// carrying credentials are gone; plain variables stay, and so does
// GITHUB_TOKEN. It works by running every command under Claude Code's
// bubblewrap sandbox — with everything the sandbox takes away (README,
// Sandbox): the network only through its proxy, no writes outside the
// workspace and ~/.cache, placeholder files over package.json, .env, …
const ScrubEnv = "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"

// scrubDefault sets ScrubEnv in the agent's extra environment when the
// eval's permissions turned the sandbox on (it then costs nothing more),
// unless the eval set it itself (runner.env: {CLAUDE_CODE_SUBPROCESS_ENV_SCRUB:
// "0"} opts out, "1" opts in without a sandbox of the eval's own — which
// switches Claude Code's sandbox on all the same). Without the sandbox it
// is left unset, so turning it on never silently changes what the agent's
// commands can do.
func (st *runState) scrubDefault(extra map[string]string) {
	if _, set := extra[ScrubEnv]; set || !st.sandbox.On {
		return
	}
	extra[ScrubEnv] = "1"
}
