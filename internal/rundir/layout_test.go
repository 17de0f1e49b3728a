package rundir

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/testutil/golden"
)

const layoutGolden = "testdata/layout.golden"

// TestLayoutVersion pins the run directory's layout — this package's file
// and folder names and run_result.json's fields — to LayoutVersion: a change
// to either without a bump of the version fails, and so does -update then.
func TestLayoutVersion(t *testing.T) {
	got := append(layoutNames(t), jsonFields(reflect.TypeOf(results.RunResult{}), reflect.TypeOf(results.Case{}))...)
	old, err := os.ReadFile(layoutGolden)
	if err != nil && !golden.Updating() {
		t.Fatalf("read %s (go test ./internal/rundir -run TestLayoutVersion -update creates it): %v", layoutGolden, err)
	}
	oldVersion, oldLines := parseLayoutGolden(t, string(old))
	diff := cmp.Diff(oldLines, got)
	switch {
	case diff != "" && oldVersion == LayoutVersion:
		t.Fatalf("the run directory's layout changed but rundir.LayoutVersion is still %d (-%s +now):\n%s\n"+
			"bump LayoutVersion (and its history in layout.go), update docs/run-directory.md, "+
			"then run go test ./internal/rundir -run TestLayoutVersion -update", LayoutVersion, layoutGolden, diff)
	case golden.Updating():
		out := fmt.Sprintf("layout_version: %d\n%s\n", LayoutVersion, strings.Join(got, "\n"))
		if err := os.WriteFile(layoutGolden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	case diff != "" || oldVersion != LayoutVersion:
		t.Fatalf("rundir.LayoutVersion is %d and %s pins layout %d (-golden +now):\n%s\nrun go test ./internal/rundir -run TestLayoutVersion -update",
			LayoutVersion, layoutGolden, oldVersion, diff)
	}
}

func parseLayoutGolden(t *testing.T, s string) (int, []string) {
	first, rest, _ := strings.Cut(s, "\n")
	v, ok := strings.CutPrefix(first, "layout_version: ")
	if !ok && s != "" {
		t.Fatalf("%s: the first line must be layout_version: N, got %q", layoutGolden, first)
	}
	n, _ := strconv.Atoi(v)
	return n, strings.Fields(rest)
}

// layoutNames are this package's string constants, as name=value, sorted:
// the run directory's file and folder names.
func layoutNames(t *testing.T) []string {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if i >= len(vs.Values) || !id.IsExported() {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out = append(out, "file:"+id.Name+"="+lit.Value)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// jsonFields are the JSON field names of the struct types reachable from
// roots, as Type.field, in type-name then field order.
func jsonFields(roots ...reflect.Type) []string {
	seen := map[reflect.Type]bool{}
	var types []reflect.Type
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		types = append(types, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if f.IsExported() && f.Tag.Get("json") != "-" {
				walk(f.Type)
			}
		}
	}
	for _, r := range roots {
		walk(r)
	}
	sort.Slice(types, func(i, j int) bool { return types[i].String() < types[j].String() })
	var out []string
	for _, t := range types {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			out = append(out, "json:"+t.String()+"."+name)
		}
	}
	return out
}

// A reader refuses a run of a newer layout than it knows, and reads one of
// its own or an older one (no layout_version: before layout 2).
func TestOpenChecksTheLayout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, runResult string
		newer           bool
	}{
		{"older, without the field", `{"schema_version": 1, "run_id": "r"}`, false},
		{"this one", fmt.Sprintf(`{"schema_version": 1, "layout_version": %d}`, LayoutVersion), false},
		{"newer", fmt.Sprintf(`{"schema_version": 1, "layout_version": %d}`, LayoutVersion+1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, RunResultFile), []byte(tc.runResult), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir)
			if got := errors.Is(err, ErrNewerLayout); got != tc.newer {
				t.Fatalf("Open = %v, want ErrNewerLayout: %v", err, tc.newer)
			}
			if tc.newer {
				if want := fmt.Sprintf("(layout %d; this one reads up to %d)", LayoutVersion+1, LayoutVersion); !strings.Contains(err.Error(), want) {
					t.Errorf("Open = %v, want it to say %s", err, want)
				}
				return
			}
			d := Dir{Path: dir}
			if _, err := d.ReadRun(); err != nil {
				t.Errorf("ReadRun = %v", err)
			}
		})
	}
	d := Dir{Path: t.TempDir()}
	if err := os.WriteFile(d.RunResult(), []byte(`{"layout_version": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadRun(); !errors.Is(err, ErrNewerLayout) {
		t.Errorf("ReadRun of a newer layout = %v, want ErrNewerLayout", err)
	}
}
