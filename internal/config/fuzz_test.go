package config

import (
	"errors"
	"os"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the loader. It must never panic, every
// problem it reports must carry a position, and whatever it accepts the JSON
// Schema must accept too. Seeds: the whole corpus; new finds are kept in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		for _, p := range corpus(f, dir) {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Parse("fuzz.yaml", data)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("Parse returned %T, want Errors: %v", err, err)
			}
			if len(es) == 0 {
				t.Fatal("Parse returned an empty Errors")
			}
			for _, e := range es {
				if e.Line < 1 || e.Col < 1 {
					t.Fatalf("problem without a position: %#v", e)
				}
			}
			return
		}
		if ev == nil {
			t.Fatal("Parse returned neither an Eval nor an error")
		}
		if valid, ok, detail := schemaVerdict(t, data); ok && !valid {
			t.Fatalf("the loader accepts what the schema rejects:\n%s\nschema: %s", data, detail)
		}
	})
}
