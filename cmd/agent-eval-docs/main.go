// Command agent-eval-docs writes agent-eval's generated documentation: man
// pages, shell completions and the Markdown CLI reference (docs/cli).
// scripts/release.sh runs it; it is a program of its own so agent-eval does
// not link the man page renderer (see internal/cli/docgen).
//
//	agent-eval-docs [--man DIR] [--completions DIR] [--markdown DIR]
package main

import (
	"os"

	"github.com/agent-eval/agent-eval/internal/cli"
	"github.com/agent-eval/agent-eval/internal/cli/docgen"
	"github.com/agent-eval/agent-eval/internal/version"
)

func main() {
	os.Exit(docgen.Main(cli.CommandTree(), "agent-eval "+version.Get().Version, os.Args[1:], os.Stderr, os.Getenv))
}
