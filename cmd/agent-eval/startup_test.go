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
	// 456 KB (was 448): the OpenTelemetry export (internal/export/otlp:
	// otel, its sdk, otlptrace, the OTLP protobuf types) adds 35 KB in 265
	// allocations at init, measured with GODEBUG=inittrace=1 on the hook's
	// path: the protobuf file descriptors (otlp common, resource and trace
	// v1: 20 KB, 67 allocations) and sdk/resource and sdk/trace's
	// observability (9 KB, 91). Its gRPC exporters would add ~1500 more
	// allocations, which is why it has a client of its own. 464 KB: with
	// this session's exporters (history, Markdown, MLflow), 454 KB here and
	// 460 KB in CI's run of the same commit (make test, -race). 472 KB:
	// issue 32's clients and configuration readers in intercept (468 KB
	// measured here, 2.8 KB more than the commit before).
	totalInitBytes = 472 << 10
	// 3300: gonum's mat (the ANOVA's least squares) makes 443 small
	// allocations at init, 7 KB in 0.06 ms; the linear algebra is worth a
	// maintained library, and the byte budget is unchanged. 3450: the
	// OpenTelemetry export's 265 (see above). 3500: 3453 measured under
	// -race after issue 23's exporters and their hardening (history,
	// Markdown, MLflow; package-level tables and replacers of a few
	// allocations each), 3457 in CI at the same commit. 3560: issue 32's
	// database clients (mysql_config_editor, mariabackup, mydumper: their
	// option tables' first-use closures) and readers, 3494 measured here,
	// 35 more than the commit before; issue 37 takes the hook's init down.
	totalInitAllocs = 3560
)

// initBytesOf overrides ownPackageInitBytes for a package. intercept's
// shell word lists (some 800 entries in package-level maps: git's
// sub-commands, data programs, wrappers, …) are read by every Bash
// decision; its option tables and client index are built on first use.
var initBytesOf = map[string]int{
	"github.com/agent-eval/agent-eval/internal/intercept": 96 << 10,
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
