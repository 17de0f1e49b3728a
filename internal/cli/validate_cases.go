package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/expr"
	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/generate"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/openrouter"
	"github.com/agent-eval/agent-eval/internal/prompt"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/runner"
	"github.com/agent-eval/agent-eval/internal/runner/clirunner"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// caseProblems finds, before anything runs, what run would trip on or
// silently skip: runner types not built yet, judge if: and reward.formula
// expressions, case folders (unsafe names, symlinks), per-case workspace
// files, prompt templates rendered with each case's input, fake_model
// scripts, skill resolution and unset variables in env values.
func caseProblems(ev *config.Eval, getenv func(string) string) (warns, errs config.Errors) {
	at := func(field string, warning bool, format string, args ...any) {
		line, col := ev.Position(field)
		p := config.Error{File: ev.Path(), Line: line, Col: col, Field: field, Warning: warning, Code: config.CodeSemantic, Msg: fmt.Sprintf(format, args...)}
		if warning {
			p.Code = ""
			warns = append(warns, p)
		} else {
			errs = append(errs, p)
		}
	}
	runnerProblems(ev, at)
	exprProblems(ev, at)
	envWarnings(ev, getenv, at)
	skillProblems(ev, at)
	generationProblems(ev, at)
	errs = append(errs, programProblems(ev, "")...)
	errs = append(errs, openRouterProblems(ev, "", true, false, lookupOf(getenv))...)

	dir := ev.DatasetDir()
	if dir == "" {
		at("dataset", true, "dataset.path is not set: run has no cases to run and refuses to start")
		return warns, errs
	}
	cases, err := caseFolders(dir, at)
	if err != nil {
		return warns, errs // the summary says the cases are unreadable
	}
	if len(cases) == 0 && len(errs) == 0 {
		at("dataset.path", true, "%s has no case folders: run has nothing to run and refuses to start", ev.Dataset.Path)
	}
	if ev.Mode() == "batch" {
		scriptProblems(filepath.Join(dir, FakeModelScript), at)
	}
	scriptProblems(filepath.Join(dir, FakeJudgeScript), at) // score --fake-model's
	perCaseProblems(ev, dir, cases, at)
	return warns, errs
}

// runnerProblems refuses what the engine refuses before the first case:
// a runner type not built, a mode, pipeline or workspace mode the runner
// cannot run, a step of another runner type; and warns when run needs
// --model.
func runnerProblems(ev *config.Eval, at func(string, bool, string, ...any)) {
	known := runners(ev)
	if t := ev.RunnerType(); !known.Has(runner.Type(t)) {
		at("runner.type", false, "runner type %s is not implemented yet; this version runs %v", t, known.Types())
	} else if rn, err := known.New(runner.Type(t)); err == nil {
		// What the engine refuses before the first case, refused here.
		caps := rn.Capabilities()
		switch {
		case ev.Mode() == "batch" && !caps.Batch:
			at("execution.mode", false, "runner %s cannot run a batch; use mode: case", t)
		case len(ev.Execution.Steps) > 0 && !caps.Steps:
			at("execution.steps", false, "runner %s cannot run a pipeline", t)
		}
		if ev.Runner.WorkspaceMode == "repo" && !caps.RepoMode {
			at("runner.workspace_mode", false, "runner %s cannot run in the project itself", t)
		}
	}
	if strings.TrimSpace(ev.Models.Skill) == "" && (ev.RunnerType() != "cli" || engine.CommandsNameModel(ev)) {
		at("models", true, "models.skill is not set: run needs --model (or --fake-model), else it refuses to start")
	}
	for i, s := range ev.Execution.Steps {
		switch {
		case s.Runner == nil || s.Runner.Type == "" || s.Runner.Type == ev.RunnerType():
		case !known.Has(runner.Type(s.Runner.Type)):
			at(fmt.Sprintf("execution.steps[%d].runner.type", i), false, "runner type %s is not implemented yet; this version runs %v", s.Runner.Type, known.Types())
		default:
			at(fmt.Sprintf("execution.steps[%d].runner.type", i), false, "a step runs with the eval's runner (%s): a step of another runner type (%s) is not supported", ev.RunnerType(), s.Runner.Type)
		}
	}
}

// generationProblems refuses what agent-eval generate would: a seed's
// builtin that is not one, a prompt_file that is not there.
func generationProblems(ev *config.Eval, at func(string, bool, string, ...any)) {
	for i, s := range ev.Generation.Seeds {
		p := fmt.Sprintf("generation.seeds[%d]", i)
		switch {
		case strings.TrimSpace(s.Prompt) != "":
		case s.PromptFile != "":
			if _, err := generate.SeedPrompt(s, ev.Dir()); err != nil {
				at(p+".prompt_file", false, "%s: %s (paths are relative to eval.yaml)", s.PromptFile, errText(err))
			}
		case s.Builtin != "":
			if _, err := generate.BuiltinPrompt(s.Builtin); err != nil {
				at(p+".builtin", false, "%v", err)
			}
		}
	}
}

// exprProblems checks the judges' if: conditions and reward.formula.
func exprProblems(ev *config.Eval, at func(string, bool, string, ...any)) {
	for i, j := range ev.Judges {
		if strings.TrimSpace(j.If) != "" {
			if err := expr.CheckCondition(j.If); err != nil {
				at(fmt.Sprintf("judges[%d].if", i), false, "%v", err)
			}
		}
	}
	if ev.Reward != nil {
		if err := expr.CheckFormula(ev.Reward.Formula); err != nil {
			at("reward.formula", false, "%v", err)
		}
	}
}

// caseFolders lists dir's case folders, sorted, refusing the symlinked
// and unsafely named ones run refuses (hidden entries and files are not
// cases). err is dir's, unreadable.
func caseFolders(dir string, at func(string, bool, string, ...any)) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var cases []string
	for _, en := range entries {
		name := en.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		if en.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				at("dataset.path", false, "case %s is a symlinked folder, which run refuses; copy it in instead", name)
			}
			continue
		}
		if !en.IsDir() {
			continue
		}
		if !rundir.SafeSegment(name) {
			at("dataset.path", false, "case folder %q is not a safe folder name (letters, digits, . _ -, not starting with . _ or -), which run refuses", name)
			continue
		}
		cases = append(cases, name)
	}
	sort.Strings(cases)
	return cases, nil
}

// perCaseProblems checks each case: the workspace files run copies, its
// input, the prompt templates and cli commands rendered with it (one line
// per problem, naming the cases it holds for, after the rest), and its
// fake_model scripts.
func perCaseProblems(ev *config.Eval, dir string, cases []string, at func(string, bool, string, ...any)) {
	// One line per template problem, naming the cases it holds for.
	tplErrs := map[[2]string][]string{}
	var tplOrder [][2]string
	defer func() {
		for _, k := range tplOrder {
			ids := tplErrs[k]
			what := "case " + ids[0]
			switch {
			case len(ids) > 3:
				what = fmt.Sprintf("cases %s and %d more", strings.Join(ids[:3], ", "), len(ids)-3)
			case len(ids) > 1:
				what = "cases " + strings.Join(ids, ", ")
			}
			at(k[0], false, "%s: %s", what, k[1])
		}
	}()
	for _, id := range cases {
		caseDir := filepath.Join(dir, id)
		if ws := ev.Dataset.Workspace; ws != nil && ev.Mode() == "case" {
			for i, f := range ws.Files {
				if f.Path != "" && !exists(filepath.Join(caseDir, f.Path)) {
					at(fmt.Sprintf("dataset.workspace.files[%d]", i), false, "case %s has no %s, which run copies into its workspace", id, f.Path)
				}
			}
		}
		input, err := workspace.ReadInput(caseDir)
		if err != nil {
			at("dataset.path", false, "case %s: %v", id, err)
			continue
		}
		if ev.Mode() == "case" { // a batch's prompt is sent as written
			for _, p := range engine.PromptProblems(ev, input) {
				k := [2]string{p.Field, p.Err.Error()}
				if tplErrs[k] == nil {
					tplOrder = append(tplOrder, k)
				}
				tplErrs[k] = append(tplErrs[k], id)
			}
		}
		for _, c := range ev.CLICommands() {
			err := config.CheckPlaceholders(c.Command, withFactors(ev, input))
			if err == nil {
				err = cliOptionProblem(ev, c, withFactors(ev, input))
			}
			if err != nil {
				k := [2]string{c.Field, err.Error()}
				if tplErrs[k] == nil {
					tplOrder = append(tplOrder, k)
				}
				tplErrs[k] = append(tplErrs[k], id)
			}
		}
		if ev.Mode() == "case" {
			matches, _ := filepath.Glob(filepath.Join(caseDir, "fake_model*.yaml"))
			for _, p := range matches {
				scriptProblems(p, at)
			}
		}
	}
}

// programProblems finds each cli command's program as run will (on PATH,
// or by its path relative to eval.yaml's folder), and the Claude Code
// binary runner.settings.binary names (unless agentBin, run --agent-bin,
// replaces it): one that is missing fails the run before its first case,
// so it is refused at its line.
func programProblems(ev *config.Eval, agentBin string) config.Errors {
	var errs config.Errors
	// runner.settings.binary names the agent CLI (of every runner but
	// cli's own command), unless run --agent-bin names another.
	agent := ev.RunnerType() != "cli" || ev.Runner.Agent == "claude-code"
	if bin, ok := ev.Runner.Settings["binary"].(string); ok && bin != "" && agent && agentBin == "" {
		if _, err := exec.LookPath(bin); err != nil {
			line, col := ev.Position("runner.settings.binary")
			errs = append(errs, config.Error{File: ev.Path(), Line: line, Col: col, Field: "runner.settings.binary", Code: config.CodeSemantic,
				Msg: fmt.Sprintf("the agent CLI %s is not found (%v), so run would fail before the first case; install it, fix the path, or pass run --agent-bin", bin, errText(err))})
		}
	}
	for _, c := range ev.CLICommands() {
		prog := c.Command[0]
		if strings.Contains(prog, "{") {
			continue // a placeholder: known per case
		}
		if _, err := clirunner.FindProgram(prog, ev.Dir()); err != nil {
			field := c.Field + "[0]"
			line, col := ev.Position(field)
			if line == 0 {
				field = c.Field
				line, col = ev.Position(field)
			}
			how := "install it or put its folder on PATH, or name it by its path"
			if strings.Contains(prog, "/") {
				how = "a relative path is relative to eval.yaml's folder"
			}
			errs = append(errs, config.Error{File: ev.Path(), Line: line, Col: col, Field: field, Code: config.CodeSemantic,
				Msg: fmt.Sprintf("the command's program %s is not found (%v), so run would fail before the first case; %s", prog, errText(err), how)})
		}
	}
	return errs
}

// sharedFileProblems refuses a {dest, source} entry of
// dataset.workspace.files whose source does not exist under root (the
// project root, where run starts): run would copy nothing into every
// workspace.
func sharedFileProblems(ev *config.Eval, root string) config.Errors {
	var errs config.Errors
	if ev.Dataset.Workspace == nil {
		return nil
	}
	for i, f := range ev.Dataset.Workspace.Files {
		if f.Source == "" {
			continue
		}
		src := f.Source
		if !filepath.IsAbs(src) {
			src = filepath.Join(root, src)
		}
		if _, err := os.Lstat(src); err != nil {
			field := fmt.Sprintf("dataset.workspace.files[%d].source", i)
			line, col := ev.Position(field)
			errs = append(errs, config.Error{File: ev.Path(), Line: line, Col: col, Field: field, Code: config.CodeSemantic,
				Msg: fmt.Sprintf("the source %s of %s is not there (%v), so no workspace would get it; a relative source is relative to the project root (%s), where run starts", f.Source, f.Dest, errText(err), root)})
		}
	}
	return errs
}

// openRouterProblems checks the OpenRouter plan an OpenRouter agent model
// ("openrouter:/…", models.skill or run --model) puts in force
// (openrouter.New): a plan that cannot work, or whose key is not set, is
// refused before anything is spent. Under --fake-model (fake) the fake
// plays OpenRouter, so no key is needed. A judge naming an OpenRouter model
// is refused: score asks the Anthropic API for judges. judges says whether
// the judges' models count (run --score, validate).
func openRouterProblems(ev *config.Eval, model string, judges, fake bool, lookup func(string) (string, bool)) config.Errors {
	var errs config.Errors
	_, probs := openrouter.New(ev, model, "", lookup)
	for _, p := range probs {
		if fake && strings.HasSuffix(p.Field, ".api_key_env") {
			continue
		}
		if p.Field == "--model" {
			errs = append(errs, config.Error{File: "--model", Code: config.CodeSemantic, Msg: p.Msg})
			continue
		}
		line, col := ev.Position(p.Field)
		if line == 0 && strings.HasPrefix(p.Field, "models.providers.openrouter") {
			line, col = ev.Position("models.providers.openrouter")
		}
		if line == 0 {
			line, col = ev.Position("models.skill")
		}
		errs = append(errs, config.Error{File: ev.Path(), Line: line, Col: col, Field: p.Field, Code: config.CodeSemantic, Msg: p.Msg})
	}
	if !judges {
		return errs
	}
	for _, f := range ev.OpenRouterRoles() {
		if f != "models.judge" && !strings.HasPrefix(f, "judges[") {
			continue
		}
		line, col := ev.Position(f)
		errs = append(errs, config.Error{File: ev.Path(), Line: line, Col: col, Field: f, Code: config.CodeSemantic,
			Msg: "names an OpenRouter model: score asks the Anthropic API for its judges, which has no such model (the OpenRouter plan routes the agent only); name an Anthropic model"})
	}
	return errs
}

// lookupOf is getenv as a lookup: an empty value is unset.
func lookupOf(getenv func(string) string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}
}

// errText is err without the program's name repeated by exec and os.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err.Error()
	}
	return err.Error()
}

type template struct{ field, text string }

// cliOptionProblem says, as run would before the case's agent starts, when
// the case's text would reach the cli command c as an option: {args} as
// each prompt the command runs with (the top-level one's execution.prompt
// or execution.arguments and the steps without a runner of their own, a
// step's own command its prompt) and the input's fields. A prompt that does
// not render is reported on its own.
func cliOptionProblem(ev *config.Eval, c config.FieldCommand, input map[string]any) error {
	var args []string
	for _, t := range templatesOf(ev) {
		step := ""
		if strings.HasPrefix(t.field, "execution.steps[") {
			i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(t.field, "execution.steps["), "].prompt"))
			st := ev.Execution.Steps[i]
			own := fmt.Sprintf("execution.steps[%d].runner.command", i)
			hasOwn := st.Runner != nil && len(st.Runner.Command) > 0
			if hasOwn && c.Field != own || !hasOwn && c.Field != "runner.command" {
				continue
			}
			step = st.ID
		} else if c.Field != "runner.command" {
			continue
		}
		text, err := prompt.Render(t.text, input)
		if err != nil {
			continue
		}
		if t.field == "execution.arguments" {
			args = append(args, text)
		} else {
			args = append(args, clirunner.InvocationVars(ev, step, text).Args)
		}
	}
	if len(args) == 0 {
		args = []string{""}
	}
	for _, a := range args {
		if err := clirunner.OptionProblem(c.Command, a, input); err != nil {
			return err
		}
	}
	return nil
}

// templatesOf lists the prompt templates run renders with a case's input,
// with the case's output folder and earlier steps' results filled by
// placeholders.
func templatesOf(ev *config.Eval) []template {
	fill := func(s string) string {
		s = engine.FillOutputDir(s, "/output")
		return prompt.FillSteps(s, "0")
	}
	var out []template
	x := ev.Execution
	if strings.TrimSpace(x.Skill) != "" {
		out = append(out, template{"execution.arguments", fill(x.Arguments)})
	} else if x.Prompt != "" {
		out = append(out, template{"execution.prompt", fill(x.Prompt)})
	}
	for i, s := range x.Steps {
		if s.Prompt != "" {
			out = append(out, template{fmt.Sprintf("execution.steps[%d].prompt", i), fill(s.Prompt)})
		}
	}
	return out
}

var yamlErrLineRE = lazyre.New(`line (\d+):`)

// scriptProblems loads a fake_model script strictly, as run --fake-model
// would, and reports its problems at the script's own line.
func scriptProblems(path string, at func(string, bool, string, ...any)) {
	if !exists(path) {
		return
	}
	if _, err := fakeapi.LoadScript(path); err != nil {
		msg := strings.TrimPrefix(err.Error(), path+": ")
		line := 0
		if m := yamlErrLineRE().FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		where := path
		if line > 0 {
			where = fmt.Sprintf("%s:%d", path, line)
		}
		at("dataset.path", false, "%s: fake model script: %s", where, strings.Join(strings.Fields(msg), " "))
	}
}

var envVarRE = lazyre.New(`\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})`)

// envWarnings warns of each $VAR or ${VAR} in an env value that is unset
// here: run would leave it empty (or drop a whole-value reference).
func envWarnings(ev *config.Eval, getenv func(string) string, at func(string, bool, string, ...any)) {
	check := func(field string, env config.EnvMap) {
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, m := range envVarRE().FindAllStringSubmatch(env[k], -1) {
				name := m[1] + m[2]
				if getenv(name) == "" {
					effect := "run puts an empty string in its place"
					if strings.TrimSpace(env[k]) == m[0] {
						effect = "run leaves " + k + " out"
					}
					at(field+"."+k, true, "%s refers to $%s, which is not set (or empty) here, so %s", k, name, effect)
				}
			}
		}
	}
	check("execution.env", ev.Execution.Env)
	check("runner.env", ev.Runner.Env)
	for i, s := range ev.Execution.Steps {
		check(fmt.Sprintf("execution.steps[%d].env", i), s.Env)
	}
}

// skillProblems resolves execution.skill as upstream does: "ns:skill" is a
// plugin's skill and needs runner.plugin_dirs with a plugin that exports
// it (an error otherwise); a plain skill is looked for in the project's
// skills/, .agents/skills, .claude/skills and the plugins' skill roots (a
// warning when not found).
func skillProblems(ev *config.Eval, at func(string, bool, string, ...any)) {
	if ev.RunnerType() == "cli" {
		return // the skill is only the command's {agent}
	}
	root, _ := os.Getwd()
	resolve := func(dirs []string) []string {
		out := make([]string, 0, len(dirs))
		for _, p := range dirs {
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			out = append(out, p)
		}
		return out
	}
	for i, p := range resolve(ev.Runner.PluginDirs) {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			// A warning: the project root is the working directory, which
			// may differ between validate and run.
			at(fmt.Sprintf("runner.plugin_dirs[%d]", i), true, "plugin directory %s not found here; run fails without it (relative paths are relative to the project root, the working directory)", ev.Runner.PluginDirs[i])
		}
	}
	claude := ev.RunnerType() == "claude-code"
	checkSkill(root, ev.Execution.Skill, "execution.skill", ev.Runner.PluginDirs, resolve(ev.Runner.PluginDirs), claude, at)
	for i, s := range ev.Execution.Steps {
		dirs, stepClaude := ev.Runner.PluginDirs, claude
		if s.Runner != nil && len(s.Runner.PluginDirs) > 0 {
			dirs = s.Runner.PluginDirs
		}
		if s.Runner != nil && s.Runner.Type != "" {
			stepClaude = s.Runner.Type == "claude-code"
		}
		checkSkill(root, s.Skill, fmt.Sprintf("execution.steps[%d].skill", i), dirs, resolve(dirs), stepClaude, at)
	}
}

// checkSkill finds skill as the agent will: a plugin's skill (plugin:skill)
// in runner.plugin_dirs (named as written, dirs; resolved, plugins), else
// the skill's folder. For Claude Code, a skill that lives in a plugin
// layout (the project's skills/<skill>/SKILL.md beside
// .claude-plugin/plugin.json) is not found by the agent on its own: it is
// loaded only from runner.plugin_dirs (--plugin-dir), so without them, or
// with none that exports it, every case would answer "Unknown command:
// /<skill>" with no turn taken, which is an error here. A plugin directory
// that is not there is left to its own warning.
func checkSkill(root, skill, field string, dirs, plugins []string, claude bool, at func(string, bool, string, ...any)) {
	skill = strings.TrimSpace(skill)
	if skill == "" {
		return
	}
	if claude && !exists(filepath.Join(root, ".claude", "skills", skill, "SKILL.md")) && !strings.Contains(skill, ":") &&
		exists(filepath.Join(root, ".claude-plugin", "plugin.json")) && pluginHasSkill(root, skill) {
		const symptom = "every case would answer \"Unknown command: /%s\" without taking a turn"
		if len(plugins) == 0 {
			at(field, false, "skill %s lives in a plugin layout (skills/%s/SKILL.md beside .claude-plugin/plugin.json), which Claude Code loads only from runner.plugin_dirs: set runner.plugin_dirs (e.g. [\".\"] for the plugin at the project root), else "+symptom, skill, skill, skill)
			return
		}
		found, unknown := false, false
		for _, p := range plugins {
			if st, err := os.Stat(p); err != nil || !st.IsDir() {
				unknown = true
				continue
			}
			found = found || pluginHasSkill(p, skill)
		}
		if !found && !unknown {
			at(field, false, "skill %s lives in a plugin layout, but none of runner.plugin_dirs (%s) exports it; Claude Code loads plugins only from those, so "+symptom, skill, strings.Join(dirs, ", "), skill)
		}
		return
	}
	if ns, name, ok := strings.Cut(skill, ":"); ok {
		if len(plugins) == 0 {
			at(field, false, "skill %s is a plugin's skill (plugin:skill) but runner.plugin_dirs is empty", skill)
			return
		}
		for _, p := range plugins {
			if (filepath.Base(p) == ns || pluginName(p) == ns) && pluginHasSkill(p, name) {
				return
			}
		}
		at(field, false, "no directory in runner.plugin_dirs is a plugin named %s exporting skill %s", ns, name)
		return
	}
	for _, d := range []string{"skills", ".agents/skills", ".claude/skills"} {
		if exists(filepath.Join(root, d, skill, "SKILL.md")) {
			return
		}
	}
	for _, p := range plugins {
		if pluginHasSkill(p, skill) {
			return
		}
	}
	where := "runner.plugin_dirs"
	if len(dirs) > 0 {
		where = "runner.plugin_dirs (" + strings.Join(dirs, ", ") + ")"
	}
	at(field, true, "skill %s was not found in skills/, .agents/skills, .claude/skills or %s; the agent may not know it", skill, where)
}

// pluginManifest is the part of .claude-plugin/plugin.json read here.
func pluginManifest(dir string) (name string, roots []string) {
	b, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json"))
	if err != nil {
		return "", []string{"skills"}
	}
	var m struct {
		Name   string          `json:"name"`
		Skills json.RawMessage `json:"skills"`
	}
	if json.Unmarshal(b, &m) != nil {
		return "", []string{"skills"}
	}
	var one string
	var many []string
	switch {
	case json.Unmarshal(m.Skills, &one) == nil && one != "":
		roots = []string{one}
	case json.Unmarshal(m.Skills, &many) == nil && len(many) > 0:
		roots = many
	default:
		roots = []string{"skills"}
	}
	return m.Name, roots
}

func pluginName(dir string) string {
	n, _ := pluginManifest(dir)
	return n
}

func pluginHasSkill(dir, skill string) bool {
	_, roots := pluginManifest(dir)
	for _, r := range roots {
		if exists(filepath.Join(dir, r, skill, "SKILL.md")) || exists(filepath.Join(dir, r, "SKILL.md")) && filepath.Base(r) == skill {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// withFactors adds the matrix's factors other than the model and the
// runner to a case's input: each cell sets them (upstream's
// --input-override).
func withFactors(ev *config.Eval, input map[string]any) map[string]any {
	if ev.Matrix == nil || len(ev.Matrix.Factors) == 0 {
		return input
	}
	out := make(map[string]any, len(input)+len(ev.Matrix.Factors))
	for k, v := range input {
		out[k] = v
	}
	for name := range ev.Matrix.Factors {
		if name != config.ModelFactorName && name != config.RunnerFactor {
			out[name] = ""
		}
	}
	return out
}
