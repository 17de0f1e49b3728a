package intercept

import (
	"path"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
)

// The database clients' configuration: libpq's service files and the
// server variables of the hook's own environment, psql's psqlrc, and the
// MySQL and MariaDB option files. ~/.pgpass only picks a password for a
// server named elsewhere: it changes no target.

// libpqConfigs judges what libpq and psql read besides the command line:
// PGHOST / PGHOSTADDR / PGDATABASE / PGSERVICE of the environment the call
// runs under (the line's own settings are judged as options), and psql's
// psqlrc, which may \connect elsewhere.
func libpqConfigs(cc *clientCall) {
	named := cc.has("-h", "--host")
	for _, v := range []string{"PGHOST", "PGHOSTADDR"} {
		if x, ok := envDir(cc.env, v); ok && !named && !confVarSet(cc.set, v) {
			cc.host(v, x, x == unknownValue, true)
		}
	}
	if x, ok := envDir(cc.env, "PGDATABASE"); ok && !confVarSet(cc.set, "PGDATABASE") && !cc.has("-d", "--dbname", "--maintenance-db") {
		cc.connEnv("PGDATABASE", x)
	}
	if x, ok := envDir(cc.env, "PGSERVICE"); ok && (cc.fileSeen() || !confVarSet(cc.set, "PGSERVICE")) {
		cc.service("PGSERVICE", x)
	}
	if cc.fileSeen() {
		// A service file or system folder the line names is looked at
		// whether or not a service is asked for (with none, the folder's
		// psqlrc runs).
		if v, ok := envDir(cc.env, "PGSERVICEFILE"); ok && confVarSet(cc.set, "PGSERVICEFILE") {
			cc.confFile(v, true, "")
		}
		if v, ok := envDir(cc.env, "PGSYSCONFDIR"); ok && confVarSet(cc.set, "PGSYSCONFDIR") {
			bodies, _ := cc.confGroup("PGSYSCONFDIR="+v, true, []string{path.Join(v, "psqlrc"), path.Join(v, "pg_service.conf")}, "")
			for _, b := range bodies {
				if cc.name == "psql" && path.Base(b[0]) == "psqlrc" {
					cc.psqlrc(b[0], b[1])
				}
			}
		}
	}
	if cc.name != "psql" || cc.has("-X", "--no-psqlrc") {
		return
	}
	rc := ""
	if v, ok := envDir(cc.env, "PSQLRC"); ok {
		rc = v
	} else if h, ok := envDir(cc.env, "HOME"); ok {
		rc = path.Join(h, ".psqlrc")
	}
	if f, ok := cc.confFile(rc, confVarSet(cc.set, "PSQLRC", "HOME"), "run psql -X"); ok {
		cc.psqlrc(rc, f.body)
	}
}

// psqlrc judges a psqlrc psql runs first: a \connect (or a file it runs,
// which may hold one) opens a connection the hook does not check.
func (cc *clientCall) psqlrc(rc, body string) {
	for _, line := range strings.Split(body, "\n") {
		if psqlConnectRE().MatchString(line) {
			cc.unknowable(rc, false, "psql reads "+rc+", whose "+clip.String(strings.TrimSpace(line), 80)+" opens a connection (or runs a file) the hook does not check; run psql -X")
			return
		}
	}
}

// service judges a libpq service name: the server its entry in the
// service files names (the user's file first, then the system's; a name in
// neither makes libpq refuse to connect).
func (cc *clientCall) service(flag, name string) {
	if name == unknownValue {
		cc.add(override{flag: flag, dyn: true, kind: kHost, vars: cc.cl.hostVars})
		return
	}
	var files []string
	named := confVarSet(cc.set, "PGSERVICEFILE", "HOME")
	if v, ok := envDir(cc.env, "PGSERVICEFILE"); ok {
		files = append(files, v)
	} else if h, ok := envDir(cc.env, "HOME"); ok {
		files = append(files, path.Join(h, ".pg_service.conf"))
	}
	if v, ok := envDir(cc.env, "PGSYSCONFDIR"); ok {
		files = append(files, path.Join(v, "pg_service.conf"))
	} else {
		// Where the packaged libpq looks (pg_config --sysconfdir).
		files = append(files, "/etc/postgresql-common/pg_service.conf", "/etc/pg_service.conf", "/usr/local/pgsql/etc/pg_service.conf")
	}
	if !cc.fileSeen() {
		for _, p := range files {
			if f := cc.at.open(p, false); f.written {
				cc.unknowable(flag, false, "the service "+name+" is read from "+p+", "+f.why)
				return
			}
		}
		cc.unknowable(flag, false, "a service name picks a server from a service file the hook does not read")
		return
	}
	for _, p := range files {
		f, ok := cc.confFile(p, named || confVarSet(cc.set, "PGSYSCONFDIR"), "")
		if f.kind == confCannot {
			return
		}
		if !ok {
			continue
		}
		sec, found := iniSection(f.body, name)
		if !found {
			continue
		}
		for _, kv := range sec {
			if kv[0] == "host" || kv[0] == "hostaddr" {
				cc.host(flag+" "+name+" ("+p+") "+kv[0]+"=", kv[1], false, false)
			}
		}
		return
	}
	// libpq refuses a service it finds nowhere; one the hook finds nowhere
	// may be in a file it does not know of (pg_config --sysconfdir).
	cc.unknowable(flag, false, "the service "+name+" is in no service file the hook reads ("+strings.Join(files, ", ")+")")
}

// iniSection returns the key=value lines of [name] in an INI file (libpq's
// service file: keys lower-cased, # and ; comments).
func iniSection(body, name string) ([][2]string, bool) {
	var out [][2]string
	in, found := false, false
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			sec := strings.TrimSpace(strings.Trim(line, "[]"))
			in = sec == name
			found = found || in
		case in:
			k, v, _ := strings.Cut(line, "=")
			out = append(out, [2]string{strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)})
		}
	}
	return out, found
}

// mysqlConfigs judges the option files a MySQL or MariaDB program reads
// (unless --no-defaults): the system's, $MYSQL_HOME/my.cnf, the
// --defaults-extra-file, ~/.my.cnf (or the --defaults-file alone), their
// !include files, and ~/.mylogin.cnf, which is obfuscated. A host the
// command line names wins over the files'; MYSQL_HOST of the environment
// is the default when neither names one.
func mysqlConfigs(cc *clientCall) {
	hostGiven := false
	for _, h := range cc.p.opts {
		hostGiven = hostGiven || h.spec.kind == kHost && h.name != "--dns-srv-name" && h.set && h.value != ""
	}
	if x, ok := envDir(cc.env, "MYSQL_HOST"); ok && !hostGiven && !confVarSet(cc.set, "MYSQL_HOST") {
		cc.host("MYSQL_HOST", x, x == unknownValue, true)
	}
	if cc.has("--no-defaults") || hostGiven {
		return // the command line's host wins over the files'
	}
	escape := "name the server with -h, or run it with --no-defaults"
	var files [][2]string // variable or option, path
	if hs := cc.opt("--defaults-file"); len(hs) > 0 {
		for _, h := range hs {
			if h.dyn || !h.set {
				cc.unknowable(h.name, false, cc.name+" "+h.name+" reads options from a file only known when it runs")
				continue
			}
			files = append(files, [2]string{h.name, h.value})
		}
	} else {
		files = [][2]string{{"", "/etc/my.cnf"}, {"", "/etc/mysql/my.cnf"}}
		if d, ok := envDir(cc.env, "MYSQL_HOME"); ok {
			files = append(files, [2]string{"MYSQL_HOME", path.Join(d, "my.cnf")})
		}
		for _, h := range cc.opt("--defaults-extra-file") {
			if h.dyn || !h.set {
				cc.unknowable(h.name, false, cc.name+" "+h.name+" reads options from a file only known when it runs")
				continue
			}
			files = append(files, [2]string{h.name, h.value})
		}
		if d, ok := envDir(cc.env, "HOME"); ok {
			files = append(files, [2]string{"HOME", path.Join(d, ".my.cnf")})
		}
	}
	for _, f := range files {
		named := strings.HasPrefix(f[0], "--") || confVarSet(cc.set, f[0])
		cc.mysqlOptionFile(f[1], named, escape)
	}
	login := ""
	if v, ok := envDir(cc.env, "MYSQL_TEST_LOGIN_FILE"); ok {
		login = v
	} else if d, ok := envDir(cc.env, "HOME"); ok {
		login = path.Join(d, ".mylogin.cnf")
	}
	if f := cc.at.open(login, false); f.kind != confAbsent {
		why := f.why
		if f.kind == confRead {
			why = "whose login paths are obfuscated, so the hook cannot read the server they name"
		}
		cc.unknowable(login, false, cc.name+" reads "+login+", "+why+"; "+escape)
	}
}

// mysqlOptionFile judges one option file: the options of the groups this
// program reads, as if given on its command line, and the files it
// includes.
func (cc *clientCall) mysqlOptionFile(p string, named bool, escape string) {
	f, ok := cc.confFile(p, named, escape)
	if !ok {
		return
	}
	if cc.depth >= maxConfDepth {
		cc.unknowable(p, false, cc.name+" reads "+p+", which includes more option files than the hook follows")
		return
	}
	var words []word
	in := false
	var includes []string
	for _, line := range strings.Split(f.body, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case strings.HasPrefix(line, "!include "):
			includes = append(includes, strings.TrimSpace(line[len("!include "):]))
		case strings.HasPrefix(line, "!includedir "):
			dir := strings.TrimSpace(line[len("!includedir "):])
			if !cc.fileSeen() || strings.ContainsAny(dir, "*?[\\") || !path.IsAbs(dir) {
				cc.unknowable(p, false, cc.name+" reads "+p+", which includes the folder "+dir+", which the hook cannot list")
				continue
			}
			m, _ := cc.at.files.fs.Glob(path.Join(dir, "*.cnf"))
			includes = append(includes, m...)
		case line[0] == '[':
			in = mysqlGroup(cc.name, strings.ToLower(strings.TrimSpace(strings.Trim(line, "[]"))))
		case in:
			k, v, eq := strings.Cut(line, "=")
			k = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			if eq {
				words = append(words, word{s: "--" + k + "=" + v})
			} else {
				words = append(words, word{s: "--" + k})
			}
		}
	}
	sub := cc.sub(p, parseArgs(words, cc.cl.opts, gnuSyntax, true))
	sub.judgeOpts()
	for _, inc := range includes {
		if !path.IsAbs(inc) {
			inc = path.Join(path.Dir(p), inc)
		}
		sub.mysqlOptionFile(inc, false, escape)
	}
	cc.out = append(cc.out, sub.out...)
}

// mysqlGroup: an option-file group the program reads ([client], its own
// name, its MySQL or MariaDB twin's).
func mysqlGroup(program, group string) bool {
	if strings.HasPrefix(group, "client") || group == "mariadb-client" || group == program {
		return true
	}
	twin := program
	switch {
	case program == "mariadb":
		twin = "mysql"
	case program == "mysql":
		twin = "mariadb"
	case strings.HasPrefix(program, "mariadb-"):
		twin = "mysql" + strings.TrimPrefix(program, "mariadb-")
	case strings.HasPrefix(program, "mysql"):
		twin = "mariadb-" + strings.TrimPrefix(program, "mysql")
	}
	return group == twin
}
