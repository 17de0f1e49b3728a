package cli

import "github.com/spf13/cobra"

// CommandTree is the command tree the generated documentation describes
// (docs/cli, the man pages and completions a release ships; see
// internal/cli/docgen and cmd/agent-eval-docs). It is built with an empty
// environment, so no caller's variable leaks into a default, and without
// cobra's "auto generated on DATE" lines, so the output is the same on every
// machine and day.
func CommandTree() *cobra.Command {
	root := newRootCmd(env{Streams: Streams{}, Getenv: func(string) string { return "" }})
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return root
}
