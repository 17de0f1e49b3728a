package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/harbor"
)

type harborImageOptions struct {
	out           string
	binary        string
	claudeVersion string
	force         bool
}

func newHarborImageCmd(e env) *cobra.Command {
	opts := harborImageOptions{}
	cmd := &cobra.Command{
		Use:   "image -o DIR",
		Short: "Write the build context of the image Harbor tasks run in (Dockerfile, claude shim, agent-eval)",
		Long: `Writes the build context of the image every exported task names in
[environment].docker_image: a Dockerfile (Claude Code, agent-eval, bubblewrap and
socat for Claude Code's sandbox, the folders Harbor uses), the claude shim that
enables AskUserQuestion under Harbor's 'claude --print' so the hook answers the
case's questions, and a static linux/amd64 agent-eval. Build it once:

  agent-eval harbor image -o image && docker build -t agent-eval-harbor image`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runHarborImage(e, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.out, "out", "o", "", "the folder to write (required)")
	f.StringVar(&opts.binary, "binary", "", "a static linux/amd64 agent-eval (default: this one, when it is)")
	f.StringVar(&opts.claudeVersion, "claude-version", harbor.DefaultClaudeVersion, "the Claude Code version the image installs")
	f.BoolVar(&opts.force, "force", false, "overwrite an existing Dockerfile")
	return cmd
}

func runHarborImage(e env, opts harborImageOptions) error {
	if opts.out == "" {
		return usageErrorf("-o DIR is required")
	}
	bin, err := harbor.LinuxBinary(opts.binary)
	if err != nil {
		return inputErrorf("%v", err)
	}
	if err := harbor.WriteImage(opts.out, bin, opts.claudeVersion, opts.force); err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.Out, opts.out)
	return err
}
