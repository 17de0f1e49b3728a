package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNoEagerRegexps: the hook is this binary, started once per tool call,
// and every package's initialisation runs on each start. Package-level
// regular expressions are compiled on first use (internal/lazyre), never
// in a var initialiser.
func TestNoEagerRegexps(t *testing.T) {
	fset := token.NewFileSet()
	var found int
	err := filepath.WalkDir("../../internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found++
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			ast.Inspect(gd, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false // runs when called, not at start-up
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "regexp" && strings.HasPrefix(sel.Sel.Name, "MustCompile") {
						t.Errorf("%s: a package-level regexp.%s runs at every start; use lazyre.New", fset.Position(call.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil || found < 20 {
		t.Fatalf("walked %d Go files under internal/ (err %v)", found, err)
	}
}

// Init budgets: what package initialisation may allocate on every start of
// the binary (the hook runs once per tool call). Allocations are counted,
// not time: they are the same on every run and machine load does not move
// them. Each of our own packages may do a little (a small map, an error
// value); tables, templates and anything larger are built on first use.
const (
	ownPackageInitBytes = 8 << 10
	// Issue 37 took the hook's init down (GODEBUG=inittrace=1 on the
	// hook's path, every init line counted, go1.26, 2 cores): 470 KB in
	// 3513 allocations over 189 package inits before (6aab04d), 437 KB in
	// 3285 once internal/export/otlp encoded OTLP itself (the OTel SDK, its
	// otlptrace exporter and the protobuf runtime left the binary: 433 → 385
	// packages linked, and no more hashing of the executable by protobuf's
	// detrand), 373 KB in 3134 over 166 once intercept's word lists became
	// static data or first-use tables (93 KB in 572 allocations → 29 KB in
	// 419). This test counts the binary's own dependencies only: 373 KB in
	// 3134. What is left is mostly others': anthropic-sdk-go 90 KB, both
	// go.yaml.in/yaml v3 and v4 26 KB each (v4 through invopop/jsonschema),
	// encoding/xml 19 KB, html/template 18 KB, mvdan.cc/sh's fileutil 15 KB,
	// gonum's mat 443 small allocations. The budgets leave ~4% for CI's
	// -race runs, which allocate a little more.
	totalInitBytes  = 388 << 10
	totalInitAllocs = 3260
)

// heavyPackages must not be linked into the binary again: each one's
// initialisation ran on every start, the hook's (once per tool call of
// every agent) included. internal/export/otlp encodes OTLP/HTTP protobuf
// by hand instead (issue 37); tests may still import them.
var heavyPackages = []string{
	"google.golang.org/protobuf/",
	"go.opentelemetry.io/otel/sdk",
	"go.opentelemetry.io/otel/exporters/",
	"go.opentelemetry.io/proto/",
	"google.golang.org/grpc",
}

// TestHeavyPackagesNotLinked fails when the binary links one of
// heavyPackages (from go list -deps, so it is deterministic).
func TestHeavyPackagesNotLinked(t *testing.T) {
	deps := strings.Fields(string(goList(t, "-deps", ".")))
	if len(deps) < 100 {
		t.Fatalf("go list -deps gave %d packages", len(deps))
	}
	for _, p := range deps {
		for _, h := range heavyPackages {
			if strings.HasPrefix(p, h) || p == strings.TrimSuffix(h, "/") {
				t.Errorf("the binary links %s (%s*): its init runs on every hook call; keep it test-only", p, h)
			}
		}
	}
}

// initBytesOf overrides ownPackageInitBytes for a package. intercept's
// clients (package-level structs, each with its option tables' first-use
// closures) take 29 KB; its word lists are static (wordSet) or built on
// first use.
var initBytesOf = map[string]int{
	"github.com/agent-eval/agent-eval/internal/intercept": 32 << 10,
}

// TestInitBudget runs the binary (this test binary as agent-eval, see
// TestMain) with GODEBUG=inittrace=1 and fails when one of our packages, or
// initialisation as a whole (the binary's own dependencies, not the test's),
// allocates more than its budget.
func TestInitBudget(t *testing.T) {
	out := goList(t, "-deps", ".")
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A handlers file of its own, so the decision's ledger line lands in
	// the test's folder.
	handlers := filepath.Join(t.TempDir(), "tool_handlers.yaml")
	if err := os.WriteFile(handlers, []byte("handlers: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "hook", "--handlers", handlers)
	cmd.Args[0] = "agent-eval"
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	cmd.Stdin = strings.NewReader(`{"tool_name":"Read","tool_input":{"file_path":"x"},"cwd":"/"}`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent-eval hook: %v\n%s", err, stderr.Bytes())
	}
	inits, err := parseInitTrace(stderr.String())
	if err != nil {
		t.Fatal(err)
	}
	var bytes, allocs, n int
	var others []initCost
	for _, c := range inits {
		if !deps[c.pkg] {
			continue // linked for the test only
		}
		n++
		bytes += c.bytes
		allocs += c.allocs
		if strings.HasPrefix(c.pkg, "github.com/agent-eval/agent-eval/") {
			budget := ownPackageInitBytes
			if b, ok := initBytesOf[c.pkg]; ok {
				budget = b
			}
			if c.bytes > budget {
				t.Errorf("%s allocates %d bytes (%d allocations) at init, over its budget of %d bytes: build it on first use (sync.OnceValue, internal/lazyre)", c.pkg, c.bytes, c.allocs, budget)
			}
		} else if c.bytes > 0 {
			others = append(others, c)
		}
	}
	if n < 50 {
		t.Fatalf("only %d of the binary's packages in the init trace:\n%s", n, stderr.Bytes())
	}
	if bytes > totalInitBytes || allocs > totalInitAllocs {
		t.Errorf("package initialisation allocates %d bytes in %d allocations, over the budget of %d bytes and %d allocations", bytes, allocs, totalInitBytes, totalInitAllocs)
	}
	slices.SortFunc(others, func(a, b initCost) int { return b.bytes - a.bytes })
	for _, c := range others[:min(len(others), 5)] {
		t.Logf("init of %s %d bytes, %d allocations", c.pkg, c.bytes, c.allocs)
	}
	t.Logf("init of %d packages: %d bytes in %d allocations", n, bytes, allocs)
}

type initCost struct {
	pkg           string
	bytes, allocs int
}

// parseInitTrace reads GODEBUG=inittrace=1 lines:
// "init PKG @0.5 ms, 0.1 ms clock, 1576 bytes, 6 allocs".
func parseInitTrace(s string) ([]initCost, error) {
	var out []initCost
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("reading init trace line %q: %w", line, err)
		}
		out = append(out, initCost{pkg: f[1], bytes: b, allocs: a})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no init trace lines in:\n%s", s)
	}
	return out, nil
}
