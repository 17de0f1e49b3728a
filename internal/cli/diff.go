package cli

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/trajdiff"
)

type diffOptions struct {
	cases  []string
	format string
	json   bool
	output string
}

func newDiffCmd(e env) *cobra.Command {
	opts := diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff RUN_A RUN_B",
		Short: "Compare two runs' trajectories case by case: the first divergence, calls, files and verdicts",
		Long: `Compare two runs of an eval case by case (and attempt by attempt), A first:
each case's tool calls, normalised to tool, target (the file relative to the
workspace, the command, the URL, the MCP tool's input) and outcome (ok,
error, denied by hook, denied by permissions, answered, no result), are
aligned by their longest common subsequence; the diff names the first
divergence, the calls added, removed and ended otherwise (a changed denial
or answer), the final answers that differ, the kept files (outputs/ and
_modified/) that differ by content, and the verdict's change when both runs
were scored. Over the run it lists the cases in one run only and those whose
trajectory or verdict changed, and, where both runs judged cases pass/fail,
the change of pass rate with the exact McNemar test's p-value over the
paired (case, attempt)s (per case too, with two attempts or more).

Nothing is written into either run. --format picks text (the default),
markdown (for a pull-request comment; every text from the runs escaped) or
html (one page with no script); --json prints the whole comparison as JSON.
-o writes to a file instead of stdout. Texts are redacted as report redacts.

Exit status: 0 when compared, whether or not the runs differ; 2 for a usage
error or a missing run directory; 3 when a run could not be read.`,
		Example: `  agent-eval diff runs/before runs/after
  agent-eval diff --case fix-001 runs/before runs/after
  agent-eval diff --format markdown runs/before runs/after | gh pr comment --body-file -
  agent-eval diff --format html -o diff.html runs/before runs/after`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("diff takes two run directories, RUN_A then RUN_B; got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(e, opts, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.cases, "case", nil, "compare only case `ID` (repeatable)")
	f.StringVar(&opts.format, "format", "text", "text, markdown or html")
	f.BoolVar(&opts.json, "json", false, "print the comparison as JSON (instead of --format)")
	f.StringVarP(&opts.output, "output", "o", "", "write to `FILE` instead of stdout")
	return cmd
}

func runDiff(e env, opts diffOptions, pathA, pathB string) error {
	switch opts.format {
	case "text", "markdown", "html":
	default:
		return usageErrorf("--format %q: want text, markdown or html", opts.format)
	}
	if opts.json && opts.format != "text" {
		return usageErrorf("--json and --format %s: give one", opts.format)
	}
	da, err := openRun(pathA)
	if err != nil {
		return err
	}
	db, err := openRun(pathB)
	if err != nil {
		return err
	}
	for _, id := range opts.cases {
		if !da.HasCase(id) && !db.HasCase(id) {
			return inputErrorf("--case %s: neither %s nor %s has that case", id, pathA, pathB)
		}
	}
	redA, _, errA := da.Redactor(os.Environ())
	redB, _, errB := db.Redactor(os.Environ())
	for _, err := range []error{errA, errB} {
		if err != nil {
			fmt.Fprintf(e.Err, "agent-eval: warning: %v (secrets found elsewhere are hidden all the same)\n", err)
		}
	}
	r, err := trajdiff.Diff(da, db, trajdiff.Options{Cases: opts.cases, Redact: func(s string) string { return redB.String(redA.String(s)) }})
	if err != nil {
		return &codedError{ExitFailure, fmt.Errorf("diff %s and %s: %w", pathA, pathB, err)}
	}
	var buf bytes.Buffer
	switch {
	case opts.json:
		err = r.WriteJSON(&buf)
	case opts.format == "markdown":
		err = r.WriteMarkdown(&buf)
	case opts.format == "html":
		err = r.WriteHTML(&buf)
	default:
		err = r.WriteText(&buf)
	}
	if err != nil {
		return &codedError{ExitFailure, err}
	}
	if opts.output == "" {
		_, err := e.Out.Write(buf.Bytes())
		return err
	}
	if err := atomicfile.Write(opts.output, buf.Bytes(), 0o644); err != nil {
		return &codedError{ExitFailure, fmt.Errorf("write %s: %w", opts.output, err)}
	}
	fmt.Fprintf(e.Err, "agent-eval: wrote %s\n", opts.output)
	return nil
}
