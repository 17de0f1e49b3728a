package hook

import "errors"

// cursorDialect is Cursor's hooks.json events.
func cursorDialect() dialect {
	return dialect{decode: func([]byte) (Input, error) { return Input{}, errors.New("the cursor dialect is not built yet") }, respond: respond}
}
