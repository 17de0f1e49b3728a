// Package llm is agent-eval's one way to call a model: the official
// anthropic-sdk-go client, configured from the environment (ANTHROPIC_API_KEY
// or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL), so tests point it at the
// fake Messages API. Nothing here logs a credential.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Client calls the Messages API.
type Client struct {
	c anthropic.Client
}

// New returns a client configured from the environment, with the given
// number of retries on transient errors. Like Claude Code, it adds the
// headers of ANTHROPIC_CUSTOM_HEADERS ("Name: value" lines) to every
// request: the hook, started by Claude Code with its environment, then
// reaches the same gateway (or, under --fake-model, the same case's
// script) as the agent.
func New(maxRetries int) *Client { return NewFromEnv(maxRetries, os.Getenv) }

// NewFromEnv is New with the credentials (ANTHROPIC_API_KEY,
// ANTHROPIC_AUTH_TOKEN, ANTHROPIC_CUSTOM_HEADERS) and FakeModelEnv read
// through getenv rather than from the process: the hook adds those of its
// credentials file without changing its environment.
func NewFromEnv(maxRetries int, getenv func(string) string) *Client {
	opts := []option.RequestOption{option.WithMaxRetries(maxRetries)}
	key, token := getenv("ANTHROPIC_API_KEY"), getenv("ANTHROPIC_AUTH_TOKEN")
	switch {
	case key != "":
		opts = append(opts, option.WithAPIKey(key))
	case token != "":
		opts = append(opts, option.WithAuthToken(token))
	case getenv(FakeModelEnv) == "1":
		opts = append(opts, option.WithAPIKey("fake-model")) // the fake takes any key; the scrub took ours
	}
	for name, value := range CustomHeaders(getenv("ANTHROPIC_CUSTOM_HEADERS")) {
		opts = append(opts, option.WithHeader(name, value))
	}
	return &Client{c: anthropic.NewClient(opts...)}
}

// NewAt returns a client of the API at baseURL with apiKey, whatever the
// environment says: `score --fake-model` points the judges at the built-in
// fake this way, never at a real endpoint with a real key.
func NewAt(maxRetries int, baseURL, apiKey string) *Client {
	return &Client{c: anthropic.NewClient(option.WithMaxRetries(maxRetries), option.WithBaseURL(baseURL), option.WithAPIKey(apiKey))}
}

// FakeModelEnv is set to "1" by `agent-eval run --fake-model` in the
// agent's environment. The hook then reaches the fake without a key when
// Claude Code's scrub (sandbox on) removed ANTHROPIC_API_KEY from its
// environment: the fake takes any key, and no real credential is involved.
const FakeModelEnv = "AGENT_EVAL_FAKE_MODEL"

// CustomHeaders parses ANTHROPIC_CUSTOM_HEADERS as Claude Code does: one
// "Name: value" per line; lines without a colon or a name are skipped.
func CustomHeaders(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			continue
		}
		out[name] = strings.TrimSpace(value)
	}
	return out
}

// Text asks model one question and returns the text of its reply. With
// temperature set, a model that rejects the parameter is asked again
// without it.
func (c *Client) Text(ctx context.Context, model, system, user string, maxTokens int64, temperature *float64, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: maxTokens,
		System:    []anthropic.TextBlockParam{{Text: system}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(user))},
	}
	var opts []option.RequestOption
	if temperature != nil {
		opts = append(opts, option.WithJSONSet("temperature", *temperature))
	}
	msg, err := c.c.Messages.New(ctx, params, opts...)
	var apiErr *anthropic.Error
	if err != nil && temperature != nil && errors.As(err, &apiErr) && apiErr.StatusCode == 400 && strings.Contains(strings.ToLower(err.Error()), "temperature") {
		msg, err = c.c.Messages.New(ctx, params) // the model takes no temperature
	}
	if err != nil {
		return "", err
	}
	var parts []string
	for _, b := range msg.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "")), nil
}

// Tool asks model to answer by calling one tool, decodes that call's input
// into out and checks it with validate. An answer that fails validation is
// sent back once, with the errors, for a corrected answer; it is never
// trusted blindly.
func (c *Client) Tool(ctx context.Context, model, system, user, name, description string, schema map[string]any, out any, validate func() error, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]string)
	tool := anthropic.ToolParam{Name: name, Description: anthropic.String(description),
		InputSchema: anthropic.ToolInputSchemaParam{Properties: props, Required: required}}
	messages := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(user))}
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		msg, err := c.c.Messages.New(ctx, anthropic.MessageNewParams{
			Model:      anthropic.Model(model),
			MaxTokens:  2048,
			System:     []anthropic.TextBlockParam{{Text: system}},
			Messages:   messages,
			Tools:      []anthropic.ToolUnionParam{{OfTool: &tool}},
			ToolChoice: anthropic.ToolChoiceParamOfTool(name),
		})
		if err != nil {
			return err
		}
		var call *anthropic.ContentBlockUnion
		for i := range msg.Content {
			if msg.Content[i].Type == "tool_use" && msg.Content[i].Name == name {
				call = &msg.Content[i]
			}
		}
		if call == nil {
			return errors.New("the model did not call " + name)
		}
		lastErr = json.Unmarshal(call.Input, out)
		if lastErr == nil {
			lastErr = validate()
		}
		if lastErr == nil {
			return nil
		}
		messages = append(messages, msg.ToParam(),
			anthropic.NewUserMessage(anthropic.NewToolResultBlock(call.ID, "Invalid answer: "+lastErr.Error()+". Call "+name+" again with a corrected answer.", true)))
	}
	return fmt.Errorf("the model's answer stayed invalid after a retry: %w", lastErr)
}

// ToolRequest asks a model for one forced tool call.
type ToolRequest struct {
	Model, System, User string
	// Tool is the tool's name; Schema its JSON Schema (type object).
	Tool, Description string
	Schema            map[string]any
	MaxTokens         int64
	Timeout           time.Duration
}

// ForcedTool sends req once, forcing the tool, and returns the tool call's
// input, or (nil, the reply's text) when the model answered without
// calling it. Transient errors (429, 529 and other 5xx, timeouts) are
// retried by the SDK with exponential backoff, honouring retry-after, up
// to the client's retry count; the input is never validated here.
func (c *Client) ForcedTool(ctx context.Context, req ToolRequest) (json.RawMessage, string, error) {
	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()
	props, _ := req.Schema["properties"].(map[string]any)
	required, _ := req.Schema["required"].([]string)
	tool := anthropic.ToolParam{Name: req.Tool, Description: anthropic.String(req.Description),
		InputSchema: anthropic.ToolInputSchemaParam{Properties: props, Required: required}}
	msg, err := c.c.Messages.New(ctx, anthropic.MessageNewParams{
		Model:      anthropic.Model(req.Model),
		MaxTokens:  req.MaxTokens,
		System:     []anthropic.TextBlockParam{{Text: req.System}},
		Messages:   []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(req.User))},
		Tools:      []anthropic.ToolUnionParam{{OfTool: &tool}},
		ToolChoice: anthropic.ToolChoiceParamOfTool(req.Tool),
	})
	if err != nil {
		return nil, "", err
	}
	var text []string
	for _, b := range msg.Content {
		switch {
		case b.Type == "tool_use" && b.Name == req.Tool:
			return b.Input, "", nil
		case b.Type == "text":
			text = append(text, b.Text)
		}
	}
	return nil, strings.Join(text, ""), nil
}
