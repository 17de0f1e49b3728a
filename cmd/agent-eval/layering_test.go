package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestLayering enforces the package layering: only internal/cli knows cobra,
// main only calls internal/cli, and nothing under internal/ imports
// internal/cli.
func TestLayering(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-json", "github.com/agent-eval/agent-eval/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
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
			switch {
			case strings.HasPrefix(imp, "github.com/spf13/") && p.ImportPath != mod+"internal/cli":
				t.Errorf("%s imports %s; only internal/cli may use cobra", p.ImportPath, imp)
			case imp == mod+"internal/cli" && p.ImportPath != mod+"cmd/agent-eval":
				t.Errorf("%s imports internal/cli; only cmd/agent-eval may", p.ImportPath)
			case p.ImportPath == mod+"cmd/agent-eval" && strings.HasPrefix(imp, mod) && imp != mod+"internal/cli":
				t.Errorf("cmd/agent-eval imports %s; main only calls internal/cli", imp)
			}
		}
	}
}
