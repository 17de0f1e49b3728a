package permissions

import "testing"

func TestMatch(t *testing.T) {
	t.Parallel()
	allow := []string{"Bash(git status)", "Bash(go test:*)", "Read(docs/**)", "Edit(artifacts/**)", "WebFetch(domain:example.com)", "mcp__jira", "Write(out/**)"}
	deny := []string{"Read(secret/**)", "Edit(secret/**)", "Bash(rm:*)", "mcp__prod__*", "Read(//etc/shadow)", "Read(~/.ssh/**)", "Read(*.env)", "Task(review)"}
	bash := func(cmd string) Call {
		return Call{Tool: "Bash", Input: map[string]any{"command": cmd}, CWD: "/ws", Home: "/home/u"}
	}
	file := func(tool, key, p string) Call {
		return Call{Tool: tool, Input: map[string]any{key: p}, CWD: "/ws", Home: "/home/u"}
	}
	tests := []struct {
		name string
		call Call
		want string
		rule string
	}{
		{"cat of a denied file", bash("cat secret/x"), "deny", "Read(secret/**)"},
		{"quoted and dotted", bash(`cat './secret/k.txt'`), "deny", "Read(secret/**)"},
		{"grep skips its pattern", bash("grep -r secret docs/"), "none", ""},
		{"grep over a denied dir", bash("grep -r key secret"), "deny", "Read(secret/**)"},
		{"a lookalike", bash("cat secretary.txt"), "none", ""},
		{"rm prefix in a compound line", bash("ls && rm -rf junk"), "deny", "Bash(rm:*)"},
		{"rmdir is not rm", bash("rmdir junk"), "none", ""},
		{"exact allow", bash("git status"), "allow", "Bash(git status)"},
		{"prefix allow", bash("go test ./..."), "allow", "Bash(go test:*)"},
		{"every part must be allowed", bash("go test ./... && curl x"), "none", ""},
		{"Read tool", file("Read", "file_path", "/ws/secret/a/b"), "deny", "Read(secret/**)"},
		{"Write is covered by Edit", file("Write", "file_path", "/ws/secret/new"), "deny", "Edit(secret/**)"},
		{"Write allowed", file("Write", "file_path", "/ws/artifacts/out.txt"), "allow", "Edit(artifacts/**)"},
		{"Grep of the denied dir", file("Grep", "path", "secret"), "deny", "Read(secret/**)"},
		{"absolute rule", file("Read", "file_path", "/etc/shadow"), "deny", "Read(//etc/shadow)"},
		{"home rule", file("Read", "file_path", "/home/u/.ssh/id_rsa"), "deny", "Read(~/.ssh/**)"},
		{"basename at any depth", file("Read", "file_path", "/ws/a/b/prod.env"), "deny", "Read(*.env)"},
		{"outside the rules", file("Read", "file_path", "/ws/README.md"), "none", ""},
		{"mcp wildcard", Call{Tool: "mcp__prod__delete"}, "deny", "mcp__prod__*"},
		{"mcp server", Call{Tool: "mcp__jira__create"}, "allow", "mcp__jira"},
		{"Write rule", Call{Tool: "Write", Input: map[string]any{"file_path": "/ws/out/a"}, CWD: "/ws"}, "allow", "Write(out/**)"},
		{"web fetch", file("WebFetch", "url", "https://example.com/a"), "allow", "WebFetch(domain:example.com)"},
		{"web fetch elsewhere", file("WebFetch", "url", "https://evil.test/a"), "none", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Match(allow, deny, tt.call)
			if v.Decision != tt.want || v.Rule != tt.rule {
				t.Errorf("Match = %s by %q (%s), want %s by %q", v.Decision, v.Rule, v.Reason, tt.want, tt.rule)
			}
		})
	}
	// What cannot be judged is said so, never allowed.
	if v := Match(nil, []string{"Bash(rm:*)"}, bash(`$CMD -rf x`)); v.Decision != "none" || len(v.Unjudged) != 1 {
		t.Errorf("a run-time command: %+v", v)
	}
	if v := Match(nil, deny, Call{Tool: "Task", Input: map[string]any{}}); len(v.Unjudged) != 1 || v.Unjudged[0] != "Task(review)" {
		t.Errorf("an unknown specifier: %+v", v)
	}
}
