package claudecode

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// HookEntry is one PreToolUse entry of Claude Code's settings.
type HookEntry struct {
	Matcher string        `json:"matcher"`
	Hooks   []HookCommand `json:"hooks"`
}

// HookCommand runs the hook.
type HookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
	// OnFailure "block" makes Claude Code deny the call when the hook itself
	// fails (a crash, a timeout, a missing binary); by default 2.1.332 lets
	// the call run.
	OnFailure string `json:"onFailure,omitempty"`
}

// Matcher translates a handler pattern into Claude Code's matcher syntax: an
// exact tool name stays as it is, a prefix glob (mcp__jira__*) becomes an
// anchored regular expression (^mcp__jira__.*), and * matches every tool.
func Matcher(pattern string) string {
	if pattern == "*" {
		return "*"
	}
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return "^" + regexp.QuoteMeta(prefix) + ".*"
	}
	return pattern
}

// HookSettings returns the PreToolUse entries that run command for every
// tool a handler pattern covers, and for Bash when there are denied paths
// or git rules:
// one entry per distinct matcher, sorted.
func HookSettings(f intercept.File, command string, timeoutSeconds int) []HookEntry {
	seen := map[string]bool{}
	var matchers []string
	if len(f.DeniedPaths) > 0 || f.Git != nil {
		seen["Bash"] = true // the path and git layers check every Bash command
		matchers = append(matchers, "Bash")
	}
	for _, h := range f.Handlers {
		for _, p := range h.Patterns {
			m := Matcher(p)
			if !seen[m] {
				seen[m] = true
				matchers = append(matchers, m)
			}
		}
	}
	sort.Strings(matchers)
	out := make([]HookEntry, 0, len(matchers))
	for _, m := range matchers {
		out = append(out, HookEntry{Matcher: m, Hooks: []HookCommand{{Type: "command", Command: command, Timeout: timeoutSeconds, OnFailure: "block"}}})
	}
	return out
}

// HookEntries are the PreToolUse entries that run command, as plain JSON
// values to merge into a settings document.
func HookEntries(f intercept.File, command string, timeoutSeconds int) []any {
	var entries []any
	for _, h := range HookSettings(f, command, timeoutSeconds) {
		b, _ := json.Marshal(h)
		var v any
		_ = json.Unmarshal(b, &v) // Marshal's own output of a plain struct: it decodes
		entries = append(entries, v)
	}
	return entries
}
