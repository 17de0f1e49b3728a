package fakeapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestStrictDivergence: which changes of a request a replay takes for the
// recorded one and which end the session as diverged.
func TestStrictDivergence(t *testing.T) {
	t.Parallel()
	sc := mustScript(t, `
turns:
  - tool_use: {id: toolu_1, name: Bash, input: {command: ls}}
    request: {last: "fix the bug"}
  - text: done
    request: {last: "[tool_result] ${CWD}/a.txt"}
`)
	first := func(content string) string {
		return `[{"role":"user","content":` + content + `}]`
	}
	second := func(result string) string {
		return `[{"role":"user","content":"fix the bug"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + result + `}]}]`
	}
	for _, tc := range []struct {
		name, messages string
		diverged       bool
		turn           int
		diff           string
	}{
		{name: "same prompt", messages: first(`"fix the bug"`)},
		{name: "prompt as blocks, cache_control", messages: first(`[{"type":"text","text":"fix the bug","cache_control":{"type":"ephemeral"}}]`)},
		{name: "system reminders change", messages: first(`[{"type":"text","text":"<system-reminder>Today is 2030-01-01</system-reminder>"},{"type":"text","text":"fix the bug"}]`)},
		{name: "prompt changed", messages: first(`"fix the other bug"`), diverged: true, diff: "+fix the other bug"},
		{name: "same tool result elsewhere", messages: second(`"/tmp/ws 2/a.txt"`)},
		{name: "tool result changed", messages: second(`"/tmp/ws 2/b.txt"`), diverged: true, turn: 1, diff: "-[tool_result] ${CWD}/a.txt"},
		{name: "past the recording", messages: second(`"/tmp/ws 2/a.txt"`)[:len(second(`"/tmp/ws 2/a.txt"`))-1] +
			`,{"role":"assistant","content":"done"},{"role":"user","content":"and more"}]`, diverged: true, turn: 2, diff: "ends after 2 turns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := New(Options{Strict: true})
			s.SetScript("c", sc)
			base, err := s.Start("")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			body := `{"model":"m","system":"Primary working directory: /tmp/ws 2","tools":[{"name":"Bash"}],"messages":` + tc.messages + `}`
			if !json.Valid([]byte(body)) {
				t.Fatalf("test body is not JSON: %s", body)
			}
			resp, err := http.Post(ScriptURL(base, "c")+"/v1/messages", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			d, got := s.Divergence("c")
			if got != tc.diverged {
				t.Fatalf("diverged = %v, want %v (status %d: %s)", got, tc.diverged, resp.StatusCode, b)
			}
			if !tc.diverged {
				if resp.StatusCode != http.StatusOK {
					t.Errorf("status %d: %s", resp.StatusCode, b)
				}
				return
			}
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status %d, want 400 (not retried)", resp.StatusCode)
			}
			if d.Turn != tc.turn || !strings.Contains(d.Diff, tc.diff) {
				t.Errorf("divergence = turn %d, diff:\n%s\nwant turn %d and %q", d.Turn, d.Diff, tc.turn, tc.diff)
			}
		})
	}
}

// TestCassetteAsScript: a recorded cassette read by an ordinary (not
// strict) fake answers by turn and ignores what was recorded as asked.
func TestCassetteAsScript(t *testing.T) {
	t.Parallel()
	sc := mustScript(t, `
turns:
  - text: recorded answer
    request: {last: "something else entirely"}
`)
	s := New(Options{})
	s.SetScript("c", sc)
	base, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Post(ScriptURL(base, "c")+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"m","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "recorded answer") {
		t.Errorf("status %d: %s", resp.StatusCode, b)
	}
}
