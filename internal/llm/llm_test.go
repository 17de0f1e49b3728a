package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agent-eval/agent-eval/internal/fakeapi"
	"github.com/agent-eval/agent-eval/internal/testutil/fakemodel"
)

// TestTextAgainstFake: the client honours ANTHROPIC_BASE_URL and sends the
// request the fake expects; a temperature the model rejects is dropped.
func TestTextAgainstFake(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{Script: &fakeapi.Script{Side: &fakeapi.Turn{Text: "  staging \n"}}})
	fakemodel.Serve(t, srv)
	zero := 0.0
	got, err := New(0).Text(context.Background(), "claude-haiku-4-5-20251001", "system text", "which env?", 64, &zero, 5*time.Second)
	if err != nil || got != "staging" {
		t.Fatalf("Text = %q, %v; want staging", got, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "claude-haiku-4-5-20251001" {
		t.Fatalf("requests = %+v", reqs)
	}
	var body map[string]any
	_ = json.Unmarshal(reqs[0].Body, &body)
	if body["temperature"] != 0.0 || !strings.Contains(string(reqs[0].Body), "which env?") {
		t.Errorf("request body = %s", reqs[0].Body)
	}

	rejecting := fakeapi.New(fakeapi.Options{Script: &fakeapi.Script{Side: &fakeapi.Turn{Error: &fakeapi.APIError{Status: 400, Type: "invalid_request_error", Message: "temperature is not supported"}}}})
	url2, err := rejecting.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer rejecting.Close()
	t.Setenv("ANTHROPIC_BASE_URL", url2)
	if _, err := New(0).Text(context.Background(), "m", "s", "u", 8, &zero, 5*time.Second); err == nil {
		t.Fatal("want the 400 to surface after the retry")
	}
	rr := rejecting.Requests()
	if len(rr) != 2 || !strings.Contains(string(rr[0].Body), `"temperature"`) || strings.Contains(string(rr[1].Body), `"temperature"`) {
		t.Errorf("a temperature rejection made %d requests, want 2: the retry without temperature", len(rr))
	}
}

// TestCustomHeaders: the client sends ANTHROPIC_CUSTOM_HEADERS as Claude
// Code does, so a hook under --fake-model reaches its case's script.
func TestCustomHeaders(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	srv.SetScript("case-7", &fakeapi.Script{Side: &fakeapi.Turn{Text: "from case-7"}})
	fakemodel.Serve(t, srv)
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", fakeapi.ScriptHeader+": case-7\nX-Other: two words")
	got, err := New(0).Text(context.Background(), "m", "s", "u", 8, nil, 5*time.Second)
	if err != nil || got != "from case-7" {
		t.Fatalf("Text = %q, %v; want the named script's side answer", got, err)
	}
	if h := srv.Requests()[0].Headers["X-Other"]; h != "two words" {
		t.Errorf("X-Other = %q", h)
	}
	for in, want := range map[string]int{"": 0, "A: b": 1, "no colon\n: empty name\nbad name: x": 0, "A: b\r\nC:d": 2} {
		if got := CustomHeaders(in); len(got) != want {
			t.Errorf("CustomHeaders(%q) = %v, want %d headers", in, got, want)
		}
	}
}

// TestNewFromEnv: the key and the custom headers come from getenv, not
// from the process, so the hook need not change its environment.
func TestNewFromEnv(t *testing.T) {
	srv := fakeapi.New(fakeapi.Options{})
	srv.SetScript("case-9", &fakeapi.Script{Side: &fakeapi.Turn{Text: "from case-9"}})
	fakemodel.Serve(t, srv)
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "")
	t.Setenv("ANTHROPIC_API_KEY", "") // only getenv has a key
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-given", "ANTHROPIC_CUSTOM_HEADERS": fakeapi.ScriptHeader + ": case-9"}
	got, err := NewFromEnv(0, func(k string) string { return env[k] }).Text(context.Background(), "m", "s", "u", 8, nil, 5*time.Second)
	if err != nil || got != "from case-9" {
		t.Fatalf("Text = %q, %v; want the script getenv's header names", got, err)
	}
	if h := srv.Requests()[0].Headers["Authorization"]; h == "" {
		t.Errorf("no Authorization header, though getenv has a key: %v", srv.Requests()[0].Headers)
	}
}
