package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
)

type initOptions struct {
	dir   string
	force bool
}

func newInitCmd(e env) *cobra.Command {
	opts := initOptions{}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a commented starter eval.yaml and one example case",
		Long: `Write a commented starter eval.yaml, its JSON Schema (eval.schema.json, which
editors pick up through the file's first line) and one example case under
cases/ into DIR (default: the current directory). Existing files are never
overwritten unless --force is given. The result passes 'agent-eval validate'.`,
		Args: maxArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.dir = "."
			if len(args) == 1 {
				opts.dir = args[0]
			}
			return runInit(e, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.force, "force", false, "overwrite existing files")
	return cmd
}

func runInit(e env, opts initOptions) error {
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
			return usageErrorf("%s already exist(s); use --force to overwrite", strings.Join(existing, ", "))
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
	if _, err := config.Load(path); err != nil {
		return fmt.Errorf("the starter does not validate (a bug in agent-eval): %w", err)
	}
	fmt.Fprintf(e.Out, "%s is ready: edit it, then run 'agent-eval validate -c %s'\n", path, path)
	return nil
}
