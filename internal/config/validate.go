package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/expr"
	"github.com/agent-eval/agent-eval/internal/prompt"
)

// validate runs the cross-field rules that no single value can check. It
// runs after decoding, on whatever decoded, so one pass reports everything.
func (e *Eval) validate(d *decoder, root *yaml.Node) {
	v := &validator{d: d, root: root, e: e}
	v.skill()
	v.execution()
	v.runners()
	v.tools()
	v.sandbox()
	v.outputs()
	v.hooks()
	v.judges()
	v.thresholds()
	v.reward()
	v.generation()
	v.matrix()
	v.mlflow()
	v.notYet()
	v.runnerCells()
}

type validator struct {
	d    *decoder
	root *yaml.Node
	e    *Eval
}

// node returns a positioned node for path, falling back to its parents and
// finally to the top of the file.
func (v *validator) node(path string) *yaml.Node {
	for p := path; p != ""; {
		if at, ok := v.d.pos[p]; ok {
			return &yaml.Node{Line: at.line, Column: at.col}
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return &yaml.Node{Line: v.root.Line, Column: v.root.Column}
}

func (v *validator) errf(path string, code Code, format string, args ...any) {
	v.d.add(v.node(path), path, code, format, args...)
}

func (v *validator) warnf(path, format string, args ...any) {
	v.d.warn(v.node(path), path, format, args...)
}

func (v *validator) has(path string) bool { _, ok := v.d.pos[path]; return ok }

// failed reports whether the decoder already reported a problem at one of
// paths or below it, so a rule does not pile a second error onto the first.
func (v *validator) failed(paths ...string) bool {
	for _, e := range v.d.errs {
		for _, p := range paths {
			if e.Field == p || strings.HasPrefix(e.Field, p+".") || strings.HasPrefix(e.Field, p+"[") {
				return true
			}
		}
	}
	return false
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

func (v *validator) skill() {
	e := v.e
	if blank(e.Skill) {
		return
	}
	if msg := pathProblem(e.Skill, rules{checks: []string{"segment"}}); msg != "" {
		v.errf("skill", CodeFormat, "%s", msg)
		return
	}
	switch {
	case blank(e.Execution.Skill) && !blank(e.Execution.Prompt):
		v.errf("skill", CodeSemantic, "the deprecated top-level skill is execution.skill, which conflicts with execution.prompt")
	case blank(e.Execution.Skill) && len(e.Execution.Steps) > 0:
		v.errf("skill", CodeSemantic, "the deprecated top-level skill is execution.skill, which conflicts with execution.steps")
	case blank(e.Execution.Skill):
		v.warnf("skill", "top-level skill is deprecated; move it to execution.skill")
		e.Execution.Skill = e.Skill
	case e.Execution.Skill != e.Skill:
		v.errf("skill", CodeSemantic, "deprecated top-level skill %q conflicts with execution.skill %q; remove it", e.Skill, e.Execution.Skill)
	default:
		v.warnf("skill", "top-level skill is deprecated and repeats execution.skill; remove it")
	}
}

func (v *validator) execution() {
	x := &v.e.Execution
	if !blank(x.Skill) && !blank(x.Prompt) {
		v.errf("execution.prompt", CodeConflict, "execution.skill and execution.prompt are mutually exclusive: skill sends \"/<skill> <arguments>\", prompt sends a prompt")
	}
	if len(x.Steps) > 0 {
		for _, k := range []string{"skill", "prompt"} {
			if !blank(map[string]string{"skill": x.Skill, "prompt": x.Prompt}[k]) {
				v.errf("execution."+k, CodeConflict, "execution.steps and execution.%s are mutually exclusive; put each invocation in its own step", k)
			}
		}
		if x.Mode == "batch" {
			v.errf("execution.steps", CodeSemantic, "execution.steps needs mode: case (got mode: batch)")
		}
	}
	// A cli runner's command is what runs (upstream's placeholders carry
	// the case), so it needs neither skill nor prompt.
	cliCommand := v.e.Runner.Type == "cli" && len(v.e.Runner.Command) > 0
	if blank(x.Skill) && blank(x.Prompt) && len(x.Steps) == 0 && blank(v.e.Skill) && !cliCommand &&
		!v.failed("execution.skill", "execution.prompt", "execution.steps", "execution", "skill") {
		v.errf("execution", CodeSemantic, "nothing to run: set execution.skill, execution.prompt or execution.steps")
	}
	if !blank(x.Arguments) && blank(x.Skill) && !blank(x.Prompt) {
		v.warnf("execution.arguments", "arguments is only used with execution.skill; in prompt mode the prompt itself is the template")
	}
	if x.Mode == "batch" && x.Repeats != nil && *x.Repeats > 1 {
		v.errf("execution.repeats", CodeSemantic, "repeats needs case mode: a batch is one agent over every case, which has no attempts per case")
	}
	if x.Repeats != nil && *x.Repeats > MaxRepeats {
		v.errf("execution.repeats", CodeSemantic, "repeats is %d; at most %d attempts a case", *x.Repeats, MaxRepeats)
	}
	if x.Mode == "batch" && x.Parallelism != nil && *x.Parallelism > 1 {
		v.warnf("execution.parallelism", "parallelism has no effect in batch mode (one run covers every case)")
	}
	if x.Mode == "batch" {
		field, tpl := "execution.prompt", x.Prompt
		if !blank(x.Skill) {
			field, tpl = "execution.arguments", x.Arguments
		}
		if ph := prompt.Placeholders(tpl); len(ph) > 0 {
			v.warnf(field, "batch mode sends this prompt once, as written: its placeholders (%s) are not filled from any case; the agent finds the cases' inputs in %s in its workspace", strings.Join(ph, ", "), "batch.yaml")
		}
	}
	ids := map[string]int{}
	for i, s := range x.Steps {
		p := index("execution.steps", i)
		switch {
		case !blank(s.Skill) && !blank(s.Prompt):
			v.errf(p+".prompt", CodeConflict, "a step sets skill or prompt, not both")
		case blank(s.Skill) && blank(s.Prompt):
			v.errf(p, CodeSemantic, "step %q sets neither skill nor prompt", s.ID)
		}
		if s.ID == "" {
			continue
		}
		if first, dup := ids[s.ID]; dup {
			v.errf(p+".id", CodeSemantic, "step id %q is already used by execution.steps[%d]", s.ID, first)
		} else {
			ids[s.ID] = i
		}
	}
	v.envHints("execution.env", x.Env)
}

// envHints warns about provider keys written into an env block: they belong
// in the caller's environment.
func (v *validator) envHints(path string, env EnvMap) {
	for k, val := range env {
		if _, isRef := envRef(val); isRef || val == "" || envVarRE().MatchString(val) {
			continue
		}
		if secretLike().MatchString(val) || strings.HasSuffix(k, "_API_KEY") || strings.HasSuffix(k, "_TOKEN") || strings.HasSuffix(k, "_SECRET") || strings.HasSuffix(k, "_PASSWORD") {
			v.warnf(join(path, k), "holds a literal value for what looks like a secret; write \"$%s\" to read it from the environment at run time", k)
		}
	}
}

// runners checks every runner block: the top level, each step's and each
// agent judge's.
func (v *validator) runners() {
	v.runner("runner", &v.e.Runner)
	for i, s := range v.e.Execution.Steps {
		if s.Runner != nil {
			v.runner(index("execution.steps", i)+".runner", s.Runner)
		}
	}
	x := v.e.Execution
	if v.e.Runner.WorkspaceMode == "repo" && (blank(x.Prompt) || x.Mode == "batch" || len(x.Steps) > 0) {
		v.errf("runner.workspace_mode", CodeSemantic, "workspace_mode: repo runs the agent in the project itself and needs execution.prompt in case mode")
	}
	if v.e.Runner.RepoChanges != "" && v.e.Runner.WorkspaceMode != "repo" {
		v.errf("runner.repo_changes", CodeSemantic, "repo_changes is about the project a case runs in, and needs workspace_mode: repo")
	}
}

func (v *validator) runner(path string, r *Runner) {
	typ := r.Type
	switch typ {
	case "":
		typ = "claude-code"
	case "claude-code", "cursor", "cli", "codex", "gemini":
	case "responses-api":
		v.errf(path+".type", CodeSemantic, "runner type responses-api (upstream's) is not run by agent-eval: it uploads the skill and the whole workspace to OpenAI's hosted containers (the Skills and Containers APIs) and lets the model run shell commands there, where no hook gates a call, no permission or sandbox of the eval applies and denied files are uploaded too; use runner.type codex, which runs the same Responses API models locally under the eval's gating (runner.settings base_url, default_model and network_policy have no equivalent there: name the model in models.skill)")
		return
	default:
		return // the decoder reported the unknown type
	}
	v.effort(path+".effort", typ, r.Effort)
	if typ == "cli" && len(r.Command) == 0 && !v.failed(path+".command") {
		v.d.add(v.node(path+".type"), path+".command", CodeSemantic, "runner type cli needs a command")
	}
	if typ != "cli" && len(r.Command) > 0 {
		v.errf(path+".command", CodeSemantic, "command is only used by runner type cli (this runner is %s)", typ)
	}
	if path != "runner" && r.RepoChanges != "" {
		v.errf(path+".repo_changes", CodeSemantic, "repo_changes is set on the top-level runner only (with workspace_mode: repo)")
	}
	if typ == "codex" && r.WorkspaceMode == "repo" {
		v.errf(path+".workspace_mode", CodeSemantic, "runner type codex cannot protect the answer key in workspace_mode: repo")
	}
	agentRunner := !strings.HasPrefix(path, "judges")
	claudeUnderneath := typ == "cli" && r.Agent == "claude-code"
	if r.Agent != "" && typ != "cli" {
		v.warnf(path+".agent", "agent is only used by runner type cli (this runner is %s)", typ)
	}
	// inputs.tools is an error: its answers and mocked tools are part of
	// the task, so a run without them measures another task. permissions
	// only guard the task, so unenforced ones are a warning.
	switch {
	case typ == "cli" && agentRunner && len(v.e.Inputs.Tools) > 0 && !claudeUnderneath:
		v.errf(path+".type", CodeSemantic, "runner type cli cannot intercept tool calls, so inputs.tools would not be answered; remove inputs.tools, use claude-code, or set %s.agent: claude-code when the command runs Claude Code in the workspace", path)
	}
	if typ == "cli" {
		if names := ScriptPlaceholders(r.Command); len(names) > 0 {
			v.warnf(path+".command", "%s inside a shell's -c script become shell code (a case input holding \"; rm -rf ~\" would run it); pass them as arguments after the script and use \"$1\"…", strings.Join(names, ", "))
		}
	}
	if typ == "cli" && agentRunner && !claudeUnderneath {
		for _, k := range []string{"permissions.allow", "permissions.deny", "permissions.network"} {
			if v.has(k) {
				v.warnf(k, "runner type cli does not enforce %s: the agent runs with whatever its own CLI allows (set %s.agent: claude-code when the command runs Claude Code in the workspace)", k, path)
			}
		}
	}
	if typ != "claude-code" {
		ignored := []string{"permission_mode", "plugin_dirs"}
		if typ == "cli" {
			ignored = append(ignored, "settings")
		}
		if typ != "codex" && typ != "cli" { // cli: the {effort} placeholder
			ignored = append(ignored, "effort")
		}
		for _, k := range ignored {
			if v.has(path + "." + k) {
				v.warnf(path+"."+k, "%s is a claude-code setting; runner type %s ignores it", k, typ)
			}
		}
	}
	v.envHints(path+".env", r.Env)
}

func (v *validator) tools() {
	dir := v.e.Dir()
	for i, t := range v.e.Inputs.Tools {
		p := index("inputs.tools", i)
		if !blank(t.Prompt) && !blank(t.PromptFile) {
			v.errf(p+".prompt_file", CodeConflict, "prompt and prompt_file are mutually exclusive")
		}
		if !blank(t.PromptFile) && !hasParent(t.PromptFile) && !filepath.IsAbs(t.PromptFile) {
			if st, err := os.Stat(filepath.Join(dir, t.PromptFile)); err != nil || st.IsDir() {
				v.errf(p+".prompt_file", CodeSemantic, "%s: no such file (paths are relative to eval.yaml)", t.PromptFile)
			}
		}
	}
	if !blank(v.e.Dataset.Path) && !hasParent(v.e.Dataset.Path) {
		if st, err := os.Stat(v.e.DatasetDir()); err != nil || !st.IsDir() {
			v.errf("dataset.path", CodeSemantic, "%s: no such directory (relative paths are relative to eval.yaml)", v.e.Dataset.Path)
		}
	}
}

func (v *validator) outputs() {
	patterned := -1
	for i, o := range v.e.Outputs {
		if blank(o.Path) && blank(o.Tool) {
			v.errf(index("outputs", i), CodeSemantic, "%san output needs a path or a tool", o.label())
		}
		if o.BatchPattern == "" {
			continue
		}
		field := index("outputs", i) + ".batch_pattern"
		switch {
		case v.e.Execution.Mode != "batch":
			v.warnf(field, "%signored: batch_pattern assigns a batch run's files to cases, and execution.mode is not batch", o.label())
		case blank(o.Path):
			v.warnf(field, "%signored: the output has no path, so no files to assign", o.label())
		default:
			if _, err := ParseBatchPattern(o.BatchPattern); err != nil {
				v.errf(field, CodeSemantic, "%s%v", o.label(), err)
			} else if patterned < 0 {
				patterned = i
			}
		}
	}
	if patterned < 0 {
		return
	}
	for i, o := range v.e.Outputs {
		if !blank(o.Path) && o.BatchPattern == "" {
			v.warnf(index("outputs", i), "%shas no batch_pattern while outputs[%d] has one: its files are shared with every case", o.label(), patterned)
		}
	}
}

// label names an output by its name (outputs[].name, upstream's label)
// at the start of a message about it, or is empty.
func (o Output) label() string {
	if blank(o.Name) {
		return ""
	}
	return fmt.Sprintf("output %q: ", strings.TrimSpace(o.Name))
}

func (v *validator) hooks() {
	if v.e.Execution.Mode != "batch" {
		return
	}
	h := v.e.Hooks
	for k, list := range map[string][]Hook{"before_each": h.BeforeEach, "after_each": h.AfterEach, "before_step": h.BeforeStep, "after_step": h.AfterStep} {
		if len(list) > 0 {
			v.warnf("hooks."+k, "ignored in batch mode (per-case hooks only run in case mode)")
		}
	}
}

// judgeType names how a judge scores, following the precedence
// builtin > check > expr > exec > agent > llm > code.
func judgeType(j Judge) string {
	switch {
	case !blank(j.Builtin):
		return "builtin"
	case !blank(j.Check):
		return "check"
	case !blank(j.Expr):
		return "expr"
	case len(j.Exec) > 0:
		return "exec"
	case j.Agent != nil:
		return "agent"
	case !blank(j.LLMRubric) || !blank(j.Prompt) || !blank(j.PromptFile):
		return "llm"
	case !blank(j.Module) || !blank(j.Function):
		return "code"
	}
	return ""
}

// PromptSource names the key whose text an LLM or agent judge sends, by the
// priority upstream documents and tests: llm_rubric, then prompt_file, then
// prompt. (../shared/docs/upstream-score-spec.md §1.4 reads its code as
// prompt before prompt_file; issue 11 states the documented order, which
// wins here.) Empty when none is set.
func (j Judge) PromptSource() string {
	switch {
	case !blank(j.LLMRubric):
		return "llm_rubric"
	case !blank(j.PromptFile):
		return "prompt_file"
	case !blank(j.Prompt):
		return "prompt"
	}
	return ""
}

// Type names how the judge scores: builtin, check, expr, exec, agent, llm
// or code.
func (j Judge) Type() string { return judgeType(j) }

func (v *validator) judges() {
	names := map[string]int{}
	steps := v.e.StepIDs()
	for i, j := range v.e.Judges {
		p := index("judges", i)
		if j.Name != "" {
			if first, dup := names[j.Name]; dup {
				v.errf(p+".name", CodeSemantic, "judge name %q is already used by judges[%d]", j.Name, first)
			} else {
				names[j.Name] = i
			}
		}
		typ := judgeType(j)
		if typ == "" && j.Name != "pairwise" {
			v.errf(p, CodeSemantic, "judge %q says nothing to score with: set builtin, check, expr, exec, prompt, prompt_file, llm_rubric, module and function, or agent", j.Name)
		}
		v.judgeKinds(p, j)
		if typ == "builtin" {
			for _, k := range []string{"check", "prompt", "prompt_file", "llm_rubric", "module", "function", "agent"} {
				if v.has(p + "." + k) {
					v.errf(p+"."+k, CodeSemantic, "a builtin judge cannot also set %s", k)
				}
			}
		}
		var prompts []string
		for _, k := range []string{"llm_rubric", "prompt", "prompt_file"} {
			if v.has(p + "." + k) {
				prompts = append(prompts, k)
			}
		}
		if len(prompts) > 1 {
			// Upstream's documented priority: llm_rubric, then prompt_file, then prompt.
			used := j.PromptSource()
			if used == "" {
				used = prompts[0] // all blank: "says nothing" is reported elsewhere or the agent check
			}
			var unused []string
			for _, k := range prompts {
				if k != used {
					unused = append(unused, k)
				}
			}
			v.warnf(p+"."+unused[0], "judge %q sets %s; %s is used and %s ignored (priority: llm_rubric, prompt_file, prompt)", j.Name, strings.Join(prompts, " and "), used, strings.Join(unused, " and "))
		}
		if typ == "code" && (blank(j.Module) || blank(j.Function)) {
			v.errf(p, CodeSemantic, "a code judge needs both module and function")
		}
		if typ == "agent" && len(prompts) == 0 {
			v.errf(p+".agent", CodeSemantic, "an agent judge needs a prompt, prompt_file or llm_rubric")
		}
		if typ == "agent" && j.Agent.Runner != nil {
			v.runner(p+".agent.runner", j.Agent.Runner)
			if j.Agent.Runner.WorkspaceMode == "repo" {
				v.errf(p+".agent.runner.workspace_mode", CodeSemantic, "an agent judge runs in a staged workspace; workspace_mode: repo is not allowed")
			}
		}
		if j.ScoreRange != nil {
			switch {
			case j.FeedbackType == "bool":
				v.errf(p+".score_range", CodeSemantic, "score_range has no meaning with feedback_type: bool; drop one of the two")
			case j.FeedbackType == "int" && (j.ScoreRange.Min != float64(int64(j.ScoreRange.Min)) || j.ScoreRange.Max != float64(int64(j.ScoreRange.Max))):
				v.errf(p+".score_range", CodeSemantic, "feedback_type: int cannot express the fractional score_range [%v, %v]; use feedback_type: float", j.ScoreRange.Min, j.ScoreRange.Max)
			}
		}
		if typ == "builtin" && (j.ScoreRange != nil || (j.FeedbackType != "" && j.FeedbackType != "bool")) && strings.HasPrefix(j.Builtin, "llm/") {
			v.errf(p+".builtin", CodeSemantic, "builtin LLM judges are always pass/fail; feedback_type and score_range would be ignored")
		}
		if (typ == "llm" || typ == "agent") && j.FeedbackType != "bool" && j.ScoreRange == nil && !v.failed(p+".feedback_type", p+".score_range") {
			v.warnf(p, "numeric judge %q has no score_range, so it is scored on an unenforced [1, 5]; declare one to have values checked", j.Name)
		}
		if j.Reduce != "" {
			r, err := ParseReducer(j.Reduce)
			switch {
			case err != nil:
				v.errf(p+".reduce", CodeSemantic, "%v", err)
			case r.PassFail() && (j.FeedbackType == "int" || j.FeedbackType == "float"):
				v.errf(p+".reduce", CodeSemantic, "reduce %s counts passed attempts, and this judge's feedback_type is %s (a score): use mean, median, min or max", j.Reduce, j.FeedbackType)
			case r.K > 1 && v.e.Execution.Repeats != nil && r.K > *v.e.Execution.Repeats:
				v.errf(p+".reduce", CodeSemantic, "reduce %s draws %d attempts, and execution.repeats is %d: every case would be an error", j.Reduce, r.K, *v.e.Execution.Repeats)
			}
		}
		if j.Samples != nil && *j.Samples > 1 && typ != "llm" && typ != "agent" {
			v.warnf(p+".samples", "samples only apply to llm and agent judges; this %s judge runs once", typ)
		}
		if j.Examples != nil && typ != "llm" && typ != "agent" {
			v.errf(p+".examples", CodeSemantic, "examples only apply to llm and agent judges")
		}
		if j.Examples != nil {
			seen := map[string]bool{}
			for k, m := range j.Examples.Mix {
				if m != "pass" && m != "fail" || seen[m] {
					v.errf(fmt.Sprintf("%s.examples.mix[%d]", p, k), CodeSemantic, "mix holds distinct values from pass and fail, got %q", m)
				}
				seen[m] = true
			}
		}
		if j.Step != "" {
			switch {
			case len(steps) == 0:
				v.errf(p+".step", CodeSemantic, "step: %s needs an execution.steps pipeline", j.Step)
			case !slices.Contains(steps, j.Step):
				msg := fmt.Sprintf("step %q is not an execution.steps id (ids: %s)", j.Step, strings.Join(steps, ", "))
				if s := suggest(j.Step, steps); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
				v.errf(p+".step", CodeSemantic, "%s", msg)
			}
		}
	}
}

// judgeKinds checks that a judge using expr or exec sets no other kind
// (a judge scores one way), that its expressions parse, and that timeout
// is only set where it applies.
func (v *validator) judgeKinds(p string, j Judge) {
	kinds := map[string]bool{
		"builtin": !blank(j.Builtin), "check": !blank(j.Check), "expr": !blank(j.Expr), "exec": len(j.Exec) > 0,
		"agent": j.Agent != nil, "llm": j.PromptSource() != "", "code": !blank(j.Module) || !blank(j.Function),
	}
	if kinds["expr"] || kinds["exec"] {
		var set []string
		for _, k := range []string{"builtin", "check", "expr", "exec", "agent", "llm", "code"} {
			if kinds[k] {
				set = append(set, k)
			}
		}
		if len(set) > 1 {
			v.errf(p, CodeSemantic, "judge %q is both %s; a judge scores one way, so set exactly one of them", j.Name, strings.Join(set, " and "))
		}
	}
	if !blank(j.Expr) {
		if err := expr.CheckExpr(j.Expr); err != nil {
			v.errf(p+".expr", CodeSemantic, "%s", err)
		}
	}
	if j.Timeout != nil && !kinds["check"] && !kinds["exec"] && !kinds["code"] {
		v.warnf(p+".timeout", "timeout only applies to check, exec and code judges; this %s judge ignores it", judgeType(j))
	}
	if len(j.Env) > 0 && !kinds["check"] && !kinds["exec"] && !kinds["code"] {
		v.warnf(p+".env", "env only applies to check, exec and code judges (the programs a judge runs); this %s judge ignores it", judgeType(j))
	}
}

// judgeRef checks that name, found at path, is a defined judge. When the
// name is a mapping key (thresholds.<name>) the error points at the key.
func (v *validator) judgeRef(path, name string) {
	names := v.e.JudgeNames()
	if slices.Contains(names, name) {
		return
	}
	msg := fmt.Sprintf("%q is not a judge defined under judges", name)
	if s := suggest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	at := v.node(path)
	if k, ok := v.d.keys[path]; ok {
		at = &yaml.Node{Line: k.line, Column: k.col}
	}
	v.d.add(at, path, CodeSemantic, "%s", msg)
}

// ViolationsGate is the name under thresholds of the run's violations
// gate (max_violations), which needs no judge.
const ViolationsGate = "violations"

func (v *validator) thresholds() {
	for name, t := range v.e.Thresholds {
		if name == ViolationsGate && !slices.Contains(v.e.JudgeNames(), name) {
			// The run's violations gate: no judge's.
			if t.MaxViolations == nil || t.MinPassRate != nil || t.MaxErrorRate != nil || t.MinMean != nil || t.MinWinRate != nil ||
				t.MaxRegression != nil || t.Significance != nil || t.Confidence != nil {
				path := "thresholds." + name
				at := v.node(path)
				if k, ok := v.d.keys[path]; ok {
					at = &yaml.Node{Line: k.line, Column: k.col}
				}
				v.d.add(at, path, CodeSemantic, "thresholds.%s is the run's violations gate: it takes max_violations and nothing else (docs/violations.md)", name)
			}
			continue
		}
		v.judgeRef("thresholds."+name, name)
		if t.MaxViolations != nil && name != ViolationsGate {
			v.errf("thresholds."+name+".max_violations", CodeSemantic, "max_violations gates the run's violations, not a judge's: set it under thresholds.%s", ViolationsGate)
		}
		if t.Significance != nil {
			switch s := *t.Significance; {
			case s <= 0 || s >= 1:
				v.errf("thresholds."+name+".significance", CodeSemantic, "significance is a level between 0 and 1 (0.05), got %v", s)
			case t.MaxRegression == nil:
				v.warnf("thresholds."+name+".significance", "significance applies to max_regression, which this judge's gate does not set")
			}
		}
		if t.Confidence == nil {
			continue
		}
		switch c := *t.Confidence; {
		case c <= 0 || c >= 1:
			v.errf("thresholds."+name+".confidence", CodeSemantic, "confidence is a level between 0 and 1 (0.95), got %v", c)
		case t.MinPassRate == nil && t.MinMean == nil:
			v.warnf("thresholds."+name+".confidence", "confidence applies to min_pass_rate and min_mean, and this judge's gate has neither")
		}
	}
}

func (v *validator) reward() {
	r := v.e.Reward
	if r == nil {
		return
	}
	if !blank(r.Judge) {
		var with []string
		for _, k := range []string{"formula", "weights", "raw"} {
			if v.has("reward." + k) {
				with = append(with, k)
			}
		}
		if len(with) > 0 {
			v.errf("reward.judge", CodeSemantic, "reward.judge cannot be combined with %s", strings.Join(with, ", "))
		}
		v.judgeRef("reward.judge", r.Judge)
	}
	for name, w := range r.Weights {
		v.judgeRef("reward.weights."+name, name)
		if w < 0 {
			v.errf("reward.weights."+name, CodeRange, "weights must not be negative, got %v", w)
		}
	}
	for i, name := range r.Raw {
		v.judgeRef(index("reward.raw", i), name)
	}
	if r.ScoreRange != nil {
		v.warnf("reward.score_range", "reward.score_range is deprecated; declare score_range on each judge")
	}
}

func (v *validator) generation() {
	g := v.e.Generation
	if g.Strategy == "synthetic" && len(g.Seeds) == 0 {
		v.errf("generation.strategy", CodeSemantic, "strategy synthetic needs generation.seeds")
	}
	if g.Strategy != "synthetic" && len(g.Seeds) > 0 {
		v.errf("generation.seeds", CodeSemantic, "seeds only apply to strategy: synthetic")
	}
	for i, s := range g.Seeds {
		n := 0
		for _, x := range []string{s.Builtin, s.PromptFile, s.Prompt} {
			if !blank(x) {
				n++
			}
		}
		if n != 1 {
			v.errf(index("generation.seeds", i), CodeSemantic, "a seed sets exactly one of builtin, prompt_file and prompt (it sets %d)", n)
		}
	}
}

// Later work that makes the accepted-but-unused blocks work;
// LaterOpenRouter is said wherever an OpenRouter setting is refused or
// ignored.
const (
	LaterOpenRouter = "OpenRouter's key management, preflight, routing and judges come with later work"
)

// notYet warns of what this version accepts and does nothing with, so a
// file that sets it is not read as doing what it says.
func (v *validator) notYet() {
	e := v.e
	for i, j := range e.Judges {
		p := index("judges", i)
		if len(j.ProviderOptions) > 0 {
			v.warnf(p+".provider_options", "does nothing in this version (it is for an OpenRouter judge model); %s", LaterOpenRouter)
		}
	}
	if e.Models.Providers != nil && e.Models.Providers.OpenRouter != nil {
		or := e.Models.Providers.OpenRouter
		if len(e.OpenRouterRoles()) == 0 {
			v.warnf("models.providers.openrouter", "does nothing: no model names \"openrouter:/<author>/<slug>\" (the plan is in force when the agent's model, models.skill or run --model, does)")
		}
		for _, k := range []struct {
			field string
			set   bool
		}{{"management_key_env", or.ManagementKeyEnv != ""}, {"preflight", or.Preflight != ""}, {"budget", or.Budget != nil},
			{"routing", len(or.Routing) > 0}, {"judge", or.Judge != nil}} {
			if k.set {
				v.warnf("models.providers.openrouter."+k.field, "does nothing in this version: the plan routes the agent (endpoint, key, model slots, attribution headers, budget inflation) and nothing else; %s", LaterOpenRouter)
			}
		}
	}
}

// OpenRouterRoles lists the fields that name an OpenRouter model
// ("openrouter:/<author>/<slug>"), which this version cannot run: models.*
// and judges[].model.
func (e *Eval) OpenRouterRoles() []string {
	var out []string
	for _, r := range []struct{ field, model string }{
		{"models.skill", e.Models.Skill}, {"models.subagent", e.Models.Subagent},
		{"models.judge", e.Models.Judge}, {"models.hook", e.Models.Hook},
	} {
		if IsOpenRouter(r.model) {
			out = append(out, r.field)
		}
	}
	for i, j := range e.Judges {
		if IsOpenRouter(j.Model) {
			out = append(out, index("judges", i)+".model")
		}
	}
	return out
}

// IsOpenRouter reports whether a model id names an OpenRouter model.
func IsOpenRouter(model string) bool {
	return strings.HasPrefix(strings.TrimSpace(model), "openrouter:")
}
