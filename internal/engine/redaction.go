package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/redact"
	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// agentRedactor redacts the secrets of an agent's environment and of
// execution.env.
func (st *state) agentRedactor(env []string) *redact.Redactor {
	all := slices.Clone(env)
	for k, v := range config.ResolveEnv(st.ev.Execution.Env, st.p.lookupEnv) {
		all = append(all, k+"="+v)
	}
	return redact.FromEnviron(all)
}

// runRedactor redacts every secret the run knows of: the caller's
// environment, runner.env (its literal values too), execution.env, the
// steps' env, and,
// learnt as they come, the lifecycle hooks' outputs, the cases' and steps'
// variables and every agent's environment (the runner's own credentials).
func (st *state) runRedactor() *redact.Redactor {
	st.redOnce.Do(func() {
		env := append(slices.Clone(st.p.Environ), environ(config.ResolveEnv(st.ev.Runner.Env, st.p.lookupEnv))...)
		// Each step's env too: the run's config/ copy is written before
		// the first step learns its own.
		for _, s := range st.ev.Execution.Steps {
			env = append(env, environ(config.ResolveEnv(s.Env, st.p.lookupEnv))...)
		}
		st.red = st.agentRedactor(append(env, environ(st.hookEnv)...))
	})
	return st.red
}

// invocationRedactor is the redactor of one agent process: its
// environment's secrets, which the run's redactor learns too (the
// transcript, the fake's log and the case's result are written with it).
func (st *state) invocationRedactor(env []string) *redact.Redactor {
	red := st.agentRedactor(env)
	st.runRedactor().LearnValues(red.Values()...)
	red.LearnValues(st.runRedactor().Values()...)
	return red
}

// environ is m as KEY=VALUE pairs.
func environ(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

// RedactCase redacts a case's free text and its denials' inputs.
func RedactCase(c *results.Case, red *redact.Redactor) {
	if red == nil {
		return
	}
	c.Error, c.Result = red.String(c.Error), red.String(c.Result)
	for i, f := range c.ModifiedFiles {
		c.ModifiedFiles[i] = red.String(f)
	}
	if o := c.OverLimit; o != nil {
		for i := range o.Skipped {
			o.Skipped[i].Path = red.String(o.Skipped[i].Path)
		}
	}
	for i := range c.PermissionDenials {
		if in := c.PermissionDenials[i].ToolInput; len(in) > 0 {
			c.PermissionDenials[i].ToolInput = red.JSON(in)
		}
	}
	for i := range c.AnswerLog {
		a := &c.AnswerLog[i]
		a.Question, a.Answer, a.Why = red.String(a.Question), red.String(a.Answer), red.String(a.Why)
	}
	for _, s := range c.Steps {
		RedactCase(s, red)
	}
}

// markSecrets records where the run's known secrets occur in the files the
// case folder dir keeps as the agent wrote them, for score and report to
// hide them later without the secrets (rundir.SecretMarksFile).
func (st *state) markSecrets(dir string) {
	if err := rundir.MarkSecrets(dir, st.runRedactor().Find); err != nil {
		st.obs.Warn(fmt.Sprintf("%s: %v", filepath.Base(dir), err))
	}
}

// copyRedacted copies a JSON-lines file the agent's side wrote (the hook
// ledger), read from in, to dst through red (the run's redactor): the hook
// redacts with the environment it got, which the sandbox scrubs of the
// secrets.
func copyRedacted(red *redact.Redactor, in io.Reader, dst string) error {
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	w := red.JSONWriter(out)
	_, err = io.Copy(w, in)
	return errors.Join(err, w.Close(), out.Close())
}

// redactFile redacts a log the harness wrote in place (line by line, a
// JSON line as JSON).
func (st *state) redactFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if red := st.runRedactor().String(string(b)); red != string(b) {
		if err := atomicfile.Write(path, []byte(red), 0o644); err != nil {
			st.obs.Warn(fmt.Sprintf("redact %s: %v", path, err))
		}
	}
}
