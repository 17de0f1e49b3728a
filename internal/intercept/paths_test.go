package intercept

import (
	"context"
	"testing"
)

// TestPathPatterns: the spellings of denied_paths, with no filesystem (nil
// FS: globs are judged by their shape, failing closed).
func TestPathPatterns(t *testing.T) {
	t.Parallel()
	p, err := Prepare(File{Root: "/ws", DeniedPaths: []string{"secret/**", "//etc/app/creds/**", "~/.ssh/**", "*.pem", "conf/prod.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cwd, command string
		deny         bool
	}{
		{"/ws", "cat secret/a", true},
		{"/ws", "cat s?cret/a", true},
		{"/ws", "cat /etc/app/creds/db.txt", true},
		{"/tmp", "cat ../etc/app/creds/x", true},
		{"/ws", "cat /etc/app/other.txt", false},
		{"/ws", "cat ~/.ssh/id_rsa", true},
		{"/ws", "cat $HOME/.ssh/id_rsa", true},
		{"/ws", "cat deep/dir/server.pem", true},
		{"/ws", "cat server.pem.txt", false},
		{"/ws", "cat conf/prod.yaml", true},
		{"/ws", "cat conf/dev.yaml", false},
		{"/ws", "grep -r x conf", true},
		{"/ws", "grep -r x src", true}, // *.pem may be anywhere
		{"/ws/sub", "cat ../secret/a", true},
		{"/ws", "python3 -c \"import tempfile; print(tempfile.mkdtemp())\"", false},
		{"/ws", "echo hello", false},
	}
	for _, tt := range tests {
		d := Decide(context.Background(), p, Request{ToolName: "Bash", ToolInput: map[string]any{"command": tt.command},
			CWD: tt.cwd, Env: map[string]string{"HOME": "/home/u"}}, nil)
		if (d.Kind == Deny) != tt.deny {
			t.Errorf("from %s, %q: %s (%s), want deny=%v", tt.cwd, tt.command, d.Kind, d.Reason, tt.deny)
		}
	}
}
