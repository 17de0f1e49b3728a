package config

import (
	"fmt"
	"slices"
	"strings"
)

// effortValues are the reasoning efforts each runner type understands. A
// type missing here takes any text (cli passes it to its {effort}
// placeholder; gemini and cursor ignore it, which runner() warns about).
var effortValues = map[string][]string{
	"claude-code": {"low", "medium", "high", "xhigh", "max"},
	"codex":       {"minimal", "low", "medium", "high", "xhigh"},
}

// effort checks runner.effort against the values of the runner's type: the
// JSON Schema cannot tie one field's values to another's, so this is a
// semantic rule.
func (v *validator) effort(path, typ, effort string) {
	allowed, ok := effortValues[typ]
	if !ok || effort == "" || slices.Contains(allowed, effort) {
		return
	}
	msg := fmt.Sprintf("%q is not one of: %s for runner type %s", effort, strings.Join(allowed, ", "), typ)
	if sg := suggest(effort, allowed); sg != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", sg)
	}
	v.errf(path, CodeSemantic, "%s", msg)
}
