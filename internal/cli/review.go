package cli

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/report"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// reviewOptions are `agent-eval review`'s flags.
type reviewOptions struct {
	config    string
	configSet bool
	runID     string
	cases     []string
	verdicts  []string
	comments  []string
	reviewer  string
	importOf  string
	failed    bool
	web       bool
	// now stamps each review (time.Now when nil).
	now func() time.Time
}

func newReviewCmd(e env) *cobra.Command {
	opts := reviewOptions{}
	cmd := &cobra.Command{
		Use:   "review [RUN_DIR]",
		Short: "Record a person's pass/fail verdict and comment per case in review.yaml",
		Long: `Record a human verdict (pass or fail) and a comment per case in the run
directory's review.yaml. score and report set them beside the judges'
verdicts (summary.yaml's human block: the human pass rate and how often
each pass/fail judge agreed), mlflow logs them as human feedback, and an
llm judge's examples: (source: reviews) draws its few-shot exemplars from
the reviews of the eval's earlier runs. A human verdict never gates a run.

Without flags, review walks the cases on the terminal — every case, only
those that failed (--failed), or those named with --case — showing each
case's status, the judges' verdicts and rationales and its output files,
and reads a verdict (p pass, f fail, s or Enter skip, q quit) and then a
comment (Enter: keep the earlier one) per case from stdin. Each answer is
saved at once.

  --case ID --verdict pass|fail [--comment TEXT]   record without asking
      (repeat the three flags for several cases; one --verdict or --comment
      given with several --case applies to each; --comment without
      --verdict changes only the comment)
  --import FILE   merge a review.yaml (agent-eval's or upstream's
      eval-review feedback file) into the run's
  --web           serve a review page on 127.0.0.1 (a random port; the URL,
      printed on stderr, carries a one-time token): each verdict the page
      posts is written to review.yaml; Ctrl-C or the page's Done button
      stops it

An earlier verdict stays unless the case is reviewed again. The file is
written atomically and keeps upstream's fields (run_id, reviewed_cases,
feedback_cases, reviewer, feedback), so upstream's eval-optimize and
eval-mlflow read it too. The path of review.yaml is printed on stdout.

Exit status: 0 when recorded, 2 for a usage error (an unknown case, a
verdict other than pass or fail), 3 when review.yaml could not be written.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.configSet = cmd.Flags().Changed("config")
			return runReview(cmd.Context(), e, opts, optionalArg(args))
		},
	}
	f := cmd.Flags()
	runConfigFlag(f, &opts.config, runConfigHelp)
	f.StringVar(&opts.runID, "run-id", "", "review the run `ID` under the eval's runs directory")
	f.StringArrayVar(&opts.cases, "case", nil, "the case `ID` to review (repeatable)")
	f.StringArrayVar(&opts.verdicts, "verdict", nil, "pass or fail, for the --case of the same position (repeatable)")
	f.StringArrayVar(&opts.comments, "comment", nil, "a comment `TEXT`, for the --case of the same position (repeatable)")
	f.StringVar(&opts.reviewer, "reviewer", "", "who reviews (default: $USER, else human)")
	f.StringVar(&opts.importOf, "import", "", "merge the review.yaml `FILE` into the run's")
	f.BoolVar(&opts.failed, "failed", false, "walk only the cases that failed a judge (or did not complete)")
	f.BoolVar(&opts.web, "web", false, "serve a review page on 127.0.0.1 that writes review.yaml")
	return cmd
}

func runReview(ctx context.Context, e env, opts reviewOptions, dirArg string) error {
	if opts.now == nil {
		opts.now = time.Now
	}
	if opts.reviewer == "" {
		opts.reviewer = e.Getenv("USER")
	}
	if opts.reviewer == "" {
		opts.reviewer = "human"
	}
	flagged := len(opts.verdicts) > 0 || len(opts.comments) > 0
	modes := 0
	for _, on := range []bool{flagged, opts.importOf != "", opts.web} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return usageErrorf("give one of --verdict/--comment, --import and --web")
	}
	if opts.failed && (flagged || opts.importOf != "") {
		return usageErrorf("--failed chooses the cases to walk: it goes with the interactive review or --web")
	}
	_, dir, err := locateRun(e, opts.config, opts.configSet, dirArg, opts.runID)
	if err != nil {
		return err
	}
	rv, err := newReviewer(dir, opts)
	if err != nil {
		return err
	}
	for _, id := range opts.cases {
		if !slices.Contains(rv.ids, id) {
			return usageErrorf("--case %q is none of the run's cases (%s)", id, strings.Join(rv.ids, ", "))
		}
	}
	switch {
	case flagged:
		err = rv.fromFlags(opts)
	case opts.importOf != "":
		err = rv.importFile(opts.importOf)
	case opts.web:
		err = rv.serve(ctx, e, opts)
	default:
		err = rv.interactive(ctx, e, opts)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Err, "agent-eval: review: %d case(s) reviewed in %s\n", len(rv.review.Cases), dir.Review())
	fmt.Fprintln(e.Out, dir.Review())
	return nil
}

// reviewer holds a run's review as it is being made.
type reviewer struct {
	dir     rundir.Dir
	ids     []string
	summary *rundir.Summary // nil for a run not scored
	review  *rundir.Review
	who     string
	now     func() time.Time
}

func newReviewer(dir rundir.Dir, opts reviewOptions) (*reviewer, error) {
	ids, err := dir.CaseIDs()
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, inputErrorf("%s has no cases to review", dir.Path)
	}
	s, err := dir.ReadSummary()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	r, err := dir.ReadReview()
	if err != nil {
		return nil, inputErrorf("%v", err)
	}
	if r == nil {
		r = &rundir.Review{}
	}
	r.RunID = runIDOf(dir)
	return &reviewer{dir: dir, ids: ids, summary: s, review: r, who: opts.reviewer, now: opts.now}, nil
}

func runIDOf(dir rundir.Dir) string {
	if run, err := dir.ReadRun(); err == nil && run.RunID != "" {
		return run.RunID
	}
	return baseName(dir.Path)
}

func baseName(p string) string {
	p = strings.TrimRight(p, string(os.PathSeparator))
	return p[strings.LastIndexByte(p, os.PathSeparator)+1:]
}

// record sets case id's review (verdict "" keeps the earlier verdict,
// comment nil the earlier comment) and saves the file.
func (rv *reviewer) record(id, verdict string, comment *string) error {
	rv.set(id, verdict, comment)
	return rv.save()
}

// set is record without the save.
func (rv *reviewer) set(id, verdict string, comment *string) {
	c := rv.review.Cases[id]
	if verdict != "" {
		c.Verdict = verdict
	}
	if comment != nil {
		c.Comment = *comment
	}
	c.Reviewer, c.Time = rv.who, rv.now().UTC().Format(time.RFC3339)
	rv.review.Set(id, c)
}

// save writes review.yaml and refreshes summary.yaml's human block.
func (rv *reviewer) save() error {
	if err := rv.dir.WriteReview(rv.review); err != nil {
		return &codedError{ExitFailure, err}
	}
	if rv.summary != nil {
		rv.summary.Human = rundir.Human(rv.summary, rv.review)
		if err := rv.dir.WriteSummary(rv.summary); err != nil {
			return &codedError{ExitFailure, fmt.Errorf("refresh the human block of %s: %w", rv.dir.Summary(), err)}
		}
	}
	return nil
}

// parseVerdict reads pass or fail (p, f, true, false too).
func parseVerdict(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pass", "p", "passed", "true":
		return rundir.HumanPass, true
	case "fail", "f", "failed", "false":
		return rundir.HumanFail, true
	}
	return "", false
}

// fromFlags records --case/--verdict/--comment.
func (rv *reviewer) fromFlags(opts reviewOptions) error {
	n := len(opts.cases)
	if n == 0 {
		return usageErrorf("--verdict and --comment need the --case they are for")
	}
	pick := func(list []string, name string) ([]string, error) {
		switch len(list) {
		case 0, n:
			return list, nil
		case 1:
			return slices.Repeat(list, n), nil
		}
		return nil, usageErrorf("%d --case but %d --%s: give one per case, or one for all", n, len(list), name)
	}
	verdicts, err := pick(opts.verdicts, "verdict")
	if err != nil {
		return err
	}
	comments, err := pick(opts.comments, "comment")
	if err != nil {
		return err
	}
	for i, id := range opts.cases {
		v := ""
		if verdicts != nil {
			var ok bool
			if v, ok = parseVerdict(verdicts[i]); !ok {
				return usageErrorf("--verdict %q: want pass or fail", verdicts[i])
			}
		}
		var comment *string
		if comments != nil {
			comment = &comments[i]
		}
		rv.set(id, v, comment)
	}
	return rv.save()
}

// importFile merges a review.yaml into the run's: its reviews replace
// the run's of the same cases (a review without a verdict keeps the
// earlier verdict), its other keys the run's.
func (rv *reviewer) importFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return inputErrorf("--import: %v", err)
	}
	in, err := rundir.ParseReview(b)
	if err != nil {
		return inputErrorf("--import %s: %v", path, err)
	}
	if in.RunID != "" && in.RunID != rv.review.RunID {
		return inputErrorf("--import %s reviews run %q, not this run (%s)", path, in.RunID, rv.review.RunID)
	}
	for _, id := range in.IDs() {
		if !slices.Contains(rv.ids, id) {
			return inputErrorf("--import %s reviews case %q, which is none of the run's cases", path, id)
		}
		c := in.Cases[id]
		if c.Verdict == "" { // a comment alone (upstream's feedback) keeps the verdict
			c.Verdict = rv.review.Cases[id].Verdict
		}
		if c.Reviewer == "" {
			c.Reviewer = rv.who
		}
		if c.Time == "" {
			c.Time = rv.now().UTC().Format(time.RFC3339)
		}
		rv.review.Set(id, c)
	}
	for k, v := range in.Other { // upstream's mlflow_feedback, say
		if rv.review.Other == nil {
			rv.review.Other = map[string]any{}
		}
		rv.review.Other[k] = v
	}
	return rv.save()
}

// walk is the cases the interactive review and the page go through.
func (rv *reviewer) walk(opts reviewOptions) []string {
	if len(opts.cases) > 0 {
		return opts.cases
	}
	if !opts.failed {
		return rv.ids
	}
	var out []string
	for _, id := range rv.ids {
		if rv.failed(id) {
			out = append(out, id)
		}
	}
	return out
}

// failed: a judge failed or erred on the case, or (not scored) its agent
// did not complete.
func (rv *reviewer) failed(id string) bool {
	if cs := rv.caseSummary(id); cs != nil {
		passed, ok := cs.CasePassed()
		return ok && !passed
	}
	c, err := rv.dir.ReadCase(id)
	return err != nil || (c.Status != "completed" && c.Status != "passed")
}

func (rv *reviewer) caseSummary(id string) *rundir.CaseSummary {
	if rv.summary == nil {
		return nil
	}
	for i := range rv.summary.Cases {
		if rv.summary.Cases[i].ID == id {
			return &rv.summary.Cases[i]
		}
	}
	return nil
}

// interactive walks the cases on the terminal, reading answers from
// stdin (a pipe too).
func (rv *reviewer) interactive(ctx context.Context, e env, opts reviewOptions) error {
	ids := rv.walk(opts)
	if len(ids) == 0 {
		fmt.Fprintln(e.Err, "agent-eval: review: no case to review (no case failed)")
		return nil
	}
	in := bufio.NewReader(e.In)
	// A piped answer is not echoed: end the prompt's line for it.
	echo := func() {
		if !isTerminal(e.In) {
			fmt.Fprintln(e.Err)
		}
	}
	for k, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		rv.show(e.Err, id, k+1, len(ids))
		fmt.Fprint(e.Err, "verdict: [p]ass, [f]ail, [s]kip, [q]uit: ")
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(e.Err)
			return nil // the end of the input ends the review
		}
		echo()
		answer := strings.ToLower(strings.TrimSpace(line))
		if answer == "q" || answer == "quit" {
			return nil
		}
		v, ok := parseVerdict(answer)
		if !ok {
			if answer != "" && answer != "s" && answer != "skip" {
				fmt.Fprintf(e.Err, "agent-eval: review: %q is no answer; %s skipped\n", clip.Line(answer), id)
			}
			continue
		}
		fmt.Fprint(e.Err, "comment (Enter: keep the earlier one): ")
		line, _ = in.ReadString('\n')
		echo()
		var comment *string
		if c := strings.TrimSpace(line); c != "" {
			comment = &c
		}
		if err := rv.record(id, v, comment); err != nil {
			return err
		}
	}
	return nil
}

// show prints what a reviewer needs of a case, every text from the run on
// a line of its own with its control characters escaped.
func (rv *reviewer) show(w io.Writer, id string, k, n int) {
	fmt.Fprintf(w, "\n[%d/%d] %s", k, n, id)
	if c, err := rv.dir.ReadCase(id); err == nil {
		fmt.Fprintf(w, " (status %s)", clip.Line(string(c.Status)))
	}
	fmt.Fprintln(w)
	if cs := rv.caseSummary(id); cs != nil {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, v := range cs.Verdicts {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", clip.Line(v.Judge), verdictWord(v), clip.String(clip.Line(v.Rationale+v.Error), 300))
		}
		_ = tw.Flush()
	} else {
		fmt.Fprintln(w, "  not scored: no judge verdicts")
	}
	if files, err := rv.dir.OutputFiles(id); err == nil && len(files) > 0 {
		more := ""
		if len(files) > 10 {
			files, more = files[:10], fmt.Sprintf(" (+%d more)", len(files)-10)
		}
		fmt.Fprintf(w, "  outputs: %s%s\n", clip.Line(strings.Join(files, ", ")), more)
	}
	if c, ok := rv.review.Cases[id]; ok {
		fmt.Fprintf(w, "  earlier review: %s %s\n", orDash(c.Verdict), clip.String(clip.Line(c.Comment), 300))
	}
}

func verdictWord(v rundir.Verdict) string {
	switch {
	case v.Error != "":
		return "error"
	case v.Skipped:
		return "skipped"
	case v.Passed != nil && *v.Passed:
		return "pass"
	case v.Passed != nil:
		return "fail"
	case v.Value != nil:
		return fmt.Sprintf("%g", *v.Value)
	}
	return "–"
}

// printHuman prints the human block of a summary under score's table.
func printHuman(w io.Writer, h *rundir.HumanSummary) {
	if h == nil {
		return
	}
	line := fmt.Sprintf("human: %d case(s) reviewed", h.Reviewed)
	if h.PassRate != nil {
		line += fmt.Sprintf(", pass rate %.0f%%", *h.PassRate*100)
	}
	if a := h.CaseVerdict; a != nil {
		line += "; " + agreementText("case verdict", *a)
	}
	fmt.Fprintln(w, line)
	for _, a := range h.Judges {
		fmt.Fprintln(w, "  "+agreementText(a.Judge, a))
	}
}

func agreementText(what string, a rundir.Agreement) string {
	s := fmt.Sprintf("agrees with %s on %d of %d", what, a.Agreed, a.Compared)
	if len(a.Disagree) > 0 {
		s += " (disagree: " + clip.Line(strings.Join(a.Disagree, ", ")) + ")"
	}
	return s
}

// serve runs the review page on 127.0.0.1 until the reviewer presses Done
// or the context ends (Ctrl-C); every verdict posted is saved at once.
func (rv *reviewer) serve(ctx context.Context, e env, opts reviewOptions) error {
	ids := rv.walk(opts)
	if len(ids) == 0 {
		fmt.Fprintln(e.Err, "agent-eval: review: no case to review (no case failed)")
		return nil
	}
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return fmt.Errorf("review --web: make the page's token: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return &codedError{ExitFailure, fmt.Errorf("review --web: listen on 127.0.0.1: %w", err)}
	}
	done := make(chan struct{})
	var once sync.Once
	page := &report.ReviewPage{RunID: rv.review.RunID, Token: hex.EncodeToString(tok),
		Cases: func() []report.ReviewCase { return rv.pageCases(ids) },
		Save: func(id, verdict, comment string) error {
			if !slices.Contains(ids, id) {
				return fmt.Errorf("%q is not a case of this review", id)
			}
			v := ""
			if verdict != "" {
				var ok bool
				if v, ok = parseVerdict(verdict); !ok {
					return fmt.Errorf("verdict %q: want pass or fail", verdict)
				}
			}
			comment = strings.TrimSpace(comment)
			if err := rv.record(id, v, &comment); err != nil {
				return err
			}
			fmt.Fprintf(e.Err, "agent-eval: review: %s %s\n", id, orDash(rv.review.Cases[id].Verdict))
			return nil
		},
		Done: func() { once.Do(func() { close(done) }) },
	}
	srv := &http.Server{Handler: page, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(e.Err, "agent-eval: review: open http://%s/?token=%s (Done on the page, or Ctrl-C, ends the review)\n", ln.Addr(), page.Token)
	select {
	case <-done:
	case <-ctx.Done():
	case err := <-served:
		return &codedError{ExitFailure, fmt.Errorf("review --web: %w", err)}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("review --web: stop the page: %w", err)
	}
	return nil // verdicts are saved as they come: an interrupted review keeps them
}

// pageCases is what the page shows of the cases: statuses, judges'
// verdicts, outputs and the review so far (the page escapes them all).
func (rv *reviewer) pageCases(ids []string) []report.ReviewCase {
	out := make([]report.ReviewCase, 0, len(ids))
	for _, id := range ids {
		c := report.ReviewCase{ID: id}
		if rc, err := rv.dir.ReadCase(id); err == nil {
			c.Status = string(rc.Status)
		}
		if cs := rv.caseSummary(id); cs != nil {
			for _, v := range cs.Verdicts {
				c.Verdicts = append(c.Verdicts, report.ReviewVerdict{Judge: v.Judge, Word: verdictWord(v), Rationale: clip.String(v.Rationale+v.Error, 4000)})
			}
		}
		if files, err := rv.dir.OutputFiles(id); err == nil {
			c.Outputs = files
		}
		r := rv.review.Cases[id]
		c.Verdict, c.Comment = r.Verdict, r.Comment
		out = append(out, c)
	}
	return out
}

// isTerminal says whether r is a terminal (its input is echoed).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
