// Command floor is the speed floor for the hook benchmark: a minimal static
// Go program that only decodes a PreToolUse input from stdin and encodes a
// decision, which is the least any hook process must do.
package main

import (
	"encoding/json"
	"os"
)

func main() {
	var in map[string]any
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		os.Exit(2)
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "floor"}})
}
