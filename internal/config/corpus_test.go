package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

// The corpus: testdata/invalid holds broken eval.yaml files, each with a
// .golden file of exactly what `agent-eval validate` prints for it;
// testdata/valid holds files that must load without errors. The same corpus
// checks the JSON Schema and seeds the fuzzer.

// missingFile is a corpus entry with no file behind it.
const missingFile = "testdata/invalid/99-missing-file.yaml"

func corpus(t testing.TB, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if dir == "invalid" {
		paths = append(paths, missingFile)
	}
	sort.Strings(paths)
	return paths
}

// render prints errors and warnings the way `agent-eval validate` does.
func render(ev *Eval, err error) string {
	var all Errors
	if err != nil {
		var es Errors
		if !errors.As(err, &es) {
			return "unexpected error type: " + err.Error() + "\n"
		}
		all = append(all, es...)
	}
	if ev != nil {
		all = append(all, ev.Warnings...)
	}
	all.Sort()
	var b strings.Builder
	for _, e := range all {
		b.WriteString(e.Error())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestInvalidCorpus(t *testing.T) {
	paths := corpus(t, "invalid")
	if len(paths) < 30 {
		t.Fatalf("the invalid corpus has %d files, want at least 30", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			ev, err := Load(path)
			if err == nil {
				t.Fatalf("Load(%s) succeeded, want errors", path)
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("Load(%s) error is %T, want config.Errors", path, err)
			}
			for _, e := range es {
				if e.Line == 0 && e.Code != CodeFile {
					t.Errorf("error without a line: %v", e)
				}
				if e.Code == "" {
					t.Errorf("error without a code: %v", e)
				}
			}
			golden.Assert(t, strings.TrimSuffix(path, ".yaml")+".golden", []byte(render(ev, err)))
		})
	}
}

func TestValidCorpus(t *testing.T) {
	paths := append(corpus(t, "valid"), "starter/eval.yaml", "../../examples/quickstart/eval.yaml")
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			ev, err := Load(path)
			if err != nil {
				t.Fatalf("Load(%s):\n%v", path, err)
			}
			if ev.Mode() != "case" && ev.Mode() != "batch" {
				t.Errorf("Mode() = %q", ev.Mode())
			}
		})
	}
}

var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	b, err := JSONSchema()
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaID)
})

// schemaVerdict validates YAML text against the JSON Schema the way an
// editor does: YAML is read into plain values first. ok is false when the
// text has no JSON form (it does not parse, or has duplicate keys), which the
// YAML library rejects before any schema is consulted.
func schemaVerdict(t testing.TB, data []byte) (valid, ok bool, detail string) {
	t.Helper()
	sch, err := compiledSchema()
	if err != nil {
		t.Fatalf("compile the generated schema: %v", err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return false, false, err.Error()
	}
	j, err := json.Marshal(v)
	if err != nil {
		return false, false, err.Error()
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return false, false, err.Error()
	}
	if err := sch.Validate(inst); err != nil {
		return false, true, err.Error()
	}
	return true, true, ""
}

// TestSchemaAgreesWithLoader checks the generated schema against the loader
// on the whole corpus: every valid file passes both; an invalid file fails
// the schema exactly when the loader found a structural problem (the schema
// does not see cross-references such as judge names or step ids).
func TestSchemaAgreesWithLoader(t *testing.T) {
	paths := append(corpus(t, "valid"), corpus(t, "invalid")...)
	paths = append(paths, "starter/eval.yaml", "../../examples/quickstart/eval.yaml")
	checked := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the missing file and the directory have no content
		}
		_, loadErr := Load(path)
		var es Errors
		errors.As(loadErr, &es)
		if hasCode(es, CodeSyntax) {
			continue
		}
		wantValid := true
		for _, e := range es {
			if e.Code.Structural() {
				wantValid = false
			}
		}
		valid, ok, detail := schemaVerdict(t, data)
		if !ok {
			if !hasCode(es, CodeDuplicate) {
				t.Errorf("%s: the YAML library rejects it (%s) but the loader reported no syntax or duplicate-key error", path, detail)
			}
			continue
		}
		checked++
		if valid != wantValid {
			t.Errorf("%s: schema valid = %v, loader structural errors = %v\nloader: %v\nschema: %s", path, valid, !wantValid, loadErr, detail)
		}
	}
	if checked < 30 {
		t.Errorf("only %d corpus files were checked against the schema, want at least 30", checked)
	}
}

// TestValidCorpusWarnings compares the warnings of each valid file that has
// a .golden file beside it.
func TestValidCorpusWarnings(t *testing.T) {
	for _, path := range corpus(t, "valid") {
		g := strings.TrimSuffix(path, ".yaml") + ".golden"
		if _, err := os.Stat(g); err != nil && !golden.Updating() {
			continue
		}
		if !strings.Contains(path, "warn") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			ev, err := Load(path)
			if err != nil {
				t.Fatalf("Load(%s): %v", path, err)
			}
			if len(ev.Warnings) == 0 {
				t.Fatalf("%s: no warnings; a valid file with a .golden exists to show its warnings", path)
			}
			golden.Assert(t, g, []byte(render(ev, nil)))
		})
	}
}
