package hook

import "errors"

// geminiDialect is Gemini CLI's BeforeTool hook.
func geminiDialect() dialect {
	return dialect{decode: func([]byte) (Input, error) { return Input{}, errors.New("the gemini dialect is not built yet") }, respond: respond}
}
