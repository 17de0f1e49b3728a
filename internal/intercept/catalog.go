package intercept

import (
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Service is one entry of the built-in catalogue: how to recognise calls to
// an external service and how to tell a test instance from production.
type Service struct {
	Name    string   // display name
	Aliases []string // words in match/prompt that name it (whole words, case-insensitive)
	// Commands are case-insensitive regexes over a Bash command line.
	Commands []string
	// MCP are tool-name patterns of its MCP servers.
	MCP []string
	// Env are the variables that point a client at a server.
	Env []string
	// URLEnv: Env[0] holds a URL or host, so the catalogue checks it with
	// host_in (TestHosts) rather than the substring form.
	URLEnv bool
	// Overrides are how its CLIs name a target on their own command line.
	Overrides []Override
}

// Override is how a CLI names its target on its own command line, so a
// matched call that retargets itself (jira --server URL, kubectl --context
// X) is judged by the handler's env_checks rather than slipping past them.
// It applies to every handler whose filters match the command, whichever
// service the handler was resolved from.
type Override struct {
	Commands []string // command base names
	// Flags take the target as their value: --server URL, --server=URL,
	// and for one-letter flags -sURL.
	Flags []string
	// URLArgs: URL arguments (https://…, postgres://…) and scheme-less
	// host[:port][/path] words are targets (curl, wget).
	URLArgs bool
	// SkipValueOf: with URLArgs, options whose value is not a target
	// (curl -o out.json, -H header).
	SkipValueOf []string
	// Vars are the env_checks that judge the value: it passes when it
	// passes one of those the handler has. Empty: the handler's host_in
	// checks, or all its checks when it has none. When the handler has none
	// of them, the call is denied (the override cannot be checked).
	Vars []string
	// ConninfoKeys: keys of a key=value connection string argument that
	// name the target ("host=prod dbname=app" for psql).
	ConninfoKeys []string
	// IfChecked: judged only when the handler checks one of Vars; else
	// ignored (an env option that sets some other variable).
	IfChecked bool
	// Uncheckable: the value cannot be judged at all (terraform -chdir
	// picks a directory whose backend is unknown): a matched call is denied.
	Uncheckable bool
}

// TestMarkers are the substrings that mark a test instance (must_contain,
// for variables that do not hold a URL).
var TestMarkers = []string{"localhost", "127.0.0.1", "emulator", "test", "staging", "sandbox"}

// TestHosts are the hosts of test instances (host_in, for URL variables):
// loopback, and the names RFC 2606/6761 reserve for testing, which no
// production host can have (jira.test, api.example, x.localhost).
var TestHosts = []string{"localhost", "127.0.0.1", "::1", "test", "example", "invalid"}

var curlSkip = []string{"-o", "--output", "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--json", "-H", "--header",
	"-T", "--upload-file", "-K", "--config", "-F", "--form", "-w", "--write-out", "-b", "--cookie", "-c", "--cookie-jar", "-A",
	"--user-agent", "-u", "--user", "-X", "--request", "-D", "--dump-header", "--cacert", "--cert", "-E", "--key", "-m", "--max-time",
	"--connect-timeout", "-r", "--range", "-e", "--referer", "-O", "--output-dir", "--retry", "-x", "--proxy", "--resolve", "--connect-to",
	"--header-file", "-P", "--post-data", "--post-file", "--body-file", "--user-agent", "--output-document", "-a", "--append-output"}

// Catalog is the offline catalogue Stage 2 resolves handlers with.
var Catalog = []Service{
	{Name: "Jira", Aliases: []string{"jira"}, Commands: []string{`\bjira\b`, `atlassian\.net`, `/rest/api/[0-9]+/issue`},
		MCP: []string{"mcp__atlassian__*", "mcp__jira__*"}, Env: []string{"JIRA_SERVER", "JIRA_URL", "JIRA_BASE_URL"}, URLEnv: true,
		Overrides: []Override{{Commands: []string{"jira", "jira-cli", "acli"}, Flags: []string{"--server", "-s", "--url", "--site"}, Vars: []string{"JIRA_SERVER", "JIRA_URL", "JIRA_BASE_URL"}},
			{Commands: []string{"jira", "jira-cli"}, Flags: []string{"--config", "-c"}, Vars: []string{"JIRA_CONFIG_FILE"}, Uncheckable: true}}},
	{Name: "Confluence", Aliases: []string{"confluence"}, Commands: []string{`\bconfluence\b`, `atlassian\.net/wiki`, `/wiki/rest/api`},
		MCP: []string{"mcp__atlassian__*", "mcp__confluence__*"}, Env: []string{"CONFLUENCE_URL", "CONFLUENCE_BASE_URL"}, URLEnv: true},
	{Name: "Slack", Aliases: []string{"slack"}, Commands: []string{`slack\.com/api`, `hooks\.slack\.com`, `\bslack(-cli)?\b`},
		MCP: []string{"mcp__slack__*"}, Env: []string{"SLACK_API_URL", "SLACK_BASE_URL"}, URLEnv: true},
	{Name: "GitHub", Aliases: []string{"github", "gh"}, Commands: []string{`api\.github\.com`, `\bgh\s+(pr|issue|api|release|repo)\b`, `git\s+push\b`},
		MCP: []string{"mcp__github__*"}, Env: []string{"GITHUB_API_URL", "GH_HOST"}, URLEnv: true,
		Overrides: []Override{{Commands: []string{"gh"}, Flags: []string{"--hostname"}, Vars: []string{"GH_HOST", "GITHUB_API_URL"}}}},
	{Name: "GitLab", Aliases: []string{"gitlab"}, Commands: []string{`gitlab\.com/api`, `/api/v4/`, `\bglab\b`},
		MCP: []string{"mcp__gitlab__*"}, Env: []string{"GITLAB_URL", "GITLAB_HOST", "CI_SERVER_URL"}, URLEnv: true,
		Overrides: []Override{{Commands: []string{"glab"}, Flags: []string{"--hostname"}, Vars: []string{"GITLAB_HOST", "GITLAB_URL"}}}},
	{Name: "Linear", Aliases: []string{"linear"}, Commands: []string{`api\.linear\.app`, `\blinear\b`},
		MCP: []string{"mcp__linear__*"}, Env: []string{"LINEAR_API_URL"}, URLEnv: true},
	{Name: "PagerDuty", Aliases: []string{"pagerduty"}, Commands: []string{`api\.pagerduty\.com`, `events\.pagerduty\.com`, `\bpd\b`},
		MCP: []string{"mcp__pagerduty__*"}, Env: []string{"PAGERDUTY_API_URL"}, URLEnv: true},
	{Name: "Notion", Aliases: []string{"notion"}, Commands: []string{`api\.notion\.com`},
		MCP: []string{"mcp__notion__*"}, Env: []string{"NOTION_API_URL"}, URLEnv: true},
	{Name: "Kubernetes", Aliases: []string{"kubernetes", "kubectl", "k8s", "helm"}, Commands: []string{`\bkubectl\b`, `\bhelm\b`, `\boc\b`},
		MCP: []string{"mcp__kubernetes__*", "mcp__k8s__*"}, Env: []string{"KUBECONFIG", "KUBE_CONTEXT"},
		Overrides: []Override{{Commands: []string{"kubectl", "oc", "kubectx"}, Flags: []string{"--context", "--cluster", "--server", "-s", "--kubeconfig", "--user", "--token"}, Vars: []string{"KUBE_CONTEXT", "KUBECONFIG"}},
			{Commands: []string{"helm"}, Flags: []string{"--kube-context", "--kubeconfig", "--kube-apiserver", "--kube-token"}, Vars: []string{"KUBE_CONTEXT", "KUBECONFIG"}}}},
	{Name: "AWS", Aliases: []string{"aws", "s3", "ec2", "lambda"}, Commands: []string{`\baws\s`, `amazonaws\.com`},
		MCP: []string{"mcp__aws__*"}, Env: []string{"AWS_ENDPOINT_URL", "AWS_PROFILE"}, URLEnv: true,
		Overrides: []Override{{Commands: []string{"aws"}, Flags: []string{"--endpoint-url"}, Vars: []string{"AWS_ENDPOINT_URL"}}, {Commands: []string{"aws"}, Flags: []string{"--profile"}, Vars: []string{"AWS_PROFILE"}}}},
	{Name: "Google Cloud", Aliases: []string{"gcloud", "gcp", "google cloud", "bigquery"}, Commands: []string{`\bgcloud\b`, `\bgsutil\b`, `\bbq\b`, `googleapis\.com`},
		MCP: []string{"mcp__gcp__*", "mcp__gcloud__*"}, Env: []string{"CLOUDSDK_CORE_PROJECT", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"},
		Overrides: []Override{{Commands: []string{"gcloud", "gsutil", "bq"}, Flags: []string{"--project"}, Vars: []string{"CLOUDSDK_CORE_PROJECT", "GOOGLE_CLOUD_PROJECT"}}}},
	{Name: "Azure", Aliases: []string{"azure", "az"}, Commands: []string{`\baz\s`, `management\.azure\.com`, `\.azure\.com`},
		MCP: []string{"mcp__azure__*"}, Env: []string{"AZURE_ENDPOINT", "AZURE_SUBSCRIPTION_ID"}, URLEnv: true,
		Overrides: []Override{{Commands: []string{"az"}, Flags: []string{"--subscription"}, Vars: []string{"AZURE_SUBSCRIPTION_ID"}}}},
	{Name: "Salesforce", Aliases: []string{"salesforce", "sfdc"}, Commands: []string{`\bsfdx?\b`, `\.salesforce\.com`, `\.force\.com`},
		MCP: []string{"mcp__salesforce__*"}, Env: []string{"SF_INSTANCE_URL", "SALESFORCE_INSTANCE_URL"}, URLEnv: true,
		Overrides: []Override{{Commands: []string{"sf", "sfdx"}, Flags: []string{"--instance-url"}, Vars: []string{"SF_INSTANCE_URL", "SALESFORCE_INSTANCE_URL"}}}},
	{Name: "Sentry", Aliases: []string{"sentry"}, Commands: []string{`sentry\.io/api`, `\bsentry-cli\b`},
		MCP: []string{"mcp__sentry__*"}, Env: []string{"SENTRY_URL", "SENTRY_DSN"}, URLEnv: true,
		Overrides: []Override{{Commands: []string{"sentry-cli"}, Flags: []string{"--url"}, Vars: []string{"SENTRY_URL"}}}},
	{Name: "databases", Aliases: []string{"database", "databases", "postgres", "postgresql", "psql", "mysql", "sql"}, Commands: []string{`\bpsql\b`, `\bmysql\b`, `\bpg_dump\b`, `\bmongosh?\b`, `\bredis-cli\b`},
		MCP: []string{"mcp__postgres__*", "mcp__mysql__*"}, Env: []string{"DATABASE_URL", "PGHOST", "MYSQL_HOST"}, URLEnv: true,
		Overrides: []Override{{Commands: []string{"psql", "pg_dump", "pg_restore", "pg_dumpall", "mysql", "mysqldump", "mongosh", "mongo", "redis-cli"}, Flags: []string{"-h", "--host", "-u", "--uri", "--url"}, URLArgs: true, SkipValueOf: []string{"-f", "--file", "-c", "--command", "-e", "--execute", "-o", "--output", "-U", "--username", "-p", "--port"}, ConninfoKeys: []string{"host", "hostaddr"}, Vars: []string{"DATABASE_URL", "PGHOST", "PGHOSTADDR", "MYSQL_HOST"}},
			// A service or option file names the server somewhere the hook does not read.
			{Commands: []string{"psql", "pg_dump", "pg_restore", "pg_dumpall", "mysql", "mysqldump"}, Flags: []string{"--defaults-file", "--defaults-extra-file", "--login-path"}, Vars: []string{"PGSERVICE", "PGSERVICEFILE"}, Uncheckable: true}}},
	{Name: "Terraform", Aliases: []string{"terraform", "opentofu", "tofu"}, Commands: []string{`\bterraform\s+(apply|destroy|import|state|taint|untaint|force-unlock)\b`, `\btofu\s+(apply|destroy|import|state)\b`},
		Env: []string{"TF_WORKSPACE"},
		Overrides: []Override{{Commands: []string{"terraform", "tofu"}, Flags: []string{"-chdir", "-state", "-state-out", "-backend-config"}, Uncheckable: true},
			// The same, through the environment: another data dir holds another backend.
			{Commands: []string{"terraform", "tofu"}, Vars: []string{"TF_DATA_DIR", "TF_CLI_ARGS", "TF_CLI_ARGS_apply", "TF_CLI_ARGS_destroy", "TF_CLI_ARGS_import", "TF_CLI_ARGS_state", "TF_CLI_ARGS_init"}, Uncheckable: true}}},
}

// GenericOverrides apply to commands that reach any service: an HTTP
// client is judged by the URL it calls, whichever handler matched it.
var GenericOverrides = []Override{{Commands: []string{"curl", "wget", "http", "https", "xh", "httpie", "curlie"},
	URLArgs: true, SkipValueOf: curlSkip, Flags: []string{"--url"}},
	// A config file or a connect-to rule can send the request elsewhere.
	{Commands: []string{"curl", "curlie"}, Flags: []string{"-K", "--config", "--connect-to", "--resolve"}, Uncheckable: true},
	{Commands: []string{"wget"}, Flags: []string{"-i", "--input-file", "-e", "--execute", "--config"}, Uncheckable: true},
	// Raw connections name their host as an argument; bash's own
	// /dev/tcp/HOST/PORT redirects are read as socketCommand tcp://HOST:PORT.
	{Commands: []string{"nc", "ncat", "netcat", "telnet", socketCommand}, URLArgs: true, SkipValueOf: []string{"-p", "-s", "-w", "-i", "-q", "-x", "-X", "-e", "-c", "--exec", "--sh-exec", "--proxy", "--source-port", "--source"}},
	{Commands: []string{"openssl"}, Flags: []string{"-connect"}}}

// socketCommand names, in a matched call the hook makes up, a connection
// bash opens itself through a /dev/tcp or /dev/udp redirect.
const socketCommand = "bash-dev-tcp"

// Resolution says how Stage 2 resolved one handler.
type Resolution struct {
	Method   string   `json:"method"`             // catalog, llm, or none
	Services []string `json:"services,omitempty"` // catalogue entries used
}

// ResolveCatalog fills input_filters and env_checks (and MCP patterns) from
// the catalogue for every service the handler's text names. ok is false
// when it names none.
func ResolveCatalog(h Handler) (Handler, Resolution, bool) {
	if slices.Equal(h.Patterns, []string{"AskUserQuestion"}) {
		return h, Resolution{Method: "none"}, false
	}
	text := strings.ToLower(h.Match + "\n" + h.Prompt)
	var used []Service
	for _, s := range Catalog {
		for _, a := range s.Aliases {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(a) + `\b`).MatchString(text) {
				used = append(used, s)
				break
			}
		}
	}
	if len(used) == 0 {
		return h, Resolution{Method: "none"}, false
	}
	out := h
	out.Patterns = slices.Clone(h.Patterns)
	out.EnvChecks = map[string]EnvCheck{}
	for k, v := range h.EnvChecks {
		out.EnvChecks[k] = v
	}
	res := Resolution{Method: "catalog"}
	for _, s := range used {
		res.Services = append(res.Services, s.Name)
		out.InputFilters = dedupeStrings(out.InputFilters, s.Commands)
		out.Patterns = dedupeStrings(out.Patterns, s.MCP)
		// One of the service's variables suffices to target a test instance;
		// the first is the one the catalogue expects to be set.
		if _, set := out.EnvChecks[s.Env[0]]; !set {
			// A URL variable gets the strict host_in form: the substring
			// markers would pass contest.atlassian.net for "test".
			if s.URLEnv {
				out.EnvChecks[s.Env[0]] = EnvCheck{HostIn: slices.Clone(TestHosts)}
			} else {
				out.EnvChecks[s.Env[0]] = EnvCheck{MustContain: slices.Clone(TestMarkers)}
			}
		}
	}
	if !slices.Contains(out.Patterns, "Bash") {
		out.Patterns = append([]string{"Bash"}, out.Patterns...)
	}
	out.Patterns = slices.DeleteFunc(out.Patterns, func(p string) bool { return p == "*" })
	sort.Strings(res.Services)
	return out, res, true
}

func dedupeStrings(base, more []string) []string {
	out := slices.Clone(base)
	for _, s := range more {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
