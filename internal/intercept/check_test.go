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
	}
	for _, tc := range tests {
		if got := hostCovered(hostOf(tc.value), entries); got != tc.want {
			t.Errorf("host_in(%q) = %v (host %q), want %v", tc.value, got, hostOf(tc.value), tc.want)
		}
	}
}
