package intercept

import (
	"slices"
	"testing"
)

// TestWordSetsSorted: has finds a word by binary search, so each list must
// be sorted, each word once.
func TestWordSetsSorted(t *testing.T) {
	sets := map[string]wordSet{"numericSpecials": numericSpecials, "promptVars": promptVars, "programVars": programVars,
		"scriptLanguages": scriptLanguages, "quietBuiltins": quietBuiltins, "offline": offline, "vimLayoutOptions": vimLayoutOptions,
		"gdbSafe": gdbSafe, "runsArgs": runsArgs, "dataPrograms": dataPrograms, "nonWriters": nonWriters, "kubeconfigWrites": kubeconfigWrites}
	for name, s := range sets {
		if len(s) == 0 {
			t.Errorf("%s is empty", name)
		}
		if !slices.IsSorted(s) || len(slices.Compact(slices.Clone(s))) != len(s) {
			t.Errorf("%s is not sorted with each word once: %q", name, s)
		}
	}
	if !dataPrograms.has("jq") || dataPrograms.has("jq ") || (wordSet{}).has("") {
		t.Error("has: jq is a data program, \"jq \" is not, an empty set has nothing")
	}
}
