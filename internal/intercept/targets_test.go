package intercept

import (
	"context"
	"slices"
	"testing"
)

// TestCanonHost pins how a host is read as clients read it: every spelling
// of one address is that address, a name is lower-cased without its
// trailing dot, and what no client can connect to is not a host.
func TestCanonHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"localhost", "localhost", true},
		{"LOCALHOST.", "localhost", true},
		{"Jira.Test", "jira.test", true},
		{"%6c%6fcalhost", "localhost", true},
		{"acme.atlassian%2enet", "acme.atlassian.net", true},
		{"127.0.0.1", "127.0.0.1", true},
		{"0x7f000001", "127.0.0.1", true},
		{"2130706433", "127.0.0.1", true},
		{"127.1", "127.0.0.1", true},
		{"0177.0.0.1", "127.0.0.1", true},
		{"0x0a000005", "10.0.0.5", true},
		{"167772165", "10.0.0.5", true},
		{"012.0.0.5", "10.0.0.5", true},
		{"10.5", "10.0.0.5", true},
		{"10.0.5", "10.0.0.5", true},
		{"0x0a.0.0.5", "10.0.0.5", true},
		{"10.0.0.5.", "10.0.0.5", true},
		{"[::1]", "::1", true},
		{"[0:0:0:0:0:0:0:1]", "::1", true},
		{"[::ffff:127.0.0.1]", "127.0.0.1", true},
		{"[::ffff:7f00:1]", "127.0.0.1", true},
		{"[::ffff:10.0.0.5]", "10.0.0.5", true},
		{"[fe80::1%25eth0]", "fe80::1", true},
		{"::1", "::1", true},
		{"256.0.0.1", "", false},         // no address, and a name may not be all digits… but it is read as one
		{"1.2.3.4.5", "1.2.3.4.5", true}, // five parts: a name, covered by no address entry
		{"", "", false},
		{"host name", "", false},
		{"localhost@evil", "", false},
		{"local\\host", "", false},
		{"ｌｏｃａｌｈｏｓｔ", "", false},
		{"acme。net", "", false},
		{"%zz", "", false},
		{"[::1", "", false},
		{"[10.0.0.5]", "", false},
	}
	for _, tc := range tests {
		got, ok := canonHost(tc.in)
		if tc.in == "256.0.0.1" {
			// inet_aton refuses it, and it is a valid name: any reading
			// but an address entry's is fine; it must not be 0.0.0.1.
			if got == "0.0.0.1" {
				t.Errorf("canonHost(%q) = %q", tc.in, got)
			}
			continue
		}
		if got != tc.want || ok != tc.ok {
			t.Errorf("canonHost(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestURLHosts: the hosts a URL-ish value reaches, in every reading a
// client may take of it.
func TestURLHosts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		multi bool
		want  []string // "!" marks a host that is not ok
	}{
		{"https://acme.atlassian.net/rest", false, []string{"acme.atlassian.net"}},
		{"acme.atlassian.net/rest/api", false, []string{"acme.atlassian.net"}},
		{"tickets/rest/api", false, []string{"tickets"}},
		{"localhost:8080", false, []string{"localhost"}},
		{"//acme.atlassian.net/x", false, []string{"acme.atlassian.net"}},
		{"http://localhost@acme.atlassian.net/", false, []string{"acme.atlassian.net"}},
		{"http://a@localhost@acme.example.com/", false, []string{"localhost@acme.example.com!", "acme.example.com"}},
		{"https://localhost#@acme.atlassian.net/x", false, []string{"localhost", "acme.atlassian.net"}},
		{"http://[::ffff:10.0.0.5]:80/x", false, []string{"10.0.0.5"}},
		{"postgresql://localhost,prod.example.com:5432/app", true, []string{"localhost", "prod.example.com"}},
		{"postgresql://%2Fvar%2Frun%2Fpostgresql/app", true, []string{"localhost"}},
		{"file:///etc/passwd", false, []string{"localhost"}},
		{"git@github.com:acme/x", false, []string{"github.com"}},
		{"http:///x", false, []string{"!"}},
	}
	for _, tc := range tests {
		var got []string
		for _, r := range urlHosts(tc.in, tc.multi) {
			s := r.host
			if !r.ok {
				s += "!"
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("urlHosts(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCurlGlob: curl's URL globbing, as curl expands it.
func TestCurlGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"http://x/rest/ap[i-i]/2", []string{"http://x/rest/api/2"}, true},
		{"http://x/{a,b}/[1-2]", []string{"http://x/a/1", "http://x/a/2", "http://x/b/1", "http://x/b/2"}, true},
		{"http://x/a{p,}i", []string{"http://x/api", "http://x/ai"}, true},
		{"http://x/[08-10]", []string{"http://x/08", "http://x/09", "http://x/10"}, true},
		{"http://x/[1-5:2]", []string{"http://x/1", "http://x/3", "http://x/5"}, true},
		{"http://[::1]:8080/x", []string{"http://[::1]:8080/x"}, true},
		{`http://x/\{a\}`, []string{"http://x/{a}"}, true},
		{"http://x/[z-a]", nil, false},
		{"http://x/{a", nil, false},
		{"http://x/[a-z][a-z]", nil, false}, // 676 URLs: more than the hook judges
	}
	for _, tc := range tests {
		got, ok := curlGlob(tc.in)
		if ok != tc.ok || tc.ok && !slices.Equal(got, tc.want) {
			t.Errorf("curlGlob(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestParseArgs: option syntax as getopt_long, pflag and my_getopt read
// it, and what an unknown option leaves open.
func TestParseArgs(t *testing.T) {
	t.Parallel()
	table := parseOpts("h,host=H d,dbname=C w c,command= v,verbose x,proxy=H help u=~", false)
	words := func(ss ...string) []word {
		out := make([]word, len(ss))
		for i, s := range ss {
			out[i] = word{s: s}
		}
		return out
	}
	type hit struct{ name, value string }
	tests := []struct {
		args     []string
		abbrev   bool
		hits     []hit
		operands []string
	}{
		{[]string{"-wh", "prod"}, false, []hit{{"-w", ""}, {"-h", "prod"}}, nil},
		{[]string{"-whprod"}, false, []hit{{"-w", ""}, {"-h", "prod"}}, nil},
		{[]string{"app", "-h", "prod"}, false, []hit{{"-h", "prod"}}, []string{"app"}},
		{[]string{"--host=prod"}, false, []hit{{"--host", "prod"}}, nil},
		{[]string{"--ho", "prod"}, true, []hit{{"--host", "prod"}}, nil},
		{[]string{"--ho", "prod"}, false, nil, []string{"prod"}},
		{[]string{"--he"}, true, []hit{{"--help", ""}}, nil},
		{[]string{"-ch", "prod"}, false, []hit{{"-c", "h"}}, []string{"prod"}},
		{[]string{"-Qh", "prod"}, false, []hit{{"-h", "prod"}}, []string{"prod"}}, // -Q unknown: it may take "h"
		{[]string{"--frob", "prod", "app"}, false, nil, []string{"prod", "app"}},
		{[]string{"-uh", "prod"}, false, []hit{{"-u", "h"}, {"-h", "prod"}}, nil}, // -u may be a flag here
		{[]string{"--", "-h", "prod"}, false, nil, []string{"-h", "prod"}},
	}
	for _, tc := range tests {
		p := parseArgs(words(tc.args...), table, gnuSyntax, tc.abbrev)
		var hits []hit
		for _, h := range p.opts {
			hits = append(hits, hit{h.name, h.value})
		}
		var ops []string
		for _, o := range p.operands {
			ops = append(ops, o.s)
		}
		if !slices.Equal(hits, tc.hits) || !slices.Equal(ops, tc.operands) {
			t.Errorf("parseArgs(%q) = %v %q, want %v %q", tc.args, hits, ops, tc.hits, tc.operands)
		}
	}
}

// fakeFS answers Glob for the files it holds (exact paths only).
type fakeFS map[string]bool

func (f fakeFS) Glob(p string) ([]string, error) {
	if f[p] {
		return []string{p}, nil
	}
	return nil, nil
}

func (f fakeFS) EvalSymlinks(p string) (string, error) { return p, nil }

// TestConfigFilesRead: a config file a client reads by default, which an
// earlier call may have written (url = … in ~/.curlrc, \connect in
// ~/.psqlrc, host= in ~/.my.cnf), makes a gated call unknowable unless the
// call skips it; without the file the call passes.
func TestConfigFilesRead(t *testing.T) {
	t.Parallel()
	p, err := Prepare(File{Handlers: []Handler{
		{Match: "Jira", Patterns: []string{"Bash"}, InputFilters: []string{`/rest/api/`}, EnvChecks: map[string]EnvCheck{"JIRA_SERVER": {HostIn: []string{"localhost"}}}},
		{Match: "db", Patterns: []string{"Bash"}, InputFilters: []string{`\bpsql\b`, `\bmysql\b`}, EnvChecks: map[string]EnvCheck{"DATABASE_URL": {HostIn: []string{"localhost"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": "/home/dev", "JIRA_SERVER": "http://localhost:8080", "DATABASE_URL": "postgres://localhost/app"}
	tests := []struct {
		files   []string
		command string
		want    Kind
	}{
		{nil, "curl -s http://localhost:8080/rest/api/2/issue", Pass},
		{[]string{"/home/dev/.curlrc"}, "curl -s http://localhost:8080/rest/api/2/issue", Deny},
		{[]string{"/home/dev/.config/curlrc"}, "curl -s http://localhost:8080/rest/api/2/issue", Deny},
		{[]string{"/home/dev/.curlrc"}, "curl -q -s http://localhost:8080/rest/api/2/issue", Pass},
		{[]string{"/home/dev/.wgetrc"}, "wget -qO- http://localhost:8080/rest/api/2/issue", Deny},
		{[]string{"/home/dev/.wgetrc"}, "wget --no-config -qO- http://localhost:8080/rest/api/2/issue", Pass},
		{[]string{"/home/dev/.psqlrc"}, "psql -h localhost app", Deny},
		{[]string{"/home/dev/.psqlrc"}, "psql -X -h localhost app", Pass},
		{[]string{"/home/dev/.my.cnf"}, "mysql app", Deny},
		{[]string{"/home/dev/.my.cnf"}, "mysql -h localhost app", Pass},
		{[]string{"/home/dev/.mylogin.cnf"}, "mysql --no-defaults app", Pass},
	}
	for _, tc := range tests {
		fs := fakeFS{}
		for _, f := range tc.files {
			fs[f] = true
		}
		d := Decide(context.Background(), p, Request{ToolName: "Bash", ToolInput: map[string]any{"command": tc.command}, Env: env, FS: fs}, nil)
		if d.Kind != tc.want || d.Handler < 0 {
			t.Errorf("with %v, %q: %s (handler %d, %s); want %s", tc.files, tc.command, d.Kind, d.Handler, d.Reason, tc.want)
		}
	}
}
