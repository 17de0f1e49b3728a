package harbor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// The task image: what every exported task names in
// [environment].docker_image. Users build it once (agent-eval harbor image
// writes its build context); the tasks bring everything per case.
const (
	// DefaultClaudeVersion is the Claude Code the image installs unless
	// told otherwise: the version the end-to-end tests run.
	DefaultClaudeVersion = "2.1.332"
	// ClaudeShimName is the shim's file name in the build context.
	ClaudeShimName = "claude"
	// DockerfileName is the recipe's file name in the build context.
	DockerfileName = "Dockerfile"
	// ImageClaudePath is where npm installs Claude Code's native binary in
	// the image (npm install -g under the prefix /usr/local).
	ImageClaudePath = "/usr/local/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
)

// ClaudeShim is the `claude` first on the image's PATH: it runs the real
// binary at real with --permission-prompt-tool stdio, because Harbor's
// claude-code agent runs `claude --print` without it, and in --print
// AskUserQuestion is disabled without it: the case's questions would never
// reach the hook that answers them. The flag changes nothing else: the hook
// answers every question, and with nobody on the other end of stdio a
// request the hook does not answer fails at once (the stream is closed)
// instead of hanging.
func ClaudeShim(real string) string {
	return "#!/bin/sh\n" +
		"# agent-eval: Claude Code with AskUserQuestion enabled in --print, so the\n" +
		"# PreToolUse hook answers the case's questions (see agent-eval harbor image).\n" +
		"for a in \"$@\"; do\n" +
		"\tcase $a in --print | -p) exec " + intercept.ShellQuote(real) + " --permission-prompt-tool stdio \"$@\" ;; esac\n" +
		"done\n" +
		"exec " + intercept.ShellQuote(real) + " \"$@\"\n"
}

// Dockerfile is the image recipe: Claude Code at claudeVersion with the
// shim, agent-eval, bubblewrap and socat (Claude Code's sandbox), and the
// folders Harbor uses, writable by group 0 for platforms that run
// containers under an arbitrary user id (OpenShift).
func Dockerfile(claudeVersion string) string {
	var b strings.Builder
	b.WriteString(`# The image agent-eval's Harbor tasks run in. Build it once:
#   agent-eval harbor image -o image && docker build -t agent-eval-harbor image
# and export with --image agent-eval-harbor (push it where your Harbor
# environment pulls from, for a cloud sandbox).
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap socat ca-certificates git ripgrep procps python3 \
 && rm -rf /var/lib/apt/lists/*
`)
	fmt.Fprintf(&b, "RUN npm install -g --no-audit --no-fund @anthropic-ai/claude-code@%s \\\n", claudeVersion)
	// npm's link is removed before the shim takes its place: a COPY onto
	// the link would write through it, over the real binary.
	fmt.Fprintf(&b, " && test -x %s && rm /usr/local/bin/claude\n", ImageClaudePath)
	fmt.Fprintf(&b, "COPY --chmod=0755 %s /usr/local/bin/claude\n", ClaudeShimName)
	fmt.Fprintf(&b, "COPY --chmod=0755 %s /usr/local/bin/agent-eval\n", BinaryName)
	fmt.Fprintf(&b, `RUN claude --version && agent-eval version \
 && mkdir -p %[1]s %[2]s %[3]s /logs/artifacts %[4]s /solution \
 && chgrp -R 0 /logs %[1]s %[4]s /solution && chmod -R g+rwX /logs %[1]s %[4]s /solution
ENV HOME=/root DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1
WORKDIR %[1]s
`, Workdir, AgentLogsDir, VerifierLogsDir, TestsDir)
	return b.String()
}

// WriteImage writes the image's build context into dir: the Dockerfile,
// the claude shim and the agent-eval binary (a static linux/amd64 build,
// linked when it can be, else copied). It refuses to overwrite a
// Dockerfile unless force.
func WriteImage(dir, binary, claudeVersion string, force bool) error {
	if claudeVersion == "" {
		claudeVersion = DefaultClaudeVersion
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make the image folder: %w", err)
	}
	df := filepath.Join(dir, DockerfileName)
	if _, err := os.Stat(df); err == nil && !force {
		return fmt.Errorf("%s exists (pass --force to overwrite it)", df)
	}
	if err := os.WriteFile(df, []byte(Dockerfile(claudeVersion)), 0o644); err != nil {
		return fmt.Errorf("write the Dockerfile: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ClaudeShimName), []byte(ClaudeShim(ImageClaudePath)), 0o755); err != nil {
		return fmt.Errorf("write the claude shim: %w", err)
	}
	dst := filepath.Join(dir, BinaryName)
	_ = os.Remove(dst)
	if err := LinkOrCopy(binary, dst); err != nil {
		return fmt.Errorf("put agent-eval into the image folder: %w", err)
	}
	return nil
}

// LinkOrCopy hard-links src to dst, or copies it (mode 0755) where links
// cannot be made (another file system).
func LinkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	return copyBinary(src, dst)
}
