package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// Bounds of a case page (CasePage): what one request reads of the files
// the agent's run wrote, however large they grew.
const (
	// maxLedger is how much of a case's hook ledger a page reads.
	maxLedger = 16 << 20
	// lookahead is how many lines past a full page are read for the
	// results of the page's own calls (they follow their call closely).
	lookahead = 1000
	// maxCounted is the largest transcript whose violations a page counts
	// itself, for a case whose run_result.json does not hold them.
	maxCounted = 16 << 20
)

// openTranscript opens a transcript for a page; a test wraps it to count
// what a page reads.
var openTranscript = func(path string) (io.ReadCloser, error) { return os.Open(path) }

// maxLine bounds one transcript line a page shows (a test lowers it).
var maxLine = transcript.MaxLine

// Paging is one page of a case's transcript: its entries From to
// From+N-1 (numbered from 0).
type Paging struct {
	From int
	N    int
	// More: the transcript has entries past the page. Total is how many
	// it has, known when the page reached its end (0 otherwise).
	More  bool
	Total int
}

// CasePage is the run's header and the one case key (a case id or an
// attempt key) read in full, as report.html shows it (its verdicts and
// rationales, its human review, its output files), with one page of its
// transcript and the hook's decisions on the page's calls; Cases is empty
// when the run has no such case. The transcript is read as a stream: the lines before the page are only counted (their
// kind and call id decoded, no entry built), the page's entries are built,
// and reading stops a little past them. The hook ledger is read up to
// 16 MB. A line over transcript.MaxLine is shown as an entry too large to
// show. The decisions on no recorded call are listed on the last page.
func CasePage(dir rundir.Dir, s *rundir.Summary, key string, from, n int) (*RunPage, *Paging) {
	pg := &Paging{From: max(from, 0), N: max(n, 1)}
	return loadWith(dir, s, loadOptions{only: key, page: pg}), pg
}

// lightEvent is what counting a line before the page needs of it.
type lightEvent struct {
	Kind      transcript.Kind `json:"kind"`
	Step      string          `json:"step,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
}

// pagedTranscript fills cv's items with one page of its transcript.
func pagedTranscript(dir rundir.Dir, id string, c *results.Case, pg *Paging, p *page, cv *caseView) {
	ledger, cut, err := dir.ReadLedgerUpTo(id, maxLedger)
	p.note(err)
	if cut {
		p.Problems = append(p.Problems, fmt.Sprintf("the hook ledger of %s is over %d MB: the decisions past it are not shown here (see the raw file)", id, maxLedger>>20))
	}
	rel := func(s string) string { return s }
	denied := map[string]bool{}
	if c != nil {
		cv.RelWS = c.Workspace != ""
		cv.Error = relativeWorkspace(c.Workspace, cv.Error, nil, ledger)
		if c.Workspace != "" {
			rel = relativeTo(c.Workspace)
		}
		for _, d := range c.PermissionDenials {
			denied[d.ToolUseID] = d.ToolUseID != ""
		}
	}
	b := newItemBuilder(ledger, pg.From, pg.From+pg.N)
	calls, seenDenial := map[string]bool{}, map[string]bool{}
	prompt, eof, past := false, false, 0
	f, err := openTranscript(dir.Transcript(id))
	switch {
	case errors.Is(err, os.ErrNotExist):
		eof = true
	case err != nil:
		p.note(fmt.Errorf("read the transcript of %s: %w", id, err))
	default:
		defer f.Close()
		lr := transcript.NewLineReader(f, maxLine)
		for {
			line, size, tooLong, err := lr.Next()
			if errors.Is(err, io.EOF) {
				eof = true
				break
			}
			if err != nil {
				p.note(fmt.Errorf("read the transcript of %s: %w", id, err))
				break
			}
			var e transcript.Event
			switch {
			case tooLong:
				e = transcript.Event{Kind: transcript.KindError, Text: fmt.Sprintf("entry too large to show here (line %d of transcript.jsonl is %.1f MB): see the raw file", lr.Line, float64(size)/(1<<20))}
			case b.n+1 < b.from:
				var l lightEvent
				if json.Unmarshal(line, &l) != nil || l.Kind == "" {
					continue // not an event (a line cut by a crash), as transcript.Read skips it
				}
				e = transcript.Event{Kind: l.Kind, Step: l.Step, ToolUseID: l.ToolUseID}
				if l.Kind == transcript.KindText || l.Kind == transcript.KindResult {
					_ = json.Unmarshal(line, &e) // decoded once above: its text is what a repeated answer is told by
				}
			default:
				if json.Unmarshal(line, &e) != nil || e.Kind == "" {
					continue
				}
				e.Text, e.Input = rel(e.Text), json.RawMessage(rel(string(e.Input)))
			}
			if (e.Kind == transcript.KindToolCall || e.Kind == transcript.KindDenial) && e.ToolUseID != "" {
				calls[e.ToolUseID] = true
				seenDenial[e.ToolUseID] = seenDenial[e.ToolUseID] || e.Kind == transcript.KindDenial
			}
			prompt = prompt || e.Kind == transcript.KindPrompt
			b.add(e)
			if e.Kind == transcript.KindToolCall && denied[e.ToolUseID] {
				// run_result.json's denials would be appended at the end:
				// they mark their call wherever it is.
				if it := b.kept(b.at[e.ToolUseID].n); it != nil {
					it.Denied = true
				}
			}
			if b.more {
				if past++; past > lookahead || openCalls(b.out) == 0 {
					break
				}
			}
		}
	}
	if eof && c != nil {
		for _, d := range c.PermissionDenials {
			if d.ToolUseID != "" && seenDenial[d.ToolUseID] {
				continue
			}
			if d.ToolUseID != "" && calls[d.ToolUseID] {
				continue // marked on its call
			}
			b.add(transcript.Event{Kind: transcript.KindDenial, ToolUseID: d.ToolUseID, Tool: d.ToolName, Input: json.RawMessage(rel(string(d.ToolInput)))})
			if d.ToolUseID != "" {
				calls[d.ToolUseID] = true
			}
		}
	}
	cv.Items = b.out
	pg.More = b.more || !eof
	if eof && !b.more {
		pg.Total = b.n
		cv.Unmatched = b.unmatched(calls)
	}
	if cv.Prompt != "" && (prompt || pg.From > 0) {
		cv.Prompt = ""
	}
}

// openCalls counts the calls among items that have no result yet.
func openCalls(items []item) int {
	n := 0
	for i := range items {
		if items[i].Kind == "tool" && items[i].ToolUseID != "" && !items[i].HasResult && !items[i].Denied {
			n++
		}
	}
	return n
}

// pagedViolations counts a case's violations for a page: from its
// run_result.json, else from its files when its transcript is small
// enough to read whole.
func pagedViolations(dir rundir.Dir, id string, c *results.Case) (*results.Violations, error) {
	if c == nil || c.Violations == nil {
		if fi, err := os.Stat(dir.Transcript(id)); err == nil && fi.Size() > maxCounted {
			return nil, fmt.Errorf("the violations of %s are not counted here: its run_result.json does not hold them and its transcript is over %d MB", id, maxCounted>>20)
		}
	}
	return dir.CaseViolations(id, c)
}
