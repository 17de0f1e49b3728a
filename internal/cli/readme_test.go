package cli

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// readmeHeadings maps the GitHub anchor of every README heading to the
// heading's text.
func readmeHeadings(t *testing.T) (readme string, anchors map[string]string) {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, anchors = string(b), map[string]string{}
	inFence := false
	for line := range strings.SplitSeq(readme, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		anchors[anchorOf(title)] = title
	}
	return readme, anchors
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

// TestReadmeLinksResolve: every #anchor link in the README and every
// section the README, the Makefile or a help text names in quotes (see
// "Scoring", README "Development") is a heading of the README.
func TestReadmeLinksResolve(t *testing.T) {
	readme, anchors := readmeHeadings(t)
	titles := map[string]bool{}
	for _, title := range anchors {
		titles[title] = true
	}
	for _, m := range regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(readme, -1) {
		if _, ok := anchors[m[1]]; !ok {
			t.Errorf("README links #%s, which no heading has", m[1])
		}
	}
	sources := map[string]string{"README.md": readme}
	for _, p := range []string{"../../Makefile", "root.go", "run.go", "score.go", "compare.go", "report.go", "init.go", "validate.go", "explain.go", "compile.go", "permissions.go", "hook.go", "fakemodel.go", "schema.go", "version.go"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sources[p] = string(b)
	}
	sectionRef := regexp.MustCompile(`(?:[Ss]ee|README) "([^"]+)"`)
	found := 0
	for name, text := range sources {
		for _, m := range sectionRef.FindAllStringSubmatch(text, -1) {
			found++
			if !titles[m[1]] {
				t.Errorf("%s refers to the README section %q, which does not exist", name, m[1])
			}
		}
	}
	if found == 0 {
		t.Error("found no section reference at all: the pattern is broken")
	}
}

// TestReadmeCommandsTable: the README's commands table lists every command
// with exactly the flags it has, and no command or flag it lacks.
func TestReadmeCommandsTable(t *testing.T) {
	readme, _ := readmeHeadings(t)
	root := newRootCmd(env{Getenv: func(string) string { return "" }})
	rows := regexp.MustCompile("(?m)^\\| `agent-eval ([a-z-]+)((?: [a-z][a-z-]*)?)([^`]*)` \\|").FindAllStringSubmatch(readme, -1)
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
			t.Errorf("README lists agent-eval %s, which is no command", name)
			continue
		}
		var inREADME []string
		for _, m := range longFlag.FindAllStringSubmatch(usage, -1) {
			inREADME = append(inREADME, m[1])
		}
		for _, m := range shortFlag.FindAllStringSubmatch(usage, -1) {
			f := cmd.Flags().ShorthandLookup(m[1])
			if f == nil {
				t.Errorf("README: agent-eval %s -%s: no such flag", name, m[1])
				continue
			}
			inREADME = append(inREADME, f.Name)
		}
		var has []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Name != "help" {
				has = append(has, f.Name)
			}
		})
		slices.Sort(inREADME)
		inREADME = slices.Compact(inREADME)
		slices.Sort(has)
		if !slices.Equal(inREADME, has) {
			t.Errorf("README's agent-eval %s lists flags %v; the command has %v", name, inREADME, has)
		}
	}
	for _, c := range root.Commands() {
		if !c.Hidden && c.Name() != "help" && !listed[c.Name()] && c.Name() != "completion" {
			t.Errorf("agent-eval %s is not in the README's commands table", c.Name())
		}
	}
}
