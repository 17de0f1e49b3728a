package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/results"
	"github.com/agent-eval/agent-eval/internal/rundir"
	"github.com/agent-eval/agent-eval/internal/transcript"
)

// countingFile counts what a page reads of its transcript.
type countingFile struct {
	io.ReadCloser
	n *int64
}

func (c countingFile) Read(b []byte) (int, error) {
	n, err := c.ReadCloser.Read(b)
	*c.n += int64(n)
	return n, err
}

const (
	bigCalls = 20000
	hugeAt   = 1200 // the call whose result is one 5 MB line
)

// bigTranscript writes a case of a prompt and 20,000 calls with 2.5 KB
// results (50 MB), call hugeAt's result one 5 MB line, and returns the
// offset in the file after each call's result.
func bigTranscript(t *testing.T) (rundir.Dir, []int64) {
	t.Helper()
	d := rundir.Dir{Path: t.TempDir()}
	if err := os.MkdirAll(d.Case("big"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &results.Case{CaseID: "big", Status: results.StatusCompleted, Violations: &results.Violations{},
		PermissionDenials: []transcript.Denial{{ToolName: "Bash", ToolUseID: "c1001"}, {ToolName: "Bash", ToolUseID: "nowhere"}}}
	if err := results.WriteJSON(d.CaseResult("big"), c); err != nil {
		t.Fatal(err)
	}
	ledger := `{"ts":"t","tool_use_id":"c1000","tool":"Bash","decision":"deny","handler":0,"reason":"no rm"}` + "\n" +
		`{"ts":"t","tool_use_id":"ghost","tool":"Bash","decision":"deny","handler":0,"reason":"on no call"}` + "\n"
	if err := os.WriteFile(d.Ledger("big"), []byte(ledger), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(d.Transcript("big"))
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var off int64
	line := func(e transcript.Event) {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := bw.Write(append(b, '\n'))
		off += int64(n)
	}
	line(transcript.Event{Kind: transcript.KindPrompt, Text: "do it all"})
	pad := strings.Repeat("x", 2500)
	ends := make([]int64, bigCalls)
	for i := range bigCalls {
		id := fmt.Sprintf("c%d", i)
		line(transcript.Event{Kind: transcript.KindToolCall, Tool: "Bash", ToolUseID: id, Input: json.RawMessage(fmt.Sprintf(`{"command":"echo %d"}`, i))})
		text := "out " + id + " " + pad
		if i == hugeAt {
			text = "out " + id + " " + strings.Repeat("y", 5<<20) // no Writer clipped it: another runner's
		}
		line(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: id, Text: text})
		ends[i] = off
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return d, ends
}

// TestCasePageStreams: a page of a 50 MB transcript shows its 500 entries
// (the prompt is entry 0, call i entry i+1), reads the file only up to a
// little past them, allocates far less than the file, pairs the hook's
// decisions and run_result.json's denials with its calls, and keeps a
// 5 MB line (shown clipped under the line bound, as an entry too large
// over it).
func TestCasePageStreams(t *testing.T) {
	d, ends := bigTranscript(t)
	var read int64
	open := openTranscript
	t.Cleanup(func() { openTranscript = open })
	openTranscript = func(p string) (io.ReadCloser, error) {
		f, err := open(p)
		if err != nil {
			return nil, err
		}
		return countingFile{f, &read}, nil
	}
	page := func(from int) ([]item, *Paging, *caseView, int64, uint64) {
		t.Helper()
		read = 0
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		run, pg := CasePage(d, nil, "big", from, 500)
		runtime.ReadMemStats(&after)
		if len(run.Cases) != 1 {
			t.Fatalf("CasePage(%d) has %d cases", from, len(run.Cases))
		}
		return run.Cases[0].Items, pg, run.Cases[0], read, after.TotalAlloc - before.TotalAlloc
	}
	const slack = 256 << 10 // the reader's buffer and the lookahead

	items, pg, cv, n, alloc := page(0)
	if len(items) != 500 || items[0].Kind != "prompt" || items[1].Summary != "echo 0" || items[499].Summary != "echo 498" {
		t.Fatalf("page 1: %d entries, first %q %q, last %q", len(items), items[0].Kind, items[1].Summary, items[len(items)-1].Summary)
	}
	if !items[499].HasResult || !strings.HasPrefix(items[499].Result, "out c498 ") {
		t.Errorf("page 1's last call has no result: %+v", items[499])
	}
	if !pg.More || pg.Total != 0 || len(cv.Unmatched) != 0 {
		t.Errorf("page 1: more %v, total %d, %d unmatched; want more, no total, none", pg.More, pg.Total, len(cv.Unmatched))
	}
	if n > ends[499]+slack {
		t.Errorf("page 1 read %d bytes; it shows %d", n, ends[498])
	}
	if alloc > 8<<20 {
		t.Errorf("page 1 allocated %d bytes, the file is %d", alloc, ends[len(ends)-1])
	}

	items, pg, cv, n, alloc = page(1000)
	if len(items) != 500 || items[0].Summary != "echo 999" || items[499].Summary != "echo 1498" {
		t.Fatalf("page 3: %d entries, first %q, last %q", len(items), items[0].Summary, items[len(items)-1].Summary)
	}
	if pg.Total != 0 || !pg.More || len(cv.Unmatched) != 0 {
		t.Errorf("page 3: more %v, total %d, %d unmatched", pg.More, pg.Total, len(cv.Unmatched))
	}
	// page 3 reads what it skips once and what it shows (the 5 MB line among it)
	if n > ends[1498]+slack {
		t.Errorf("page 3 read %d bytes; it skips and shows %d", n, ends[1498])
	}
	// the one 5 MB line costs its buffer (doubled up to it) and its text
	if alloc > 32<<20 {
		t.Errorf("page 3 allocated %d bytes, the file is %d", alloc, ends[len(ends)-1])
	}
	if h := items[1].Hooks; len(h) != 1 || h[0].Reason != "no rm" {
		t.Errorf("call 1000 does not carry its hook decision: %+v", items[1])
	}
	if !items[2].Denied || items[1].Denied {
		t.Errorf("run_result.json's denial is not on call 1001 alone")
	}
	huge := items[hugeAt+1-1000]
	if !huge.HasResult || !huge.Clipped || len(huge.Result) > maxShown || !strings.HasPrefix(huge.Result, "out c1200 yyy") {
		t.Errorf("the 5 MB result is not shown clipped: %d bytes, clipped %v", len(huge.Result), huge.Clipped)
	}

	items, pg, cv, _, _ = page(20000)
	if len(items) != 2 || items[0].Summary != "echo 19999" || !items[1].Denied || items[1].ToolUseID != "nowhere" {
		t.Fatalf("the last page: %+v", items)
	}
	if pg.More || pg.Total != 20002 || len(cv.Unmatched) != 1 || cv.Unmatched[0].Reason != "on no call" {
		t.Errorf("the last page: more %v, total %d, unmatched %+v", pg.More, pg.Total, cv.Unmatched)
	}

	// Over the line bound, the 5 MB line is one entry that says so.
	defer func(m int) { maxLine = m }(maxLine)
	maxLine = 1 << 20
	items, _, _, _, _ = page(1000)
	huge = items[hugeAt+1-1000]
	if huge.HasResult || items[hugeAt+2-1000].Kind != "error" || !strings.Contains(items[hugeAt+2-1000].Text, "entry too large to show here (line 2403") {
		t.Errorf("the over-long line is not an entry too large: %+v / %+v", huge, items[hugeAt+2-1000])
	}
	if len(items) != 500 || items[499].Summary != "echo 1497" {
		t.Errorf("past the over-long line the entries do not follow: %d, last %q", len(items), items[len(items)-1].Summary)
	}
}
