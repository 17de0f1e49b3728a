// Command hooktime times hook processes as Claude Code runs them: one
// process per call, the input on stdin. It runs each scenario N times,
// interleaving the hook (and, with -base, an older build of it) and the
// floor so machine noise hits all alike, and prints medians, 90th
// percentiles and the ratio to the floor, of the wall time and of the CPU
// time (user + system) of each process. On a shared machine the CPU time is
// the steadier figure: the wall time also counts the waits for a core.
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

// sample is one process: its wall and CPU time.
type sample struct{ wall, cpu time.Duration }

func main() {
	hook := flag.String("hook", "", "the agent-eval binary")
	base := flag.String("base", "", "an older agent-eval binary to time beside it (optional)")
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
	bins := []string{*hook}
	names := []string{"hook"}
	if *base != "" {
		bins, names = append(bins, *base), append(names, "base")
	}
	fmt.Printf("%-24s %-5s %10s %10s %10s %10s %10s %7s %7s\n", "scenario", "", "wall p50", "wall p90", "cpu p50", "floor wall", "floor cpu", "wall x", "cpu x")
	ratios := make([][2][]float64, len(bins))
	for _, s := range scenarios {
		got := make([][]sample, len(bins))
		var f []sample
		for i := 0; i < *n; i++ {
			for j, bin := range bins {
				got[j] = append(got[j], run(bin, hookArgs, s))
			}
			f = append(f, run(*floor, nil, s))
		}
		fw, fc := pct(f, 50, wallOf), pct(f, 50, cpuOf)
		for j := range bins {
			hw, hc := pct(got[j], 50, wallOf), pct(got[j], 50, cpuOf)
			rw, rc := float64(hw)/float64(fw), float64(hc)/float64(fc)
			ratios[j][0], ratios[j][1] = append(ratios[j][0], rw), append(ratios[j][1], rc)
			fmt.Printf("%-24s %-5s %10s %10s %10s %10s %10s %6.2fx %6.2fx\n", s.name, names[j], hw, pct(got[j], 90, wallOf), hc, fw, fc, rw, rc)
		}
	}
	for j, name := range names {
		fmt.Printf("%s against the floor, median of the scenarios: wall %.2fx, cpu %.2fx (goal: at most 2.5x)\n", name, median(ratios[j][0]), median(ratios[j][1]))
	}
}

func run(bin string, args []string, s scenario) sample {
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
	return sample{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

func wallOf(s sample) time.Duration { return s.wall }
func cpuOf(s sample) time.Duration  { return s.cpu }

func pct(ss []sample, p int, of func(sample) time.Duration) time.Duration {
	ds := make([]time.Duration, len(ss))
	for i, s := range ss {
		ds[i] = of(s)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[(len(ds)-1)*p/100].Round(10 * time.Microsecond)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
