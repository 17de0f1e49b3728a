package generate

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-eval/agent-eval/internal/config"
)

// builtinFS holds the builtin seed prompts, one markdown file per prompt
// under a folder per group: prompts/docs/navigation.md is "docs/navigation".
//
//go:embed prompts
var builtinFS embed.FS

// Builtin is one builtin seed prompt.
type Builtin struct {
	Name    string // group/name
	Purpose string // its **Purpose** line
}

// Builtins lists the builtin seed prompts, sorted by name.
func Builtins() []Builtin {
	var out []Builtin
	_ = fs.WalkDir(builtinFS, "prompts", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".md" {
			return err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(p, "prompts/"), ".md")
		b, _ := builtinFS.ReadFile(p)
		out = append(out, Builtin{Name: name, Purpose: purposeOf(string(b))})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func purposeOf(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "**Purpose**:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// BuiltinPrompt returns the text of the builtin seed prompt name: either
// group/name or, as upstream accepts, the bare name when no other group
// has one of that name.
func BuiltinPrompt(name string) (string, error) {
	all := Builtins()
	var match []string
	for _, b := range all {
		if b.Name == name || (!strings.Contains(name, "/") && path.Base(b.Name) == name) {
			match = append(match, b.Name)
		}
	}
	if len(match) != 1 {
		names := make([]string, len(all))
		for i, b := range all {
			names[i] = b.Name
		}
		if len(match) > 1 {
			return "", fmt.Errorf("builtin seed prompt %q is ambiguous: %s", name, strings.Join(match, ", "))
		}
		return "", fmt.Errorf("no builtin seed prompt %q; the builtins are %s", name, strings.Join(names, ", "))
	}
	b, err := builtinFS.ReadFile("prompts/" + match[0] + ".md")
	return string(b), err
}

// SeedPrompt is the text of seed s's prompt: prompt, else prompt_file
// (relative to dir, eval.yaml's folder), else builtin.
func SeedPrompt(s config.GenerationSeed, dir string) (string, error) {
	switch {
	case strings.TrimSpace(s.Prompt) != "":
		return s.Prompt, nil
	case s.PromptFile != "":
		p := s.PromptFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("read the seed's prompt_file: %w", err)
		}
		return string(b), nil
	case s.Builtin != "":
		return BuiltinPrompt(s.Builtin)
	}
	return "", fmt.Errorf("seed %q sets none of builtin, prompt_file and prompt", s.Category)
}

// seedSource names where seed s's prompt comes from.
func seedSource(s config.GenerationSeed) string {
	switch {
	case strings.TrimSpace(s.Prompt) != "":
		return "inline"
	case s.PromptFile != "":
		return s.PromptFile
	}
	return s.Builtin
}
