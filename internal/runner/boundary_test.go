package runner

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-eval/agent-eval/internal/boundary"
	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/permissions"
)

func TestLoopbackAddrs(t *testing.T) {
	tests := []struct {
		env  []string
		want []string
	}{
		{[]string{"ANTHROPIC_BASE_URL=http://127.0.0.1:4010/s/c1"}, []string{"127.0.0.1:4010"}},
		{[]string{"X=https://localhost/v1"}, []string{"127.0.0.1:443", "[::1]:443"}},
		{[]string{"X=http://[::1]:9/x", "Y=http://[::1]:9/y"}, []string{"[::1]:9"}},
		{[]string{"X=http://127.0.0.1:1,http://127.0.0.2:2"}, []string{"127.0.0.1:1", "127.0.0.2:2"}},
		{[]string{"X=https://api.example/v1", "Y=127.0.0.1:5", "Z=ftp://127.0.0.1:21"}, nil},
		{[]string{"JIRA=https://bot:pw@10.0.0.1:8080"}, nil},
	}
	for _, tt := range tests {
		if got := LoopbackAddrs(tt.env); !slices.Equal(got, tt.want) {
			t.Errorf("LoopbackAddrs(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestDeniedIn: the eval's read denies find what they match in the
// workspace, a folder whole (not each file in it), nothing else.
func TestDeniedIn(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"secret/key.txt", "secret/sub/more.txt", "a/b/.env", "keep.txt", "src/main.go", ".git/config"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := permissions.Compiled{Deny: []string{"Read(secret/**)", "Read(**/.env)", "Edit(src/**)", "WebFetch"}}
	got := DeniedIn(ws, c)
	want := []string{filepath.Join(ws, "a/b/.env"), filepath.Join(ws, "secret")}
	if !slices.Equal(got, want) {
		t.Errorf("DeniedIn = %q, want %q", got, want)
	}
	if got := DeniedIn(ws, permissions.Compiled{Deny: []string{"Edit(secret/**)"}}); got != nil {
		t.Errorf("an Edit deny hides %q", got)
	}
	tests := []struct {
		name string
		deny []string
		want []string
	}{
		{"edit folder", []string{"Edit(src/**)"}, []string{"src"}},
		{"write file", []string{"Write(keep.txt)"}, []string{"keep.txt"}},
		{"notebook and edit", []string{"NotebookEdit(**/.env)", "Edit(secret/sub/**)"}, []string{"secret/sub", "a/b/.env"}},
		{"read only", []string{"Read(secret/**)", "Bash(rm:*)"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(ws, w))
			}
			got := WriteDeniedIn(ws, permissions.Compiled{Deny: tt.deny})
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("WriteDeniedIn(%q) = %q, want %q", tt.deny, got, want)
			}
		})
	}
}

// TestWorld: the slot read-write, the harness and the agent's install
// read-only, permissions.read_only added, the fake model forwarded, and no
// world at all when the boundary is off.
func TestWorld(t *testing.T) {
	root := t.TempDir()
	slot := filepath.Join(root, "0123abcd")
	ws := filepath.Join(slot, "c1")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	tool := t.TempDir()
	t.Setenv("AGENT_EVAL_TEST_TOOL", tool)
	ev := &config.Eval{}
	ev.Permissions.ReadOnly = []string{"$AGENT_EVAL_TEST_TOOL"}
	ev.Permissions.Network = &config.Network{Allow: []string{"api.example"}}
	s := RunSetup{Eval: ev, WorkspaceRoot: root, HarnessBin: "/opt/agent-eval", FakeModelURL: "http://127.0.0.1:4321",
		Boundary: BoundaryDecision{On: true}}
	w := s.World(Workspace{ID: "c1", Dir: ws}, "/x/node_modules/.bin/agent", []string{"OTHER=http://127.0.0.1:99/"}, nil, nil)
	if w == nil {
		t.Fatal("no world")
	}
	if !slices.Equal(w.RW, []string{slot}) {
		t.Errorf("RW = %q", w.RW)
	}
	for _, want := range []string{"/opt/agent-eval", "/x/node_modules/.bin/agent", "/x/node_modules", tool} {
		if !slices.Contains(w.RO, want) {
			t.Errorf("RO %q lacks %s", w.RO, want)
		}
	}
	if !slices.Equal(w.Net.Forward, []string{"127.0.0.1:99", "127.0.0.1:4321"}) {
		t.Errorf("Forward = %q", w.Net.Forward)
	}
	if !slices.Contains(w.Net.Hosts, "api.example") || slices.Contains(w.Net.Hosts, "api.anthropic.com") {
		t.Errorf("Hosts = %q (the fake model's run needs no real model host)", w.Net.Hosts)
	}
	if w.Quota == nil || w.Quota.Bytes != config.DefaultDiskBytes || w.Quota.Files != config.DefaultDiskFiles {
		t.Errorf("Quota = %+v, want execution.limits' defaults", w.Quota)
	}
	ev.Permissions.Network.Allow = []string{"localhost"}
	if w := s.World(Workspace{ID: "c1", Dir: ws}, "", nil, nil, nil); !slices.Contains(w.Net.Hosts, "127.0.0.1") || !slices.Contains(w.Net.Hosts, "::1") {
		t.Errorf("localhost allowed, yet its addresses are not: %q", w.Net.Hosts)
	}
	s.FakeModelURL = ""
	if w := s.World(Workspace{ID: "c1", Dir: ws}, "", nil, nil, nil); !slices.Contains(w.Net.Hosts, "api.anthropic.com") {
		t.Errorf("a real run's hosts lack the model's: %q", w.Net.Hosts)
	}
	s.Boundary = BoundaryDecision{Why: "off"}
	if w := s.World(Workspace{ID: "c1", Dir: ws}, "", nil, nil, nil); w != nil {
		t.Errorf("a world with the boundary off: %+v", w)
	}
}

// TestLinkedGitDirs: a linked worktree's git folders outside it (its own
// and the main repository's common one) are found from its .git file; a
// project whose .git is a folder has none.
func TestLinkedGitDirs(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "main", ".git")
	own := filepath.Join(main, "worktrees", "linked")
	project := filepath.Join(root, "linked")
	for _, d := range []string{own, project, filepath.Join(root, "plain", ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(project, ".git"), []byte("gitdir: "+own+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(own, "commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := linkedGitDirs(project), []string{own, main}; !slices.Equal(got, want) {
		t.Errorf("linkedGitDirs = %q, want %q", got, want)
	}
	if got := linkedGitDirs(filepath.Join(root, "plain")); got != nil {
		t.Errorf("a plain repository has git folders outside: %q", got)
	}
}

// TestRefusalsMarkTheCLIsHosts: a refusal of a host the agent CLI contacts
// on its own (or a subdomain of one) is marked; any other host is not, and
// an agent we know nothing of has no hosts of its own.
func TestRefusalsMarkTheCLIsHosts(t *testing.T) {
	rs := []boundary.Refusal{{Host: "chatgpt.com", Count: 2}, {Host: "api.github.com", Count: 1},
		{Host: "acme.atlassian.net", Count: 1}, {Host: "notgithub.com", Count: 1}}
	tests := []struct {
		agent string
		want  []bool
	}{
		{"codex", []bool{true, true, false, false}},
		{"claude-code", []bool{false, false, false, false}},
		{"/usr/local/bin/opencode", []bool{false, true, false, false}},
		{"./my-agent.sh", []bool{false, false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			got := Refusals(rs, CLIHosts(tt.agent))
			for i, r := range got {
				if r.Host != rs[i].Host || r.Count != rs[i].Count || r.CLIHost != tt.want[i] {
					t.Errorf("%s: got %+v, want cli_host %v", rs[i].Host, r, tt.want[i])
				}
			}
		})
	}
	for _, agent := range []string{"claude-code", "codex", "gemini", "cursor", "opencode"} {
		if len(CLIHosts(agent)) == 0 {
			t.Errorf("%s declares no hosts of its own", agent)
		}
	}
}
