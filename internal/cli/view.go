package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/view"
)

// viewOptions are `agent-eval view`'s flags.
type viewOptions struct {
	config    string
	configSet bool
	runsDir   string
	addr      string
	export    string
}

func newViewCmd(e env) *cobra.Command {
	opts := viewOptions{}
	cmd := &cobra.Command{
		Use:   "view [--runs-dir DIR | -c eval.yaml] [--addr HOST:PORT] [--export DIR]",
		Short: "Serve a local, read-only web viewer of the runs (or write its pages as static files)",
		Long: `Serve a read-only web viewer over a runs root: the eval's runs directory
(-c eval.yaml, as history finds it) or --runs-dir DIR, which may also hold
several evals' runs directories. Its pages: the evals and their runs (when,
agent, model, each judge's pass rate with its interval, cost, verdict); a
run (verdict, thresholds, judges, and the case table, sorted, filtered and
paginated on the server: status, judge and verdict, with denials, text
search); a case (the transcript with each tool call's hook and permission
decisions and answers inline, files written, verdicts and rationales, the
human review from agent-eval review); two runs side by side (agent-eval
diff's page). A run in progress (no run_result.json yet) shows its cases as
they finish, without a reload.

The server listens on --addr (default 127.0.0.1:0, a free port) and prints
its URL on stdout. Bound beyond the loopback, the URL carries a random
token, without which nothing is served. Nothing outside the runs root is
served, and every text of a run is shown inert. Ctrl-C stops it.

--export DIR writes the same pages as static files instead (for a CI
artifact): no live updates, no side-by-side form, no raw files.
See docs/view.md.

Exit status: 0 when exported; 130 when the server was stopped (Ctrl-C); 2
for a usage or configuration error or no runs root; 3 when it could not
listen or write.`,
		Example: `  agent-eval view -c my-eval/eval.yaml
  agent-eval view --runs-dir runs --addr 0.0.0.0:8080
  agent-eval view --runs-dir runs --export site/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.configSet = cmd.Flags().Changed("config")
			return runView(cmd.Context(), e, opts)
		},
	}
	f := cmd.Flags()
	runConfigFlag(f, &opts.config, "the eval config `FILE` whose runs are shown when no --runs-dir is given")
	f.StringVar(&opts.runsDir, "runs-dir", "", "the runs root `DIR` to show (an eval's runs directory, or a folder of them)")
	f.StringVar(&opts.addr, "addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: a free one); beyond the loopback the URL needs its token")
	f.StringVar(&opts.export, "export", "", "write the pages as static files under `DIR` instead of serving them")
	return cmd
}

func runView(ctx context.Context, e env, opts viewOptions) error {
	if opts.runsDir != "" && opts.configSet {
		return usageErrorf("give --runs-dir DIR or -c eval.yaml, not both")
	}
	root := opts.runsDir
	if root == "" {
		ev, err := config.Load(opts.config)
		if err != nil {
			return err
		}
		root = ev.RunsDir(e.Getenv)
	}
	host, _, err := net.SplitHostPort(opts.addr)
	if err != nil {
		return usageErrorf("--addr %q: want HOST:PORT (%v)", opts.addr, err)
	}
	loopback := host == "localhost" || (net.ParseIP(host) != nil && net.ParseIP(host).IsLoopback())
	token := ""
	if !loopback {
		tok := make([]byte, 16)
		if _, err := rand.Read(tok); err != nil {
			return fmt.Errorf("view: make the URL's token: %w", err)
		}
		token = hex.EncodeToString(tok)
	}
	srv, err := view.New(root, token, loopback)
	if err != nil {
		return inputErrorf("view: %v (the eval has not run yet, or give --runs-dir)", err)
	}
	if opts.export != "" {
		n, err := srv.Export(ctx, opts.export)
		if err != nil {
			return &codedError{ExitFailure, fmt.Errorf("view --export: %w", err)}
		}
		fmt.Fprintf(e.Err, "agent-eval: view: wrote %d pages under %s\n", n, opts.export)
		return nil
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", opts.addr)
	if err != nil {
		return &codedError{ExitFailure, fmt.Errorf("view: listen on %s: %w", opts.addr, err)}
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	u := "http://" + ln.Addr().String() + "/"
	if token != "" {
		u += "?token=" + token
	}
	fmt.Fprintln(e.Out, u)
	fmt.Fprintf(e.Err, "agent-eval: view: serving %s (Ctrl-C stops it)\n", root)
	select {
	case <-ctx.Done():
	case err := <-served:
		return &codedError{ExitFailure, fmt.Errorf("view: %w", err)}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("view: stop the server: %w", err)
	}
	return ctx.Err() // interrupted: exit 130
}
