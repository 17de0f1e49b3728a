package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayering enforces the package layering: only internal/cli knows cobra,
// main only calls internal/cli, and nothing under internal/ imports
// internal/cli; the engine knows no cli, ui or runner in particular;
// runners do not import the engine; intercept does no I/O; the run
// directory's and transcript's packages and results know no runner; only
// the claude-code runner reads Claude Code's stream format.
func TestLayering(t *testing.T) {
	out := goList(t, "-json", "github.com/agent-eval/agent-eval/...")
	const mod = "github.com/agent-eval/agent-eval/"
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			if why := forbidden(p.ImportPath, imp); why != "" {
				t.Errorf("%s imports %s; %s", p.ImportPath, imp, why)
			}
			// internal/cli/docgen and cmd/agent-eval-docs, which runs it,
			// render the command tree's man pages, completions and
			// docs/cli: a package and program of their own, so agent-eval
			// does not link cobra/doc's man renderer (its tables would be
			// built on every start of the hook).
			docgen := p.ImportPath == mod+"internal/cli/docgen"
			docsMain := p.ImportPath == mod+"cmd/agent-eval-docs"
			switch {
			case strings.HasPrefix(imp, "github.com/spf13/") && p.ImportPath != mod+"internal/cli" && !docgen:
				t.Errorf("%s imports %s; only internal/cli may use cobra", p.ImportPath, imp)
			case docgen && strings.HasPrefix(imp, mod):
				t.Errorf("%s imports %s; docgen renders the tree it is given and knows nothing else", p.ImportPath, imp)
			case docsMain && strings.HasPrefix(imp, mod) && !slices.Contains([]string{mod + "internal/cli", mod + "internal/cli/docgen", mod + "internal/version"}, imp):
				t.Errorf("cmd/agent-eval-docs imports %s; it only hands cli's command tree to docgen", imp)
			case imp == mod+"internal/cli" && p.ImportPath != mod+"cmd/agent-eval" && !docsMain:
				t.Errorf("%s imports internal/cli; only cmd/agent-eval may", p.ImportPath)
			case p.ImportPath == mod+"cmd/agent-eval" && strings.HasPrefix(imp, mod) && imp != mod+"internal/cli":
				t.Errorf("cmd/agent-eval imports %s; main only calls internal/cli", imp)
			}
		}
	}
}

// TestBinaryLinksNoTestDoubles: the product binary links none of the test
// doubles (the Cursor stand-in, the fake servers) kept under
// internal/testutil.
func TestBinaryLinksNoTestDoubles(t *testing.T) {
	const mod = "github.com/agent-eval/agent-eval/"
	out := goList(t, "-deps", "./")
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, mod+"internal/cli") {
		t.Fatalf("go list -deps ./cmd/agent-eval lists no internal/cli; the listing is wrong:\n%s", out)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, mod+"internal/testutil") || strings.Contains(strings.ToLower(d), "standin") {
			t.Errorf("the agent-eval binary links %s, a test double", d)
		}
	}
}

// ioImports are the standard packages that reach the outside world.
var ioImports = []string{"os", "os/exec", "os/signal", "net", "net/http", "io/ioutil", "io/fs", "syscall", "path/filepath"}

// forbidden says why package p may not import imp, or "".
func forbidden(p, imp string) string {
	const mod = "github.com/agent-eval/agent-eval/internal/"
	under := func(pkg, root string) bool { return pkg == mod+root || strings.HasPrefix(pkg, mod+root+"/") }
	isRunner := under(imp, "runner") && imp != mod+"runner"
	switch {
	case under(p, "engine") && (under(imp, "cli") || under(imp, "ui")):
		return "the engine reports through an Observer and knows no CLI or terminal"
	case under(p, "engine") && isRunner && !strings.HasSuffix(p, "_test") && !strings.HasSuffix(p, ".test"):
		return "the engine drives runners through internal/runner only"
	case under(p, "runner") && under(imp, "engine"):
		return "runners do not import the engine"
	case p == mod+"intercept" && slices.Contains(ioImports, imp):
		return "intercept is pure: it does no I/O"
	case (under(p, "rundir") || under(p, "transcript") || under(p, "results")) && under(imp, "runner"):
		return "the run directory's types are runner-neutral"
	case imp == mod+"stream" && !under(p, "runner/claudecode") && !under(p, "runner/clirunner"):
		return "Claude Code's stream-json parser belongs to runner/claudecode (and runner/clirunner, which recognises it)"
	}
	return ""
}

// goList runs go list with args (the test is skipped with -short).
func goList(t *testing.T, args ...string) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return out
}
