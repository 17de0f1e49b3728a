package fakeapi

import "strings"

// match finds the script's first content rule matching the request's last
// user message, read by lastUser only when the script has rules.
func (sc *Script) match(lastUser func() string) (int, Match, bool) {
	if len(sc.Match) == 0 {
		return 0, Match{}, false
	}
	last := lastUser()
	for i, r := range sc.Match {
		if strings.Contains(last, r.Contains) {
			return i, r, true
		}
	}
	return 0, Match{}, false
}

// lastUser is the text of the request's last user message.
func (m *messagesRequest) lastUser() string {
	var last string
	for _, msg := range m.Messages {
		if msg.Role == "user" {
			last = blockText(msg.Content)
		}
	}
	return last
}

// matchText is match on a last user message already read.
func (sc *Script) matchText(last string) (int, Match, bool) {
	return sc.match(func() string { return last })
}
