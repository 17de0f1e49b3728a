package config

import (
	"embed"
	"io/fs"
)

//go:embed starter
var starter embed.FS

// Starter returns the files `agent-eval init` writes: a commented eval.yaml
// and two example cases. eval.schema.json is written beside them by the
// caller.
func Starter() fs.FS {
	sub, err := fs.Sub(starter, "starter")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return sub
}
