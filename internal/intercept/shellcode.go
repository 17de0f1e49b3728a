package intercept

// The command-resolution table both Bash layers share: which programs are
// shells, which run another command given in their arguments (wrappers),
// and how to find that command.

import (
	"path"
	"slices"
	"strings"
)

// shells read a script: from -c, from a file operand, else from stdin.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"yash": true, "posh": true, "csh": true, "tcsh": true, "fish": true, "rbash": true}

// wrapper describes a command that runs another command given in its
// arguments (sudo cmd, timeout 5 cmd, xargs cmd).
type wrapper struct {
	value       []string // options that take a value (-u user, --signal=KILL)
	positionals int      // operands before the command (timeout's duration)
	code        []string // options whose value is shell code (su -c, flock -c)
	onlyCode    bool     // runs nothing but its code option (su, script)
	noRun       []string // options after which nothing runs (command -v)
	assigns     bool     // NAME=value words set the command's environment (env)
	joinCode    bool     // the rest is joined and run by sh -c (watch)
}

var wrappers = map[string]wrapper{
	"sudo": {value: []string{"-u", "-g", "-h", "-p", "-C", "-r", "-t", "-U", "-D", "-R", "-T",
		"--user", "--group", "--host", "--prompt", "--close-from", "--role", "--type", "--other-user", "--chdir", "--chroot", "--command-timeout"}, assigns: true},
	"doas":             {value: []string{"-u", "-C"}},
	"env":              {value: []string{"-u", "--unset", "-C", "--chdir"}, code: []string{"-S", "--split-string"}, assigns: true},
	"nohup":            {},
	"setsid":           {},
	"builtin":          {},
	"unbuffer":         {},
	"busybox":          {},
	"chroot":           {value: []string{"--userspec", "--groups"}, positionals: 1},
	"unshare":          {value: []string{"-S", "--setuid", "-G", "--setgid", "--propagation", "-R", "--root", "-w", "--wd"}},
	"nsenter":          {value: []string{"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "--root", "-w", "--wd"}},
	"setpriv":          {value: []string{"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--selinux-label", "--apparmor-profile"}},
	"taskset":          {value: []string{"-c", "--cpu-list"}, positionals: 1},
	"chrt":             {positionals: 1},
	"firejail":         {},
	"proxychains":      {value: []string{"-f"}},
	"proxychains4":     {value: []string{"-f"}},
	"torsocks":         {},
	"sg":               {code: []string{"-c"}, positionals: 1},
	"catchsegv":        {},
	"fakeroot":         {},
	"systemd-run":      {value: []string{"-u", "--unit", "-p", "--property", "--slice", "-E", "--setenv", "--uid", "--gid", "-M", "--machine", "--description", "--working-directory"}},
	"dbus-run-session": {},
	"exec":             {value: []string{"-a"}},
	"command":          {noRun: []string{"-v", "-V"}},
	"nice":             {value: []string{"-n", "--adjustment"}},
	"ionice":           {value: []string{"-c", "-n", "--class", "--classdata"}},
	"timeout":          {value: []string{"-s", "--signal", "-k", "--kill-after"}, positionals: 1},
	"gtimeout":         {value: []string{"-s", "--signal", "-k", "--kill-after"}, positionals: 1},
	"time":             {value: []string{"-f", "--format", "-o", "--output"}},
	"stdbuf":           {value: []string{"-i", "-o", "-e", "--input", "--output", "--error"}},
	"flock":            {value: []string{"-w", "--timeout", "-E", "--conflict-exit-code"}, code: []string{"-c", "--command"}, positionals: 1},
	"su":               {value: []string{"-s", "--shell", "-g", "--group", "-G", "--supp-group"}, code: []string{"-c", "--command"}, onlyCode: true},
	"runuser":          {value: []string{"-s", "--shell", "-g", "--group", "-G", "--supp-group", "-u", "--user"}, code: []string{"-c", "--command"}, onlyCode: true},
	"script":           {value: []string{"-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing"}, code: []string{"-c", "--command"}, onlyCode: true},
	"strace":           {value: []string{"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X"}},
	"ltrace":           {value: []string{"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-n"}},
	"watch":            {value: []string{"-n", "--interval", "-d", "--differences", "-q", "--equexit"}, joinCode: true},
	"xargs": {value: []string{"-I", "-n", "-P", "-L", "-l", "-s", "-d", "-E", "-e", "-a", "--max-args", "--max-procs",
		"--max-lines", "--max-chars", "--delimiter", "--eof", "--arg-file", "--process-slot-var"}},
}

// unwrap drops wrapper commands (sudo, env X=y, timeout 5, xargs -0 …) and
// returns the arguments from the command that really runs, with its base
// name.
func unwrap(args []string) ([]string, string) {
	for len(args) > 0 {
		name := path.Base(args[0])
		if !slices.Contains(pathWrappers, name) {
			return args, name
		}
		args = args[1:]
		for len(args) > 0 && (strings.HasPrefix(args[0], "-") || strings.Contains(args[0], "=") || (name == "timeout" && isDuration(args[0]))) {
			args = args[1:]
		}
	}
	return nil, ""
}

func isDuration(s string) bool {
	return strings.TrimRight(strings.TrimLeft(s, "0123456789."), "smhd") == ""
}
