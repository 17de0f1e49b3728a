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
}

// TestMarkers are the substrings that mark a test instance.
var TestMarkers = []string{"localhost", "127.0.0.1", "emulator", "test", "staging", "sandbox"}

// Catalog is the offline catalogue Stage 2 resolves handlers with.
var Catalog = []Service{
	{Name: "Jira", Aliases: []string{"jira"}, Commands: []string{`\bjira\b`, `atlassian\.net`, `/rest/api/[0-9]+/issue`},
		MCP: []string{"mcp__atlassian__*", "mcp__jira__*"}, Env: []string{"JIRA_SERVER", "JIRA_URL", "JIRA_BASE_URL"}},
	{Name: "Confluence", Aliases: []string{"confluence"}, Commands: []string{`\bconfluence\b`, `atlassian\.net/wiki`, `/wiki/rest/api`},
		MCP: []string{"mcp__atlassian__*", "mcp__confluence__*"}, Env: []string{"CONFLUENCE_URL", "CONFLUENCE_BASE_URL"}},
	{Name: "Slack", Aliases: []string{"slack"}, Commands: []string{`slack\.com/api`, `hooks\.slack\.com`, `\bslack(-cli)?\b`},
		MCP: []string{"mcp__slack__*"}, Env: []string{"SLACK_API_URL", "SLACK_BASE_URL"}},
	{Name: "GitHub", Aliases: []string{"github", "gh"}, Commands: []string{`api\.github\.com`, `\bgh\s+(pr|issue|api|release|repo)\b`, `git\s+push\b`},
		MCP: []string{"mcp__github__*"}, Env: []string{"GITHUB_API_URL", "GH_HOST"}},
	{Name: "GitLab", Aliases: []string{"gitlab"}, Commands: []string{`gitlab\.com/api`, `/api/v4/`, `\bglab\b`},
		MCP: []string{"mcp__gitlab__*"}, Env: []string{"GITLAB_URL", "GITLAB_HOST", "CI_SERVER_URL"}},
	{Name: "Linear", Aliases: []string{"linear"}, Commands: []string{`api\.linear\.app`, `\blinear\b`},
		MCP: []string{"mcp__linear__*"}, Env: []string{"LINEAR_API_URL"}},
	{Name: "PagerDuty", Aliases: []string{"pagerduty"}, Commands: []string{`api\.pagerduty\.com`, `events\.pagerduty\.com`, `\bpd\b`},
		MCP: []string{"mcp__pagerduty__*"}, Env: []string{"PAGERDUTY_API_URL"}},
	{Name: "Notion", Aliases: []string{"notion"}, Commands: []string{`api\.notion\.com`},
		MCP: []string{"mcp__notion__*"}, Env: []string{"NOTION_API_URL"}},
	{Name: "Kubernetes", Aliases: []string{"kubernetes", "kubectl", "k8s", "helm"}, Commands: []string{`\bkubectl\b`, `\bhelm\b`, `\boc\b`},
		MCP: []string{"mcp__kubernetes__*", "mcp__k8s__*"}, Env: []string{"KUBECONFIG", "KUBE_CONTEXT"}},
	{Name: "AWS", Aliases: []string{"aws", "s3", "ec2", "lambda"}, Commands: []string{`\baws\s`, `amazonaws\.com`},
		MCP: []string{"mcp__aws__*"}, Env: []string{"AWS_ENDPOINT_URL", "AWS_PROFILE"}},
	{Name: "Google Cloud", Aliases: []string{"gcloud", "gcp", "google cloud", "bigquery"}, Commands: []string{`\bgcloud\b`, `\bgsutil\b`, `\bbq\b`, `googleapis\.com`},
		MCP: []string{"mcp__gcp__*", "mcp__gcloud__*"}, Env: []string{"CLOUDSDK_CORE_PROJECT", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"}},
	{Name: "Azure", Aliases: []string{"azure", "az"}, Commands: []string{`\baz\s`, `management\.azure\.com`, `\.azure\.com`},
		MCP: []string{"mcp__azure__*"}, Env: []string{"AZURE_ENDPOINT", "AZURE_SUBSCRIPTION_ID"}},
	{Name: "Salesforce", Aliases: []string{"salesforce", "sfdc"}, Commands: []string{`\bsfdx?\b`, `\.salesforce\.com`, `\.force\.com`},
		MCP: []string{"mcp__salesforce__*"}, Env: []string{"SF_INSTANCE_URL", "SALESFORCE_INSTANCE_URL"}},
	{Name: "Sentry", Aliases: []string{"sentry"}, Commands: []string{`sentry\.io/api`, `\bsentry-cli\b`},
		MCP: []string{"mcp__sentry__*"}, Env: []string{"SENTRY_URL", "SENTRY_DSN"}},
	{Name: "databases", Aliases: []string{"database", "databases", "postgres", "postgresql", "psql", "mysql", "sql"}, Commands: []string{`\bpsql\b`, `\bmysql\b`, `\bpg_dump\b`, `\bmongosh?\b`, `\bredis-cli\b`},
		MCP: []string{"mcp__postgres__*", "mcp__mysql__*"}, Env: []string{"DATABASE_URL", "PGHOST", "MYSQL_HOST"}},
}

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
			out.EnvChecks[s.Env[0]] = EnvCheck{MustContain: slices.Clone(TestMarkers)}
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
