package intercept

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCurlrcLine pins how a .curlrc line becomes command-line words, as
// curl's own parser reads it: "name value", "name = value", "name: value",
// "--name value", a quoted value with its escapes, comments.
func TestCurlrcLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want []string
	}{
		{`url = "https://acme.atlassian.net/rest/api/2/issue"`, []string{"--url", "https://acme.atlassian.net/rest/api/2/issue"}},
		{`url: https://x.test/a`, []string{"--url", "https://x.test/a"}},
		{`url=https://x.test/a trailing`, []string{"--url", "https://x.test/a"}},
		{`proxy http://10.0.0.5:3128`, []string{"--proxy", "http://10.0.0.5:3128"}},
		{`--connect-to ::acme.atlassian.net:443`, []string{"--connect-to", "::acme.atlassian.net:443"}},
		{`-x proxy.acme.example.com:3128`, []string{"-x", "proxy.acme.example.com:3128"}},
		{`  silent`, []string{"--silent"}},
		{`user-agent = "dev \"tool\"\t1"`, []string{"--user-agent", "dev \"tool\"\t1"}},
		{`# url = https://acme.atlassian.net`, nil},
		{"", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, w := range curlrcLine(tc.line) {
			got = append(got, w.s)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("curlrcLine(%q) (-want +got):\n%s", tc.line, diff)
		}
	}
}

// TestParseGitConfig pins git's configuration syntax as the hook reads
// it: sections with and without subsections, quoted values, comments,
// continuation lines, booleans without a value.
func TestParseGitConfig(t *testing.T) {
	t.Parallel()
	body := "# global\n[URL \"https://github.com/\"]\n\tinsteadOf = https://github.test/ ; a comment\n" +
		"[core]\n\tsshCommand = \"ssh -J bastion\" # why\n\tbare\n[remote \"Prod\"]\n\turl = https://github.com/\\\n acme/x\n" +
		"[http.https://x.test/]\n\tproxy = http://10.0.0.5:3128\n[include]\n\tpath = ~/.gitconfig.local\n"
	got := parseGitConfig(body)
	want := []gitEntry{
		{key: "url.https://github.com/.insteadof", value: "https://github.test/"},
		{key: "core.sshcommand", value: "ssh -J bastion"},
		{key: "core.bare", value: "true"},
		{key: "remote.Prod.url", value: "https://github.com/ acme/x"},
		{key: "http.https://x.test/.proxy", value: "http://10.0.0.5:3128"},
		{key: "include.path", value: "~/.gitconfig.local"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(gitEntry{})); diff != "" {
		t.Errorf("parseGitConfig (-want +got):\n%s", diff)
	}
}

// TestGitRewrite pins url.<base>.insteadOf and pushInsteadOf: the longest
// matching prefix wins, and a push to a remote's url takes pushInsteadOf
// first.
func TestGitRewrite(t *testing.T) {
	t.Parallel()
	conf := gitConf{entries: parseGitConfig("[url \"https://github.com/\"]\n\tinsteadOf = gh:\n\tpushInsteadOf = https://github.test/\n" +
		"[url \"https://github.test/mirror/\"]\n\tinsteadOf = gh:acme/\n[url \"git@github.com:\"]\n\tinsteadOf = https://github.test/\n")}
	tests := []struct {
		u    string
		push bool
		want string
	}{
		{"gh:other/x", true, "https://github.com/other/x"},
		{"gh:acme/x", true, "https://github.test/mirror/x"},
		{"https://github.test/acme/x", true, "https://github.com/acme/x"},
		{"https://github.test/acme/x", false, "git@github.com:acme/x"},
		{"https://example.test/x", true, "https://example.test/x"},
	}
	for _, tc := range tests {
		if got := conf.rewrite(tc.u, tc.push); got != tc.want {
			t.Errorf("rewrite(%q, %v) = %q, want %q", tc.u, tc.push, got, tc.want)
		}
	}
}

// TestGitGrepPager pins where git grep finds its -O pager: stuck to -O
// (alone or in a cluster) or after --open-files-in-pager= (abbreviated),
// not in a value of another option, and nothing after --.
func TestGitGrepPager(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args         []string
		pager        string
		given, found bool
	}{
		{[]string{"grep", "-Ojira", "x"}, "jira", true, true},
		{[]string{"grep", "-niOless", "x"}, "less", true, true},
		{[]string{"-C", ".", "grep", "--open-files-in-pager=vim", "x"}, "vim", true, true},
		{[]string{"grep", "--open=cat", "x"}, "cat", true, true},
		{[]string{"grep", "-O", "x"}, "", false, true},
		{[]string{"grep", "--open-files-in-pager", "x"}, "", false, true},
		{[]string{"grep", "-eO", "x"}, "", false, false},
		{[]string{"grep", "-n", "TODO"}, "", false, false},
		{[]string{"grep", "--", "-Ojira"}, "", false, false},
		{[]string{"log", "-Ojira"}, "", false, false},
	}
	for _, tc := range tests {
		var ws []word
		for _, a := range tc.args {
			ws = append(ws, word{s: a})
		}
		p, given, found := gitGrepPager(ws)
		if p.s != tc.pager || given != tc.given || found != tc.found {
			t.Errorf("gitGrepPager(%q) = %q, %v, %v; want %q, %v, %v", tc.args, p.s, given, found, tc.pager, tc.given, tc.found)
		}
	}
}
