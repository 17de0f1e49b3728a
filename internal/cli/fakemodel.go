package cli

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/fakeapi"
)

type fakeModelOptions struct {
	script    string
	scripts   string
	port      int
	log       string
	logBodies bool
}

func newFakeModelCmd(e env) *cobra.Command {
	opts := fakeModelOptions{}
	cmd := &cobra.Command{
		Use:    "fake-model",
		Short:  "Serve a scripted fake of the Anthropic Messages API on loopback",
		Hidden: true,
		Long: `Serve a scripted fake of the Anthropic Messages API on 127.0.0.1, for smoke-testing
an eval's wiring offline without spending tokens. It prints its URL on stdout;
point ANTHROPIC_BASE_URL at it (any ANTHROPIC_API_KEY works). It runs until
interrupted.

A script (YAML or JSON) says what the model answers, turn by turn:

  turns:
    - text: "Let me look."
      tool_use: {name: Bash, input: {command: "ls"}}
    - tool_uses:
        - {name: Write, input: {file_path: "${CWD}/out.txt", content: "hi"}}
    - error: {status: 529, type: overloaded_error, message: "try later"}
      count: 1                   # only the first request: the retry gets the text
      text: "Back again."
  after_end: {text: "done."}     # answers past the last turn
  side: {text: "ok"}             # answers requests that offer no tools (the
                                 # hook model answering AskUserQuestion)
  match:                         # answers by content, before all of the above:
    - contains: "case-001"       # the first rule whose text is in the last
      turn: {tool_use: {name: submit_evaluation, input: {passed: true, rationale: ok}}}
                                 # user message wins (a judge's verdict per case)

A request's turn is the number of assistant messages it holds, so retries are
safe. An error turn answers its error every time, or, with count: N, to the
first N requests for that turn (counted per script name by this server) and
its text/tool uses after that. ${CWD} becomes the client's working
directory. The script file is read again on every request. With --scripts
DIR, the request header "X-Fake-Script: NAME" (Claude Code sends it when
ANTHROPIC_CUSTOM_HEADERS="X-Fake-Script: NAME") or a base URL ending in
/s/NAME selects DIR/NAME.yaml, so one server serves many parallel runs.
Under score --fake-model (and run --fake-model --score), an agent judge's agent (judges[].agent)
is answered from the dataset's fake_judge.<judge>.yaml, else fake_judge.yaml:
turns counted as a case's, so a match: rule on the case's text in the judge's
prompt can answer its first request with a Write of
${CWD}/output/score.json (match: sees the last user message's text, not tool
results), and after_end its next. Its requests are logged in the scored run's
judges/<judge>/<case>/fake_model_requests.jsonl.
GET /_fake/requests lists what was received, read back from the request log
(--log FILE, else a temporary file): one compact JSON line per request, the
whole body only with --log-bodies, credentials redacted.`,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFakeModel(cmd, e, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.script, "script", "", "the default script `FILE`")
	f.StringVar(&opts.scripts, "scripts", "", "a `DIR` of named scripts selected by the X-Fake-Script header")
	f.IntVar(&opts.port, "port", 0, "the loopback port (default: a free one)")
	f.StringVar(&opts.log, "log", "", "append one JSON line per request to `FILE`")
	f.BoolVar(&opts.logBodies, "log-bodies", false, "log each request's whole body (about 100 KB per Claude Code request)")
	return cmd
}

func runFakeModel(cmd *cobra.Command, e env, opts fakeModelOptions) error {
	if opts.script == "" && opts.scripts == "" {
		return usageErrorf("fake-model needs --script FILE or --scripts DIR")
	}
	if opts.script != "" {
		if _, err := fakeapi.LoadScript(opts.script); err != nil {
			return &codedError{ExitUsage, err}
		}
	}
	if opts.scripts != "" {
		if st, err := os.Stat(opts.scripts); err != nil || !st.IsDir() {
			return inputErrorf("--scripts %s: not a directory", opts.scripts)
		}
	}
	fo := fakeapi.Options{ScriptFile: opts.script, ScriptDir: opts.scripts, LogBodies: opts.logBodies}
	// The server keeps no request in memory: it reads them back from the
	// log, so there is always one (read-write, for reading back).
	var f *os.File
	var err error
	if opts.log != "" {
		f, err = os.OpenFile(opts.log, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o644)
	} else {
		f, err = os.CreateTemp("", "agent-eval-fake-requests-*.jsonl")
		if err == nil {
			defer os.Remove(f.Name())
		}
	}
	if err != nil {
		return fmt.Errorf("fake-model: opening the request log: %w", err)
	}
	defer f.Close()
	fo.Log = f
	srv := fakeapi.New(fo)
	url, err := srv.Start("127.0.0.1:" + strconv.Itoa(opts.port))
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintln(e.Out, url)
	fmt.Fprintf(e.Err, "fake model listening; use it with:\n  export ANTHROPIC_BASE_URL=%s ANTHROPIC_API_KEY=fake\n", url)
	<-cmd.Context().Done()
	return nil
}
