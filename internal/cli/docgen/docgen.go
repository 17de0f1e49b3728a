// Package docgen writes the documentation generated from agent-eval's
// command tree: the Markdown CLI reference (docs/cli), man pages and shell
// completions. It is its own package, linked only into cmd/agent-eval-docs,
// because cobra/doc's man pages pull in go-md2man and blackfriday, whose
// package-level tables (214 KB in 762 allocations) would otherwise be built
// on every start of agent-eval, the hook's included.
package docgen

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Options say where each kind of output goes; "" skips that kind.
type Options struct {
	Man, Completions, Markdown string
	// Date and Source go into the man pages' header.
	Date   time.Time
	Source string
}

// Write writes what opts asks for, from root. Hidden commands are left out
// of the Markdown and the man pages.
func Write(root *cobra.Command, opts Options) error {
	if opts.Markdown != "" {
		if err := mkdir(opts.Markdown); err != nil {
			return err
		}
		if err := doc.GenMarkdownTree(root, opts.Markdown); err != nil {
			return fmt.Errorf("write the Markdown CLI reference into %s: %w", opts.Markdown, err)
		}
	}
	if opts.Man != "" {
		if err := mkdir(opts.Man); err != nil {
			return err
		}
		date := opts.Date
		header := &doc.GenManHeader{Title: "AGENT-EVAL", Section: "1", Date: &date, Source: opts.Source, Manual: "agent-eval manual"}
		if err := doc.GenManTree(root, header, opts.Man); err != nil {
			return fmt.Errorf("write man pages into %s: %w", opts.Man, err)
		}
	}
	if opts.Completions != "" {
		if err := writeCompletions(root, opts.Completions); err != nil {
			return err
		}
	}
	return nil
}

// Completion files, one per shell, named as each shell's loader looks
// them up.
const (
	BashCompletion = "agent-eval.bash"
	ZshCompletion  = "_agent-eval"
	FishCompletion = "agent-eval.fish"
)

func writeCompletions(root *cobra.Command, dir string) error {
	if err := mkdir(dir); err != nil {
		return err
	}
	for _, c := range []struct {
		file string
		gen  func(io.Writer) error
	}{
		{BashCompletion, func(w io.Writer) error { return root.GenBashCompletionV2(w, true) }},
		{ZshCompletion, root.GenZshCompletion},
		{FishCompletion, func(w io.Writer) error { return root.GenFishCompletion(w, true) }},
	} {
		var b bytes.Buffer
		if err := c.gen(&b); err != nil {
			return fmt.Errorf("generate %s: %w", c.file, err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.file), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write completion: %w", err)
		}
	}
	return nil
}

// Main is cmd/agent-eval-docs: it parses --man, --completions and
// --markdown DIR, and returns the exit code (2 for a usage error, 3 when
// writing fails). The man pages' date is $SOURCE_DATE_EPOCH when set, so a
// release is reproducible, else today.
func Main(root *cobra.Command, source string, args []string, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("agent-eval-docs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts Options
	fs.StringVar(&opts.Man, "man", "", "write man pages (section 1) into `DIR`")
	fs.StringVar(&opts.Completions, "completions", "", "write bash, zsh and fish completions into `DIR`")
	fs.StringVar(&opts.Markdown, "markdown", "", "write one Markdown page per command into `DIR`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || opts.Man == "" && opts.Completions == "" && opts.Markdown == "" {
		fmt.Fprintln(stderr, "agent-eval-docs: give one or more of --man, --completions, --markdown DIR and no arguments")
		return 2
	}
	date, err := sourceDate(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agent-eval-docs:", err)
		return 2
	}
	opts.Date, opts.Source = date, source
	if err := Write(root, opts); err != nil {
		fmt.Fprintln(stderr, "agent-eval-docs:", err)
		return 3
	}
	return 0
}

// sourceDate is $SOURCE_DATE_EPOCH (reproducible-builds.org) as a time,
// else now.
func sourceDate(getenv func(string) string) (time.Time, error) {
	s := getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Now().UTC(), nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil || sec < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want whole seconds since 1970", s)
	}
	return time.Unix(sec, 0).UTC(), nil
}

func mkdir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	return nil
}
