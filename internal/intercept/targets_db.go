package intercept

import (
	"strings"
	"sync"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// The database clients: libpq's programs (psql, pg_dump, …), MySQL's and
// MariaDB's, and the other shells. A server is named by an option (-h), in
// a connection string or URL given as the database name, through the
// environment, or by a service or option file the hook does not read.

// dbVars are the env_checks every database client's target is judged by.
var dbVars = []string{"DATABASE_URL", "PGHOST", "PGHOSTADDR", "MYSQL_HOST"}

// libpqEnv: the variables libpq reads a target from.
var libpqEnv = sync.OnceValue(func() map[string]optKind {
	return map[string]optKind{"PGHOST": kHost, "PGHOSTADDR": kHost, "PGDATABASE": kConn, "PGSERVICE": kUnknowable,
		"PGSERVICEFILE": kUnknowable, "PGSYSCONFDIR": kUnknowable, "PSQLRC": kUnknowable, "HOME": kUnknowable}
})

// conninfoRE is one key = value of a libpq connection string (spaces
// around = allowed, values single-quoted or bare).
var conninfoRE = lazyre.New(`([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s']*)`)

// conn judges a database name that may be a connection string or a URL:
// every host key (a later one wins, so all are judged), the URL's hosts
// and its ?host= / ?hostaddr= parameters; a service name cannot be judged.
func (cc *clientCall) conn(flag, s string, dyn bool) {
	if dyn {
		cc.add(override{flag: flag, dyn: true, kind: kHost, vars: cc.cl.hostVars})
		return
	}
	if strings.Contains(s, "://") {
		// An empty host (postgresql:///app) is libpq's default: the local
		// socket, or PGHOST, which is judged where it is set.
		for _, r := range urlHosts(s, true) {
			if !r.ok && r.host == "" {
				r = hostRef{host: localSocket, ok: true}
			}
			cc.add(override{flag: flag, value: s, host: r, kind: kHost, vars: cc.cl.hostVars})
		}
		if _, q, ok := strings.Cut(s, "?"); ok {
			for _, kv := range strings.Split(q, "&") {
				k, v, _ := strings.Cut(kv, "=")
				k, _ = percentDecode(k)
				v, _ = percentDecode(v)
				switch strings.ToLower(k) {
				case "host", "hostaddr":
					cc.host(flag+" ?"+k, v, false, false)
				case "service":
					cc.service(flag+" ?service", v)
				}
			}
		}
		return
	}
	if !strings.Contains(s, "=") {
		return // a plain database name
	}
	for _, m := range conninfoRE().FindAllStringSubmatch(s, -1) {
		k, v := strings.ToLower(m[1]), strings.Trim(m[2], `'"`)
		switch k {
		case "host", "hostaddr":
			cc.host(flag+" "+k+"=", v, false, false)
		case "dbname":
			if v != s && (strings.Contains(v, "=") || strings.Contains(v, "://")) {
				cc.conn(flag+" dbname=", v, false) // read as a connection string of its own
			}
		case "service":
			cc.service(flag+" service=", v)
		}
	}
}

func (cc *clientCall) connEnv(k, v string) {
	n := len(cc.out)
	cc.conn(k, v, false)
	for i := n; i < len(cc.out); i++ {
		cc.out[i].env = true
	}
}

// psqlConnectRE finds a \c or \connect meta-command in psql -c text, or
// one that runs a file (\i, \ir, \include), which may hold one.
var psqlConnectRE = lazyre.New(`\\(c|connect|i|ir|include|include_relative)(\s|$)`)

func libpqOperands(cc *clientCall) {
	for _, o := range cc.p.operands {
		cc.conn("database argument", o.s, o.dyn)
	}
	for _, h := range cc.opt("-c", "--command") {
		if cc.name == "psql" && (h.dyn || psqlConnectRE().MatchString(h.value)) {
			cc.unknowable(h.name, false, `psql -c runs \connect, which opens a connection the hook does not check`)
		}
	}
	libpqConfigs(cc)
}

// libpqConn are the connection options every libpq program shares.
const libpqConn = " h,host=H p,port= U,username= w,no-password W,password cluster= ?,help V,version"

const (
	psqlOpts = `c,command= d,dbname=C f,file= l,list v,set,variable= X,no-psqlrc 1,single-transaction help=? a,echo-all b,echo-errors e,echo-queries
E,echo-hidden L,log-file= n,no-readline o,output= q,quiet s,single-step S,single-line A,no-align csv F,field-separator= H,html P,pset=
R,record-separator= t,tuples-only T,table-attr= x,expanded z,field-separator-zero 0,record-separator-zero`
	pgDumpOpts = `f,file= F,format= j,jobs= v,verbose Z,compress= lock-wait-timeout= no-sync a,data-only b,blobs B,no-blobs c,clean C,create
e,extension= E,encoding= n,schema= N,exclude-schema= O,no-owner s,schema-only S,superuser= t,table= T,exclude-table= x,no-privileges binary-upgrade
column-inserts disable-dollar-quoting disable-triggers enable-row-security exclude-table-data= extra-float-digits= if-exists include-foreign-data=
inserts load-via-partition-root no-comments no-publications no-security-labels no-subscriptions no-table-access-method no-tablespaces
no-toast-compression no-unlogged-table-data on-conflict-do-nothing quote-all-identifiers restrict-key= rows-per-insert= section=
serializable-deferrable snapshot= strict-names use-set-session-authorization d,dbname=C role= filter= exclude-extension= large-objects
no-large-objects no-data no-schema no-statistics statistics sequence-data exclude-table-and-children= table-and-children=`
	pgDumpallOpts = `f,file= v,verbose lock-wait-timeout= a,data-only c,clean E,encoding= g,globals-only O,no-owner r,roles-only s,schema-only
S,superuser= t,tablespaces-only x,no-privileges binary-upgrade column-inserts disable-dollar-quoting disable-triggers exclude-database=
extra-float-digits= if-exists inserts load-via-partition-root no-comments no-publications no-role-passwords no-security-labels no-subscriptions
no-sync no-table-access-method no-tablespaces no-toast-compression no-unlogged-table-data on-conflict-do-nothing quote-all-identifiers
restrict-key= rows-per-insert= use-set-session-authorization d,dbname=C l,database=C role= filter=`
	pgRestoreOpts = `d,dbname=C f,file= F,format= l,list v,verbose a,data-only c,clean C,create e,exit-on-error I,index= j,jobs= L,use-list=
n,schema= N,exclude-schema= O,no-owner P,function= s,schema-only S,superuser= t,table= T,trigger= x,no-privileges 1,single-transaction
disable-triggers enable-row-security if-exists no-comments no-data-for-failed-tables no-publications no-security-labels no-subscriptions
no-table-access-method no-tablespaces restrict-key= section= strict-names use-set-session-authorization role= filter= transaction-size=`
	createdbOpts = `D,tablespace= e,echo E,encoding= l,locale= lc-collate= lc-ctype= icu-locale= icu-rules= locale-provider= O,owner=
S,strategy= T,template= maintenance-db=C builtin-locale=`
	dropdbOpts     = `e,echo f,force i,interactive if-exists maintenance-db=C`
	vacuumdbOpts   = `a,all d,dbname=C disable-page-skipping e,echo f,full F,freeze force-index-cleanup j,jobs= min-mxid-age= min-xid-age= no-index-cleanup no-process-toast no-truncate P,parallel= q,quiet skip-locked t,table= v,verbose z,analyze Z,analyze-only analyze-in-stages maintenance-db=C buffer-usage-limit= n,schema= N,exclude-schema= no-process-main missing-stats-only`
	reindexdbOpts  = `a,all concurrently d,dbname=C e,echo i,index= j,jobs= q,quiet s,system S,schema= t,table= tablespace= v,verbose maintenance-db=C`
	clusterdbOpts  = `a,all d,dbname=C e,echo q,quiet t,table= v,verbose maintenance-db=C`
	createuserOpts = `c,connection-limit= d,createdb D,no-createdb e,echo g,role= i,inherit I,no-inherit l,login L,no-login P,pwprompt r,createrole
R,no-createrole s,superuser S,no-superuser interactive replication no-replication if-exists a,with-admin= m,with-member= valid-until= bypassrls no-bypassrls`
	pgbenchOpts = `i,initialize I,init-steps= F,fillfactor= n,no-vacuum q,quiet s,scale= foreign-keys index-tablespace= partition-method= partitions=
tablespace= unlogged-tables b,builtin= f,file= N,skip-some-updates S,select-only c,client= C,connect D,define= j,jobs= l,log L,latency-limit=
M,protocol= P,progress= r,report-per-command= R,rate= t,transactions= T,time= v,vacuum-all aggregate-interval= failures-detailed log-prefix=
max-tries= progress-timestamp random-seed= sampling-rate= show-script= verbose-errors d,debug exit-on-abort`
	pgIsreadyOpts    = `d,dbname=C q,quiet t,timeout=`
	pgBasebackupOpts = `D,pgdata= F,format= r,max-rate= R,write-recovery-conf t,target= T,tablespace-mapping= waldir= X,wal-method= z,gzip Z,compress=
c,checkpoint= C,create-slot l,label= n,no-clean N,no-sync P,progress S,slot= v,verbose manifest-checksums= manifest-force-encode no-estimate-size
no-manifest no-slot no-verify-checksums d,dbname=C s,status-interval= i,incremental= sync-method=`
	pgReceiveOpts = `D,directory= E,endpos= if-not-exists n,no-loop no-sync s,status-interval= S,slot= synchronous v,verbose Z,compress= d,dbname=C
create-slot drop-slot start f,file= F,fsync-interval= I,startpos= o,option= P,plugin= t,two-phase enable-two-phase failover`
	pgAmcheckOpts = `a,all d,database=C D,exclude-database= i,index= I,exclude-index= r,relation= R,exclude-relation= s,schema= S,exclude-schema=
t,table= T,exclude-table= no-dependent-indexes no-dependent-toast no-strict-names exclude-toast-pointers on-error-stop skip= startblock= endblock=
heapallindexed parent-check rootdescend maintenance-db=C e,echo j,jobs= P,progress v,verbose install-missing checkunique`
	vacuumloOpts = `l,limit= n,dry-run v,verbose`
	// pg_rewind reads its source server from --source-server; pg_createsubscriber
	// its publisher from -P; oid2name takes the server with -H.
	pgRewindOpts = `D,target-pgdata= source-pgdata= source-server=C R,write-recovery-conf c,restore-target-wal n,dry-run N,no-sync P,progress
debug no-ensure-shutdown config-file= sync-method=`
	pgCreateSubscriberOpts = `D,pgdata= d,database= P,publisher-server=C s,socketdir= t,recovery-timeout= n,dry-run v,verbose T,enable-two-phase
config-file= publication= replication-slot= subscription= all clean= r`
	oid2nameOpts = `H=H d,dbname=C f,filenode= i,indexes o,oid= q,quiet s,tablespaces S,system-objects t,table= x,extended`
)

func libpqClient(name, opts string) *client {
	return &client{names: []string{name}, abbrev: true, opts: parseOpts(opts+libpqConn, false),
		hostVars: dbVars, env: libpqEnv(), confVars: libpqConfVars, operands: libpqOperands}
}

// libpqConfVars locate the files libpq and psql read (service files,
// psqlrc) or name a service in them.
var libpqConfVars = []string{"PGSERVICE", "PGSERVICEFILE", "PGSYSCONFDIR", "PSQLRC", "HOME"}

var pgcliClient = &client{names: []string{"pgcli"}, abbrev: true,
	opts: parseOpts(`h,host=H p,port=~ U,username=~ u,user=~ W,password w,no-password single-connection v,version d,dbname=C pgclirc=X D,dsn=X
list-dsn row-limit=~ less-chatty prompt=~ prompt-dsn=~ l,list auto-vertical-output warn=~ ssh-tunnel=H init-command=~ log-file=~ application-name=~
ping help`, false),
	hostVars: dbVars, env: withEnv(libpqEnv(), map[string]optKind{"XDG_CONFIG_HOME": kUnknowable}), confVars: libpqConfVars, operands: libpqOperands}

// mysqlExecRE finds a connect command in mysql -e text (connect db host,
// \r), or one that runs a file (source, \.), which may hold one.
var mysqlExecRE = lazyre.New(`(?i)(^|;|\n)\s*(connect|\\r|source|\\\.)(\s|;|$)`)

// mysqlOpts is the MySQL and MariaDB clients' options. Their programs give
// some letters different meanings (mysql -e executes, mysqldump -e is a
// flag), so such values are read both ways (~).
const mysqlOpts = `h,host=H S,socket=~ P,port=~ u,user=~ p,password=? D,database=~ e,execute=~ defaults-file= defaults-extra-file=
defaults-group-suffix=X login-path=X no-defaults print-defaults dns-srv-name=H bind-address=~ protocol=~ connect-timeout=~ init-command=~
default-character-set=~ character-sets-dir=~ default-auth=~ plugin-dir=~ ssl-ca=~ ssl-capath=~ ssl-cert=~ ssl-cipher=~ ssl-crl=~ ssl-crlpath=~
ssl-key=~ ssl-mode=~ ssl-fips-mode=~ tls-version=~ tls-ciphersuites=~ server-public-key-path=~ pager=? tee=~ delimiter=~ max-allowed-packet=~
net-buffer-length=~ select-limit=~ max-join-size=~ compression-algorithms=~ zstd-compression-level=~ load-data-local-dir=~ network-namespace=~
histignore=~ r,result-file=~ w,where=~ T,tab=~ ignore-table=~ tables databases all-databases B,batch s,silent N,skip-column-names t,table E,vertical
v,verbose V,version f,force q,quick n,unbuffered X,xml H,html C,compress c,comments A,no-auto-rehash i,ignore-spaces G,named-commands
g,no-named-commands o,one-database U,safe-updates x,lock-all-tables l,lock-tables K,disable-keys Q,quote-names R,routines Y,all-tablespaces
y,no-tablespaces d,no-data F,flush-logs ?,help password1=? password2=? password3=? ssl-verify-server-cert local-infile=? skip-ssl`

// mysqlOperands: mysql's operands are database names; a client that takes
// a URI (mycli, mysqlsh) is read by its own function.
func mysqlOperands(cc *clientCall) {
	for _, o := range cc.p.operands {
		if o.dyn || strings.Contains(o.s, "://") {
			cc.host("URI argument", o.s, o.dyn, false)
		}
	}
	for _, h := range cc.opt("-e", "--execute") {
		if h.dyn || mysqlExecRE().MatchString(h.value) {
			cc.unknowable(h.name, false, cc.name+" "+h.name+" runs connect, which opens a connection the hook does not check")
		}
	}
	if cc.from == "" {
		mysqlConfigs(cc)
	}
}

var mysqlEnv = sync.OnceValue(func() map[string]optKind {
	return map[string]optKind{"MYSQL_HOST": kHost, "MARIADB_HOST": kHost, "MYSQL_TEST_LOGIN_FILE": kUnknowable, "MYSQL_HOME": kUnknowable,
		"HOME": kUnknowable}
})

var mysqlClient = &client{names: []string{"mysql", "mariadb", "mysqldump", "mariadb-dump", "mysqladmin", "mariadb-admin", "mysqlimport",
	"mariadb-import", "mysqlshow", "mariadb-show", "mysqlcheck", "mariadb-check", "mysqlpump", "mysqlbinlog", "mariadb-binlog", "mysqlslap",
	"mariadb-slap", "mysql_upgrade", "mariadb-upgrade", "mysql_secure_installation", "mariadb-secure-installation"},
	abbrev: true, opts: parseOpts(mysqlOpts, false), hostVars: dbVars, env: mysqlEnv(), confVars: []string{"MYSQL_HOME", "HOME"},
	operands: mysqlOperands}

// mysqlConfigEditorClient writes ~/.mylogin.cnf: the server it stores is
// where every later call with that login path goes.
var mysqlConfigEditorClient = &client{names: []string{"mysql_config_editor"}, abbrev: true,
	opts:     parseOpts(`G,login-path=~ h,host=H u,user=~ p,password S,socket=~ P,port=~ w,warn skip-warn all v,verbose V,version ?,help`, false),
	hostVars: dbVars}

// mysqlBackupClient is MariaDB's and Percona's backup tool: -H is the
// server, -h the data folder; it reads the option files as the clients do.
var mysqlBackupClient = &client{names: []string{"mariadb-backup", "mariabackup", "xtrabackup"}, abbrev: true,
	opts: parseOpts(`H,host=H P,port=~ S,socket=~ u,user=~ p,password=? h,datadir=~ defaults-file= defaults-extra-file= defaults-group=~
no-defaults target-dir=~ backup prepare copy-back move-back stream=~ incremental-basedir=~ parallel=~ compress=? decompress export
databases=~ tables=~ safe-slave-backup galera-info slave-info no-lock rsync print-defaults version help`, false),
	hostVars: dbVars, env: mysqlEnv(), confVars: []string{"MYSQL_HOME", "HOME"}, operands: mysqlConfigs}

// mydumperClient is mydumper and myloader, which read [client] and their
// own groups of the option files.
var mydumperClient = &client{names: []string{"mydumper", "myloader"}, abbrev: true,
	opts: parseOpts(`h,host=H P,port=~ u,user=~ p,password=~ a,ask-password S,socket=~ defaults-file= defaults-extra-file= B,database=~
s,source-db=~ T,tables-list=~ o,outputdir=~ d,directory=~ t,threads=~ c,compress r,rows=~ F,chunk-filesize=~ e,build-empty-files
x,regex=~ O,omit-from-file=~ v,verbose=~ L,logfile=~ q,queries-per-transaction=~ o,overwrite-tables V,version ?,help`, false),
	hostVars: dbVars, env: mysqlEnv(), confVars: []string{"MYSQL_HOME", "HOME"}, operands: mysqlConfigs}

// uriOperand judges the first operand as a URI: [scheme://][user@]host[:port][/db].
func uriOperand(cc *clientCall) {
	if ops := cc.p.operands; len(ops) > 0 && !ops[0].dashed {
		cc.host("URI argument", ops[0].s, ops[0].dyn, false)
	}
}

var mysqlshClient = &client{names: []string{"mysqlsh"}, abbrev: true,
	opts: parseOpts(`uri=H h,host=H P,port=~ u,user=~ dbuser=~ p,password=? S,socket=~ D,schema=~ database=~ ssh=H ssh-config-file=X
ssh-identity-file=~ e,execute=~ f,file=~ sql js py sqlc sqlx mysql mc mysqlx mx cluster replicaset redirect-primary redirect-secondary name-cache
no-name-cache interactive=? log-level=~ quiet-start=? json=? table tabbed E,vertical result-format=~ passwords-from-stdin save-passwords=~
no-wizard connect-timeout=~ C,compress ssl-mode=~ auth-method=~ credential-store-helper=~ dba-log-sql=~ import`, false),
	hostVars: dbVars, env: map[string]optKind{"MYSQLSH_USER_CONFIG_HOME": kUnknowable, "HOME": kUnknowable},
	operands: func(cc *clientCall) {
		uriOperand(cc)
		for _, h := range cc.opt("-e", "--execute") {
			if h.dyn || strings.Contains(strings.ToLower(h.value), "connect") {
				cc.unknowable(h.name, false, "mysqlsh "+h.name+" runs code that connects, which the hook does not check")
			}
		}
	}}

var mycliClient = &client{names: []string{"mycli"}, abbrev: true,
	opts: parseOpts(`h,host=H P,port=~ u,user=~ S,socket=~ p,password=? pass=~ ssh-user=~ ssh-host=H ssh-port=~ ssh-password=~ ssh-key-filename=~
ssh-config-path=X ssh-config-host=X V,version v,verbose D,database=~ d,dsn=X list-dsn list-ssh-config R,prompt=~ l,logfile=~ defaults-group-suffix=X
defaults-file=X myclirc=X auto-vertical-output t,table csv warn no-warn local-infile=~ g,login-path=X e,execute=~ init-command=~ charset=~
password-file=~ help`, false),
	hostVars: dbVars, env: map[string]optKind{"MYSQL_HOST": kHost, "HOME": kUnknowable, "XDG_CONFIG_HOME": kUnknowable},
	operands: mysqlOperands}

var usqlClient = &client{names: []string{"usql"}, abbrev: true,
	opts: parseOpts(`c,command=~ f,file=~ o,out=~ W,password w,no-password X,no-init 1,single-transaction v,set=~ variable=~ N,cset=~ P,pset=~
F,field-separator=~ R,record-separator=~ T,table-attr=~ A,no-align H,html t,tuples-only x,expanded z,field-separator-zero 0,record-separator-zero
J,json C,csv G,vertical q,quiet config=X V,version ?,help`, false),
	hostVars: dbVars, env: map[string]optKind{"HOME": kUnknowable, "XDG_CONFIG_HOME": kUnknowable},
	operands: func(cc *clientCall) {
		if len(cc.p.operands) > 0 {
			o := cc.p.operands[0]
			switch s := o.s; {
			case o.dyn || strings.Contains(s, "://"):
				cc.host("DSN argument", s, o.dyn, false)
			case schemeRE().MatchString(s) && !strings.HasPrefix(strings.ToLower(s), "file:"):
				// pg:user@host/db, my:… (usql's short forms)
				_, rest, _ := strings.Cut(s, ":")
				cc.host("DSN argument", "//"+strings.TrimPrefix(rest, "//"), false, false)
			case strings.Contains(s, "/") || strings.HasPrefix(strings.ToLower(s), "file:") || hasAnySuffix(strings.ToLower(s), ".db", ".sqlite", ".sqlite3", ".duckdb"):
				// a database file
			default:
				cc.unknowable("DSN argument", false, "usql "+clip.String(s, 40)+" names a connection from usql's config, which the hook does not read")
			}
		}
		for _, h := range cc.opt("-c", "--command") {
			if h.dyn || psqlConnectRE().MatchString(h.value) {
				cc.unknowable(h.name, false, `usql -c runs \connect, which opens a connection the hook does not check`)
			}
		}
	}}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

var clickhouseClient = &client{names: []string{"clickhouse-client", "clickhouse", "chc"}, abbrev: true,
	opts: parseOpts(`h,host=H port=~ u,user=~ password=~ d,database=~ q,query=~ C,config-file=X config=X connection=X s,secure m,multiline
n,multiquery f,format=~ E,vertical t,time stacktrace ask-password history_file=~ ssh-key-file=~ jwt=~ quota_key=~ compression=~ query_id=~
queries-file=~ progress=? echo hardware-utilization print-profile-events help version`, false),
	hostVars: dbVars, env: map[string]optKind{"CLICKHOUSE_HOST": kHost, "CLICKHOUSE_CONFIG": kUnknowable, "HOME": kUnknowable},
	operands: func(cc *clientCall) {
		for _, o := range cc.p.operands {
			if o.dyn || strings.Contains(o.s, "://") {
				cc.host("connection argument", o.s, o.dyn, false)
			}
		}
	}}

// mongoAddr judges a MongoDB address: a URI, rs/h1:p,h2:p, or host[:port][/db]; a bare word is a database on localhost.
func mongoAddr(cc *clientCall, flag, s string, dyn bool, bareIsDB bool) {
	switch {
	case dyn:
		cc.host(flag, s, true, false)
	case strings.Contains(s, "://"):
		cc.host(flag, s, false, false)
	default:
		hosts := s
		if bareIsDB {
			if !strings.ContainsAny(s, "/:.,") {
				return // a database name
			}
			hosts, _, _ = strings.Cut(s, "/")
		} else if _, after, ok := strings.Cut(s, "/"); ok {
			hosts = after // replSet/h1,h2
		}
		cc.host(flag, hosts, false, false)
	}
}

var mongoCodeRE = lazyre.New(`(?i)\b(connect|Mongo)\s*\(`)

var mongoClient = &client{names: []string{"mongosh", "mongo"}, abbrev: true,
	opts: parseOpts(`host=H port= u,username= p,password=? authenticationDatabase= authenticationMechanism= eval= f,file= nodb norc quiet
shell verbose tls ssl tlsCertificateKeyFile=~ tlsCAFile=~ tlsCertificateKeyFilePassword=~ apiVersion=~ awsAccessKeyId=~ awsSecretAccessKey=~
awsSessionToken=~ json=? retryWrites h,help version build-info`, false),
	hostVars: dbVars, env: map[string]optKind{"HOME": kUnknowable},
	operands: func(cc *clientCall) {
		for _, o := range cc.p.operands {
			if strings.HasSuffix(o.s, ".js") && !strings.Contains(o.s, "://") {
				continue // a script file
			}
			mongoAddr(cc, "address argument", o.s, o.dyn, true)
		}
		for _, h := range cc.opt("--host") {
			mongoAddr(cc, h.name, h.value, h.dyn || !h.set, false)
		}
		for _, h := range cc.opt("--eval") {
			if h.dyn || mongoCodeRE().MatchString(h.value) {
				cc.unknowable(h.name, false, cc.name+" --eval runs code that connects, which the hook does not check")
			}
		}
	}}

var mongoToolsClient = &client{names: []string{"mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles"},
	opts: parseOpts(`uri=H h,host=H port=~ u,username=~ p,password=~ authenticationDatabase=~ authenticationMechanism=~ d,db=~ c,collection=~
o,out=~ q,query=~ config=X archive=? gzip v,verbose quiet help version`, false),
	hostVars: dbVars,
	operands: func(cc *clientCall) {
		for _, o := range cc.p.operands {
			if o.dyn || strings.Contains(o.s, "://") {
				cc.host("URI argument", o.s, o.dyn, false)
			}
		}
	}}

var redisClient = &client{names: []string{"redis-cli", "valkey-cli", "keydb-cli"},
	opts: parseOpts(`h=H p=~ s=~ a=~ user=~ pass=~ askpass u=H r=~ i=~ n=~ 2 3 x X=~ d=~ D=~ c e 4 6 tls sni=~ cacert=~ cacertdir=~ insecure
tls-ciphers=~ tls-ciphersuites=~ cert=~ key=~ raw no-raw quoted-input csv json quoted-json show-pushes=~ stat latency latency-history latency-dist
lru-test=~ replica rdb=~ functions-rdb=~ pipe pipe-timeout=~ bigkeys memkeys memkeys-samples=~ hotkeys scan pattern=~ count=~ quoted-pattern=~
intrinsic-latency=~ eval=~ ldb ldb-sync-mode cluster=~ verbose version help`, false),
	hostVars: dbVars, env: map[string]optKind{},
	operands: func(cc *clientCall) {
		ops := cc.p.operands
		cluster := cc.has("--cluster")
		for i, o := range ops {
			up := strings.ToUpper(o.s)
			switch {
			case cluster && strings.Contains(o.s, ":"):
				cc.host("cluster node", o.s, o.dyn, false)
			case (up == "MIGRATE" || up == "REPLICAOF" || up == "SLAVEOF" || up == "MEET") && i+1 < len(ops) && !strings.EqualFold(ops[i+1].s, "no"):
				cc.host(up, ops[i+1].s, ops[i+1].dyn, false)
			}
		}
	}}
