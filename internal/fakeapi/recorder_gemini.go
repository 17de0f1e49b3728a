package fakeapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// Recording the Gemini API (the Gemini CLI's): a request's turn and last
// content as the fake counts and strict replay compares them, and the
// answer, GenerateContentResponse chunks (SSE with alt=sse, else a JSON
// array, or one object from generateContent), as a script turn: thought
// parts as thinking, text parts as text, each functionCall with its id
// (when the API gave one) and args, the finish reason MAX_TOKENS as
// max_tokens.

// geminiRequestCall reads a Gemini API request. A structured side call (one
// asking for a JSON schema: the CLI's model routing, its next-speaker
// check) is forwarded and not recorded: the fake answers those itself.
func geminiRequestCall(body []byte) (recordedCall, bool) {
	var req geminiRequest
	if json.Unmarshal(body, &req) != nil {
		return recordedCall{}, false
	}
	c := recordedCall{main: len(req.tools()) > 0, cwd: req.cwd(), answer: geminiTurn}
	if !c.main && (len(req.GenerationConfig.ResponseJSONSchema) > 0 || len(req.GenerationConfig.ResponseSchema) > 0) {
		return recordedCall{}, false
	}
	if c.main {
		for _, cn := range req.Contents {
			if cn.Role == "model" {
				c.turn++
			}
		}
		c.last = NormalizeGemini(req.Contents, c.cwd)
	}
	return c, true
}

// geminiChunk is the part of a GenerateContentResponse the recorder reads.
type geminiChunk struct {
	Candidates []struct {
		Content struct {
			Parts []geminiPart `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
}

// geminiTurn reads a Gemini API answer; false when it holds nothing to
// replay.
func geminiTurn(resp *http.Response, body []byte) (Turn, bool) {
	if resp.StatusCode >= 400 {
		return errorTurn(resp, body), true
	}
	var chunks []geminiChunk
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		eachData(body, func(data []byte) {
			var c geminiChunk
			if json.Unmarshal(data, &c) == nil {
				chunks = append(chunks, c)
			}
		})
	} else if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		if json.Unmarshal(b, &chunks) != nil {
			return Turn{}, false
		}
	} else {
		var c geminiChunk
		if json.Unmarshal(b, &c) != nil {
			return Turn{}, false
		}
		chunks = []geminiChunk{c}
	}
	var t Turn
	finish := ""
	for _, c := range chunks {
		if len(c.Candidates) == 0 {
			continue
		}
		cand := c.Candidates[0]
		if cand.FinishReason != "" {
			finish = cand.FinishReason
		}
		for _, p := range cand.Content.Parts {
			switch {
			case p.FunctionCall != nil:
				t.ToolUses = append(t.ToolUses, ToolUse{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Input: nonNil(p.FunctionCall.Args)})
			case p.Thought:
				t.Thinking += p.Text
			default:
				t.Text += p.Text
			}
		}
	}
	switch {
	case finish == "MAX_TOKENS":
		t.StopReason = "max_tokens"
	case len(t.ToolUses) > 0:
		t.StopReason = "tool_use"
	default:
		t.StopReason = "end_turn"
	}
	return t, t.hasContent()
}
