// Command agent-eval evaluates coding agents headless over a dataset of cases.
package main

import (
	"os"

	"github.com/agent-eval/agent-eval/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], cli.OSStreams())) }
