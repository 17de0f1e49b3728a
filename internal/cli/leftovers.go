package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/agent-eval/agent-eval/internal/guard"
)

// AgentProcsFile, in the run directory, records every agent process group
// the run started ("PID STARTTIME CASE" lines), so that --resume can kill
// what an earlier attempt that died left running.
const AgentProcsFile = "agent_processes.txt"

// recordAgent notes an agent's process group in the run directory.
func (st *runState) recordAgent(pgid int, caseID string) {
	if err := guard.Record(filepath.Join(st.dir, AgentProcsFile), pgid, caseID); err != nil {
		fmt.Fprintf(st.e.Err, "agent-eval: warning: %s: record the agent's process: %v\n", caseID, err)
	}
}

// sweepLeftovers kills the agents of an earlier attempt of the run that are
// still alive (the guard takes them along when the run dies; this is for
// what survived anyway) and says so on w.
func sweepLeftovers(w io.Writer, runDir string) {
	killed, err := guard.Sweep(filepath.Join(runDir, AgentProcsFile))
	for _, k := range killed {
		if k.Live != 0 {
			fmt.Fprintf(w, "agent-eval: warning: case %s of this run is still running under agent-eval process %d (process group %d): left alone\n", k.Label, k.Live, k.PID)
			continue
		}
		fmt.Fprintf(w, "resume: killed a leftover agent of the earlier attempt (case %s, process group %d, %s)\n", k.Label, k.PID, plural(k.Procs, "process"))
	}
	if err != nil {
		fmt.Fprintln(w, "agent-eval: warning: sweep the earlier attempt's agents:", err)
	}
}
