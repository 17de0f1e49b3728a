package fakeapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// Recording the OpenAI Responses API (the Codex CLI's): a request's turn
// and last input as the fake counts and strict replay compares them, and
// the answer, an SSE stream of response events (or one response object),
// as a script turn in the fake's vocabulary: the reasoning summary as
// thinking, the assistant messages' text, each function call with its
// call_id and arguments, each custom tool call (Codex's apply_patch) with
// its freeform text as input.input, which the fake plays back as the same
// call when the replaying request offers the tool.

// responsesCall reads a Responses API request.
func responsesCall(body []byte) (recordedCall, bool) {
	var req responsesRequest
	if json.Unmarshal(body, &req) != nil {
		return recordedCall{}, false
	}
	req.parseInput()
	c := recordedCall{main: len(req.Tools) > 0, cwd: req.cwd(), answer: responsesTurn}
	if c.main {
		c.turn = req.turns()
		c.last = NormalizeResponses(req.items, c.cwd)
	}
	return c, true
}

// responseEnd is the response object of a stream's last event (or of a
// whole answer): its status, why it is incomplete, its error, its output.
type responseEnd struct {
	Status            string         `json:"status"`
	Output            []responseItem `json:"output"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// responsesTurn reads a Responses API answer; false when it holds nothing
// to replay.
func responsesTurn(resp *http.Response, body []byte) (Turn, bool) {
	if resp.StatusCode >= 400 {
		return errorTurn(resp, body), true
	}
	var items []responseItem
	var end *responseEnd
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		eachData(body, func(data []byte) {
			var ev struct {
				Type     string          `json:"type"`
				Item     responseItem    `json:"item"`
				Response json.RawMessage `json:"response"`
			}
			if json.Unmarshal(data, &ev) != nil {
				return
			}
			switch ev.Type {
			case "response.output_item.done":
				items = append(items, ev.Item)
			case "response.completed", "response.incomplete", ResponseFailed:
				var e responseEnd
				if json.Unmarshal(ev.Response, &e) == nil {
					end = &e
				}
			}
		})
	} else {
		var e responseEnd
		if json.Unmarshal(body, &e) != nil {
			return Turn{}, false
		}
		end = &e
	}
	if end != nil && (end.Status == "failed" || end.Error != nil && end.Error.Message != "") {
		msg := "the response failed"
		if end.Error != nil && end.Error.Message != "" {
			msg = end.Error.Message
		}
		// Replayed as it came: a 200 whose stream ends in response.failed.
		return Turn{Error: &APIError{Status: http.StatusInternalServerError, Type: ResponseFailed, Message: msg}}, true
	}
	if len(items) == 0 && end != nil {
		items = end.Output
	}
	stop := ""
	if end != nil && end.IncompleteDetails != nil && end.IncompleteDetails.Reason == "max_output_tokens" {
		stop = "max_tokens"
	}
	return itemsTurn(items, stop)
}

// itemsTurn is a response's output items as a script turn, its stop
// reason stop or, when "", tool_use or end_turn as Claude Code's
// cassettes say.
func itemsTurn(items []responseItem, stop string) (Turn, bool) {
	var t Turn
	for _, it := range items {
		switch it.Type {
		case "reasoning":
			for _, p := range it.Summary {
				t.Thinking += p.Text
			}
		case "message":
			if it.Role == "assistant" {
				t.Text += itemText(it.Content)
			}
		case "function_call":
			var in map[string]any
			_ = json.Unmarshal([]byte(it.Arguments), &in)
			t.ToolUses = append(t.ToolUses, ToolUse{ID: it.CallID, Name: it.Name, Input: nonNil(in)})
		case "custom_tool_call":
			t.ToolUses = append(t.ToolUses, ToolUse{ID: it.CallID, Name: it.Name, Input: map[string]any{"input": it.Input}})
		}
	}
	t.StopReason = stop
	if stop == "" {
		t.StopReason = "end_turn"
		if len(t.ToolUses) > 0 {
			t.StopReason = "tool_use"
		}
	}
	return t, t.hasContent()
}

// eachData calls f with the data of every SSE data: line of body.
func eachData(body []byte, f func([]byte)) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			f(bytes.TrimSpace(data))
		}
	}
}
