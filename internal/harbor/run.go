package harbor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// Job is one `harbor run` over exported tasks.
type Job struct {
	// Bin is the harbor command.
	Bin string
	// Tasks is the folder of exported tasks (harbor run -p).
	Tasks string
	// JobsDir and Name: the job folder is JobsDir/Name (-o, --job-name).
	JobsDir, Name string
	// AgentArgs are the agent's flags (-a, -m, --ak: AgentArgs).
	AgentArgs []string
	// Env is the environment type or module:Class (-e; "" is Harbor's
	// default, docker); EnvKwargs its key=value options (--ek).
	Env       string
	EnvKwargs []string
	// Concurrency is -n, Attempts -k (0: Harbor's defaults).
	Concurrency, Attempts int
	// AgentEnv are variables for the agent (--ae KEY=${VAR}): name → the
	// host variable Harbor reads it from, so no value is ever in argv.
	AgentEnv map[string]string
	// Environ is harbor's environment (nil: this process's).
	Environ []string
	// Stdout and Stderr receive harbor's output.
	Stdout, Stderr io.Writer
	// Grace is how long an interrupted harbor gets to stop its trials
	// after SIGINT before it is killed (0: 30 s).
	Grace time.Duration
}

// Dir is the job folder.
func (j Job) Dir() string { return j.JobsDir + string(os.PathSeparator) + j.Name }

// Args is harbor's command line after the program name.
func (j Job) Args() []string {
	a := []string{"run", "-p", j.Tasks, "-o", j.JobsDir, "--job-name", j.Name, "-y", "-q"}
	a = append(a, j.AgentArgs...)
	if j.Env != "" {
		a = append(a, "-e", j.Env)
	}
	for _, kv := range j.EnvKwargs {
		a = append(a, "--ek", kv)
	}
	if j.Concurrency > 0 {
		a = append(a, "-n", strconv.Itoa(j.Concurrency))
	}
	if j.Attempts > 0 {
		a = append(a, "-k", strconv.Itoa(j.Attempts))
	}
	names := make([]string, 0, len(j.AgentEnv))
	for k := range j.AgentEnv {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		a = append(a, "--ae", k+"=${"+j.AgentEnv[k]+"}")
	}
	return a
}

// Run runs harbor and waits for it. Harbor exits 0 even when every trial
// failed, so its exit status says only whether the job ran; the import
// reads the job folder for the rest. An interrupt (ctx) sends harbor
// SIGINT, so it stops its trials and their environments, and kills it after
// the grace period.
func (j Job) Run(ctx context.Context) error {
	if j.Bin == "" {
		return errors.New("no harbor command: install Harbor (pip install harbor) or name it with --harbor-bin")
	}
	cmd := exec.CommandContext(ctx, j.Bin, j.Args()...)
	cmd.Env = j.Environ
	cmd.Stdout, cmd.Stderr = j.Stdout, j.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = j.Grace
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 30 * time.Second
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		// Whatever harbor left of its group goes too.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("harbor run: %w", err)
	}
	return nil
}

// FindHarbor is the harbor command: bin when given, else $AGENT_EVAL_HARBOR,
// else harbor on PATH.
func FindHarbor(bin string, getenv func(string) string) (string, error) {
	if bin == "" {
		bin = getenv("AGENT_EVAL_HARBOR")
	}
	if bin == "" {
		bin = "harbor"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("harbor %q is not installed or not executable (pip install harbor, in Python 3.12 or newer; or name it with --harbor-bin): %w", bin, err)
	}
	return p, nil
}

// CommandLine is the job's command line, quoted for a shell.
func (j Job) CommandLine() string {
	args := append([]string{j.Bin}, j.Args()...)
	for i, a := range args {
		args[i] = intercept.ShellQuote(a)
	}
	return strings.Join(args, " ")
}
