package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/score"
)

// upstreamJudgeFields are the fields of upstream's JudgeConfig (config.py),
// with condition spelled if as its YAML does.
var upstreamJudgeFields = []string{"name", "description", "if", "check", "prompt", "prompt_file", "llm_rubric", "context",
	"feedback_type", "score_range", "model", "module", "function", "builtin", "arguments", "step", "samples", "agent"}

// upstreamStandardVars are the variables upstream's scorer gives a judge's
// prompt (score.py's render call; validate_eval.py's STANDARD_TEMPLATE_VARS).
var upstreamStandardVars = []string{"inputs", "annotations", "annotations_text", "conversation", "tool_trace", "outputs", "arguments", "reasoning", "evidence"}

// judgeEval is an eval.yaml with one LLM judge of prompt p and outputs outs.
func judgeEval(p, outs string) string {
	return "name: t\nexecution:\n  prompt: \"{prompt}\"\nmodels: {skill: m, judge: m}\ndataset: {path: cases}\n" + outs +
		"judges:\n  - name: quality\n    feedback_type: bool\n    prompt: " + quoteYAML(p) + "\n"
}

func quoteYAML(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// validateIn writes files into a fresh project (a name ending in / is a
// folder, a body "symlink:<target>" a symbolic link), runs validate there
// (from dir below it, with -c config) and returns its exit code and stderr.
func validateIn(t *testing.T, files map[string]string, dir, config string) (int, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "project")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if target, ok := strings.CutPrefix(body, "symlink:"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(filepath.Join(root, dir))
	code, _, stderr := runCLI(t, "validate", "-c", config)
	return code, stderr
}

// skillEval is upstream's plugin-layout test config in our spelling: a
// skill-mode eval of skill myskill with runner lines runner.
func skillEval(runner string) string {
	return "name: t\nexecution:\n  skill: myskill\n  arguments: \"{prompt}\"\nrunner:\n  type: claude-code\n" + runner +
		"models: {skill: m, judge: m}\ndataset: {path: cases, schema: one case dir per test}\noutputs:\n  - path: out\n    schema: artifacts\n"
}

var (
	pluginLayout = map[string]string{
		"skills/myskill/SKILL.md":    "---\nname: myskill\n---\n",
		".claude-plugin/plugin.json": `{"name": "p"}`,
	}
	dotClaudeLayout = map[string]string{".claude/skills/myskill/SKILL.md": "---\nname: myskill\n---\n"}
	otherPlugin     = map[string]string{
		"plugins/other/skills/somethingelse/SKILL.md": "---\nname: somethingelse\n---\n",
		"plugins/other/.claude-plugin/plugin.json":    `{"name": "other"}`,
	}
	oneCase = map[string]string{"cases/case-001/input.yaml": "prompt: hi\n"}
)

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestValidatePortsUpstreamTests ports every test of upstream's
// tests/test_validate_eval.py to our validate: the same input in spirit,
// our expected errors and warnings. Rows where agent-eval deliberately
// differs say so in differs and assert our behaviour.
func TestValidatePortsUpstreamTests(t *testing.T) {
	tests := []struct {
		upstream string // Class::test in test_validate_eval.py
		differs  string // why we differ, when we do
		files    map[string]string
		dir      string // where validate runs, below the project
		config   string // -c, default eval.yaml
		code     int
		want     []string // substrings of stderr
		notWant  []string
	}{
		{
			upstream: "TestJudgeFieldContract::test_every_judge_config_field_is_accepted",
			differs:  "agent judges and inline Python check: are refused with a reason (exec and code judges instead), not as unknown keys",
			files: merge(oneCase, map[string]string{"eval.yaml": "name: t\nexecution:\n  prompt: \"{prompt}\"\nmodels: {skill: m, judge: m}\ndataset: {path: cases}\njudges:\n" +
				"  - name: j\n    description: d\n    if: \"true\"\n    prompt: \"{{ conversation }}\"\n    context: []\n    feedback_type: int\n    score_range: [1, 5]\n    model: m\n    arguments: {a: 1}\n    samples: 1\n" +
				"  - name: r\n    llm_rubric: \"Is it good?\"\n    feedback_type: bool\n" +
				"  - name: b\n    builtin: cost_budget\n    arguments: {max_cost_usd: 1}\n"}),
			code:    0,
			notWant: []string{"unknown key"},
		},
		{
			upstream: "TestJudgeFieldContract::test_the_allowlist_invents_nothing",
			files: merge(oneCase, map[string]string{"eval.yaml": "name: t\nexecution:\n  prompt: \"{prompt}\"\nmodels: {skill: m, judge: m}\ndataset: {path: cases}\njudges:\n" +
				"  - name: j\n    condition: \"true\"\n    feedback_type: bool\n    prompt: \"{{ conversation }}\"\n"}),
			code: 2,
			want: []string{`judges[0].condition: unknown key "condition"`},
		},
		{
			upstream: "TestStandardVarsContract::test_standard_vars_match_score_renderer",
			differs:  "the variable list is score.JudgeVars, read off the renderer's own map (asserted in TestJudgeVarsCoverUpstream); validate accepts exactly it",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("{{ "+strings.Join(score.JudgeVars(), " }} {{ ")+" }}", "")}),
			code:     0,
			notWant:  []string{"not given"},
		},
		{
			upstream: "TestStandardVarsContract::test_inputs_is_standard_and_input_is_not",
			differs:  "{{ input }} is the case's input.yaml as a mapping (as in execution.prompt), an alias of inputs; upstream's scorer does not give it",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("{{ inputs }} {{ input.prompt }}", "")}),
			code:     0,
			notWant:  []string{"not given"},
		},
		{
			upstream: "TestStandardVarsContract::test_events_is_not_standard",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("Look at {{ events }}", "")}),
			code:     2,
			want:     []string{`judges[0].prompt: judge "quality": the prompt uses variable events, which the judge is not given`},
		},
		{
			upstream: "TestStandardVarsContract::test_mock_render_data_covers_every_standard_var",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("{{ "+strings.Join(upstreamStandardVars, " }} {{ ")+" }}", "")}),
			code:     0,
			notWant:  []string{"not given"},
		},
		{
			upstream: "TestPluginDirResolution::test_prefers_repo_root_relative_path",
			files:    merge(oneCase, dotClaudeLayout, map[string]string{"eval.yaml": skillEval("  plugin_dirs: [plugins/ci]\n"), "plugins/ci/": ""}),
			code:     0,
			notWant:  []string{"plugin directory"},
		},
		{
			upstream: "TestPluginDirResolution::test_uses_repo_root_even_when_config_relative_path_exists",
			files: merge(dotClaudeLayout, map[string]string{"evals/eval.yaml": skillEval("  plugin_dirs: [plugin]\n"), "evals/plugin/": "",
				"evals/cases/case-001/input.yaml": "prompt: hi\n"}),
			config: "evals/eval.yaml",
			code:   0,
			want:   []string{"runner.plugin_dirs[0]: warning: plugin directory plugin not found here"},
		},
		{
			upstream: "TestPluginDirResolution::test_allows_declared_parent_path_outside_project",
			files:    merge(map[string]string{"repo/eval.yaml": skillEval("  plugin_dirs: [../outside]\n"), "outside/": "", "repo/.claude/skills/myskill/SKILL.md": "x", "repo/cases/a/input.yaml": "prompt: hi\n"}),
			dir:      "repo",
			code:     0,
			notWant:  []string{"plugin directory"},
		},
		{
			upstream: "TestPluginDirResolution::test_rejects_relative_symlink_escape",
			differs:  "a plugin directory is copied into each case's workspace as named, so a symlink to a folder elsewhere (like ../outside, which upstream allows) is accepted",
			files:    merge(oneCase, dotClaudeLayout, map[string]string{"eval.yaml": skillEval("  plugin_dirs: [plugin-link]\n"), "../outside/": "", "plugin-link": "symlink:../outside"}),
			code:     0,
			notWant:  []string{"plugin directory", "escape"},
		},
		{
			upstream: "TestPluginDirResolution::test_does_not_prefer_existing_path_from_unrelated_cwd",
			differs:  "the project root is the working directory (run resolves plugin_dirs from it), so run from elsewhere with -c the working directory's plugin is the one used and the project's is not looked for",
			files: map[string]string{"repo/eval.yaml": skillEval("  plugin_dirs: [plugin]\n"), "repo/evals/plugin/": "", "unrelated/plugin/": "",
				"repo/cases/a/input.yaml": "prompt: hi\n"},
			dir:     "unrelated",
			config:  "../repo/eval.yaml",
			code:    0,
			notWant: []string{"plugin directory plugin not found"},
		},
		{
			upstream: "TestJudgeTemplateValidation::test_inputs_validates_clean",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("Rate this: {{ inputs }}", "")}),
			code:     0,
		},
		{
			upstream: "TestJudgeTemplateValidation::test_reasoning_and_evidence_validate_clean",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("{{ reasoning }} {{ evidence }} {{ tool_trace }}", "")}),
			code:     0,
		},
		{
			upstream: "TestJudgeTemplateValidation::test_phantom_input_is_rejected",
			differs:  "{{ input.prompt }} is given (input is the case's input, as in execution.prompt), so it validates clean",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("Rate this: {{ input.prompt }}", "")}),
			code:     0,
			notWant:  []string{"not given"},
		},
		{
			upstream: "TestJudgeTemplateValidation::test_events_is_rejected",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("Look at {{ events }}", "")}),
			code:     2,
			want:     []string{"eval.yaml:9:13: judges[0].prompt:", "variable events"},
		},
		{
			upstream: "TestJudgeTemplateValidation::test_unknown_variable_is_rejected",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("Rate {{ definitely_not_a_variable }}", "")}),
			code:     2,
			want:     []string{"variable definitely_not_a_variable, which the judge is not given"},
		},
		{
			upstream: "TestJudgeTemplateValidation::test_declared_output_is_accepted",
			differs:  "upstream's validator accepts an output's name but its scorer renders it empty; an output's name is a label here, so {{ report }} is refused with where its files are",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("Check {{ report }}", "outputs:\n  - name: report\n    path: out\n")}),
			code:     2,
			want:     []string{"variable report, which the judge is not given", "report names an output (outputs[].name is a label): its files are in {{ outputs }}"},
			notWant:  []string{"unknown key"},
		},
		{
			upstream: "TestJudgeTemplateValidation::test_guidance_lists_the_real_variable_set",
			files:    merge(oneCase, map[string]string{"eval.yaml": judgeEval("{{ nope }}", "")}),
			code:     2,
			want:     []string{"(its variables are " + strings.Join(score.JudgeVars(), ", ") + ")", "inputs"},
			notWant:  []string{"events"},
		},
		{
			upstream: "TestPluginLayoutRequiresPluginDirs::test_plugin_layout_without_plugin_dirs_is_an_error",
			files:    merge(oneCase, pluginLayout, map[string]string{"eval.yaml": skillEval("")}),
			code:     2,
			want:     []string{"execution.skill: skill myskill lives in a plugin layout", "runner.plugin_dirs", `Unknown command: /myskill`},
		},
		{
			upstream: "TestPluginLayoutRequiresPluginDirs::test_plugin_layout_with_plugin_dirs_passes",
			files:    merge(oneCase, pluginLayout, map[string]string{"eval.yaml": skillEval("  plugin_dirs: [\".\"]\n")}),
			code:     0,
			notWant:  []string{"runner.plugin_dirs", "myskill"},
		},
		{
			upstream: "TestPluginLayoutRequiresPluginDirs::test_dot_claude_skills_layout_needs_no_plugin_dirs",
			files:    merge(oneCase, dotClaudeLayout, map[string]string{"eval.yaml": skillEval("")}),
			code:     0,
			notWant:  []string{"runner.plugin_dirs", "myskill"},
		},
		{
			upstream: "TestPluginLayoutRequiresPluginDirs::test_unresolvable_skill_stays_a_warning",
			files:    merge(oneCase, map[string]string{"eval.yaml": skillEval(""), ".claude/skills/": ""}),
			code:     0,
			want:     []string{"execution.skill: warning: skill myskill was not found"},
			notWant:  []string{"plugin layout"},
		},
		{
			upstream: "TestPluginLayoutRequiresPluginDirs::test_plugin_dirs_that_do_not_export_the_skill_are_an_error",
			files:    merge(oneCase, pluginLayout, otherPlugin, map[string]string{"eval.yaml": skillEval("  plugin_dirs: [plugins/other]\n")}),
			code:     2,
			want:     []string{"skill myskill lives in a plugin layout, but none of runner.plugin_dirs (plugins/other) exports it", "Unknown command: /myskill"},
		},
		{
			upstream: "TestPluginLayoutRequiresPluginDirs::test_plugin_dirs_that_export_the_skill_pass",
			files:    merge(oneCase, pluginLayout, otherPlugin, map[string]string{"eval.yaml": skillEval("  plugin_dirs: [plugins/other, \".\"]\n")}),
			code:     0,
			notWant:  []string{"plugin_dirs", "myskill"},
		},
		{
			upstream: "TestPluginLayoutRequiresPluginDirs::test_uninspectable_plugin_dir_does_not_error",
			files:    merge(oneCase, pluginLayout, map[string]string{"eval.yaml": skillEval("  plugin_dirs: [plugins/does-not-exist]\n")}),
			code:     0,
			want:     []string{"runner.plugin_dirs[0]: warning: plugin directory plugins/does-not-exist not found here"},
			notWant:  []string{"exports it"},
		},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if seen[tt.upstream] {
			t.Errorf("%s is ported twice", tt.upstream)
		}
		seen[tt.upstream] = true
		t.Run(tt.upstream[strings.Index(tt.upstream, "::")+2:], func(t *testing.T) {
			config := tt.config
			if config == "" {
				config = "eval.yaml"
			}
			code, stderr := validateIn(t, tt.files, tt.dir, config)
			if code != tt.code {
				t.Errorf("validate exited %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(stderr, w) {
					t.Errorf("stderr has %q:\n%s", w, stderr)
				}
			}
		})
	}
	// Every test upstream's file has is a row (the list is its test names).
	for _, name := range upstreamValidateTests {
		if !seen[name] {
			t.Errorf("%s is not ported", name)
		}
	}
}

// upstreamValidateTests are the tests of upstream's tests/test_validate_eval.py.
var upstreamValidateTests = []string{
	"TestJudgeFieldContract::test_every_judge_config_field_is_accepted",
	"TestJudgeFieldContract::test_the_allowlist_invents_nothing",
	"TestStandardVarsContract::test_standard_vars_match_score_renderer",
	"TestStandardVarsContract::test_inputs_is_standard_and_input_is_not",
	"TestStandardVarsContract::test_events_is_not_standard",
	"TestStandardVarsContract::test_mock_render_data_covers_every_standard_var",
	"TestPluginDirResolution::test_prefers_repo_root_relative_path",
	"TestPluginDirResolution::test_uses_repo_root_even_when_config_relative_path_exists",
	"TestPluginDirResolution::test_allows_declared_parent_path_outside_project",
	"TestPluginDirResolution::test_rejects_relative_symlink_escape",
	"TestPluginDirResolution::test_does_not_prefer_existing_path_from_unrelated_cwd",
	"TestJudgeTemplateValidation::test_inputs_validates_clean",
	"TestJudgeTemplateValidation::test_reasoning_and_evidence_validate_clean",
	"TestJudgeTemplateValidation::test_phantom_input_is_rejected",
	"TestJudgeTemplateValidation::test_events_is_rejected",
	"TestJudgeTemplateValidation::test_unknown_variable_is_rejected",
	"TestJudgeTemplateValidation::test_declared_output_is_accepted",
	"TestJudgeTemplateValidation::test_guidance_lists_the_real_variable_set",
	"TestPluginLayoutRequiresPluginDirs::test_plugin_layout_without_plugin_dirs_is_an_error",
	"TestPluginLayoutRequiresPluginDirs::test_plugin_layout_with_plugin_dirs_passes",
	"TestPluginLayoutRequiresPluginDirs::test_dot_claude_skills_layout_needs_no_plugin_dirs",
	"TestPluginLayoutRequiresPluginDirs::test_unresolvable_skill_stays_a_warning",
	"TestPluginLayoutRequiresPluginDirs::test_plugin_dirs_that_do_not_export_the_skill_are_an_error",
	"TestPluginLayoutRequiresPluginDirs::test_plugin_dirs_that_export_the_skill_pass",
	"TestPluginLayoutRequiresPluginDirs::test_uninspectable_plugin_dir_does_not_error",
}

// TestOutputNameLabelsMessages: outputs[].name loads (upstream's label)
// and names the output in what validate says about it.
func TestOutputNameLabelsMessages(t *testing.T) {
	code, stderr := validateIn(t, merge(oneCase, map[string]string{"eval.yaml": judgeEval("{{ outputs }}", "outputs:\n  - name: report\n    schema: the report\n")}), "", "eval.yaml")
	if code != 2 || !strings.Contains(stderr, `outputs[0]: output "report": an output needs a path or a tool`) || strings.Contains(stderr, "unknown key") {
		t.Errorf("validate = %d, stderr:\n%s\nwant the output named in its error", code, stderr)
	}
}

// TestJudgeVarsCoverUpstream: every variable upstream's scorer gives a
// judge is one ours gives (ours add input, case_id, answers,
// permission_denials and hook_decisions), and events is not one.
func TestJudgeVarsCoverUpstream(t *testing.T) {
	t.Parallel()
	have := score.JudgeVars()
	for _, v := range upstreamStandardVars {
		if !slices.Contains(have, v) {
			t.Errorf("judges are not given upstream's %s (they have %v)", v, have)
		}
	}
	if slices.Contains(have, "events") {
		t.Errorf("judges are given events, which upstream's are not")
	}
}

// TestJudgeFieldsCoverUpstream: every field of upstream's JudgeConfig is a
// key our judges load (upstream's allowlist contract; condition is spelled
// if, and condition itself is an unknown key: the row above).
func TestJudgeFieldsCoverUpstream(t *testing.T) {
	t.Parallel()
	var keys []string
	rt := reflect.TypeFor[config.Judge]()
	for i := range rt.NumField() {
		keys = append(keys, strings.Split(rt.Field(i).Tag.Get("yaml"), ",")[0])
	}
	for _, f := range upstreamJudgeFields {
		if !slices.Contains(keys, f) {
			t.Errorf("judges do not load upstream's %s (they load %v)", f, keys)
		}
	}
	if slices.Contains(keys, "condition") {
		t.Errorf("judges load condition, which upstream spells if")
	}
}
