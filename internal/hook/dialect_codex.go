package hook

import (
	"strings"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// decodeCodex reads Codex's PreToolUse JSON, Claude Code's shape: its
// shell calls come as Bash{command} already; a patch (apply_patch, its
// text in tool_input.command) that changes one file comes as Claude Code's
// Write (a file added) or Edit (a file updated or deleted) of that file, so
// the handlers and the path layer judge it as they judge Claude Code's
// file tools. A patch of several files (or a move) stays apply_patch; the
// path layer judges every file it names (codexPaths), for a run without
// Codex's sandbox.
func decodeCodex(raw []byte) (Input, error) {
	in, err := decodeClaude(raw)
	if err != nil {
		return in, err
	}
	return normaliseCodex(in), nil
}

// normaliseCodex turns a one-file apply_patch into its Write or Edit.
func normaliseCodex(in Input) Input {
	if in.ToolName != "apply_patch" {
		return in
	}
	patch, _ := in.ToolInput["command"].(string)
	if p, ok := in.ToolInput["input"].(string); ok && patch == "" {
		// The transcript's spelling of a patch of several files.
		patch, in.ToolInput = p, map[string]any{"command": p}
	}
	if tool, input, ok := PatchCall(patch); ok {
		in.ToolName, in.ToolInput = tool, input
	}
	return in
}

// PatchCall is the Write or Edit call a one-file Codex patch makes, in
// Claude Code's names; false for a patch of several files, or a move.
func PatchCall(patch string) (string, map[string]any, bool) {
	var tool, path string
	var added, removed []string
	for _, line := range strings.Split(patch, "\n") {
		for prefix, t := range map[string]string{"*** Add File: ": "Write", "*** Update File: ": "Edit", "*** Delete File: ": "Edit"} {
			if p, ok := strings.CutPrefix(line, prefix); ok {
				if tool != "" {
					return "", nil, false // a second file
				}
				tool, path = t, strings.TrimSpace(p)
			}
		}
		switch {
		case strings.HasPrefix(line, "*** Move to: "):
			return "", nil, false // two paths
		case strings.HasPrefix(line, "*** "), strings.HasPrefix(line, "@@"):
		case strings.HasPrefix(line, "+"):
			added = append(added, line[1:])
		case strings.HasPrefix(line, "-"):
			removed = append(removed, line[1:])
		}
	}
	if tool == "" || path == "" {
		return "", nil, false
	}
	if tool == "Write" {
		return tool, map[string]any{"file_path": path, "content": strings.Join(added, "\n")}, true
	}
	return tool, map[string]any{"file_path": path, "old_string": strings.Join(removed, "\n"), "new_string": strings.Join(added, "\n")}, true
}

// codexPaths is the shell command the path layer judges for a file call:
// Write and Edit as fileToolCommand has them, and a patch of several files
// as a write of each file it adds, updates, deletes or moves to.
func codexPaths(in Input) string {
	if in.ToolName != "apply_patch" {
		return fileToolCommand(in)
	}
	patch, _ := in.ToolInput["command"].(string)
	var cmds []string
	for _, line := range strings.Split(patch, "\n") {
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, prefix); ok && strings.TrimSpace(p) != "" {
				q := intercept.ShellQuote(strings.TrimSpace(p))
				cmds = append(cmds, "cat -- "+q+" > "+q)
			}
		}
	}
	return strings.Join(cmds, "; ")
}
