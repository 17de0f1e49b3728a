// Package lifecycle runs eval.yaml's hooks (before_all, before_each,
// after_each, after_all): shell commands with a timeout, a condition and an
// on_failure policy, whose outputs (.hook-outputs.yaml) feed later phases.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/guard"
	"github.com/agent-eval/agent-eval/internal/redact"
)

// OutputsFile is what a hook writes to hand env vars and data to later
// phases; it is read and deleted after the phase.
const OutputsFile = ".hook-outputs.yaml"

// ConditionTimeout bounds a hook's condition command.
const ConditionTimeout = 30 * time.Second

// grace is the time between SIGTERM and SIGKILL of a timed-out hook.
const grace = 5 * time.Second

// Outputs are what a phase's hooks handed on.
type Outputs struct {
	Env  map[string]string `yaml:"env"`
	Data map[string]any    `yaml:"data"`
}

// Phase runs one phase's hooks in order in dir, with env (KEY=VALUE),
// logging to log. When strict, a failing hook whose on_failure is fail
// stops the phase and is returned as an error; otherwise every hook runs.
func Phase(ctx context.Context, phase string, hooks []config.Hook, dir string, env []string, log io.Writer, strict bool) (Outputs, error) {
	out := Outputs{Env: map[string]string{}, Data: map[string]any{}}
	// The error names the hook by its command's first line: without the
	// environment's secret values or URL credentials. (The log is redacted
	// by the caller once the hooks are done with it: a service a hook leaves
	// running keeps writing to it.)
	red := redact.FromEnviron(env)
	for _, h := range hooks {
		label := h.Description
		if label == "" {
			label, _, _ = strings.Cut(strings.TrimSpace(h.Command), "\n")
			if len(label) > 60 {
				label = label[:60]
			}
		}
		if h.Condition != "" {
			if code, _ := run(ctx, h.Condition, dir, env, io.Discard, ConditionTimeout); code != 0 {
				fmt.Fprintf(log, "hook %s: %s ... SKIP (condition)\n", phase, label)
				continue
			}
		}
		timeout := config.DefaultHookTimeout
		if h.Timeout != nil {
			timeout = time.Duration(*h.Timeout) * time.Second
		}
		code, timedOut := run(ctx, h.Command, dir, env, log, timeout)
		switch {
		case timedOut:
			fmt.Fprintf(log, "hook %s: %s ... TIMEOUT (%s)\n", phase, label, timeout)
		case code != 0:
			fmt.Fprintf(log, "hook %s: %s ... FAIL (exit %d)\n", phase, label, code)
		default:
			fmt.Fprintf(log, "hook %s: %s ... OK\n", phase, label)
		}
		if err := readOutputs(dir, &out); err != nil {
			fmt.Fprintf(log, "hook %s: %s: %v\n", phase, label, err)
		}
		if (timedOut || code != 0) && strict && h.OnFailure != "continue" {
			why := fmt.Sprintf("exit code %d", code)
			if timedOut {
				why = "timed out"
			}
			return out, fmt.Errorf("hook failed in %s: %s (%s)", phase, red.String(label), why)
		}
	}
	return out, nil
}

// run runs a bash command in its own process group and returns its exit
// code (-1 when it could not start or timed out).
func run(ctx context.Context, command, dir string, env []string, log io.Writer, timeout time.Duration) (int, bool) {
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, log, log
	// The hook's shell dies with the run, even when the run is killed with
	// SIGKILL, on Linux (a service it started on purpose is left to
	// after_all).
	cmd.SysProcAttr = guard.GroupAttr(syscall.SIGKILL)
	// A hook may start a service in the background (a mock server for the
	// agent) and exit; it is done when bash is, even if the service keeps a
	// non-file log writer open.
	cmd.WaitDelay = grace
	done, err := guard.Start(cmd)
	if err != nil {
		fmt.Fprintln(log, "cannot start:", err)
		return -1, false
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	timedOut := false
	select {
	case err = <-done:
	case <-t.C:
		timedOut = true
	case <-ctx.Done():
		timedOut = true
	}
	if timedOut {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(grace):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		return -1, true
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, false
	case errors.As(err, &exit):
		return exit.ExitCode(), false
	}
	return -1, false
}

// readOutputs merges and deletes dir/.hook-outputs.yaml (or .json).
func readOutputs(dir string, out *Outputs) error {
	for _, name := range []string{OutputsFile, strings.TrimSuffix(OutputsFile, ".yaml") + ".json"} {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		_ = os.Remove(p)
		var o Outputs
		if err := yaml.Unmarshal(b, &o); err != nil {
			return fmt.Errorf("%s is not valid YAML: %w", name, err)
		}
		for k, v := range o.Env {
			out.Env[k] = v
		}
		for k, v := range o.Data {
			out.Data[k] = v
		}
		return nil
	}
	return nil
}

// Environ is base (KEY=VALUE) with vars on top.
func Environ(base []string, vars map[string]string) []string {
	m := map[string]string{}
	var order []string
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		if _, seen := m[k]; !seen {
			order = append(order, k)
		}
		m[k] = v
	}
	for k, v := range vars {
		if _, seen := m[k]; !seen {
			order = append(order, k)
		}
		m[k] = v
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+m[k])
	}
	return out
}
