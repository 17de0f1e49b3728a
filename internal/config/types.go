package config

// The eval.yaml schema. These types are the single source of truth: the
// strict loader (decode.go) and the JSON Schema generator (schema.go) both walk
// them by reflection. Struct tags:
//
//	yaml:"key"       the YAML key
//	doc:"..."        the description shown by editors
//	enum:"a|b"       the allowed values of a string
//	default:"json"   the default, as a JSON literal (documentation only; the
//	                 effective defaults are applied by the accessor methods)
//	check:"a,b"      extra rules: required, nonempty, positive, nonneg, rate,
//	                 atleast1, relpath (no absolute path), noparent (no ".."
//	                 segment), notdot (not the directory itself), segment (a
//	                 single path segment), envname (a valid variable name),
//	                 seconds (or a duration string), bytes (or a size string)
//
// Optional scalars whose zero value is meaningful are pointers, so "unset"
// stays distinguishable from 0 or false.

// Eval is one eval.yaml.
type Eval struct {
	Version     *int                 `yaml:"version" doc:"Schema version of this file. Only 1 exists; optional." enum:"1"`
	Name        string               `yaml:"name" doc:"Name of the eval; the default is the file's stem. Used to derive the eval name and the runs directory."`
	Title       string               `yaml:"title" doc:"Title of the HTML report (default \"Agent Eval Report\")."`
	Description string               `yaml:"description" doc:"Free-text description of what this eval measures."`
	Skill       string               `yaml:"skill" doc:"DEPRECATED: use execution.skill. Copied into execution.skill when that is empty."`
	Execution   Execution            `yaml:"execution" doc:"What to run for each case and how."`
	Runner      Runner               `yaml:"runner" doc:"Which agent CLI runs the cases and how it is configured."`
	Models      Models               `yaml:"models" doc:"Model ids for the agent, subagents, judges and the tool-interception hook."`
	Permissions Permissions          `yaml:"permissions" doc:"Tool allow/deny rules compiled into the runner's native permission settings."`
	Dataset     Dataset              `yaml:"dataset" doc:"Where the eval cases live and what is copied into each case workspace."`
	Generation  Generation           `yaml:"generation" doc:"How agent-eval generate writes new cases into dataset.path; run and score read the cases as they are."`
	Inputs      Inputs               `yaml:"inputs" doc:"Inputs the agent receives at run time; inputs.tools intercepts tool calls."`
	Outputs     []Output             `yaml:"outputs" doc:"Artifacts the agent produces that are collected and judged. Only regular files and folders are collected: a link, a FIFO or a device is left out, and so is a path under a folder that is a link."`
	Traces      Traces               `yaml:"traces" doc:"agent-eval-harness's switches for what judges may read of a case (stdout, stderr, the transcript's events, the metrics), each on unless false; events also writes events.json."`
	Hooks       Hooks                `yaml:"hooks" doc:"Shell commands run at lifecycle phases of a run."`
	Judges      []Judge              `yaml:"judges" doc:"How each case's outputs are scored."`
	Thresholds  map[string]Threshold `yaml:"thresholds" doc:"Regression gates per judge name, and the run's violations gate under the name violations ({violations: {max_violations: 0}}); a failed gate makes score exit 1."`
	Reward      *Reward              `yaml:"reward" doc:"How judge values combine into one reward in [0, 1] (Harbor and the report)."`
	Matrix      *Matrix              `yaml:"matrix" doc:"Upstream's eval-anova experiment design (factors × replications). run runs the base configuration once; agent-eval matrix run runs every cell (docs/matrices.md)."`
	MLflow      *MLflow              `yaml:"mlflow" doc:"Log each scored run to an MLflow tracking server (score does when the block is present, score --no-mlflow skips it; agent-eval mlflow logs any run): params, metrics, tags, the summary and reports as artifacts, a per-case table."`

	// Set by Load, not read from YAML.
	path   string // the file it was read from (positions name it)
	origin string // the eval.yaml it is of: path, or a copy's original (ParseCopy)
	src    []byte // the bytes it was parsed from
	// loaded is the content of the file a runner level's eval was made
	// from (ForRunner), nil for an eval read from its file.
	loaded   []byte
	pos      map[string]pos
	Warnings Errors `yaml:"-"`
}

// Execution says what is sent to the agent for each case.
type Execution struct {
	Mode         string   `yaml:"mode" doc:"case: one agent run per case; batch: one run over all cases." enum:"case|batch" default:"\"case\""`
	Skill        string   `yaml:"skill" doc:"Skill to invoke; the prompt sent is \"/<skill> <arguments>\". Exclusive with prompt and steps." check:"segment"`
	Prompt       string   `yaml:"prompt" doc:"Prompt template sent to the agent: Jinja2 ({{ input.field }}, {{ input.field | upper }}, {% if input.x is defined %}...{% endif %}; a bare {{ field }}, e.g. {{prompt}}, is the input's field of that name; a field used but absent is an error unless given a | default or tested with is defined) or, with no {{ or {%, {field} (required) and {field?} (optional). A case whose prompt renders empty is a config error (validate, and run before any case starts). Exclusive with skill and steps."`
	Arguments    string   `yaml:"arguments" doc:"Per-case argument template appended to the skill invocation, rendered as execution.prompt is ({{ input.field }}, {{ field }}, {field}, {field?})."`
	Timeout      *int     `yaml:"timeout" doc:"Seconds one case (or the batch) may run before it is killed, or a duration (\"10m\")." default:"3600" check:"positive,seconds"`
	MaxBudgetUSD *float64 `yaml:"max_budget_usd" doc:"Spending cap in USD passed to the agent CLI." default:"100" check:"nonneg"`
	Parallelism  *int     `yaml:"parallelism" doc:"How many cases run at once (case mode)." default:"1" check:"atleast1"`
	Repeats      *int     `yaml:"repeats" doc:"How many times each case runs (case mode): each attempt has its own workspace, folder (cases/<id>/attempts/<n>/ from the second), transcript and judges, and score reduces a judge's attempts per case (judges[].reduce). run --repeat overrides it." default:"1" check:"atleast1"`
	Env          EnvMap   `yaml:"env" doc:"Environment for the agent, written into the workspace settings. \"$VAR\" or \"${VAR}\", anywhere in a value, is read from the caller's environment at run time (a whole-value reference to an unset variable: omitted; inside a longer value: empty; validate warns)."`
	ProjectHooks *bool    `yaml:"project_hooks" doc:"Carry the project's .claude/settings.json hooks into the workspaces." default:"true"`
	Steps        []Step   `yaml:"steps" doc:"A multi-step pipeline run per case (case mode only). Exclusive with skill and prompt."`
	Limits       *Limits  `yaml:"limits" doc:"How much of what a case's agent leaves is collected into the run directory (its outputs, the other files it changed, the hook ledger, repo mode's repo_changes/). Past a limit nothing is cut short: the files that do not fit are not collected, run_result.json lists them with their sizes (over_limit), and the case is an error."`
}

// Limits bound what one case (or the batch) may leave in the run directory.
// A size is a file's apparent size (a sparse file counts whole, as a copy
// would write it).
type Limits struct {
	CollectBytes *int `yaml:"collect_bytes" doc:"Bytes of files collected from one case, all together." default:"\"100MiB\"" check:"positive,bytes"`
	FileBytes    *int `yaml:"file_bytes" doc:"Bytes of one file: a larger one is not collected." default:"\"50MiB\"" check:"positive,bytes"`
	Files        *int `yaml:"files" doc:"Files and folders collected from one case." default:"10000" check:"atleast1"`
	DiskBytes    *int `yaml:"disk_bytes" doc:"Bytes the agent may keep in its own folders (workspace, HOME, TMPDIR, its CLI's config) while it runs, a file counted at the larger of its apparent and allocated size; measured every second inside the harness's boundary, past it the agent is stopped and the case is an error." default:"\"4GiB\"" check:"positive,bytes"`
	DiskFiles    *int `yaml:"disk_files" doc:"Files and folders the agent may keep in its own folders while it runs (as disk_bytes)." default:"200000" check:"atleast1"`
}

// Step is one invocation of a multi-step pipeline.
type Step struct {
	ID           string   `yaml:"id" doc:"Unique step id; a single path segment." check:"required,segment"`
	Name         string   `yaml:"name" doc:"Display name."`
	Skill        string   `yaml:"skill" doc:"Skill to invoke in this step. Exactly one of skill and prompt." check:"segment"`
	Prompt       string   `yaml:"prompt" doc:"Prompt sent in this step, rendered as execution.prompt is; may use {{ steps.<id>.output }} and .exit_code of earlier steps. Exactly one of skill and prompt."`
	Arguments    string   `yaml:"arguments" doc:"Argument template; may use {{ steps.<id>.output }}, .exit_code, .files."`
	Env          EnvMap   `yaml:"env" doc:"Extra environment for the agent process of this step (\"$VAR\"/\"${VAR}\" anywhere in a value resolved at run time)."`
	Timeout      *int     `yaml:"timeout" doc:"Seconds this step may run, or a duration (\"10m\") (default: execution.timeout)." check:"positive,seconds"`
	MaxBudgetUSD *float64 `yaml:"max_budget_usd" doc:"Spending cap in USD for this step (default: execution.max_budget_usd)." check:"nonneg"`
	Runner       *Runner  `yaml:"runner" doc:"Runner for this step (default: the top-level runner)."`
	OnFailure    string   `yaml:"on_failure" doc:"fail: a non-zero exit aborts the remaining steps; continue: go on." enum:"fail|continue" default:"\"fail\""`
}

// Runner configures the agent CLI.
type Runner struct {
	Type           string         `yaml:"type" doc:"Agent CLI that runs the cases: claude-code, codex (OpenAI's Codex CLI), gemini (Gemini CLI), cursor (Cursor's cursor-agent), or cli (any agent by command). responses-api (upstream's) is recognised and refused." enum:"claude-code|codex|gemini|cursor|cli|responses-api" default:"\"claude-code\""`
	Command        StringList     `yaml:"command" doc:"Command line of a cli runner: a string (split like a shell would, without a shell: no $VAR, pipes or redirections) or a list of arguments. {placeholders} (docs/runners/cli.md) are filled per case, each value inside its one argument; {{ and }} are literal braces."`
	Agent          string         `yaml:"agent" doc:"cli: the agent the command runs. claude-code declares that it runs Claude Code in the workspace, which then gets Claude Code's .claude/settings.json (the hook, permissions) as with runner.type claude-code: the hook (inputs.tools) and deny rules apply, allow rules do not (docs/runners/cli.md). Otherwise a cli runner enforces neither." enum:"claude-code"`
	WorkspaceMode  string         `yaml:"workspace_mode" doc:"repo: run the agent in the project itself (prompt mode) instead of an isolated workspace per case." enum:"repo"`
	RepoChanges    string         `yaml:"repo_changes" doc:"workspace_mode: repo: what a case that changes the project's files does: fail fails it, report only reports it (repo_modified, repo_changes). Either way the changes are kept in the case's repo_changes/ and undone; a change to the repository's git state (refs, index, configuration, hooks) always fails the case." enum:"fail|report" default:"\"fail\""`
	Settings       map[string]any `yaml:"settings" doc:"claude-code: deep-merged into the workspace .claude/settings.json."`
	PluginDirs     []string       `yaml:"plugin_dirs" doc:"Plugin directories passed with --plugin-dir (relative to the project root)." check:"nonempty"`
	Env            EnvMap         `yaml:"env" doc:"Extra environment for the agent process (\"$VAR\"/\"${VAR}\" anywhere in a value resolved at run time)."`
	SystemPrompt   string         `yaml:"system_prompt" doc:"Text prepended to the harness's system prompt."`
	Effort         string         `yaml:"effort" doc:"Reasoning effort; its values depend on runner.type: claude-code low, medium, high, xhigh or max (--effort); codex minimal, low, medium, high or xhigh (model_reasoning_effort); cli free text (the {effort} placeholder)."`
	PermissionMode string         `yaml:"permission_mode" doc:"claude-code --permission-mode." enum:"default|acceptEdits|plan|auto|dontAsk|bypassPermissions"`
	HomeFiles      []string       `yaml:"home_files" doc:"claude-code: files and folders of your home (relative to it: .gitconfig, .config/gh) copied into the agent's own home before each case. The agent's HOME is an empty folder of its own otherwise, so it sees none of your credentials (docs/auth.md)." check:"nonempty,relpath,noparent"`
}

// Models names the models for each role.
type Models struct {
	Skill     string     `yaml:"skill" doc:"Model of the agent under test (overridden by run --model). Required to run."`
	Subagent  string     `yaml:"subagent" doc:"Model for subagents (default: the skill model)."`
	Judge     string     `yaml:"judge" doc:"Default model of LLM and agent judges (default: $EVAL_JUDGE_MODEL)."`
	Hook      string     `yaml:"hook" doc:"Model that answers AskUserQuestion in the interception hook." default:"\"claude-haiku-4-5-20251001\""`
	Providers *Providers `yaml:"providers" doc:"Model providers other than Anthropic. An agent model \"openrouter:/<author>/<slug>\" (models.skill or run --model) puts the OpenRouter plan in force for the claude-code runner (docs/auth.md#openrouter-plans); a plan no model names is a warning."`
}

// Providers holds the provider plans.
type Providers struct {
	OpenRouter *OpenRouter `yaml:"openrouter" doc:"OpenRouter plan, for models.skill \"openrouter:/<author>/<slug>\": its endpoint, key, background model, attribution headers and budget inflation (the other keys are accepted and do nothing yet)."`
}

// OpenRouter configures routing agent traffic through OpenRouter.
type OpenRouter struct {
	Kind               string         `yaml:"kind" doc:"Must be \"openrouter\" when given." enum:"openrouter"`
	APIKeyEnv          string         `yaml:"api_key_env" doc:"Name of the environment variable that holds the API key (never the key itself)." default:"\"OPENROUTER_API_KEY\"" check:"envname"`
	ManagementKeyEnv   string         `yaml:"management_key_env" doc:"Name of the environment variable that holds the management key." default:"\"OPENROUTER_MANAGEMENT_KEY\"" check:"envname"`
	BaseURL            string         `yaml:"base_url" doc:"API base URL without /v1 (https, or http on loopback)." default:"\"https://openrouter.ai/api\""`
	Attribution        *Attribution   `yaml:"attribution" doc:"Attribution headers sent with every request."`
	BackgroundModel    string         `yaml:"background_model" doc:"\"<author>/<slug>\" behind the haiku slot and the default hook model."`
	Preflight          string         `yaml:"preflight" doc:"What a failed preflight check does." enum:"strict|warn|off" default:"\"strict\""`
	CLIBudgetInflation *float64       `yaml:"cli_budget_inflation" doc:"Factor applied to the budget passed to the CLI, whose cost estimate is wrong for non-Anthropic models." default:"50" check:"atleast1"`
	Budget             *ORBudget      `yaml:"budget" doc:"Spending limits of the plan."`
	Routing            map[string]any `yaml:"routing" doc:"Provider routing (defaults, models, policy, enforcement, guardrail)."`
	Judge              *ORJudge       `yaml:"judge" doc:"Judge client settings."`
}

// Attribution is OpenRouter's attribution headers.
type Attribution struct {
	Referer     string `yaml:"referer" doc:"HTTP-Referer header."`
	Title       string `yaml:"title" doc:"X-OpenRouter-Title header." default:"\"agent-eval\""`
	RunIDHeader *bool  `yaml:"run_id_header" doc:"Send x-eval-run-id." default:"false"`
}

// ORBudget is an OpenRouter plan's budget.
type ORBudget struct {
	RunUSD       *float64 `yaml:"run_usd" doc:"Limit of the per-run key in USD." check:"positive"`
	DedicatedKey *bool    `yaml:"dedicated_key" doc:"Mint a dedicated key per run." default:"false"`
}

// ORJudge is the OpenRouter judge client's settings.
type ORJudge struct {
	Concurrency *int           `yaml:"concurrency" default:"4" check:"atleast1" doc:"Parallel judge calls."`
	MaxRetries  *int           `yaml:"max_retries" default:"3" check:"nonneg" doc:"Retries per judge call."`
	TimeoutS    *float64       `yaml:"timeout_s" default:"300" check:"positive" doc:"Seconds per judge call."`
	ExtraBody   map[string]any `yaml:"extra_body" doc:"Extra fields merged into each request body."`
	InheritPins *bool          `yaml:"inherit_pins" default:"false" doc:"Apply the routing pins to judge calls."`
}

// Permissions are the coarse allow/deny rules.
type Permissions struct {
	Allow []PermissionRule `yaml:"allow" doc:"Rules the agent may use without asking: \"Tool\", \"Tool(pattern)\" or {path, tools}."`
	Deny  []PermissionRule `yaml:"deny" doc:"Rules the agent may never use: \"Tool\", \"Tool(pattern)\" or {path, tools}."`
	// Sandbox and Network drive Claude Code's OS sandbox (bubblewrap): the
	// only layer that stops every spelling of a Bash command from reading a
	// denied path or reaching a host.
	Sandbox  string   `yaml:"sandbox" doc:"Claude Code's OS sandbox for Bash commands (bubblewrap): auto turns it on for the claude-code runner unless Bash is denied outright; on always; off never (run then names the protections that are off, validate the paths that stay open to Bash)." enum:"auto|on|off" default:"\"auto\""`
	ReadOnly []string `yaml:"read_only" doc:"More files and folders the agent may read (and run) inside the harness's boundary, at their own paths: a toolchain outside the system folders (~/.pyenv, ~/.nvm), an agent CLI a cli runner's wrapper script starts. $VAR and ${VAR} are expanded from agent-eval's environment; a relative path is relative to eval.yaml."`
	Boundary string   `yaml:"boundary" doc:"The harness's own boundary around every agent's whole process tree (namespaces, through bubblewrap): on (the default) runs each agent in a world drawn by allowlist — its workspace, its own HOME and /tmp, the system read-only, a network that reaches only the model and permissions.network's hosts — and refuses to run where it cannot be made; off runs the agents in the machine's world, recorded in run_result.json and said on every run." enum:"on|off" default:"\"on\""`
	Network  *Network `yaml:"network" doc:"Hosts the agent's commands may reach: the harness's boundary lets only these (and the model API) through its proxy, for every runner, and Claude Code's sandbox, which setting it turns on, holds its commands to them too. Absent: none (the agent CLI's own API traffic is let through either way). With the boundary off and no sandbox, run refuses an eval that sets it."`
}

// Network is the allowlist of hosts sandboxed commands may reach.
type Network struct {
	Allow []string `yaml:"allow" doc:"Host names the agent's commands may reach: \"localhost\", \"example.test\", \"*.test\" (any subdomain), an IP address, or \"*\" (any host). An empty list allows none." check:"host"`
}

// Dataset locates the cases.
type Dataset struct {
	Path      string     `yaml:"path" doc:"Directory whose sub-directories are the cases; relative to eval.yaml, or absolute." check:"noparent"`
	Schema    string     `yaml:"schema" doc:"Natural-language description of a case's files (prose, never parsed)."`
	Workspace *Workspace `yaml:"workspace" doc:"What is copied into each case workspace."`
}

// Workspace lists files materialised into every case workspace.
type Workspace struct {
	Files []WorkspaceFile `yaml:"files" doc:"Per-case paths copied from the case directory, or {dest, source} shared files."`
}

// Generation configures agent-eval generate; run and score ignore it.
type Generation struct {
	Strategy string           `yaml:"strategy" doc:"How cases are generated." enum:"skill|synthetic|from-traces" default:"\"skill\""`
	Context  any              `yaml:"context" doc:"Context for synthetic generation (text or a mapping)."`
	Seeds    []GenerationSeed `yaml:"seeds" doc:"Seed categories for synthetic generation."`
}

// GenerationSeed is one category of synthetic cases.
type GenerationSeed struct {
	Category    string `yaml:"category" doc:"Category recorded in each case's annotations." check:"required"`
	Count       *int   `yaml:"count" doc:"How many cases to generate." check:"required,atleast1"`
	Builtin     string `yaml:"builtin" doc:"Built-in seed prompt (e.g. docs/navigation). Exactly one of builtin, prompt_file, prompt."`
	PromptFile  string `yaml:"prompt_file" doc:"Seed prompt file, relative to eval.yaml." check:"noparent"`
	Prompt      string `yaml:"prompt" doc:"Seed prompt text."`
	Description string `yaml:"description" doc:"Description of the category."`
}

// Inputs is what the agent receives at run time.
type Inputs struct {
	Tools []ToolHandler `yaml:"tools" doc:"Tool-call handlers, written in natural language and compiled into tool_handlers.yaml."`
}

// ToolHandler intercepts matching tool calls.
type ToolHandler struct {
	Match      string `yaml:"match" doc:"What to intercept, in natural language (tool names such as AskUserQuestion, Bash or mcp__server__* are recognised)." check:"required"`
	Prompt     string `yaml:"prompt" doc:"How to handle it, in natural language. Exclusive with prompt_file."`
	PromptFile string `yaml:"prompt_file" doc:"File holding the prompt, relative to eval.yaml. Exclusive with prompt." check:"relpath,noparent"`
}

// Output is one artifact location.
type Output struct {
	Name         string         `yaml:"name" doc:"A label for the output (upstream's): shown where the output is named (validate, explain). Not a judge variable: the output's files are in {{ outputs }}."`
	Path         string         `yaml:"path" doc:"Directory or file inside the workspace; relative, no \"..\", not \".\"." check:"relpath,noparent,notdot"`
	Tool         string         `yaml:"tool" doc:"Tool name or pattern whose calls are captured as outputs."`
	Schema       string         `yaml:"schema" doc:"Natural-language description of the output (prose)."`
	BatchPattern string         `yaml:"batch_pattern" doc:"Batch mode: a file belongs to case n (1-based, in case_order.yaml's order) when its name below path starts with the pattern, {n} expanded (format allowed: {n:03d}); \"*\" shares the files with every case. With no pattern on any output the batch is judged as one case; an output without one beside outputs with one is shared."`
	Types        map[string]any `yaml:"types" doc:"Report rendering hints: file name or glob to a type."`
}

// Traces are agent-eval-harness's switches for what judges may read of a
// case, each on unless set to false.
type Traces struct {
	Stdout  *bool `yaml:"stdout" default:"true" doc:"Judges may read the case's stdout.log: outputs.stdout (and, with events off, the conversation). false leaves it out of every judge's record; the file stays in the case folder."`
	Stderr  *bool `yaml:"stderr" default:"true" doc:"Judges may read the case's stderr.log: outputs.stderr. false leaves it out of every judge's record; the file stays in the case folder."`
	Events  *bool `yaml:"events" default:"true" doc:"Judges may read the transcript (outputs.events, conversation, tool_calls, tool_trace), and run writes events.json (the runner-neutral events, from transcript.jsonl) in each case folder. false: no events.json, and judges see no events, conversation or tool calls (permission denials stay); transcript.jsonl is still kept."`
	Metrics *bool `yaml:"metrics" default:"true" doc:"Judges may read the case's metrics: outputs.exit_code, duration_s, cost_usd, num_turns and token_usage. false leaves them out of the record."`
}

// Hooks are shell commands run at lifecycle phases.
type Hooks struct {
	BeforeAll     []Hook `yaml:"before_all" doc:"Once, before the first case."`
	BeforeEach    []Hook `yaml:"before_each" doc:"Before each case (case mode)."`
	AfterEach     []Hook `yaml:"after_each" doc:"After each case (case mode)."`
	BeforeStep    []Hook `yaml:"before_step" doc:"Before each step of a pipeline."`
	AfterStep     []Hook `yaml:"after_step" doc:"After each step of a pipeline."`
	BeforeScoring []Hook `yaml:"before_scoring" doc:"Before judges run."`
	AfterAll      []Hook `yaml:"after_all" doc:"Once, after the last case."`
	BeforeReport  []Hook `yaml:"before_report" doc:"Before the report is written."`
}

// Hook is one lifecycle command.
type Hook struct {
	Command     string `yaml:"command" doc:"Shell command, run with bash -c." check:"required"`
	Timeout     *int   `yaml:"timeout" doc:"Seconds before the command is killed, or a duration (\"2m\")." default:"120" check:"positive,seconds"`
	Description string `yaml:"description" doc:"Label in logs (default: the command's first line)."`
	OnFailure   string `yaml:"on_failure" doc:"fail: a failing command fails the run; continue: go on." enum:"fail|continue" default:"\"fail\""`
	Condition   string `yaml:"condition" doc:"Shell command; the hook runs only when it exits 0."`
}

// Judge scores one aspect of a case. Its type follows from the keys set:
// builtin, check, expr, exec, agent, llm (llm_rubric, prompt or
// prompt_file) or code (module and function).
type Judge struct {
	Name            string         `yaml:"name" doc:"Unique judge name; \"pairwise\" is the A/B comparison judge." check:"required"`
	Description     string         `yaml:"description" doc:"What the judge checks."`
	If              string         `yaml:"if" doc:"Condition over annotations and outputs; when false the judge is skipped for the case."`
	Check           string         `yaml:"check" doc:"Deterministic check: the body of a Python function of (outputs, arguments) returning a value or (value, rationale), run with python3."`
	Expr            string         `yaml:"expr" doc:"Deterministic check as an expr-lang expression over the case record (outputs, annotations, arguments and the record's fields): a bool, a number, [value, \"message\"] or {value: v, rationale: \"...\"}. No Python needed."`
	Exec            StringList     `yaml:"exec" doc:"External judge: a program (a list of arguments, or a string split into them as runner.command is, without a shell) reading {case_id, outputs, arguments, judge} as JSON on stdin and printing {\"value\": ..., \"rationale\": \"...\"} on stdout. A non-zero exit or bad JSON is an error."`
	Timeout         *int           `yaml:"timeout" doc:"Seconds a check or exec judge may run per case, or a duration (\"30s\")." default:"60" check:"positive,seconds"`
	Env             []string       `yaml:"env" doc:"Names of score's environment variables a check, module or exec judge gets (it runs with the locale, TZ, USER and LOGNAME only, HOME and TMPDIR of its own and PATH without folders the agent could write; PATH here passes score's PATH as it is)." check:"envname"`
	Prompt          string         `yaml:"prompt" doc:"LLM judge prompt template (Jinja2). Its variables: outputs, annotations, annotations_text, inputs (input too), conversation, reasoning, tool_trace, arguments, evidence, case_id, answers, permission_denials, hook_decisions, violations; a name outside them (unless given a | default) is a config error, as it is in prompt_file and llm_rubric."`
	PromptFile      string         `yaml:"prompt_file" doc:"File holding the LLM judge prompt, relative to the project root." check:"noparent"`
	LLMRubric       string         `yaml:"llm_rubric" doc:"Rubric; the conversation is appended unless it uses {{ conversation }}."`
	Context         []string       `yaml:"context" doc:"Files appended to the prompt as context." check:"nonempty"`
	FeedbackType    string         `yaml:"feedback_type" doc:"Verdict type: bool (pass/fail), int or float (a score on score_range)." enum:"bool|int|float"`
	ScoreRange      *ScoreRange    `yaml:"score_range" doc:"[min, max] of a numeric verdict; off-scale values are errors."`
	Model           string         `yaml:"model" doc:"Model of this judge (default: models.judge)."`
	Module          string         `yaml:"module" doc:"Code judge: module holding the function."`
	Function        string         `yaml:"function" doc:"Code judge: function to call."`
	Builtin         string         `yaml:"builtin" doc:"Built-in judge as category/name."`
	Arguments       map[string]any `yaml:"arguments" doc:"Arguments passed to the judge."`
	Step            string         `yaml:"step" doc:"Judge only this step's outputs (an execution.steps id)."`
	Samples         *int           `yaml:"samples" doc:"Run an llm or agent judge this many times and keep the majority or median." default:"1" check:"atleast1"`
	Reduce          string         `yaml:"reduce" doc:"How a case's repeated attempts (execution.repeats) become its verdict: mean (the share of attempts passed, or the mean score), median, min, max, majority (a strict majority passed; a tie fails), any (pass@N), all (pass^N), pass@k (the unbiased chance that at least one of k attempts passes) or pass^k (that all k pass). Errored attempts count in none." default:"\"mean\""`
	Examples        *JudgeExamples `yaml:"examples" doc:"Few-shot exemplars for an LLM judge: cases a person reviewed (agent-eval review) in the eval's earlier runs — those of its runs directory whose run id sorts before the scored run's, never the scored run itself — each given to the judge after its prompt as the case's input, response and output files (clipped), with the human verdict and comment."`
	Agent           *AgentJudge    `yaml:"agent" doc:"Run the judge as a tool-using agent instead of a single LLM call: its prompt (rendered as an llm judge's) and a fixed contract go to one prompt-mode run of agent.runner, inside the harness's boundary, in a staged workspace of the case's collected text files; it writes its verdict to ./output/score.json. Its run is kept under the scored run's judges/<judge>/<case>/."`
	ProviderOptions map[string]any `yaml:"provider_options" doc:"Provider-specific options for an openrouter judge model. Does nothing in this version (validate and run warn)."`
}

// JudgeExamples selects few-shot exemplars from the human reviews of the
// eval's earlier runs (review.yaml). The choice is deterministic: it
// depends on the runs directory alone.
type JudgeExamples struct {
	Source string   `yaml:"source" doc:"Where exemplars come from: reviews, the review.yaml of the eval's earlier runs." enum:"reviews" default:"\"reviews\""`
	Count  *int     `yaml:"count" doc:"At most this many exemplars (fewer when the earlier runs have fewer reviewed cases)." default:"3" check:"atleast1"`
	Mix    []string `yaml:"mix" doc:"Which human verdicts to draw, taken in turn so they balance ([pass, fail]: a pass, a fail, a pass, ...; a verdict that runs out leaves its turns to the others); within a verdict the most recent run first, then by case id. Default: pass and fail." check:"nonempty"`
}

// AgentJudge runs a judge as an agent over a staged workspace: the case's
// collected text files (never one under output/ or .context/, a link or a
// binary), agent.context under ./.context/, and ./output/ for its verdict.
type AgentJudge struct {
	Runner       *Runner  `yaml:"runner" doc:"Runner of the judge agent, as the top-level runner (default claude-code); workspace_mode: repo is refused."`
	AllowedTools []string `yaml:"allowed_tools" doc:"Tools the judge agent may use; it may also write ./output/score.json, and nothing else." default:"[\"Read\",\"Grep\",\"Glob\"]"`
	DeniedTools  []string `yaml:"denied_tools" doc:"Tools the judge agent may not use (a tool in both lists is denied)." default:"[\"Bash\",\"WebFetch\",\"WebSearch\",\"Agent\"]"`
	Context      []string `yaml:"context" doc:"Files (relative to the project root, never outside it) staged as copies under ./.context/<name>." check:"nonempty"`
	Inputs       []string `yaml:"inputs" doc:"Top-level entries of the case's collected files staged for the judge (\".\" or none: all)." check:"nonempty"`
	Timeout      *int     `yaml:"timeout" doc:"Seconds the judge agent may run, or a duration (\"10m\") (default: execution.timeout, else 600)." check:"positive,seconds"`
	MaxBudgetUSD *float64 `yaml:"max_budget_usd" doc:"Spending cap in USD of one judge agent's run." default:"2" check:"nonneg"`
}

// Threshold is the regression gate of one judge.
type Threshold struct {
	MinPassRate   *float64 `yaml:"min_pass_rate" doc:"Fail when the pass rate is below this (a case the judge errored on counts as not passed)." check:"rate"`
	MaxErrorRate  *float64 `yaml:"max_error_rate" doc:"Fail when more than this share of cases errored." check:"rate"`
	MinMean       *float64 `yaml:"min_mean" doc:"Fail when the mean score is below this."`
	MinWinRate    *float64 `yaml:"min_win_rate" doc:"pairwise: fail when the win rate is below this." check:"rate"`
	MaxRegression *float64 `yaml:"max_regression" doc:"With --baseline: fail when the pass rate (else the mean) fell by more than this against the baseline's, on the cases both runs scored." check:"nonneg"`
	Significance  *float64 `yaml:"significance" doc:"With max_regression: a fall counts only when the paired test (exact McNemar for pass/fail, Wilcoxon signed-rank for scores) finds it at this level (0.05); otherwise the gate says there is no evidence of a change." check:"rate"`
	MaxViolations *int     `yaml:"max_violations" doc:"Under thresholds.violations: fail when the run's agents tried more than this many things their world refused (denied calls, hidden paths, refused connections, quota hits, tampering; docs/violations.md), over every case and attempt." check:"nonneg"`
	Confidence    *float64 `yaml:"confidence" doc:"Gate min_pass_rate and min_mean on the lower bound of the metric's confidence interval at this level (0.95: the Wilson interval of a pass rate, the t interval of a mean, over cases), not on the point estimate." check:"rate"`
}

// Reward combines judge values into one number in [0, 1].
type Reward struct {
	Formula    string             `yaml:"formula" doc:"\"weighted\" or an expression over judge names." default:"\"weighted\""`
	Weights    map[string]float64 `yaml:"weights" doc:"Weight per judge name for formula: weighted."`
	Gate       *bool              `yaml:"gate" doc:"Any failed bool judge makes the reward 0 (default true, false in judge mode)."`
	ScoreRange *ScoreRange        `yaml:"score_range" doc:"DEPRECATED: fallback [min, max] for judges that declare none."`
	Raw        []string           `yaml:"raw" doc:"Judges whose values are clamped to [0, 1] rather than normalised."`
	Judge      string             `yaml:"judge" doc:"Single-judge mode: this judge's value is the reward."`
	Normalize  *bool              `yaml:"normalize" doc:"Judge mode: map the value from the judge's score_range." default:"false"`
}

// MLflow configures logging to an MLflow server.
type MLflow struct {
	Experiment  string            `yaml:"experiment" doc:"Experiment name, created when missing (default: name)."`
	TrackingURI string            `yaml:"tracking_uri" doc:"The tracking server's http(s) URL (default: $MLFLOW_TRACKING_URI, else http://127.0.0.1:5000)."`
	Tags        map[string]string `yaml:"tags" doc:"Tags set on the MLflow run; they win over agent-eval's own, except mlflow.runName (always the run id)."`
}
