package permissions

import "slices"

// WorkspaceSettings composes the permissions of a workspace's
// .claude/settings.json from base (the project's settings carried over, or
// nil): the project's rules first, then the eval's compiled rules, then the
// absolute-workspace twins of every relative Bash rule in either list
// (bases: the workspace path and, when it is a symlink, its real path; in
// repo mode the project root). Allow twins need their target to exist
// (exists); deny twins are always added. It returns the new document, the
// twins added, and a warning when the workspace path cannot be spliced into
// a rule.
func WorkspaceSettings(base map[string]any, c Compiled, bases []string, exists func(rel string) bool) (settings map[string]any, twins []string, warning string) {
	settings = MergeRules(base, c.Allow, c.Deny)
	perms := settings["permissions"].(map[string]any)
	allow, deny := perms["allow"].([]string), perms["deny"].([]string)
	allowT, warning := Twins(allow, bases, true, exists)
	denyT, _ := Twins(deny, bases, false, exists)
	twins = append(slices.Clone(allowT[len(allow):]), denyT[len(deny):]...)
	perms["allow"], perms["deny"] = allowT, denyT
	return settings, twins, warning
}
