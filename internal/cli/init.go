package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

type initOptions struct {
	dir   string
	name  string // the eval's name: DIR's, else the starter's (quickstart)
	force bool
}

func newInitCmd(e env) *cobra.Command {
	opts := initOptions{}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a commented starter eval.yaml and two example cases",
		Long: `Write a commented starter eval.yaml, its JSON Schema (eval.schema.json, which
editors pick up through the file's first line) and two example cases under
cases/ into DIR (default: the current directory), each with a fake_model.yaml
script for 'agent-eval run --fake-model' (example-001's side: entry plays the
hook model answering its question), and cases/fake_judge.yaml, which
answers the LLM judge offline for 'run --fake-model --score'. The eval is
named after DIR (so its runs go to their own folder); without DIR it is
"quickstart". Existing files are never overwritten unless --force is given.
The result passes 'agent-eval validate'. In a git work tree it also keeps the
runs out of git: a .gitignore of "*" in the runs folder it makes (run does
the same), unless git already ignores them or tracks a file there.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = "."
			if len(args) == 1 {
				opts.dir = args[0]
				opts.name = evalNameFor(args[0])
			}
			return runInit(cmd.Context(), e, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.force, "force", false, "overwrite existing files")
	return cmd
}

func runInit(ctx context.Context, e env, opts initOptions) error {
	schema, err := config.JSONSchema()
	if err != nil {
		return err
	}
	files := map[string][]byte{"eval.schema.json": append(schema, '\n')}
	starter := config.Starter()
	err = fs.WalkDir(starter, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(starter, p)
		if p == "eval.yaml" && opts.name != "" {
			b = starterNameRE().ReplaceAll(b, []byte("${1}"+opts.name))
		}
		files[p] = b
		return err
	})
	if err != nil {
		return err
	}
	if !opts.force {
		var existing []string
		for _, p := range sortedKeys(files) {
			target := filepath.Join(opts.dir, p)
			if _, err := os.Lstat(target); err == nil {
				existing = append(existing, target)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		if len(existing) > 0 {
			return inputErrorf("%s already exist(s); use --force to overwrite", strings.Join(existing, ", "))
		}
	}
	for _, p := range sortedKeys(files) {
		target := filepath.Join(opts.dir, p)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, files[p], 0o644); err != nil {
			return fmt.Errorf("init: %w", err)
		}
		fmt.Fprintln(e.Err, "wrote", target)
	}
	path := filepath.Join(opts.dir, "eval.yaml")
	ev, err := config.Load(path)
	if err != nil {
		return fmt.Errorf("the starter does not validate (a bug in agent-eval): %w", err)
	}
	if runs := ev.RunsDir(e.Getenv); rundir.SameWorkTree(ctx, opts.dir, runs) {
		keepRunsOutOfGit(ctx, e, runs)
	}
	fmt.Fprintf(e.Out, "%s is ready: edit it, then run 'agent-eval validate -c %s'\n", path, path)
	return nil
}

// keepRunsOutOfGit makes git ignore the runs of an eval whose runs
// directory is dir, in the git work tree init writes the eval into (run
// does the same for runs directories init did not make), and says so on
// stderr; what
// fails is a warning, the eval being written.
func keepRunsOutOfGit(ctx context.Context, e env, dir string) {
	root := filepath.Dir(dir)
	_, err := os.Stat(root)
	rootIsNew := errors.Is(err, fs.ErrNotExist)
	ig, err := rundir.EnsureIgnored(ctx, root, dir, rootIsNew)
	switch {
	case err != nil:
		fmt.Fprintln(e.Err, "warning:", err)
	case ig.Tracked != "":
		fmt.Fprintln(e.Err, "warning:", ig.Message(root))
	case ig.Wrote != "":
		fmt.Fprintln(e.Err, ig.Message(root))
	}
}

// starterNameRE is the name line of the starter eval.yaml.
var starterNameRE = lazyre.New(`(?m)^(name: )quickstart$`)

// evalNameFor is the eval name for a starter written into dir: its folder
// name in lower case, spaces as dashes, only [a-z0-9._-] kept, quoted when
// YAML would not read it as a string; "" when nothing usable is left.
func evalNameFor(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(filepath.Base(abs))), " ", "-")
	n = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return -1
	}, n)
	n = strings.Trim(n, ".-")
	if n == "" {
		return ""
	}
	if n[0] < 'a' || n[0] > 'z' || n == "true" || n == "false" || n == "null" || n == "yes" || n == "no" || n == "on" || n == "off" || n == "y" || n == "n" {
		return `"` + n + `"`
	}
	return n
}
