package view

import (
	"bufio"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-eval/agent-eval/internal/transcript"
)

// TestLongTranscriptPaginated: a case of 3,000 calls (6 MB of transcript)
// shows MaxItems entries a page, the later ones a link away, and the raw
// transcript linked.
func TestLongTranscriptPaginated(t *testing.T) {
	dir := root(t, false)
	cdir := filepath.Join(dir, runLive, "cases", "long")
	writeCase(t, cdir, "long", 1)
	f, err := os.Create(filepath.Join(cdir, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w := transcript.NewWriter(bw)
	text := strings.Repeat("x", 2000)
	const calls = 3000
	for i := range calls {
		id := "t" + strconv.Itoa(i)
		w.Write(transcript.Event{Kind: transcript.KindToolCall, Tool: "Bash", ToolUseID: id, Input: json.RawMessage(`{"command":"ls"}`)})
		w.Write(transcript.Event{Kind: transcript.KindToolResult, ToolUseID: id, Text: text})
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	s := server(t, dir)
	seen := 0
	next := "/case?" + url.Values{"r": {runLive}, "id": {"long"}}.Encode()
	for pages := 0; next != ""; pages++ {
		if pages > calls/MaxItems {
			t.Fatalf("more than %d pages", calls/MaxItems)
		}
		code, body, _ := get(t, s, next)
		if code != 200 {
			t.Fatalf("GET %s: %d", next, code)
		}
		n := strings.Count(body, `<div class="ev tool`)
		if n > MaxItems {
			t.Fatalf("one page shows %d entries, over %d", n, MaxItems)
		}
		if len(body) > 2<<20 {
			t.Errorf("one page is %d bytes", len(body))
		}
		if pages == 0 && (!strings.Contains(body, "entries 1–500, more follow") || !strings.Contains(body, "f=cases%2Flong%2Ftranscript.jsonl")) {
			t.Errorf("the first page does not say more entries follow, or link the raw transcript")
		}
		if pages == 2 && !strings.Contains(body, "entries 1001–1500, more follow") {
			t.Errorf("the third page does not say it shows entries 1001–1500")
		}
		if pages == calls/MaxItems-1 && !strings.Contains(body, "entries 2501–3000 of 3000") {
			t.Errorf("the last page does not say how many entries there are")
		}
		seen += n
		next = ""
		if href := between(body, `<a href="`, `" id="next">`); href != "" && strings.Contains(body, `id="next"`) {
			next = strings.ReplaceAll(href[strings.LastIndex(href, `"`)+1:], "&amp;", "&")
		}
	}
	if seen != calls {
		t.Errorf("the pages show %d calls, want %d", seen, calls)
	}
}
