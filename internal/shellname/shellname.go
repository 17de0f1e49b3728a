// Package shellname knows which programs are shells: programs that read a
// script from -c, from a file operand, else from standard input. The hook
// (internal/intercept) and the cli runner's command checks (internal/config)
// share this one list.
package shellname

import "strings"

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"yash": true, "posh": true, "csh": true, "tcsh": true, "fish": true, "rbash": true}

// Is reports whether prog (a name or a path) is a shell.
func Is(prog string) bool {
	if i := strings.LastIndexByte(prog, '/'); i >= 0 {
		prog = prog[i+1:]
	}
	return shells[prog]
}
