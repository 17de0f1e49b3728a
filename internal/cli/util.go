package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// printJSON prints v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("print the run's result: %w", err)
	}
	return nil
}

// runConfigHelp is -c's help in the verbs that read a run directory with
// the run's own copy of eval.yaml by default.
const runConfigHelp = "the eval config `FILE`, or the folder holding eval.yaml (default: the run's own copy, RUN_DIR/config/eval.yaml; ./eval.yaml only finds the run when no RUN_DIR is given)"

// optionalArg is a verb's one optional argument, "" when not given.
func optionalArg(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return ""
}
