// Command hooktime times hook processes as Claude Code runs them: one
// process per call, the input on stdin. It runs each scenario N times,
// interleaving the hook and the floor so machine noise hits both alike, and
// prints medians, 90th percentiles and the ratio to the floor.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

type scenario struct {
	name, input string
	args        []string
	env         []string
}

func main() {
	hook := flag.String("hook", "", "the agent-eval binary")
	floor := flag.String("floor", "", "the floor binary")
	handlers := flag.String("handlers", "", "the tool_handlers.yaml")
	n := flag.Int("n", 200, "runs per scenario and binary")
	flag.Parse()
	b, err := os.ReadFile(*handlers)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sum := sha256.Sum256(b)
	// As agent-eval run writes it: the handlers file pinned by its digest.
	hookArgs := []string{"hook", "--handlers", *handlers, "--sha256", hex.EncodeToString(sum[:])}
	call := func(tool, input string) string {
		return fmt.Sprintf(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":%q,"tool_input":%s,"tool_use_id":"toolu_1"}`, tool, input)
	}
	scenarios := []scenario{
		{"deny (env_checks)", call("Bash", `{"command":"./scripts/jira issue create --summary x"}`), nil, []string{"JIRA_SERVER=https://acme.atlassian.net"}},
		{"pass-through", call("Bash", `{"command":"ls -la"}`), nil, nil},
		{"answer (case_override)", call("AskUserQuestion", `{"questions":[{"question":"Deploy to production?","header":"Deploy","multiSelect":false,"options":[{"label":"yes"},{"label":"no"}]}]}`), nil, nil},
	}
	fmt.Printf("%-24s %12s %12s %12s %12s %7s\n", "scenario", "hook p50", "hook p90", "floor p50", "floor p90", "ratio")
	for _, s := range scenarios {
		var h, f []time.Duration
		for i := 0; i < *n; i++ {
			h = append(h, run(*hook, hookArgs, s))
			f = append(f, run(*floor, nil, s))
		}
		hp50, fp50 := pct(h, 50), pct(f, 50)
		fmt.Printf("%-24s %12s %12s %12s %12s %6.2fx\n", s.name, hp50, pct(h, 90), fp50, pct(f, 90), float64(hp50)/float64(fp50))
	}
}

func run(bin string, args []string, s scenario) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(s.input)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, s.env...)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", bin, err)
		os.Exit(1)
	}
	return time.Since(start)
}

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100].Round(10 * time.Microsecond)
}
