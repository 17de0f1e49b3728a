package main

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/agent-eval/agent-eval/internal/fakeapi"
)

// The sandbox leak corpus (testdata/e2e/sandbox_leaks.txtar) is a plain
// list of Bash commands, one per line (# starts a comment), so the same
// list can drive any runner or layer. Two programs turn it into a fake
// model script and count what got through:
//
//	bash-turns LIST OUT [key=value ...]
//	    writes a fake_model.yaml whose turns run each command of LIST with
//	    Bash, in order, then end with a text turn; each key=value is added
//	    to every Bash input (e.g. dangerouslyDisableSandbox=true).
//	leak-count REQUESTS SCRIPT TOKEN
//	    reads fake_model_requests.jsonl and prints "leaked N of M" for the
//	    tool results of the requests of SCRIPT (the case id), then each
//	    leaking command; N counts tool_use ids whose result holds TOKEN,
//	    also spread out by whitespace (od -c), reversed, in hex or base64.

func bashTurns() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: bash-turns LIST OUT [key=value ...]")
		os.Exit(2)
	}
	cmds, err := readLeakList(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	extra := map[string]any{}
	for _, kv := range os.Args[3:] {
		k, v, _ := strings.Cut(kv, "=")
		var x any = v
		if v == "true" || v == "false" {
			x = v == "true"
		}
		extra[k] = x
	}
	var b strings.Builder
	b.WriteString("turns:\n")
	for _, c := range cmds {
		in := map[string]any{"command": c, "description": "probe"}
		for k, v := range extra {
			in[k] = v
		}
		j, _ := json.Marshal(map[string]any{"tool_use": map[string]any{"name": "Bash", "input": in}})
		b.WriteString("  - " + string(j) + "\n") // JSON is YAML
	}
	b.WriteString("  - {\"text\": \"done\"}\n")
	if err := os.WriteFile(os.Args[2], []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func readLeakList(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

func leakCount() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: leak-count REQUESTS SCRIPT TOKEN")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	token := os.Args[3]
	results := map[string]bool{} // tool_use id → leaked
	commands := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r fakeapi.Request
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Kind != "main" || r.Script != os.Args[2] {
			continue
		}
		for _, tr := range r.ToolResults {
			results[tr.ToolUseID] = results[tr.ToolUseID] || holdsToken(tr.Content, token)
		}
		for _, u := range r.ToolUses {
			if c, ok := u.Input["command"].(string); ok {
				commands[u.ID] = c
			}
		}
		var body struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &body)
		for _, m := range body.Messages {
			var blocks []struct {
				Type  string `json:"type"`
				ID    string `json:"id"`
				Input struct {
					Command string `json:"command"`
				} `json:"input"`
			}
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, bl := range blocks {
					if bl.Type == "tool_use" {
						commands[bl.ID] = bl.Input.Command
					}
				}
			}
		}
	}
	n := 0
	var leaked []string
	for id, l := range results {
		if l {
			n++
			leaked = append(leaked, commands[id])
		}
	}
	fmt.Printf("leaked %d of %d\n", n, len(results))
	for _, c := range leaked {
		fmt.Printf("  %s\n", c)
	}
	os.Exit(0)
}

// holdsToken reports whether a tool result shows token in one of the forms
// a reading command prints it in.
func holdsToken(content, token string) bool {
	squeezed := strings.Join(strings.Fields(content), "")
	rev := []rune(token)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(token[:len(token)/3*3]))
	for _, form := range []string{token, string(rev), hex.EncodeToString([]byte(token)), b64} {
		if strings.Contains(content, form) || strings.Contains(squeezed, form) {
			return true
		}
	}
	return false
}
