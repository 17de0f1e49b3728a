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
	// host_in (testHosts) rather than the substring form.
	URLEnv bool
}

// testMarkers are the substrings that mark a test instance (must_contain,
// for variables that do not hold a URL).
var testMarkers = []string{"localhost", "127.0.0.1", "emulator", "test", "staging", "sandbox"}

// testHosts are the hosts of test instances (host_in, for URL variables):
// loopback, and the names RFC 2606/6761 reserve for testing, which no
// production host can have (jira.test, api.example, x.localhost).
var testHosts = []string{"localhost", "127.0.0.1", "::1", "test", "example", "invalid"}

// Catalog returns a copy of the offline catalogue Stage 2 resolves
// handlers with: changing it does not change the policy.
func Catalog() []Service {
	out := make([]Service, len(catalog))
	for i, s := range catalog {
		s.Aliases, s.Commands, s.MCP, s.Env = slices.Clone(s.Aliases), slices.Clone(s.Commands), slices.Clone(s.MCP), slices.Clone(s.Env)
		out[i] = s
	}
	return out
}

// catalog is the catalogue itself; only Catalog's copies leave the package.
var catalog = []Service{
	{Name: "Jira", Aliases: []string{"jira"}, Commands: []string{`\bjira\b`, `atlassian\.net`, `/rest/api/([0-9]+|latest)/`, `/rest/(agile|servicedeskapi|greenhopper)/`},
		MCP: []string{"mcp__atlassian__*", "mcp__jira__*"}, Env: []string{"JIRA_SERVER", "JIRA_URL", "JIRA_BASE_URL"}, URLEnv: true},
	{Name: "Confluence", Aliases: []string{"confluence"}, Commands: []string{`\bconfluence\b`, `atlassian\.net/wiki`, `/wiki/rest/api`},
		MCP: []string{"mcp__atlassian__*", "mcp__confluence__*"}, Env: []string{"CONFLUENCE_URL", "CONFLUENCE_BASE_URL"}, URLEnv: true},
	{Name: "Slack", Aliases: []string{"slack"}, Commands: []string{`slack\.com/api`, `hooks\.slack\.com`, `\bslack(-cli)?\b`},
		MCP: []string{"mcp__slack__*"}, Env: []string{"SLACK_API_URL", "SLACK_BASE_URL"}, URLEnv: true},
	{Name: "GitHub", Aliases: []string{"github", "gh"}, Commands: []string{`api\.github\.com`, `\bgh\s+(pr|issue|api|release|repo|workflow|run|secret|variable|gist|label|project|search|cache|ruleset|codespace|org|ssh-key|gpg-key|attestation|browse|status)\b`, `git\s+(push|send-pack)\b`},
		MCP: []string{"mcp__github__*"}, Env: []string{"GITHUB_API_URL", "GH_HOST"}, URLEnv: true},
	{Name: "GitLab", Aliases: []string{"gitlab"}, Commands: []string{`gitlab\.com/api`, `/api/v4/`, `\bglab\b`},
		MCP: []string{"mcp__gitlab__*"}, Env: []string{"GITLAB_URL", "GITLAB_HOST", "CI_SERVER_URL"}, URLEnv: true},
	{Name: "Linear", Aliases: []string{"linear"}, Commands: []string{`api\.linear\.app`, `\blinear\b`},
		MCP: []string{"mcp__linear__*"}, Env: []string{"LINEAR_API_URL"}, URLEnv: true},
	{Name: "PagerDuty", Aliases: []string{"pagerduty"}, Commands: []string{`api\.pagerduty\.com`, `events\.pagerduty\.com`, `\bpd\b`},
		MCP: []string{"mcp__pagerduty__*"}, Env: []string{"PAGERDUTY_API_URL"}, URLEnv: true},
	{Name: "Notion", Aliases: []string{"notion"}, Commands: []string{`api\.notion\.com`},
		MCP: []string{"mcp__notion__*"}, Env: []string{"NOTION_API_URL"}, URLEnv: true},
	{Name: "Kubernetes", Aliases: []string{"kubernetes", "kubectl", "k8s", "helm"}, Commands: []string{`\bkubectl\b`, `\bhelm\b`, `\boc\b`},
		MCP: []string{"mcp__kubernetes__*", "mcp__k8s__*"}, Env: []string{"KUBECONFIG", "KUBE_CONTEXT"}},
	{Name: "AWS", Aliases: []string{"aws", "s3", "ec2", "lambda"}, Commands: []string{`\baws\s`, `amazonaws\.com`},
		MCP: []string{"mcp__aws__*"}, Env: []string{"AWS_ENDPOINT_URL", "AWS_PROFILE"}, URLEnv: true},
	{Name: "Google Cloud", Aliases: []string{"gcloud", "gcp", "google cloud", "bigquery"}, Commands: []string{`\bgcloud\b`, `\bgsutil\b`, `\bbq\b`, `googleapis\.com`},
		MCP: []string{"mcp__gcp__*", "mcp__gcloud__*"}, Env: []string{"CLOUDSDK_CORE_PROJECT", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"}},
	{Name: "Azure", Aliases: []string{"azure", "az"}, Commands: []string{`\baz\s`, `management\.azure\.com`, `\.azure\.com`},
		MCP: []string{"mcp__azure__*"}, Env: []string{"AZURE_ENDPOINT", "AZURE_SUBSCRIPTION_ID"}, URLEnv: true},
	{Name: "Salesforce", Aliases: []string{"salesforce", "sfdc"}, Commands: []string{`\bsfdx?\b`, `\.salesforce\.com`, `\.force\.com`},
		MCP: []string{"mcp__salesforce__*"}, Env: []string{"SF_INSTANCE_URL", "SALESFORCE_INSTANCE_URL"}, URLEnv: true},
	{Name: "Sentry", Aliases: []string{"sentry"}, Commands: []string{`sentry\.io/api`, `\bsentry-cli\b`},
		MCP: []string{"mcp__sentry__*"}, Env: []string{"SENTRY_URL", "SENTRY_DSN"}, URLEnv: true},
	// One filter per family: every client the client table knows
	// (targets_db.go) is gated, and each is read by its family's options.
	{Name: "databases", Aliases: []string{"database", "databases", "postgres", "postgresql", "psql", "mysql", "mariadb", "mongodb", "redis", "clickhouse", "sql"},
		Commands: []string{`\b(psql|pg_dump|pg_dumpall|pg_restore|pg_basebackup|pg_receivewal|pg_recvlogical|pg_isready|pg_amcheck|pg_rewind|pg_createsubscriber|pgbench|createdb|dropdb|createuser|dropuser|vacuumdb|reindexdb|clusterdb|vacuumlo|oid2name|pgcli)\b`,
			`\b(mysql\w*|mariadb(-\w+)?|mariabackup|xtrabackup|mydumper|myloader|mycli|usql)\b`, `\b(clickhouse(-client)?|mongo(sh|dump|restore|export|import|stat|top|files)?|(redis|valkey|keydb)-cli)\b`,
			`\b(postgres(ql)?|mysql|mariadb|mongodb(\+srv)?|rediss?|clickhouse)://`},
		MCP: []string{"mcp__postgres__*", "mcp__mysql__*"}, Env: []string{"DATABASE_URL", "PGHOST", "MYSQL_HOST"}, URLEnv: true},
	{Name: "Terraform", Aliases: []string{"terraform", "opentofu", "tofu"}, Commands: []string{`\bterraform\s+(apply|destroy|import|state|taint|untaint|force-unlock)\b`, `\btofu\s+(apply|destroy|import|state)\b`},
		Env: []string{"TF_WORKSPACE"}},
}

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
	for _, s := range catalog {
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
				out.EnvChecks[s.Env[0]] = EnvCheck{HostIn: slices.Clone(testHosts)}
			} else {
				out.EnvChecks[s.Env[0]] = EnvCheck{MustContain: slices.Clone(testMarkers)}
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
