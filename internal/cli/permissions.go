package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/harbor"
	"github.com/agent-eval/agent-eval/internal/permissions"
)

type permissionsOptions struct {
	config    string
	runner    string
	workspace string
	json      bool
	write     bool
}

// permissionsReport is what `agent-eval permissions --json` prints.
type permissionsReport struct {
	Runner        string                `json:"runner"`
	Form          permissions.Form      `json:"form"`
	Allow         []string              `json:"allow"`
	Deny          []string              `json:"deny"`
	CLIArgs       []string              `json:"cli_args"`
	SettingsFile  *string               `json:"settings_file"`
	Settings      map[string]any        `json:"settings"`
	Workspace     map[string]any        `json:"workspace_settings,omitempty"`
	CursorCLIJSON map[string]any        `json:"cursor_cli_json"`
	Twins         []string              `json:"twins"`
	Warnings      []string              `json:"warnings"`
	Lint          []permissions.Finding `json:"lint"`
	Notes         []permissions.Note    `json:"notes"`
	Reasons       map[string]string     `json:"reasons"`
	Sandbox       sandboxReport         `json:"sandbox"`
}

// sandboxReport says whether a run turns Claude Code's OS sandbox on, why,
// and the block it writes (a run adds the absolute paths it keeps out of
// reach: the dataset, the runs, the baselines, the other workspaces).
type sandboxReport struct {
	On       bool           `json:"on"`
	Why      string         `json:"why"`
	Open     []string       `json:"open_to_bash,omitempty"`
	Settings map[string]any `json:"settings,omitempty"`
}

func newPermissionsCmd(e env) *cobra.Command {
	opts := permissionsOptions{}
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: "Show how the permissions block compiles for a runner, without running anything",
		Long: `Show what a run would use to enforce eval.yaml's permissions block:

  claude-code  simple rules become --allowed-tools / --disallowed-tools; once any
               rule is a {path, tools} mapping, all are compiled into
               .eval-permissions.json, passed with --settings. Both lists also land
               in the workspace's .claude/settings.json, with absolute-workspace
               twins of relative Bash rules.
  cursor       the translation into <workspace>/.cursor/cli.json.
  harbor       the compiled lists a Harbor task package carries (no twins).

--workspace DIR reads DIR's .claude/settings.json (or .cursor/cli.json) and makes
the twins concrete: an allow twin needs its target to exist there. --write also
writes those files into DIR, as a run would (for inspection and tests).
Lint findings name rules Claude Code would ignore or misread.`,
		RunE: func(*cobra.Command, []string) error { return runPermissions(e, opts) },
	}
	f := cmd.Flags()
	f.StringVarP(&opts.config, "config", "c", "eval.yaml", "the eval config `FILE`, or the folder holding eval.yaml")
	f.StringVar(&opts.runner, "runner", "", "claude-code, cursor or harbor (default: runner.type)")
	f.StringVar(&opts.workspace, "workspace", "", "the workspace `DIR` to compute twins and merges against")
	f.BoolVar(&opts.json, "json", false, "print one JSON object")
	f.BoolVar(&opts.write, "write", false, "write the settings files into --workspace")
	return cmd
}

func runPermissions(e env, opts permissionsOptions) error {
	ev, err := config.Load(opts.config)
	if err != nil {
		return err
	}
	if opts.runner == "" {
		opts.runner = ev.RunnerType()
	}
	if opts.write && opts.workspace == "" {
		return usageErrorf("--write needs --workspace DIR")
	}
	allow, deny := ev.Permissions.Allow, ev.Permissions.Deny
	c := permissions.Compile(allow, deny)
	rep := permissionsReport{Runner: opts.runner, Form: c.Form, Allow: c.Allow, Deny: c.Deny, CLIArgs: []string{},
		Twins: []string{}, Warnings: []string{}, Lint: permissions.Lint(allow, deny), Notes: c.Notes, Reasons: c.Reasons}
	if rep.Reasons == nil {
		rep.Reasons = map[string]string{}
	}
	if rep.Lint == nil {
		rep.Lint = []permissions.Finding{}
	}
	if rep.Notes == nil {
		rep.Notes = []permissions.Note{}
	}
	switch opts.runner {
	case "claude-code":
		d := ev.Sandbox()
		rep.Sandbox = sandboxReport{On: d.On, Why: d.Why, Open: d.Open}
		if d.On {
			var spec permissions.SandboxSpec
			if ev.Permissions.Network != nil {
				spec.Network = append([]string{}, ev.Permissions.Network.Allow...)
			}
			rep.Sandbox.Settings = permissions.Sandbox(spec)
		}
		if err := planClaudeReport(&rep, c, opts); err != nil {
			return err
		}
	case "cursor":
		var existing map[string]any
		if opts.workspace != "" {
			if existing, err = permissions.ReadCursorConfig(opts.workspace); err != nil {
				return err
			}
		}
		plan, err := permissions.PlanCursor(allow, deny, existing)
		if err != nil {
			return permissionsError(ev, err)
		}
		rep.CursorCLIJSON, rep.Warnings = plan.Config, append(rep.Warnings, plan.Warnings...)
		if opts.write && plan.Config != nil {
			if _, err := permissions.WriteCursorConfig(opts.workspace, plan.Config); err != nil {
				return err
			}
		}
	case "harbor":
		// A Harbor task package carries the compiled lists, not twinned,
		// and keeps its agent out of the trial's /logs and /tests (what the
		// import parses, what the verifier runs).
		rep.Deny = append(rep.Deny, harbor.ContainerDenies()...)
	default:
		return usageErrorf("--runner must be claude-code, cursor or harbor, got %q", opts.runner)
	}
	if opts.json {
		enc := json.NewEncoder(e.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printPermissions(e.Out, ev, rep)
	return nil
}

func planClaudeReport(rep *permissionsReport, c permissions.Compiled, opts permissionsOptions) error {
	bases := []string{"<workspace>"}
	exists := func(string) bool { return false }
	var existing map[string]any
	settingsDir := ".claude"
	if opts.workspace != "" {
		abs, err := filepath.Abs(opts.workspace)
		if err != nil {
			return err
		}
		bases = []string{abs}
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			bases = append(bases, real)
		}
		exists = func(rel string) bool { _, err := os.Stat(filepath.Join(abs, rel)); return err == nil }
		if existing, err = readJSONFile(filepath.Join(abs, ".claude", "settings.json")); err != nil {
			return err
		}
	} else {
		rep.Warnings = append(rep.Warnings, "no --workspace: twins are shown for a placeholder path and allow twins, which need their target to exist, are left out")
	}
	ws, twins, warn := permissions.WorkspaceSettings(existing, c, bases, exists)
	if rep.Sandbox.Settings != nil {
		ws = permissions.WithSandbox(ws, rep.Sandbox.Settings)
		rep.Sandbox.Settings, _ = ws["sandbox"].(map[string]any)
	}
	rep.Workspace, rep.Twins = ws, append(rep.Twins, twins...)
	if warn != "" {
		rep.Warnings = append(rep.Warnings, warn)
	}
	plan := permissions.PlanClaude(c, ws, settingsDir, nil)
	rep.CLIArgs = append(rep.CLIArgs, plan.Args...)
	if plan.SettingsFile != "" {
		name := settingsDir + "/" + plan.SettingsFile
		rep.SettingsFile, rep.Settings = &name, plan.Settings
	}
	if !opts.write {
		return nil
	}
	dir := filepath.Join(opts.workspace, settingsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(ws, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if plan.SettingsFile != "" {
		if _, _, err := permissions.WriteSettingsFile(dir, plan.SettingsFile, plan.Settings); err != nil {
			return err
		}
	}
	return nil
}

// readJSONFile reads a JSON object; a missing file is nil, not an error.
func readJSONFile(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

func printPermissions(w io.Writer, ev *config.Eval, rep permissionsReport) {
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "(none)"
		}
		return strings.Join(xs, ", ")
	}
	fmt.Fprintf(w, "runner:   %s\nform:     %s\nallow:    %s\ndeny:     %s\n", rep.Runner, rep.Form, list(rep.Allow), list(rep.Deny))
	if rep.Runner == "claude-code" {
		fmt.Fprintf(w, "cli args: %s\n", list(rep.CLIArgs))
		if rep.SettingsFile != nil {
			b, _ := json.MarshalIndent(rep.Settings, "          ", "  ")
			fmt.Fprintf(w, "settings: %s\n          %s\n", *rep.SettingsFile, b)
		}
		fmt.Fprintf(w, "twins:    %s\n", list(rep.Twins))
		state := "off"
		if rep.Sandbox.On {
			state = "on"
		}
		fmt.Fprintf(w, "sandbox:  %s (%s)\n", state, rep.Sandbox.Why)
		if rep.Sandbox.Settings != nil {
			b, _ := json.MarshalIndent(rep.Sandbox.Settings, "          ", "  ")
			fmt.Fprintf(w, "          %s\n", b)
		}
	}
	if rep.Runner == "cursor" {
		if rep.CursorCLIJSON == nil {
			fmt.Fprintln(w, "cursor:   nothing written; Cursor's defaults apply")
		} else {
			b, _ := json.MarshalIndent(rep.CursorCLIJSON, "          ", "  ")
			fmt.Fprintf(w, "cursor:   %s\n          %s\n", permissions.CursorConfigPath, b)
		}
	}
	for _, l := range rep.Lint {
		fmt.Fprintf(w, "lint:     %s:%d:%d: permissions.%s[%d]: %s\n", ev.Path(), l.Line, l.Col, l.List, l.Index, l.Msg)
	}
	for _, s := range rep.Warnings {
		fmt.Fprintf(w, "warning:  %s\n", s)
	}
}

// permissionsError reports a rule no runner can enforce as a config error at
// the permissions block.
func permissionsError(ev *config.Eval, err error) error {
	line, col := ev.Position("permissions")
	field := "permissions"
	var re *permissions.RuleError
	if errors.As(err, &re) {
		line, col, field = re.Line, re.Col, fmt.Sprintf("permissions.%s[%d]", re.List, re.Index)
	}
	return config.Errors{{File: ev.Path(), Line: line, Col: col, Field: field, Code: config.CodeSemantic, Msg: err.Error()}}
}

// permissionProblems are the permission warnings and errors validate adds to
// the loader's: lint findings, and rules the configured runner cannot
// enforce.
func permissionProblems(ev *config.Eval) config.Errors {
	var out config.Errors
	for _, l := range permissions.Lint(ev.Permissions.Allow, ev.Permissions.Deny) {
		out = append(out, config.Error{File: ev.Path(), Line: l.Line, Col: l.Col, Warning: true,
			Field: fmt.Sprintf("permissions.%s[%d]", l.List, l.Index), Msg: l.Msg})
	}
	if ev.RunnerType() == "cursor" {
		if _, err := permissions.PlanCursor(ev.Permissions.Allow, ev.Permissions.Deny, nil); err != nil {
			var es config.Errors
			errors.As(permissionsError(ev, err), &es)
			out = append(out, es...)
		}
	}
	return out
}
