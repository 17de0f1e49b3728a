package fakeapi

import "strings"

// match finds the script's first content rule matching the request's last
// user message.
func (m *messagesRequest) match(sc *Script) (int, Match, bool) {
	if len(sc.Match) == 0 {
		return 0, Match{}, false
	}
	var last string
	for _, msg := range m.Messages {
		if msg.Role == "user" {
			last = blockText(msg.Content)
		}
	}
	return sc.matchText(last)
}

// matchText finds the script's first content rule whose text occurs in
// last, the request's last user message.
func (sc *Script) matchText(last string) (int, Match, bool) {
	for i, r := range sc.Match {
		if strings.Contains(last, r.Contains) {
			return i, r, true
		}
	}
	return 0, Match{}, false
}
