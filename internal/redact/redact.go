// Package redact keeps credentials out of what the harness prints and
// writes: deny reasons that reach the model, the decision ledger, logs,
// transcripts, run results, rationales and the report.
//
// Text is redacted as decoded text, line by line: a JSON document (a line
// of stream-json, a tool's input) has each of its strings decoded,
// redacted and re-encoded, so a "\n" escape never joins two lines into
// one. What is found without knowing the environment: URL userinfo
// (https://user:pass@host), the values of secret-named keys in every
// common spelling (NAME=value, export NAME=…, key = value in INI/TOML and
// ~/.aws/credentials, key: value in YAML and HTTP headers, "key": "value"
// in JSON, --password X, -pX for mysql, -u user:pass), bearer
// credentials, private key blocks and credentials recognisable by their
// shape (ghp_…, xoxb-…, AKIA…, sk-ant-…, JWTs). A Redactor also knows
// secret values (an environment's) and hides them wherever they appear,
// also transformed (normal.go): escaped, with colours, backspaces or
// blanks between their characters, over two lines.
//
// It is pure: no I/O beyond the writer a caller wraps.
package redact

import "strings"

// Mark replaces whatever was redacted.
const Mark = "[redacted]"

// MinSecretLen is the shortest variable value a Redactor hides wherever it
// appears: a shorter one ("1", "true") would blank out ordinary text, and is
// no credential.
const MinSecretLen = 6

// SecretName reports whether a variable or key name looks like it holds a
// credential. Substrings on purpose (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
// DB_PASSWORD, X-Auth-Token, dbPassword): hiding a harmless value costs
// little, showing a key costs a lot. Not secret: a name whose last word
// says it holds a measure or a kind (password_length, token_ttl,
// max_tokens, auth_type, TOKEN_FILE: a path), author and authority, and
// *_KEY / SESSION_ID only in upper case, the spelling of environment
// variables (sort_key and session_id in code are not credentials).
func SecretName(name string) bool {
	if len(name) < 3 || len(name) > 128 || !mayBeSecretName(name) {
		return false
	}
	words := nameWords(name)
	if len(words) == 0 {
		return false
	}
	if len(words) > 1 && notSecretLast[words[len(words)-1]] {
		return false
	}
	upper := strings.ToUpper(name) == name
	n := strings.Join(words, "_")
	for _, w := range []string{"secret", "passw", "passphrase", "credential", "apikey", "api_key", "accesskey", "access_key",
		"privatekey", "private_key", "cookie", "bearer", "signature"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	if hasWordPart(n, "token", "si") || hasAuth(n) {
		return true
	}
	for i, w := range words {
		switch w {
		case "dsn", "jwt", "sig":
			return true
		case "pwd", "pass":
			if len(words) > 1 {
				return true
			}
		case "key":
			if upper || (i > 0 && keyQualifier[words[i-1]]) {
				return true
			}
		case "sessionid":
			if upper {
				return true
			}
		case "session":
			if upper && i+1 < len(words) && words[i+1] == "id" {
				return true
			}
		}
	}
	return false
}

// notSecretLast: a last word that makes a secret-sounding name a measure,
// a kind or a place, not a credential.
var notSecretLast = map[string]bool{
	"length": true, "len": true, "size": true, "count": true, "min": true, "max": true, "ttl": true, "timeout": true,
	"expiry": true, "expires": true, "expiration": true, "lifetime": true, "age": true, "type": true, "kind": true,
	"format": true, "mode": true, "method": true, "scheme": true, "provider": true, "source": true, "name": true,
	"url": true, "uri": true, "endpoint": true, "host": true, "port": true, "path": true, "file": true, "dir": true,
	"env": true, "var": true, "header": true, "policy": true, "limit": true, "stdin": true, "prompt": true,
	"required": true, "enabled": true, "disabled": true, "rotation": true,
}

// keyQualifier: the word before "key" in a lower-case name that makes it a
// credential (signing_key, client_key), where sort_key, cache_key and
// primary_key are not.
var keyQualifier = map[string]bool{
	"api": true, "access": true, "secret": true, "private": true, "signing": true, "encryption": true, "master": true,
	"license": true, "client": true, "app": true, "service": true, "account": true, "deploy": true, "ssh": true,
	"auth": true, "subscription": true, "consumer": true, "admin": true, "server": true, "storage": true, "hmac": true,
	"encrypt": true, "decrypt": true, "crypt": true, "cipher": true, "aes": true, "gpg": true, "pgp": true,
}

// mayBeSecretName is a cheap test that rules out most names before
// SecretName splits them.
func mayBeSecretName(name string) bool {
	for i := 0; i+2 < len(name); i++ {
		switch lower(name[i]) {
		case 't', 's', 'p', 'c', 'a', 'k', 'b', 'd', 'j':
			if i+3 <= len(name) {
				switch lower3(name[i:]) {
				case "tok", "sec", "pas", "pwd", "cre", "api", "acc", "pri", "coo", "bea", "dsn", "jwt", "aut", "key", "ses", "sig":
					return true
				}
			}
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func lower3(s string) string {
	return string([]byte{lower(s[0]), lower(s[1]), lower(s[2])})
}

// nameWords splits a name into lower-case words at '_', '-', '.', blanks
// and camelCase humps: "x-api-key", "apiKeySource", "DB_PASSWORD".
func nameWords(name string) []string {
	var words []string
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ' || c == '/' || c == ':':
			flush()
		case 'A' <= c && c <= 'Z':
			// A hump: aB, or the last capital of an acronym before a lower
			// letter (APIKey → api, key).
			if i > 0 && (isLowerOrDigit(name[i-1]) || (i+1 < len(name) && 'a' <= name[i+1] && name[i+1] <= 'z' && 'A' <= name[i-1] && name[i-1] <= 'Z')) {
				flush()
			}
			cur = append(cur, c+'a'-'A')
		default:
			cur = append(cur, c)
		}
	}
	flush()
	return words
}

func isLowerOrDigit(c byte) bool { return ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') }

// hasWordPart: n contains w not followed by one of the bytes in not
// (token, not tokens or tokenizer).
func hasWordPart(n, w, not string) bool {
	for off := 0; ; {
		i := strings.Index(n[off:], w)
		if i < 0 {
			return false
		}
		j := off + i + len(w)
		if j == len(n) || strings.IndexByte(not, n[j]) < 0 {
			return true
		}
		off = j
	}
}

// hasAuth: n contains auth, but not as author or authority.
func hasAuth(n string) bool {
	for off := 0; ; {
		i := strings.Index(n[off:], "auth")
		if i < 0 {
			return false
		}
		rest := n[off+i+4:]
		if !strings.HasPrefix(rest, "or") || strings.HasPrefix(rest, "oriz") || strings.HasPrefix(rest, "oris") {
			return true
		}
		off += i + 4
	}
}

// URLs removes the userinfo of every URL in s: https://bot:pw@host/x
// becomes https://[redacted]@host/x.
func URLs(s string) string {
	if !strings.Contains(s, "://") || !strings.Contains(s, "@") {
		return s
	}
	var sp spans
	findUserinfo(s, &sp)
	return sp.apply(s)
}

// Value is how a variable's value may be shown: hidden when the name looks
// secret, else with any URL userinfo removed.
func Value(name, value string) string {
	if SecretName(name) && value != "" {
		return Mark
	}
	return URLs(value)
}

// String redacts free text with no knowledge of the environment; see the
// package comment for what it finds.
func String(s string) string { return (*Redactor)(nil).String(s) }

// Map redacts every value of m in place (String) and returns it.
func Map(m map[string]string) map[string]string {
	for k, v := range m {
		m[k] = String(v)
	}
	return m
}
