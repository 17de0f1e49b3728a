package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/intercept"
	"github.com/agent-eval/agent-eval/internal/pathutil"
	"github.com/agent-eval/agent-eval/internal/permissions"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/workspace"
)

// record is what the run records of what it ran, besides the files of its
// config/ folder: results.RunResult's fields of that name.
type record struct {
	config  *results.ConfigSource
	project *results.Project
	argv    []string
}

// permissionsRecord is config/permissions.json: the compiled permissions
// block and whether the OS sandbox was on.
type permissionsRecord struct {
	permissions.Compiled
	Sandbox sandboxRecord `json:"sandbox"`
}

type sandboxRecord struct {
	On  bool   `json:"on"`
	Why string `json:"why,omitempty"`
}

// recordConfig writes the run's config/ folder — eval.yaml as it was
// loaded, the compiled handlers (nil: none) and permissions — with the
// secrets the run's redactor knows hidden, and notes eval.yaml's place and
// its project's git state. Only known values are hidden, not what merely
// looks like one: the redactor's key patterns would take thresholds'
// min_pass_rate for a password, and the copy must still load.
func (st *state) recordConfig(ctx context.Context, handlers *intercept.File, perms permissions.Compiled, sandbox config.SandboxDecision) error {
	if err := os.MkdirAll(st.dir.ConfigDir(), 0o755); err != nil {
		return fmt.Errorf("record the run's config: %w", err)
	}
	red := st.runRedactor()
	src := st.ev.Source()
	if err := os.WriteFile(st.dir.EvalCopy(), hideKnown(red, src), 0o644); err != nil {
		return fmt.Errorf("record the run's config: %w", err)
	}
	if handlers != nil {
		b, err := yaml.Marshal(handlers)
		if err != nil {
			return fmt.Errorf("record the run's handlers: %w", err)
		}
		if err := os.WriteFile(st.dir.HandlersCopy(), hideKnown(red, b), 0o644); err != nil {
			return fmt.Errorf("record the run's handlers: %w", err)
		}
	}
	b, err := json.MarshalIndent(permissionsRecord{perms, sandboxRecord{sandbox.On, sandbox.Why}}, "", "  ")
	if err != nil {
		return fmt.Errorf("record the run's permissions: %w", err)
	}
	if err := os.WriteFile(st.dir.PermissionsCopy(), hideKnown(red, append(b, '\n')), 0o644); err != nil {
		return fmt.Errorf("record the run's permissions: %w", err)
	}
	st.rec.config = results.NewConfigSource(pathutil.Abs(st.ev.Path()), pathutil.Abs(st.ev.Dir()), st.ev.Loaded()) // a runner level's eval: the file it came from
	// Redacted now, with the secrets of the caller, runner.env and
	// execution.env: the agents' own (the fake model's key) come later.
	st.rec.argv = redactArgv(red, st.p.CommandLine)
	if top, commit, dirty, ok := workspace.ProjectHead(ctx, st.ev.Dir()); ok {
		st.rec.project = &results.Project{Root: top, Commit: commit, Dirty: dirty}
	}
	return nil
}

// configMark stands for a hidden secret in config/'s files: unlike
// redact.Mark ("[redacted]", a list in YAML), it keeps YAML and JSON
// well-formed wherever it lands, so the copy still loads.
const configMark = "REDACTED"

// hideKnown is b with every secret value red knows, and what is shaped
// like a credential (a bearer token, a URL's password), replaced by
// configMark.
func hideKnown(red *redact.Redactor, b []byte) []byte {
	var out []byte
	last := 0
	spans := append(red.Find(b), redact.FindShapes(b)...)
	slices.SortFunc(spans, func(x, y [2]int) int { return x[0] - y[0] })
	for _, sp := range spans {
		if sp[1] <= last {
			continue
		}
		out = append(append(out, b[last:max(last, sp[0])]...), configMark...)
		last = sp[1]
	}
	return append(out, b[last:]...)
}

// secretFlagWords mark a flag whose value is a secret (--api-key KEY).
var secretFlagWords = []string{"key", "token", "secret", "password", "passwd", "credential", "auth"}

// redactArgv is a command line with its secret-looking values redacted:
// what red hides in each argument, and the value after a flag named like
// a secret.
func redactArgv(red *redact.Redactor, argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = red.String(a)
		if i > 0 && isSecretFlag(argv[i-1]) {
			out[i] = redact.Mark
		}
	}
	return out
}

func isSecretFlag(a string) bool {
	name, ok := strings.CutPrefix(a, "-")
	if !ok || strings.Contains(a, "=") {
		return false
	}
	name = strings.ToLower(strings.TrimLeft(name, "-"))
	for _, w := range secretFlagWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// ConfigCopy is eval.yaml as a run keeps it in its config/eval.yaml: the
// secrets environ (the caller's environment) names, and runner.env's,
// execution.env's and the steps' values, hidden. A Harbor export bundles
// this copy for the verifier.
func ConfigCopy(ev *config.Eval, environ []string) []byte {
	st := &state{ev: ev, p: Plan{Eval: ev, Environ: environ}}
	return hideKnown(st.runRedactor(), ev.Source())
}
