package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
)

// agentRedactor hides, in what the run writes about an agent, the secret
// values of the agent's environment (env) and of execution.env (given to
// its commands through the settings), and URL credentials anywhere.
func (st *runState) agentRedactor(env []string) *redact.Redactor {
	all := append([]string(nil), env...)
	for k, v := range config.ResolveEnv(st.ev.Execution.Env, os.LookupEnv) {
		all = append(all, k+"="+v)
	}
	return redact.FromEnviron(all)
}

// runRedactor is agentRedactor over the run's whole environment: the
// caller's, runner.env, execution.env and before_all's outputs.
func (st *runState) runRedactor() *redact.Redactor {
	st.redOnce.Do(func() {
		env := os.Environ()
		for _, m := range []map[string]string{config.ResolveEnv(st.ev.Runner.Env, os.LookupEnv), st.hookEnv} {
			for k, v := range m {
				env = append(env, k+"="+v)
			}
		}
		st.red = st.agentRedactor(env)
	})
	return st.red
}

// redactCase redacts the text a case result carries: its error and result
// text, and the inputs of its denied calls (kept as evidence of what the
// agent tried, in their shape, without credentials).
func redactCase(c *results.Case, red *redact.Redactor) {
	c.Error, c.Result = red.String(c.Error), red.String(c.Result)
	for i := range c.PermissionDenials {
		if in := c.PermissionDenials[i].ToolInput; len(in) > 0 {
			c.PermissionDenials[i].ToolInput = json.RawMessage(red.JSON(in))
		}
	}
	for _, s := range c.Steps {
		redactCase(s, red)
	}
}

// redactFile rewrites a log the run wrote without what runRedactor hides.
// It is for logs that processes write to directly (hooks.log: a service a
// lifecycle hook leaves running holds it open), redacted once closed; a
// process still writing to it writes to the old, unlinked file.
func (st *runState) redactFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if red := st.runRedactor().String(string(b)); red != string(b) {
		if err := atomicfile.Write(path, []byte(red), 0o644); err != nil {
			fmt.Fprintf(st.e.Err, "agent-eval: warning: redact %s: %v\n", path, err)
		}
	}
}
