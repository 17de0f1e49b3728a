package agentcall

import "strings"

// AgentConfig reports whether the slash path rel names, at any depth and
// in any letter case (a case-insensitive file system makes .CLAUDE the
// .claude folder), a file an agent CLI takes as its own configuration or
// instructions rather than as material: settings that can run hooks or
// widen permissions, memory and rule files (loaded on reading the folder
// that holds them), MCP servers, the harness's hook files, a git folder.
// Whoever stages files an agent under test wrote for another agent to
// read must leave these out: the reader would run or obey them.
func AgentConfig(rel string) bool {
	for c := range strings.SplitSeq(rel, "/") {
		switch strings.ToLower(c) {
		case ".claude", ".gemini", ".codex", ".cursor", ".git", ".staged-plugins", ".mcp.json", ".cursorrules",
			"claude.md", "claude.local.md", "agents.md", "agents.override.md", "gemini.md",
			"tool_handlers.yaml", "hook_decisions.jsonl", ".hook-outputs.yaml", ".hook-outputs.json":
			return true
		}
	}
	return false
}
