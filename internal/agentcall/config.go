package agentcall

import "strings"

// UntrustedSuffix is appended to each path component Defang renames.
const UntrustedSuffix = ".untrusted"

// agentConfig reports whether the path component c names, in any letter
// case (a case-insensitive file system makes .CLAUDE the .claude
// folder), what an agent CLI takes as its own configuration or
// instructions rather than as material: settings that can run hooks or
// widen permissions, memory and rule files, MCP servers, the harness's
// hook files, a git folder.
func agentConfig(c string) bool {
	switch strings.ToLower(c) {
	case ".claude", ".gemini", ".codex", ".cursor", ".git", ".staged-plugins", ".mcp.json", ".cursorrules",
		"claude.md", "claude.local.md", "agents.md", "agents.override.md", "gemini.md",
		"tool_handlers.yaml", "hook_decisions.jsonl", ".hook-outputs.yaml", ".hook-outputs.json":
		return true
	}
	return false
}

// Defang is the slash path rel with every component agentConfig names
// suffixed .untrusted (CLAUDE.md → CLAUDE.md.untrusted,
// .claude/settings.local.json → .claude.untrusted/settings.local.json),
// and whether it renamed one. Whoever stages files an agent under test
// wrote for another agent to read stages them under these names: under
// their own the reader's CLI would load them as its settings (a hook
// there runs code in the reader's run) or its instructions, while the
// material stays there to read.
func Defang(rel string) (string, bool) {
	parts := strings.Split(rel, "/")
	renamed := false
	for i, c := range parts {
		if agentConfig(c) {
			parts[i] = c + UntrustedSuffix
			renamed = true
		}
	}
	return strings.Join(parts, "/"), renamed
}
