package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// symbolicTokens is the usage the fake reports for a request: non-zero, so
// clients count it, but a thousandth of a real count, so the costs Claude
// Code derives from it stay near zero and nobody mistakes them for spend.
func symbolicTokens(n int) int { return n/4000 + 1 }

// message is a Messages API response.
type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []block `json:"content"`
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

type block struct {
	Type      string         `json:"type"`
	Text      *string        `json:"text,omitempty"`
	Thinking  *string        `json:"thinking,omitempty"`
	Signature *string        `json:"signature,omitempty"`
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name,omitempty"`
	Input     map[string]any `json:"input,omitempty"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

const fakeSignature = "fake-signature"

func buildMessage(t Turn, turn int, model string, reqSize int) message {
	if model == "" {
		model = "claude-fake-1"
	}
	m := message{ID: fmt.Sprintf("msg_fake_%d", turn), Type: "message", Role: "assistant", Model: model,
		Content: []block{}, Usage: usage{InputTokens: symbolicTokens(reqSize)}}
	out := 0
	if t.Thinking != "" {
		th, sig := t.Thinking, fakeSignature
		m.Content = append(m.Content, block{Type: "thinking", Thinking: &th, Signature: &sig})
		out += estimateTokens(len(th))
	}
	if t.Text != "" {
		tx := t.Text
		m.Content = append(m.Content, block{Type: "text", Text: &tx})
		out += estimateTokens(len(tx))
	}
	for i, u := range t.tools() {
		id := u.ID
		if id == "" {
			id = fmt.Sprintf("toolu_fake_%d_%d", turn, i)
		}
		input := u.Input
		if input == nil {
			input = map[string]any{}
		}
		m.Content = append(m.Content, block{Type: "tool_use", ID: id, Name: u.Name, Input: input})
		out += 10
	}
	m.StopReason = t.StopReason
	if m.StopReason == "" {
		m.StopReason = "end_turn"
		if len(t.tools()) > 0 {
			m.StopReason = "tool_use"
		}
	}
	m.Usage.OutputTokens = out
	return m
}

// writeSSE sends m as the event sequence of the real streaming API:
// message_start, ping, then per block content_block_start, deltas and
// content_block_stop, then message_delta and message_stop. The body goes out
// whole, with a Content-Length.
func writeSSE(w http.ResponseWriter, m message) {
	var b bytes.Buffer
	event := func(name string, data any) {
		j, _ := json.Marshal(data)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, j)
	}
	start := m
	start.Content = []block{}
	start.StopReason = ""
	startUsage := m.Usage
	startUsage.OutputTokens = 1
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": start.ID, "type": "message", "role": "assistant", "model": start.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": startUsage}})
	event("ping", map[string]string{"type": "ping"})
	for i, bl := range m.Content {
		delta := func(d map[string]any) {
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		switch bl.Type {
		case "thinking":
			empty := ""
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": block{Type: "thinking", Thinking: &empty, Signature: &empty}})
			for _, c := range chunks(*bl.Thinking, 24) {
				delta(map[string]any{"type": "thinking_delta", "thinking": c})
			}
			delta(map[string]any{"type": "signature_delta", "signature": *bl.Signature})
		case "text":
			empty := ""
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": block{Type: "text", Text: &empty}})
			for _, c := range chunks(*bl.Text, 24) {
				delta(map[string]any{"type": "text_delta", "text": c})
			}
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": bl.ID, "name": bl.Name, "input": map[string]any{}}})
			input, _ := json.Marshal(bl.Input)
			for _, c := range chunks(string(input), 16) {
				delta(map[string]any{"type": "input_json_delta", "partial_json": c})
			}
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": m.StopReason, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": m.Usage.OutputTokens}})
	event("message_stop", map[string]string{"type": "message_stop"})

	writeEventStream(w, "request-id", "req_"+m.ID, b.Bytes())
}

// writeEventStream answers 200 with the whole SSE body at once, its
// request id in the header idHeader.
func writeEventStream(w http.ResponseWriter, idHeader, id string, body []byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set(idHeader, id)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// chunks splits s into pieces of at most n bytes, on rune boundaries.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
