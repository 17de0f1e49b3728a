package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agent-eval/agent-eval/internal/intercept"
)

// Dialects of the hook protocol: how an agent hands the hook its call and
// reads the decision back. The decision itself is always made on Claude
// Code's tool names and inputs (intercept's vocabulary): a dialect
// translates the agent's call into them and the decision out of them.
const (
	DialectClaude = "claude" // Claude Code's PreToolUse (the default)
	DialectCodex  = "codex"  // Codex's PreToolUse: Claude Code's shape
	DialectGemini = "gemini" // Gemini CLI's BeforeTool
	DialectCursor = "cursor" // Cursor's hooks.json events
)

// dialect is one agent's side of the protocol.
type dialect struct {
	// decode reads the agent's stdin into the call, in Claude Code's tool
	// names and inputs. An error denies the call.
	decode func(raw []byte) (Input, error)
	// respond writes the decision for the agent and returns the exit code.
	respond func(stdout, stderr io.Writer, in Input, d intercept.Decision) int
	// paths, when set, gives a call of a file tool (Read, Write, Edit,
	// Glob, Grep) a shell command that reaches the same paths, which the
	// path layer judges first: for an agent whose file tools no rule of
	// its own keeps from the denied paths ("": the call names none).
	paths func(in Input) string
	// normalise, when set, turns a call already decoded (a transcript's)
	// into the names and inputs decode gives it (NewDecider's callers).
	normalise func(in Input) Input
}

// dialectFor returns the named dialect; an unknown name is an error (the
// call is then denied in Claude Code's shape, which every agent that
// honours an exit code of 2 also reads as a block).
func dialectFor(name string) (dialect, error) {
	switch name {
	case "", DialectClaude:
		return dialect{decode: decodeClaude, respond: respond}, nil
	case DialectCodex:
		return dialect{decode: decodeCodex, respond: respond, paths: codexPaths, normalise: normaliseCodex}, nil
	case DialectGemini:
		return geminiDialect(), nil
	case DialectCursor:
		return cursorDialect(), nil
	}
	return dialect{decode: decodeClaude, respond: respond}, fmt.Errorf("unknown --dialect %q (known: claude, codex, gemini, cursor)", name)
}

// decodeClaude reads Claude Code's (and Codex's) PreToolUse JSON.
func decodeClaude(raw []byte) (Input, error) {
	var in Input
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&in); err != nil {
		return in, err
	}
	if in.ToolName == "" {
		return in, errors.New("no tool_name")
	}
	return in, nil
}
