package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// repoRoot is the repository's root, seen from this package's folder.
const repoRoot = "../.."

// readmeMaxLines is how long README.md may grow: what it is, install, the
// two commands, a CI gate and links; the rest belongs in docs/.
const readmeMaxLines = 250

// commandsPage holds the commands table, one row per command.
const commandsPage = "docs/commands.md"

// doc is one Markdown file of the repository's documentation.
type doc struct {
	path    string          // relative to the repository's root, slash-separated
	text    string          // the whole file
	anchors map[string]bool // GitHub's anchor of every heading
	titles  map[string]bool // every heading's text
}

// docs reads README.md and every docs/**/*.md, each with its headings.
func docs(t *testing.T) map[string]*doc {
	t.Helper()
	paths := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(repoRoot, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*doc{}
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(repoRoot, p))
		if err != nil {
			t.Fatal(err)
		}
		d := &doc{path: p, text: string(b), anchors: map[string]bool{}, titles: map[string]bool{}}
		seen := map[string]int{}
		for _, line := range prose(d.text) {
			if !strings.HasPrefix(line, "#") {
				continue
			}
			title := strings.TrimSpace(strings.TrimLeft(line, "#"))
			d.titles[title] = true
			a := anchorOf(title)
			if n := seen[a]; n > 0 {
				d.anchors[a+"-"+strconv.Itoa(n)] = true // GitHub numbers a repeated heading's anchor
			} else {
				d.anchors[a] = true
			}
			seen[a]++
		}
		out[p] = d
	}
	if len(out) < 10 {
		t.Fatalf("found %d documentation files; docs/ is missing", len(out))
	}
	return out
}

// prose is a Markdown text's lines outside fenced code blocks.
func prose(text string) []string {
	var out []string
	inFence := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			out = append(out, line)
		}
	}
	return out
}

// anchorOf is GitHub's anchor for a heading: lower case, punctuation other
// than - and _ dropped, spaces as -.
func anchorOf(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan = regexp.MustCompile("`[^`]*`")
)

// TestDocsLinksResolve: every relative link of README.md and docs/**/*.md
// names a file that exists, and every #anchor, on its own or after a
// Markdown file, a heading of that file (GitHub's anchor rules).
func TestDocsLinksResolve(t *testing.T) {
	all := docs(t)
	links := 0
	for _, d := range all {
		text := codeSpan.ReplaceAllString(strings.Join(prose(d.text), "\n"), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			file, anchor, _ := strings.Cut(target, "#")
			dest := d
			if file != "" {
				p := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(d.path), file)))
				if _, err := os.Stat(filepath.Join(repoRoot, p)); err != nil {
					t.Errorf("%s links %s, which does not exist", d.path, target)
					continue
				}
				dest = all[p]
			}
			if anchor == "" {
				continue
			}
			if dest == nil {
				t.Errorf("%s links %s: an anchor into a file that is not Markdown documentation", d.path, target)
			} else if !dest.anchors[anchor] {
				t.Errorf("%s links %s, but %s has no heading #%s", d.path, target, dest.path, anchor)
			}
		}
	}
	if links < 50 {
		t.Errorf("found %d relative links in the documentation: the pattern is broken", links)
	}
}

// docRef is a reference, in code, a help text or a script, to a page of
// docs/ and maybe a heading on it: docs/security.md#sandbox or
// docs/security.md "Sandbox" (not ../shared/docs/…, the project's brief).
var docRef = regexp.MustCompile(`(?:^|[^/.\w])docs/([a-z0-9_/-]+\.md)(?:#([a-z0-9_-]+)|,? "([^"]+)")?`)

// readmeRef is the old way of pointing at documentation, a README
// section (README: Sandbox, README "Development", the README's "Sandbox").
var readmeRef = regexp.MustCompile(`README(?::|'s|,)? ["“]|README: [A-Za-z]|in the README`)

// docSources lists the files that may point into docs/: under the
// repository's root, the given files and every file of the given folders
// with one of exts ("" for none), leaving out folders named skip.
func docSources(t *testing.T, files, dirs, exts, skip []string) []string {
	t.Helper()
	var out []string
	for _, p := range files {
		out = append(out, filepath.Join(repoRoot, p))
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && slices.Contains(skip, d.Name()):
				return filepath.SkipDir
			case !d.IsDir() && slices.Contains(exts, filepath.Ext(p)) && !strings.HasSuffix(p, "readme_test.go"):
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestDocReferences: every docs/ page, and heading on it, that the code,
// the help texts, the Makefile, the scripts and the CI examples name
// exists; none of them, nor a test or an end-to-end script, still points at
// a README section, which moved to docs/.
func TestDocReferences(t *testing.T) {
	all := docs(t)
	tooling := []string{"Makefile", "action.yml", ".ci/run"}
	toolDirs := []string{"scripts", "examples/ci", "bench"}
	shell := []string{".sh", ".yml", ".yaml", ""}
	// Code outside tests and test data; internal/generate names docs/…
	// pages of the repositories it writes cases for.
	refs := append(docSources(t, tooling, toolDirs, shell, nil),
		docSources(t, nil, []string{"internal", "cmd"}, []string{".go"}, []string{"testdata", "generate"})...)
	found := 0
	for _, p := range refs {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(repoRoot, p)
		for _, m := range docRef.FindAllStringSubmatch(string(b), -1) {
			page := "docs/" + m[1]
			found++
			d := all[page]
			switch {
			case d == nil:
				t.Errorf("%s names %s, which does not exist", name, page)
			case m[2] != "" && !d.anchors[m[2]]:
				t.Errorf("%s names %s#%s, but %s has no such heading", name, page, m[2], page)
			case m[3] != "" && !d.titles[m[3]]:
				t.Errorf("%s names the section %q of %s, which has no such heading", name, m[3], page)
			}
		}
	}
	if found < 10 {
		t.Errorf("found %d references to docs/ pages: the pattern is broken", found)
	}
	// Tests and end-to-end scripts too must not point at README sections.
	old := append(docSources(t, tooling, toolDirs, shell, nil),
		docSources(t, nil, []string{"internal", "cmd"}, []string{".go"}, nil)...)
	old = append(old, docSources(t, nil, []string{"cmd/agent-eval/testdata"}, []string{".txtar"}, nil)...)
	for _, p := range old {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := readmeRef.FindString(string(b)); m != "" {
			name, _ := filepath.Rel(repoRoot, p)
			t.Errorf("%s points at a README section (%q): name the docs/ page it moved to", name, m)
		}
	}
}

// TestReadmeShort: README.md stays a short page.
func TestReadmeShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n >= readmeMaxLines {
		t.Errorf("README.md has %d lines, %d or more: move the detail into a page of docs/ and link it", n, readmeMaxLines)
	}
}

// TestCommandsTable: the commands table of docs/commands.md lists every
// command with exactly the flags it has, and no command or flag it lacks.
func TestCommandsTable(t *testing.T) {
	page := docs(t)[commandsPage]
	if page == nil {
		t.Fatalf("%s is missing", commandsPage)
	}
	root := newRootCmd(env{Getenv: func(string) string { return "" }})
	rows := regexp.MustCompile("(?m)^\\| `agent-eval ([a-z-]+)((?: [a-z][a-z-]*)?)([^`]*)` \\|").FindAllStringSubmatch(page.text, -1)
	listed := map[string]bool{}
	longFlag := regexp.MustCompile(`--([a-z][a-z0-9-]*)`)
	shortFlag := regexp.MustCompile(`(?:^|[\[ |])-([a-zA-Z])\b`)
	for _, row := range rows {
		name, usage := row[1], row[2]+row[3]
		listed[name] = true
		path := []string{name}
		// A row of one subcommand (harbor verify …), not of several
		// (harbor export\|check …).
		if row[2] != "" && !strings.HasPrefix(row[3], `\|`) {
			name, usage = name+row[2], row[3]
			path = strings.Fields(name)
		}
		cmd, _, err := root.Find(path)
		if err != nil || cmd == root {
			t.Errorf("%s lists agent-eval %s, which is no command", commandsPage, name)
			continue
		}
		var inTable []string
		for _, m := range longFlag.FindAllStringSubmatch(usage, -1) {
			inTable = append(inTable, m[1])
		}
		for _, m := range shortFlag.FindAllStringSubmatch(usage, -1) {
			f := cmd.Flags().ShorthandLookup(m[1])
			if f == nil {
				t.Errorf("%s: agent-eval %s -%s: no such flag", commandsPage, name, m[1])
				continue
			}
			inTable = append(inTable, f.Name)
		}
		var has []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Name != "help" {
				has = append(has, f.Name)
			}
		})
		slices.Sort(inTable)
		inTable = slices.Compact(inTable)
		slices.Sort(has)
		if !slices.Equal(inTable, has) {
			t.Errorf("%s's agent-eval %s lists flags %v; the command has %v", commandsPage, name, inTable, has)
		}
	}
	for _, c := range root.Commands() {
		if !c.Hidden && c.Name() != "help" && !listed[c.Name()] && c.Name() != "completion" {
			t.Errorf("agent-eval %s is not in the commands table of %s", c.Name(), commandsPage)
		}
	}
}
