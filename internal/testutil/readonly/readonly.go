// Package readonly checks that a policy list handed out by an accessor is a
// copy: changing what the accessor returns must not change the policy.
package readonly

import "testing"

// Strings overwrites every entry of what get returns with "CHANGED" and
// appends to it, then fails t unless policy, a rendering of what the list
// governs, is the same as before.
func Strings(t *testing.T, get func() []string, policy func() string) {
	t.Helper()
	before := policy()
	got := get()
	for i := range got {
		got[i] = "CHANGED"
	}
	_ = append(got[:0], "APPENDED")
	if after := policy(); after != before {
		t.Errorf("changing the accessor's copy changed the policy:\nbefore %q\nafter  %q", before, after)
	}
}
