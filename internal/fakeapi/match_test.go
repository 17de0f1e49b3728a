package fakeapi

import (
	"context"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// TestMatch: a match rule answers by a word of the last user message,
// before the turns; a rule with no text is a script error.
func TestMatch(t *testing.T) {
	t.Parallel()
	_, c := start(t, Options{Script: mustScript(t, "match:\n  - contains: case-b\n    turn: {text: for b}\nside: {text: side}\n")})
	for _, tt := range []struct{ msg, want string }{{"judge case-b please", "for b"}, {"judge case-a please", "side"}} {
		p := anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(tt.msg))}}
		msg, err := c.Messages.New(context.Background(), p)
		if err != nil || msg.Content[0].Text != tt.want {
			t.Errorf("%q: %v %v; want %q", tt.msg, msg, err, tt.want)
		}
	}
	if _, err := ParseScript([]byte("match:\n  - turn: {text: x}\n")); err == nil || !strings.Contains(err.Error(), "contains is empty") {
		t.Errorf("a rule without contains: %v", err)
	}
}
