package permissions

import (
	"encoding/json"
	"maps"
	"strings"
)

// Settings file names written next to the workspace's .claude/settings.json.
const (
	// PermissionsFile holds the path-form rules merged into the workspace
	// settings; it is passed with --settings and removed after the run.
	PermissionsFile = ".eval-permissions.json"
	// OverlayFile replaces PermissionsFile when a provider plan is active: it
	// also carries the plan's env block, and exists even without path rules.
	OverlayFile = ".eval-overlay.json"
)

// ClaudePlan is how a compiled block reaches one Claude Code run.
type ClaudePlan struct {
	// Args are the CLI flags: the tool flags in simple form, and --settings
	// when a settings file is written.
	Args []string `json:"cli_args"`
	// SettingsFile is the name of the file to write next to the workspace
	// settings (PermissionsFile or OverlayFile), or "" when none is needed.
	SettingsFile string `json:"settings_file"`
	// Settings is that file's content.
	Settings map[string]any `json:"settings,omitempty"`
}

// PlanClaude decides how c reaches Claude Code. existing is the content of
// the workspace's .claude/settings.json (nil when there is none); settingsDir
// is where the settings file goes (the directory of that settings.json, else
// the workspace root) and is only used to spell the --settings argument.
// planEnv is a provider plan's env block (nil without a plan).
func PlanClaude(c Compiled, existing map[string]any, settingsDir string, planEnv map[string]string) ClaudePlan {
	var p ClaudePlan
	if c.Form == FormSimple {
		if len(c.Deny) > 0 {
			p.Args = append(p.Args, "--disallowed-tools", strings.Join(c.Deny, ","))
		}
		if len(c.Allow) > 0 {
			p.Args = append(p.Args, "--allowed-tools", strings.Join(c.Allow, ","))
		}
	}
	if c.Form == FormSimple && planEnv == nil {
		return p
	}
	p.SettingsFile = PermissionsFile
	if planEnv != nil {
		p.SettingsFile = OverlayFile
	}
	p.Settings = cloneJSON(existing)
	if c.Form == FormPath {
		p.Settings = MergeRules(p.Settings, c.Allow, c.Deny)
	}
	if planEnv != nil {
		env, _ := p.Settings["env"].(map[string]any)
		merged := map[string]any{}
		maps.Copy(merged, env)
		for k, v := range planEnv {
			merged[k] = v // the plan wins
		}
		p.Settings["env"] = merged
	}
	dir := strings.TrimRight(settingsDir, "/")
	if dir == "" {
		dir = "."
	}
	p.Args = append(p.Args, "--settings", dir+"/"+p.SettingsFile)
	return p
}

// MergeRules unions allow and deny into a settings document's permissions,
// the document's own rules first; nothing is ever dropped, deny least of
// all. It returns a new document.
func MergeRules(settings map[string]any, allow, deny []string) map[string]any {
	out := cloneJSON(settings)
	perms, _ := out["permissions"].(map[string]any)
	if perms == nil {
		perms = map[string]any{}
	}
	perms["allow"] = dedupe(stringList(perms["allow"]), allow)
	perms["deny"] = dedupe(stringList(perms["deny"]), deny)
	out["permissions"] = perms
	return out
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	if ss, ok := v.([]string); ok {
		out = append(out, ss...)
	}
	return out
}

// cloneJSON deep-copies a JSON document (nil becomes an empty one).
func cloneJSON(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return map[string]any{}
	}
	var out map[string]any
	if json.Unmarshal(b, &out) != nil || out == nil {
		return map[string]any{}
	}
	return out
}
