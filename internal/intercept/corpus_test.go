package intercept_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agent-eval/agent-eval/internal/hook"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/testutil/decisions"
)

var loadCorpus = sync.OnceValues(func() (*decisions.Corpus, error) { return decisions.Load("testdata/decisions.yaml") })

func TestDecisionCorpus(t *testing.T) {
	t.Parallel()
	corpus, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus.Cases) < 20 {
		t.Fatalf("the corpus has %d cases", len(corpus.Cases))
	}
	for _, c := range corpus.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			set, req := corpusRequest(t, corpus, c)
			p, err := intercept.Prepare(set)
			if err != nil {
				t.Fatal(err)
			}
			d := intercept.Decide(context.Background(), p, req, c.Answerer())
			if d.Kind != c.Want {
				t.Fatalf("Decide = %s (%s), want %s", d.Kind, d.Reason, c.Want)
			}
			if c.Handler != nil && d.Handler != *c.Handler {
				t.Errorf("handler = %d, want %d (%s)", d.Handler, *c.Handler, d.Reason)
			}
			if !strings.Contains(d.Reason, c.Reason) {
				t.Errorf("reason %q does not contain %q", d.Reason, c.Reason)
			}
			if c.NotReason != "" && strings.Contains(d.Reason, c.NotReason) {
				t.Errorf("reason %q contains %q", d.Reason, c.NotReason)
			}
			if c.Answers != nil {
				if diff := cmp.Diff(c.Answers, d.Answers); diff != "" {
					t.Errorf("answers (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(c.Tiers, d.Tiers); diff != "" {
					t.Errorf("tiers (-want +got):\n%s", diff)
				}
				if d.UpdatedInput["questions"] == nil || d.UpdatedInput["answers"] == nil {
					t.Errorf("updatedInput = %v, want questions and answers", d.UpdatedInput)
				}
			}
			if c.Warning != "" && !strings.Contains(strings.Join(d.Warnings, "\n"), c.Warning) {
				t.Errorf("warnings %q lack %q", d.Warnings, c.Warning)
			}
		})
	}
}

// corpusRequest is a case's handler set and call; a case with a workspace
// gets the fixture built in a temporary directory, which is the root of the
// set's denied paths and (with the case's cwd) the call's cwd.
func corpusRequest(t *testing.T, corpus *decisions.Corpus, c decisions.Case) (intercept.File, intercept.Request) {
	t.Helper()
	set := corpus.HandlerSets[c.Handlers]
	req := intercept.Request{ToolName: c.Tool, ToolInput: c.Input, Env: c.Env}
	if c.Workspace != "" {
		dir := t.TempDir()
		if err := corpus.Workspaces[c.Workspace].Build(dir); err != nil {
			t.Fatal(err)
		}
		if set.Root == "" {
			set.Root = dir
		}
		req.CWD, req.FS = filepath.Join(dir, c.CWD), hook.OSFS{}
	}
	return set, req
}

func TestPrepareRejects(t *testing.T) {
	t.Parallel()
	bad := []intercept.Handler{
		{Match: "x"},
		{Match: "x", Patterns: []string{"mcp__*__x"}},
		{Match: "x", Patterns: []string{"Bash"}, InputFilters: []string{"("}},
		{Match: "x", Patterns: []string{"Bash"}, InputFilters: []string{"a"}, EnvChecks: map[string]intercept.EnvCheck{"BAD-NAME": {MustContain: []string{"x"}}}},
		{Match: "x", Patterns: []string{"Bash"}, InputFilters: []string{"a"}, EnvChecks: map[string]intercept.EnvCheck{"OK": {}}},
		{Match: "x", Patterns: []string{"Bash"}, InputFilters: []string{"a"}, EnvChecks: map[string]intercept.EnvCheck{"URL": {HostIn: []string{"localhost:8080"}}}},
		{Match: "x", Patterns: []string{"Bash"}, InputFilters: []string{"a"}, EnvChecks: map[string]intercept.EnvCheck{"URL": {HostIn: []string{"http://x.test"}}}},
	}
	for _, h := range bad {
		if _, err := intercept.Prepare(intercept.File{Handlers: []intercept.Handler{h}}); err == nil {
			t.Errorf("Prepare(%+v) succeeded, want an error", h)
		}
	}
	for _, f := range []intercept.File{
		{Root: "relative/dir", DeniedPaths: []string{"secret/**"}},
		{Root: "/ws", DeniedPaths: []string{"**"}},
		{Root: "/ws", DeniedPaths: []string{"/"}},
		{Root: "/ws", DeniedPaths: []string{"a/[b"}},
	} {
		if _, err := intercept.Prepare(f); err == nil {
			t.Errorf("Prepare(%+v) succeeded, want an error", f)
		}
	}
}

// FuzzDecide runs arbitrary Bash commands through the Jira handler, seeded
// with every command of the corpus: no panic; a command that names jira —
// in its raw text, or as a command name once the shell's quoting is undone
// — is never passed through unchecked; and a checked pass needs a test
// instance somewhere.
func FuzzDecide(f *testing.F) {
	corpus, err := loadCorpus()
	if err != nil {
		f.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range corpus.Cases {
		if cmd, ok := c.Input["command"].(string); ok && !seen[cmd] {
			seen[cmd] = true
			f.Add(cmd, c.Env["JIRA_SERVER"])
		}
	}
	p, err := intercept.Prepare(corpus.HandlerSets["jira"])
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, command, server string) {
		d := intercept.Decide(context.Background(), p, intercept.Request{ToolName: "Bash",
			ToolInput: map[string]any{"command": command}, Env: map[string]string{"JIRA_SERVER": server, "HOME": "/home/u"}}, nil)
		unchecked := d.Kind == intercept.Pass && d.Handler < 0
		if unchecked && (hasWord(command, "jira") || namesJira(command)) {
			t.Fatalf("a command naming jira passed through unchecked: %q", command)
		}
		if d.Kind == intercept.Allow {
			t.Fatalf("a Bash call was allowed (a passed check must pass through): %q", command)
		}
		if d.Kind == intercept.Pass && d.Handler >= 0 {
			lc := strings.ToLower(command + server)
			if !strings.Contains(lc, "localhost") && !strings.Contains(lc, "127.0.0.1") && !strings.Contains(lc, "emulator") &&
				!strings.Contains(lc, "test") && !strings.Contains(lc, "staging") {
				t.Fatalf("passed the check without any test-instance marker: %q with JIRA_SERVER=%q", command, server)
			}
		}
	})
}

// hasWord: the raw text has w as a whole word (what \bjira\b matches).
func hasWord(s, w string) bool {
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) {
		if f == w {
			return true
		}
	}
	return false
}

// namesJira is an independent oracle: it undoes quotes and backslashes as
// the shell does and reports whether a command of the line (the first word
// of a segment between ; | & ( ) and newlines, after VAR=x words) is jira.
// Lines with here-docs or comments are left out: their text is data.
func namesJira(command string) bool {
	if strings.Contains(command, "<<") || strings.Contains(command, "#") {
		return false
	}
	var b strings.Builder
	const (
		out = iota
		single
		double
	)
	state := out
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch state {
		case out:
			switch {
			case c == '\\' && i+1 < len(command):
				i++
				if command[i] != '\n' {
					b.WriteByte(command[i])
				}
			case c == '\'':
				state = single
			case c == '"':
				state = double
			default:
				b.WriteByte(c)
			}
		case single:
			if c == '\'' {
				state = out
			} else {
				b.WriteByte(c)
			}
		case double:
			switch {
			case c == '"':
				state = out
			case c == '\\' && i+1 < len(command) && strings.IndexByte("$`\"\\\n", command[i+1]) >= 0:
				i++
				if command[i] != '\n' {
					b.WriteByte(command[i])
				}
			default:
				b.WriteByte(c)
			}
		}
	}
	for _, seg := range strings.FieldsFunc(b.String(), func(r rune) bool { return strings.ContainsRune(";|&()\n", r) }) {
		for _, w := range strings.Fields(seg) {
			if strings.Contains(w, "=") && !strings.HasPrefix(w, "=") {
				continue
			}
			w = strings.ToLower(w)
			if w == "jira" || strings.HasSuffix(w, "/jira") {
				return true
			}
			break
		}
	}
	return false
}

// FuzzPaths runs arbitrary Bash commands through the path layer in the
// corpus's secret_ws workspace: no panic, and a command in which the shell
// sees the literal text secret/key.txt (a word, a redirect target, a
// here-doc line, a quoted string) is never passed through.
func FuzzPaths(f *testing.F) {
	corpus, err := loadCorpus()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range corpus.Cases {
		if cmd, ok := c.Input["command"].(string); ok && c.Handlers == "denied_secret" && c.CWD == "" {
			f.Add(cmd)
		}
	}
	dir := f.TempDir()
	if err := corpus.Workspaces["secret_ws"].Build(dir); err != nil {
		f.Fatal(err)
	}
	set := corpus.HandlerSets["denied_secret"]
	set.Root = dir
	p, err := intercept.Prepare(set)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, command string) {
		d := intercept.Decide(context.Background(), p, intercept.Request{ToolName: "Bash",
			ToolInput: map[string]any{"command": command}, CWD: dir, FS: hook.OSFS{}}, nil)
		if d.Kind == intercept.Allow {
			t.Fatalf("the path layer allowed %q; it only denies or passes", command)
		}
		if d.Kind == intercept.Pass && literallyNames(command, "secret/key.txt") {
			t.Fatalf("a command naming secret/key.txt passed through: %q", command)
		}
	})
}

// literallyNames reports whether the shell sees name, starting a word or
// after a separator, in a literal part of command (not in a comment).
func literallyNames(command, name string) bool {
	start := regexp.MustCompile(`^` + regexp.QuoteMeta(name))
	inner := regexp.MustCompile(`[\s'"=:@(<>;|&]` + regexp.QuoteMeta(name))
	file, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return false
	}
	found := false
	var parts func(ps []syntax.WordPart, atStart bool)
	parts = func(ps []syntax.WordPart, atStart bool) {
		for i, p := range ps {
			first := atStart && i == 0
			text := ""
			switch p := p.(type) {
			case *syntax.Lit:
				text = p.Value
			case *syntax.SglQuoted:
				if !p.Dollar {
					text = p.Value
				}
			case *syntax.DblQuoted:
				parts(p.Parts, first)
			}
			found = found || inner.MatchString(text) || first && start.MatchString(text)
		}
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			parts(w.Parts, true)
		}
		return !found
	})
	return found
}
