package intercept

import "testing"

// TestHostIn pins EnvCheck.HostIn's semantics.
func TestHostIn(t *testing.T) {
	t.Parallel()
	entries := []string{"localhost", "127.0.0.1", "::1", "test", "*.staging.example.com"}
	tests := []struct {
		value string
		want  bool
	}{
		{"http://localhost:8080", true},
		{"localhost:8080", true},
		{"localhost", true},
		{"https://LOCALHOST./x", true},
		{"http://api.localhost", true},
		{"http://127.0.0.1:9000", true},
		{"127.0.0.1", true},
		{"http://[::1]:8080/x", true},
		{"[::1]:8080", true},
		{"https://jira.test", true},
		{"https://a.b.test:8443/rest", true},
		{"https://test", true},
		{"postgres://app:pw@db.test:5432/app", true},
		{"https://jira.staging.example.com", true},
		{"https://staging.example.com", false}, // *.x: strictly under x
		{"https://contest.atlassian.net", false},
		{"https://test.atlassian.net", false},
		{"https://latest-test", false},
		{"https://localhost@prod.atlassian.net", false},
		{"https://localhost.attacker.com", false},
		{"http://evil.127.0.0.1", false},
		{"http://127.0.0.2", false},
		{"http://[::2]", false},
		{"", false},
		{"/var/run/socket", false},
		// Hosts as clients read them (issue 17): numeric and mapped forms
		// of an address are that address; an encoded host is decoded.
		{"http://0x7f000001:8080", true},
		{"http://2130706433", true},
		{"http://127.1", true},
		{"http://[::ffff:127.0.0.1]", true},
		{"http://[0:0:0:0:0:0:0:1]", true},
		{"http://%6c%6fcalhost", true},
		{"http://0x0a000005", false},
		{"http://167772165", false},
		{"http://012.0.0.5", false},
		{"http://[::ffff:10.0.0.5]", false},
		{"http://localhost%40acme.atlassian.net", false},
		{"http://a@localhost@acme.atlassian.net", false},
		{"https://localhost#@acme.atlassian.net", false},
	}
	for _, tc := range tests {
		if got := hostsCovered(tc.value, entries); got != tc.want {
			t.Errorf("host_in(%q) = %v (hosts %v), want %v", tc.value, got, urlHosts(tc.value, false), tc.want)
		}
	}
}

// hostsCovered: every host a value may reach is covered.
func hostsCovered(v string, entries []string) bool {
	hs := urlHosts(v, false)
	for _, h := range hs {
		if !h.ok || !hostCovered(h.host, entries) {
			return false
		}
	}
	return len(hs) > 0
}
