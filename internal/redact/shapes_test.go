package redact

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// secretShapes: every spelling of a credential the redactor must hide,
// with the secret that must not survive. Issue 17 found most of these
// passing through (a "\n" escape joined lines; key = value, key: value and
// "key": "value" were not known).
var secretShapes = []struct {
	name, in, secret string
}{
	{"env line after a plain one", "APP_ENV=production\nDB_PASSWORD=hunter2-prod", "hunter2-prod"},
	{"env dump, proxy password", "HOME=/root\nCLOUDSDK_PROXY_PASSWORD=Zq8pRt3vLx\nPATH=/usr/bin", "Zq8pRt3vLx"},
	{"env value quoted with blanks", `DB_PASSWORD="correct horse battery"`, "battery"},
	{"export", "export GITHUB_TOKEN=abc123def456ghi", "abc123def456ghi"},
	{"export quoted", `export API_KEY="k3y with space"`, "k3y with space"},
	{"aws credentials", "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	{"aws key id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
	{"aws session token", "aws_session_token=IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ", "IQoJb3JpZ2luX2VjEJr"},
	{"ini", "[db]\npassword = s3cr3t-value\nuser = app", "s3cr3t-value"},
	{"ini with blanks", "password = my pass phrase", "pass phrase"},
	{"toml", `password = "t0ml-secret"`, "t0ml-secret"},
	{"toml dotted", `db.password = "t0ml-dotted"`, "t0ml-dotted"},
	{"properties", "spring.datasource.password=pr0p-secret", "pr0p-secret"},
	{"yaml", "db:\n  user: app\n  password: y4ml-secret\n", "y4ml-secret"},
	{"yaml quoted", "  api_key: 'y4ml-quoted'", "y4ml-quoted"},
	{"yaml list item", "- token: y4ml-list-item", "y4ml-list-item"},
	{"yaml block scalar", "private_key: |\n  line-one-secret\n  line-two-secret\nuser: x", "line-two-secret"},
	{"json", `{"user": "app", "password": "j50n-secret"}`, "j50n-secret"},
	{"json compact", `{"client_secret":"j50n-compact"}`, "j50n-compact"},
	{"json number", `{"pin_password": 884422}`, "884422"},
	{"json in a larger line", `config is {"apiKey": "j50n-inline"} ok`, "j50n-inline"},
	{"json-escaped text", `{"out":"APP_ENV=production\nDB_PASSWORD=esc4ped-secret\n"}`, "esc4ped-secret"},
	{"undecoded escapes", `APP_ENV=production\nDB_PASSWORD=und3coded\nX=1`, "und3coded"},
	{"python kwarg", `connect(user="app", password="pyth0n-kw")`, "pyth0n-kw"},
	{"go short decl", `token := "g0-short-decl"`, "g0-short-decl"},
	{"go struct", `	Password: "g0-struct",`, "g0-struct"},
	{"js object", `const c = { user: "a", password: "js-0bject" }`, "js-0bject"},
	{"php arrow", `'password' => 'php-arr0w',`, "php-arr0w"},
	{"mysql -p", "mysql -uroot -phunter2mysql -h db", "hunter2mysql"},
	{"mysql -p quoted", "mysqldump -u root -p'quoted pw' app", "quoted pw"},
	{"mariadb", "mariadb -pMar1aPw app", "Mar1aPw"},
	{"--password=", "psql --password=opt1on-eq", "opt1on-eq"},
	{"--password", "docker login --password opt1on-sp reg", "opt1on-sp"},
	{"--pass", "openssl enc --pass s3cretpass", "s3cretpass"},
	{"sshpass", "sshpass -p ssh-pa55 ssh host", "ssh-pa55"},
	{"redis-cli", "redis-cli -a red1s-pw ping", "red1s-pw"},
	{"curl -u", "curl -u admin:curl-pa55 https://x", "curl-pa55"},
	{"curl -u attached", "curl -uadmin:curl-att https://x", "curl-att"},
	{"bearer header", "curl -H 'Authorization: Bearer abc.def-123' https://x", "abc.def-123"},
	{"bearer header line", "Authorization: Bearer eyJraWQiOiJ4In0-short", "eyJraWQiOiJ4In0-short"},
	{"bearer json header", `{"headers": {"Authorization": "Bearer hdr-in-json-1"}}`, "hdr-in-json-1"},
	{"x-api-key header", `curl -H "X-API-Key: k-live-abcdef" x`, "k-live-abcdef"},
	{"cookie header", "Cookie: sid=c00kie-value; theme=dark", "c00kie-value"},
	{"free bearer", "use bearer abcdefghijklmnop1234 for it", "abcdefghijklmnop1234"},
	{"url userinfo", "remote: https://bot:url-pa55@git.example.com/r.git", "url-pa55"},
	{"url userinfo escaped slash", `{"u":"https:\/\/bot:esc-url-pw@h\/x"}`, "esc-url-pw"},
	{"private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7Zq\nKEYBODYLINE2\n-----END RSA PRIVATE KEY-----", "KEYBODYLINE2"},
	{"openssh key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\nMOREKEYBODY\n-----END OPENSSH PRIVATE KEY-----", "MOREKEYBODY"},
	{"private key in json", `{"k":"-----BEGIN PRIVATE KEY-----\nPKCS8BODYLINE\n-----END PRIVATE KEY-----\n"}`, "PKCS8BODYLINE"},
	{"github token", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
	{"github token at start", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
	{"github token after escape", `{"t":"x\nghp_abcdefghijklmnopqrstuvwxyz0123456789"}`, "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
	{"github pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"},
	{"slack", "hook xoxb-1234567890-0987654321-AbCdEfGhIj", "xoxb-1234567890-0987654321-AbCdEfGhIj"},
	{"aws key id alone", "use AKIAIOSFODNN7EXAMPLE now", "AKIAIOSFODNN7EXAMPLE"},
	{"anthropic", "key: sk-ant-api03-AbCdEf0123456789_-XyZ", "sk-ant-api03-AbCdEf0123456789_-XyZ"},
	{"anthropic in prose", "the key sk-ant-api03-AbCdEf0123456789_-XyZ leaked", "sk-ant-api03-AbCdEf0123456789_-XyZ"},
	{"jwt", "got eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
	{"gitlab", "glpat-AbCdEf0123456789xyz", "glpat-AbCdEf0123456789xyz"},
	{"stripe", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	{"google", "AIzaSyA-0123456789abcdefghijklmnopqrstu", "AIzaSyA-0123456789abcdefghijklmnopqrstu"},
	{"unicode around", "café DB_PASSWORD=ünïcødé-pw ✓", "ünïcødé-pw"},
	{"unicode json", `{"msg":"日本 API_TOKEN=tök3n-ü 日本"}`, "tök3n-ü"},
	{"end of text", "run with SECRET_KEY=at-the-end", "at-the-end"},
	{"commented", "# DB_PASSWORD=commented-out", "commented-out"},
	{"crlf", "DB_PASSWORD=crlf-secret\r\nX=1\r\n", "crlf-secret"},
	{"dsn", "SENTRY_DSN=https://abc123@o1.ingest.sentry.io/1", "abc123"},
	{"shell prefix", "GITHUB_TOKEN=ghp_short1 gh pr create", "ghp_short1"},
	{"grep output", "config/app.yml:12:  password: gr3p-yaml secret", "gr3p-yaml secret"},
	{"grep context", "config/app.ini-7-password = gr3p ini secret", "gr3p ini secret"},
	{"cat -n", "     3\tpassword = cat-n pass phrase", "cat-n pass phrase"},
	{"diff", "+aws_secret_access_key = d1ff-secret/key", "d1ff-secret/key"},
	{"yaml flow", "db: {user: app, password: fl0w-secret}", "fl0w-secret"},
	{"colon mid-line", "level=info DB_PASSWORD: m1d-line-pw rest", "m1d-line-pw"},
	{"netrc", "machine api.example.com login bot password n3trc-secret", "n3trc-secret"},
	{"netrc lines", "machine api.example.com\n  login bot\n  password n3trc-lines", "n3trc-lines"},
	{"git extraheader", "http.extraheader=AUTHORIZATION: basic Z2l0OmV4dHJhaGVhZGVy", "Z2l0OmV4dHJhaGVhZGVy"},
	{"header without a blank", "curl -H 'Authorization:Bearer n0-blank-tok' x", "n0-blank-tok"},
	{"colon without a blank", "DB_PASSWORD:n0-blank-pw", "n0-blank-pw"},
	{"proxy user name", "ALL_PROXY=http://srt.MmNiYTdi:pw0000@127.0.0.1:3128\nCLOUDSDK_PROXY_USERNAME=srt.MmNiYTdi", "srt.MmNiYTdi"},
	{"presigned url", "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIAX%2F20260101&X-Amz-Signature=9f86d081884c7d659a2f", "9f86d081884c7d659a2f"},
	{"azure sas", "https://a.blob.core.windows.net/c?sv=2022-11-02&sig=Zm9vYmFyYmF6cXV4%3D&se=2026", "Zm9vYmFyYmF6cXV4"},
	{"tr joined lines", "APP_ENV=production DB_PASSWORD=tr-j0ined HOME=/root", "tr-j0ined"},
}

var lineStartOnly = map[string]bool{"ini with blanks": true, "yaml list item": true}

func TestStringHidesEveryShape(t *testing.T) {
	t.Parallel()
	for _, tc := range secretShapes {
		got := String(tc.in)
		if strings.Contains(got, tc.secret) {
			t.Errorf("%s: String(%q) = %q: %q leaked", tc.name, tc.in, got, tc.secret)
		}
		if !strings.Contains(got, Mark) {
			t.Errorf("%s: String(%q) = %q: nothing marked", tc.name, tc.in, got)
		}
		// The same text as a JSON string value (a stream-json tool
		// result) is redacted as decoded, and stays JSON.
		doc, _ := json.Marshal(map[string]string{"content": tc.in})
		red := New(nil).JSON(doc)
		var back map[string]string
		if err := json.Unmarshal(red, &back); err != nil {
			t.Errorf("%s: JSON(%s) = %s: not JSON: %v", tc.name, doc, red, err)
			continue
		}
		if strings.Contains(back["content"], tc.secret) {
			t.Errorf("%s: JSON(%s) = %s: %q leaked", tc.name, doc, red, tc.secret)
		}
		// And inside a larger line, but for the shapes that hold only at
		// a line's start (YAML, INI).
		if lineStartOnly[tc.name] || strings.Contains(tc.in, "\n") {
			continue
		}
		if got := String("before " + tc.in + " after"); strings.Contains(got, tc.secret) {
			t.Errorf("%s: inside a line: %q leaked in %q", tc.name, tc.secret, got)
		}
	}
}

// TestStringKeepsOrdinaryText: what must not be redacted. Decided:
// password_length = 12 and max_tokens are measures, not secrets (a name
// whose last word is a measure or a kind); a path to a credential file is
// not a credential; code that computes a secret (getpass(), os.environ[…],
// self.token) is not a literal.
func TestStringKeepsOrdinaryText(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"password_length = 12",
		"MIN_PASSWORD_LENGTH=12",
		`{"usage":{"input_tokens":1234,"output_tokens":56,"cache_read_input_tokens":0}}`,
		`{"type":"system","subtype":"init","apiKeySource":"none","session_id":"9f1c2d3e-aaaa-bbbb-cccc-111122223333"}`,
		"max_tokens=1024",
		"token_type = bearer",
		"commit 3f786850e387550fdab836ed7e6dc881de23001b",
		"Merge: 1a2b3c4 5d6e7f8",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		`"integrity": "sha512-Q8Vj0dcQ3Q9Ym0Z9vbM3N1rk+5Q8Vj0dcQ3Q9Ym0Z9vbM3N1rk+5Q=="`,
		"The token expired, so run the login again and pass the new token to the client.",
		"Tokens are counted per request; the tokenizer splits words.",
		"password = getpass.getpass()",
		`token = os.environ["GITHUB_TOKEN"]`,
		"api_key = settings.api_key",
		"password = None",
		"def login(user: str, password: str) -> bool:",
		"if password == expected:",
		"if token != '':",
		"password: ${DB_PASSWORD}",
		"token: $GITHUB_TOKEN",
		"GITHUB_TOKEN=$GITHUB_TOKEN gh pr list",
		"TOKEN= empty",
		"MODE=fast run",
		"sort_key = lambda x: x[0]",
		"primary_key: true",
		"key: app.kubernetes.io/name",
		"author: Jane Doe",
		"GIT_AUTHOR_NAME=Jane",
		"Basic authentication is off",
		"git log --author x -n 5",
		"grep -r --exclude-dir=secret TOKEN .",
		"read the passwords file",
		"mkdir -p build && cp -pr a b",
		"ssh -p 2222 host",
		"docker login --username u --password-stdin registry.example.com",
		"kubectl --token-file /x apply",
		"time 12:30:45, see https://example.com/a?b=1&c=2",
		"error: expected ':' after 'password'",
		"sk-learn-is-a-python-library-name",
		"ask-for-the-password-again-please",
		"mail me at a@b.c, see https://example.com/@user",
	} {
		if got := String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestKnownValuesInEveryForm: a Redactor hides the values it knows as
// written, JSON-escaped, percent-encoded and line by line.
func TestKnownValuesInEveryForm(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"DB_PASSWORD": `pa"ss wo/rd`, "RUNNER_NOTE": "literal ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"MULTI_SECRET": "first-line-secret\nsecond-line-secret", "PLAIN": "harmless-value"})
	for _, in := range []string{
		`pw is pa"ss wo/rd!`,
		`{"out":"pw is pa\"ss wo/rd"}`,
		"https://h/?p=pa%22ss+wo%2Frd",
		"echo ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"second-line-secret alone",
		"cGEic3Mgd28vcmQ= (base64)",
		"706122737320776f2f7264 (hex)",
	} {
		got := r.String(in)
		for _, leak := range []string{`pa"ss`, `pa\"ss`, "pa%22ss", "ghp_abc", "second-line-secret", "cGEic3Mgd28vcmQ", "7061227373207"} {
			if strings.Contains(got, leak) {
				t.Errorf("String(%q) = %q: %s leaked", in, got, leak)
			}
		}
	}
	if got := r.String("a harmless-value"); got != "a harmless-value" {
		t.Errorf("a plain variable's value was hidden: %q", got)
	}
	r.LearnValues("learnt-later-secret")
	if got := r.String("x learnt-later-secret y"); strings.Contains(got, "learnt-later") {
		t.Errorf("LearnValues: %q", got)
	}
	spans := r.Find([]byte("a learnt-later-secret b first-line-secret"))
	if len(spans) != 2 || spans[0] != [2]int{2, 21} {
		t.Errorf("Find = %v", spans)
	}
}

// TestJSONKeepsBytes: a document with nothing to hide comes back as it
// was, key order and spacing kept.
func TestJSONKeepsBytes(t *testing.T) {
	t.Parallel()
	in := `{"z":1, "a":"x\u00e9\n", "list":[1,2,{"k":"v"}]}` + "\n"
	if got := string(New(nil).JSON([]byte(in))); got != in {
		t.Errorf("JSON(%q) = %q", in, got)
	}
	in = `{"z":1,"password":"p4ss-w0rd","a":"<b>&amp;</b>"}`
	want := `{"z":1,"password":"[redacted]","a":"<b>&amp;</b>"}`
	if got := string(New(nil).JSON([]byte(in))); got != want {
		t.Errorf("JSON(%q) = %q, want %q", in, got, want)
	}
}

// TestWriterCarriesKeyBlocks: a private key printed line by line is
// hidden whole, up to its END line.
func TestWriterCarriesKeyBlocks(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	w := New(nil).Writer(&out)
	for _, l := range []string{"cat id_rsa\n", "-----BEGIN OPENSSH PRIVATE KEY-----\n", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY\n", "-----END OPENSSH PRIVATE KEY-----\n", "done\n"} {
		_, _ = w.Write([]byte(l))
	}
	_ = w.Close()
	if strings.Contains(out.String(), "QUJDREVG") || !strings.Contains(out.String(), "done") {
		t.Errorf("wrote %q", out.String())
	}
}

// TestWriterRedactsJSONLinesAsDecoded: a text log whose lines are JSON (a
// cli agent's event stream) is redacted as JSON, line by line.
func TestWriterRedactsJSONLinesAsDecoded(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	w := New(nil).Writer(&out)
	_, _ = w.Write([]byte(`{"type":"tool","output":"APP_ENV=production\nDB_PASSWORD=cli-json-pw\n"}` + "\nplain DB_PASSWORD=plain-pw\n" +
		"proxy http://proxyuser1:x@h\nuser proxyuser1\ndb postgres://postgres:pw@db\npostgres is up\n"))
	_ = w.Close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 6 || !strings.Contains(out.String(), "postgres is up") || !json.Valid([]byte(lines[0])) || strings.Contains(out.String(), "cli-json-pw") || strings.Contains(out.String(), "plain-pw") ||
		strings.Contains(out.String(), "proxyuser1") ||
		!strings.Contains(lines[0], "APP_ENV=production") {
		t.Errorf("wrote %q", out.String())
	}
}

// FuzzRedact: redaction never panics, keeps a JSON document JSON, and
// never lets a known secret through.
func FuzzRedact(f *testing.F) {
	for _, tc := range secretShapes {
		f.Add(tc.in, tc.secret)
	}
	f.Add(`{"a":"x\u00e9\\","b":[1,{"password":"p"}]}`, "secret")
	f.Fuzz(func(t *testing.T, s, secret string) {
		r := New(map[string]string{"X_TOKEN": secret})
		got := r.String(s)
		if len(secret) >= MinSecretLen && strings.TrimSpace(secret) == secret && !strings.ContainsAny(secret, "\r\n") &&
			strings.Contains(got, secret) && !strings.Contains(Mark, secret) {
			t.Fatalf("String(%q) = %q: the secret %q survived", s, got, secret)
		}
		if json.Valid([]byte(s)) && !json.Valid(r.JSON([]byte(s))) {
			t.Fatalf("JSON(%q) = %q: not JSON", s, r.JSON([]byte(s)))
		}
	})
}

// TestLinearTime: a line built to make a scanner go back over it again
// and again (the agent controls what its tools print) is redacted in
// linear time: 1 MiB of each in well under the hook's and the engine's
// patience, where a quadratic scan would take minutes.
func TestLinearTime(t *testing.T) {
	t.Parallel()
	for _, unit := range []string{"token:", "eyJ", "sk-", "a=", "TOKEN=a ", `"password":`, "-----BEGIN ", "https://", "x@",
		" -p", "mysql -p", ":", "=", `"`, "'", "ghp_", "AKIA", "Bearer ", "password = ", "- token: ", "\\n", "-----BEGIN PRIVATE KEY-----"} {
		s := strings.Repeat(unit, (1<<20)/len(unit))
		start := time.Now()
		_ = String(s)
		_ = New(nil).JSON([]byte(`{"a":"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"}`))
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("1 MiB of %q took %s", unit, d)
		}
	}
}

func TestTokenShapes(t *testing.T) {
	t.Parallel()
	for _, s := range tokenShapes {
		if len(s.prefix) < 3 {
			t.Errorf("prefix %q: shorter than 3", s.prefix)
		}
	}
}
