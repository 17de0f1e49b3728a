package intercept

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/agent-eval/agent-eval/internal/clip"
)

// The client table: for each CLI that reaches a service, how its command
// line names the server it talks to. Clients of one service share their
// tables (every libpq program reads -h, -d, PGHOST and service files alike),
// so the catalogue's handler for a service covers the family.

// client is one family of commands that read their options alike.
type client struct {
	names  []string
	syntax argSyntax
	abbrev bool
	opts   optTable
	// hostVars are the env_checks a host or connection target is judged by;
	// nameVars those a named target (a context, a profile) is judged by.
	// Empty: the handler's host_in checks, else all of its checks.
	hostVars, nameVars []string
	// env: variables that retarget the client when the command line sets
	// them (kHost: judged like -h; kConn; kName; kUnknowable: denied).
	env map[string]optKind
	// envPrefixes: every variable starting so (AWS_ENDPOINT_URL_S3) is
	// read as env[prefix].
	envPrefixes []string
	// confVars are the variables of env that locate configuration files
	// the client reads (HOME, CURL_HOME): with a filesystem to look at, the
	// hook reads those files instead of denying the variable.
	confVars []string
	// operands judges what the parse left as operands, and anything the
	// client reads apart from its options (sub-commands, -e code).
	operands func(cc *clientCall)
}

// clientCall is one call of a client being read.
type clientCall struct {
	cl   *client
	name string // the command's base name
	p    parsedArgs
	set  map[string]string // what the command line assigns this call
	env  map[string]string // the whole environment it runs under
	line lineOf
	// at is what the command line did before the call (nil: not known),
	// for the configuration files the client reads.
	at  *callLine
	out []override
	// from names the configuration file the options being read come from
	// ("" for the command line); depth counts the files that led to it.
	from  string
	depth int
}

func (cc *clientCall) add(o override) {
	o.command = cc.name
	if cc.from != "" {
		o.flag += " (in " + cc.from + ")"
		o.env = false
	}
	cc.out = append(cc.out, o)
}

// sub is a reading of the options in the configuration file from, which
// the client reads as if they were on its command line.
func (cc *clientCall) sub(from string, p parsedArgs) *clientCall {
	return &clientCall{cl: cc.cl, name: cc.name, p: p, env: cc.env, line: cc.line, at: cc.at, from: from, depth: cc.depth + 1}
}

// fileSeen: the hook can look at the filesystem, so a configuration
// location the line sets is read rather than denied.
func (cc *clientCall) fileSeen() bool { return cc.at.hasFS() }

// host records a host or URL target.
func (cc *clientCall) host(flag, value string, dyn, env bool) {
	if dyn {
		cc.add(override{flag: flag, env: env, value: value, dyn: true, kind: kHost, vars: cc.cl.hostVars})
		return
	}
	if strings.TrimSpace(value) == "" {
		return // an empty value is the client's default
	}
	var refs []hostRef
	if d, ok := percentDecode(value); ok && (strings.HasPrefix(d, "/") || strings.HasPrefix(d, "@")) && !strings.HasPrefix(d, "//") {
		refs = []hostRef{{host: localSocket, ok: true}} // a socket directory or path: this machine
	} else if strings.Contains(value, "://") {
		refs = urlHosts(value, true)
	} else {
		for _, one := range strings.Split(value, ",") {
			if u := urlHosts(one, false); len(u) > 0 {
				refs = append(refs, u...)
			}
		}
	}
	if len(refs) == 0 {
		refs = []hostRef{{host: value}}
	}
	for _, r := range refs {
		cc.add(override{flag: flag, env: env, value: value, host: r, kind: kHost, vars: cc.cl.hostVars})
	}
}

// name records a named target (a kube context, an AWS profile).
func (cc *clientCall) named(flag, value string, dyn, env bool) {
	cc.add(override{flag: flag, env: env, value: value, dyn: dyn, kind: kName, vars: cc.cl.nameVars})
}

// unknowable records a target the hook cannot read; why says what.
func (cc *clientCall) unknowable(flag string, env bool, why string) {
	cc.add(override{flag: flag, env: env, kind: kUnknowable, why: why})
}

// opt returns the values given to an option (by its table spelling).
func (cc *clientCall) opt(names ...string) []optHit {
	var out []optHit
	for _, h := range cc.p.opts {
		if containsStr(names, h.name) {
			out = append(out, h)
		}
	}
	return out
}

func (cc *clientCall) has(names ...string) bool { return len(cc.opt(names...)) > 0 }

// clientsByName indexes clientTable by command name, on first use.
var clientsByName = sync.OnceValue(func() map[string]*client {
	// The service clients speak HTTP through the standard proxy variables
	// too: a proxy is where their requests go.
	for _, c := range []*client{jiraClient, kubectlClient, helmClient, awsClient, ghClient, glabClient, gcloudClient, azClient, sfClient, sentryClient, terraformClient} {
		for k, v := range proxyEnv() {
			if _, ok := c.env[k]; !ok {
				c.env[k] = v
			}
		}
	}
	m := map[string]*client{}
	for _, c := range clientTable {
		for _, n := range c.names {
			if _, dup := m[n]; dup {
				panic("intercept: client " + n + " is listed twice")
			}
			m[n] = c
		}
	}
	return m
})

// readClient reads the call of a client at c.words[k] (nil when that word
// is no client the table knows).
func readClient(c call, k int, line lineOf) []override {
	words := c.words[k:]
	if len(words) == 0 || words[0].dyn {
		return nil
	}
	name := path.Base(words[0].s)
	cl := clientsByName()[name]
	if cl == nil {
		return nil
	}
	cc := &clientCall{cl: cl, name: name, set: c.set, env: c.env, line: line, at: c.line}
	cc.p = parseArgs(words[1:], cl.opts, cl.syntax, cl.abbrev)
	if cc.p.unknownDyn != "" {
		cc.add(override{flag: "a word only known when it runs (" + clip.String(cc.p.unknownDyn, 40) + ")", dyn: true, kind: kHost})
	}
	cc.judgeOpts()
	for k, v := range c.set {
		if v == unsetValue {
			continue
		}
		kind, ok := cl.env[k]
		if !ok {
			for _, p := range cl.envPrefixes {
				if strings.HasPrefix(k, p) {
					kind, ok = cl.env[p], true
				}
			}
		}
		if !ok || kind == kUnknowable && slices.Contains(cl.confVars, k) && cc.fileSeen() {
			continue // a configuration location: its files are read
		}
		dyn := v == unknownValue
		if v == "" && kind != kUnknowable {
			continue // empty is the default
		}
		switch kind {
		case kHost:
			cc.host(k, v, dyn, true)
		case kConn:
			if dyn {
				cc.add(override{flag: k, env: true, dyn: true, kind: kHost, vars: cl.hostVars})
			} else {
				cc.connEnv(k, v)
			}
		case kName:
			cc.named(k, v, dyn, true)
		case kUnknowable:
			cc.unknowable(k, true, unknowableWhy(k))
		}
	}
	if cl.operands != nil {
		cl.operands(cc)
	}
	return cc.out
}

// judgeOpts judges the target options the parse found.
func (cc *clientCall) judgeOpts() {
	for _, h := range cc.p.opts {
		if h.dyn && h.spec.kind != kFlag && h.spec.kind != kValue {
			cc.add(override{flag: h.name, dyn: true, kind: kHost, vars: cc.cl.hostVars})
			continue
		}
		switch h.spec.kind {
		case kHost:
			if h.set {
				cc.host(h.name, h.value, false, false)
			} else {
				cc.add(override{flag: h.name, dyn: true, kind: kHost})
			}
		case kConn:
			cc.conn(h.name, h.value, false)
		case kName:
			cc.named(h.name, h.value, !h.set, false)
		case kUnknowable:
			cc.unknowable(h.name, false, unknowableWhy(h.name))
		}
	}
}

// confFile judges a configuration file the client reads (p as the client
// names it) and returns it when the hook has read it. named: the command
// line names the file or its folder. escape says how to skip the file.
func (cc *clientCall) confFile(p string, named bool, escape string) (confFile, bool) {
	bodies, _ := cc.confGroup(p, named, []string{p}, escape)
	if len(bodies) == 0 {
		return confFile{}, false
	}
	return confFile{kind: confRead, body: bodies[0][1]}, true
}

// confGroup judges the files a client looks for in one configuration
// location (loc: the folder or file as the line names it), in order, and
// returns those the hook read, as path and body; found: one of them is
// there, or cannot be known (recorded). A location the command line names
// itself (named) must hold one of them: what is not there when the hook
// looks may be created, by a process already running, before the client
// reads it.
func (cc *clientCall) confGroup(loc string, named bool, paths []string, escape string) (bodies [][2]string, found bool) {
	deny := func(what, why string) {
		if escape != "" {
			why += "; " + escape
		}
		cc.unknowable(what, false, why)
	}
	for _, p := range paths {
		f := cc.at.open(p, named)
		switch f.kind {
		case confCannot:
			deny(p, cc.name+" reads "+p+", "+f.why)
			return bodies, true
		case confRead:
			bodies, found = append(bodies, [2]string{p, f.body}), true
		}
	}
	if !found && named {
		why := cc.name + " reads " + paths[0] + ", which does not exist when the hook looks"
		if len(paths) > 1 {
			why = cc.name + " looks for " + strings.Join(paths, " or ") + ", none of which exists when the hook looks"
		}
		deny(loc, why+": it may be created before "+cc.name+" runs (by a process already running), so what it will hold cannot be known")
		return nil, true
	}
	return bodies, found
}

// unknowableWhy says why a config option or variable cannot be checked.
func unknowableWhy(flag string) string {
	return flag + " makes it read its target from a file or setting the hook does not read"
}

// urlOperands judges every operand as a URL (curl, wget).
func urlOperands(cc *clientCall) {
	for _, o := range cc.p.operands {
		cc.host("URL argument", o.s, o.dyn, false)
	}
}

// proxyEnv are the variables that send an HTTP client through a proxy.
var proxyEnv = sync.OnceValue(func() map[string]optKind {
	return map[string]optKind{"http_proxy": kHost, "HTTP_PROXY": kHost, "https_proxy": kHost, "HTTPS_PROXY": kHost,
		"ALL_PROXY": kHost, "all_proxy": kHost, "ftp_proxy": kHost, "FTP_PROXY": kHost}
})

func withEnv(base map[string]optKind, more map[string]optKind) map[string]optKind {
	out := map[string]optKind{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

const curlOpts = `abstract-unix-socket= alt-svc=X anyauth a,append aws-sigv4= basic cacert= capath= E,cert= cert-status cert-type= ciphers= compressed compressed-ssh
K,config= connect-timeout= connect-to= C,continue-at= b,cookie= c,cookie-jar= create-dirs create-file-mode= crlf crlfile= curves= d,data= data-ascii=
data-binary= data-raw= data-urlencode= delegation= digest q,disable disable-eprt disable-epsv disallow-username-in-url dns-interface= dns-ipv4-addr=
dns-ipv6-addr= dns-servers=X doh-cert-status doh-insecure doh-url=X D,dump-header= egd-file= engine= etag-compare= etag-save= expect100-timeout= f,fail
fail-early fail-with-body false-start F,form= form-escape form-string= ftp-account= ftp-alternative-to-user= ftp-create-dirs ftp-method= ftp-pasv
P,ftp-port= ftp-pret ftp-skip-pasv-ip ftp-ssl-ccc ftp-ssl-ccc-mode= ftp-ssl-control G,get g,globoff happy-eyeballs-timeout-ms= haproxy-protocol I,head
H,header= h,help=? hostpubmd5= hostpubsha256= hsts= http0.9 0,http1.0 http1.1 http2 http2-prior-knowledge http3 http3-only ignore-content-length
i,include k,insecure interface= 4,ipv4 6,ipv6 json= j,junk-session-cookies keepalive-time= key= key-type= krb= libcurl= limit-rate= l,list-only
local-port= L,location location-trusted login-options= mail-auth= mail-from= mail-rcpt= mail-rcpt-allowfails M,manual max-filesize= max-redirs=
m,max-time= metalink negotiate n,netrc netrc-file= netrc-optional :,next no-alpn N,no-buffer no-clobber no-keepalive no-npn no-progress-meter
no-sessionid noproxy= ntlm ntlm-wb oauth2-bearer= o,output= output-dir= Z,parallel parallel-immediate parallel-max= pass= path-as-is pinnedpubkey=
post301 post302 post303 preproxy=H #,progress-bar proto= proto-default= proto-redir= x,proxy=H proxy-anyauth proxy-basic proxy-cacert= proxy-capath=
proxy-cert= proxy-cert-type= proxy-ciphers= proxy-crlfile= proxy-digest proxy-header= proxy-insecure proxy-key= proxy-key-type= proxy-negotiate
proxy-ntlm proxy-pass= proxy-pinnedpubkey= proxy-service-name= proxy-ssl-allow-beast proxy-ssl-auto-client-cert proxy-tls13-ciphers=
proxy-tlsauthtype= proxy-tlspassword= proxy-tlsuser= proxy-tlsv1 U,proxy-user= proxy1.0=H p,proxytunnel pubkey= Q,quote= random-file= r,range=
rate= raw e,referer= J,remote-header-name O,remote-name remote-name-all R,remote-time remove-on-error X,request= request-target= resolve= retry=
retry-all-errors retry-connrefused retry-delay= retry-max-time= sasl-authzid= sasl-ir service-name= S,show-error s,silent socks4=H socks4a=H
socks5=H socks5-basic socks5-gssapi socks5-gssapi-nec socks5-gssapi-service= socks5-hostname=H Y,speed-limit= y,speed-time= ssl ssl-allow-beast
ssl-auto-client-cert ssl-no-revoke ssl-reqd ssl-revoke-best-effort 2,sslv2 3,sslv3 stderr= styled-output suppress-connect-headers tcp-fastopen
tcp-nodelay t,telnet-option= tftp-blksize= tftp-no-options z,time-cond= tls-max= tls13-ciphers= tlsauthtype= tlspassword= tlsuser= 1,tlsv1 tlsv1.0
tlsv1.1 tlsv1.2 tlsv1.3 tr-encoding trace= trace-ascii= trace-time unix-socket= T,upload-file= url= url-query= B,use-ascii u,user= A,user-agent=
v,verbose V,version w,write-out= xattr
ipfs-gateway=H variable=X expand-url=X expand-data=X expand-header=X expand-output=X proxy-http2 ca-native proxy-ca-native dump-ca-embed
proxy-dump-ca-embed haproxy-clientip= ech= mptcp trace-config= skip-existing show-headers out-null follow sigalgs= ssl-sessions= upload-flags=
knownhosts= no-progress-meter etag-save= ssl-sessions= tls-earlydata`

const wgetOpts = `V,version h,help b,background e,execute= o,output-file= a,append-output= d,debug q,quiet v,verbose n= report-speed= i,input-file=X
F,force-html B,base= config= no-config rejected-log= t,tries= retry-connrefused retry-on-http-error= O,output-document= no-clobber no-netrc c,continue
start-pos= progress= show-progress N,timestamping no-if-modified-since no-use-server-timestamps S,server-response spider T,timeout= dns-timeout=
connect-timeout= read-timeout= w,wait= waitretry= random-wait no-proxy Q,quota= bind-address= limit-rate= no-dns-cache restrict-file-names= ignore-case
4,inet4-only 6,inet6-only prefer-family= user= password= ask-password use-askpass= no-iri local-encoding= remote-encoding= unlink xattr no-directories
x,force-directories no-host-directories protocol-directories P,directory-prefix= cut-dirs= http-user= http-password= no-cache default-page=
E,adjust-extension ignore-length header= compression= max-redirect= proxy-user= proxy-password= referer= save-headers U,user-agent= no-http-keep-alive
no-cookies load-cookies= save-cookies= keep-session-cookies post-data= post-file= method= body-data= body-file= content-disposition content-on-error
auth-no-challenge secure-protocol= https-only no-check-certificate certificate= certificate-type= private-key= private-key-type= ca-certificate=
ca-directory= crl-file= pinnedpubkey= ciphers= no-hsts hsts-file= ftp-user= ftp-password= no-remove-listing no-glob no-passive-ftp
preserve-permissions retr-symlinks ftps-implicit ftps-resume-ssl ftps-clear-data-connection ftps-fallback-to-ftp warc-file= warc-header= warc-max-size=
warc-cdx warc-dedup= no-warc-compression no-warc-digests no-warc-keep-log warc-tempdir= r,recursive l,level= delete-after k,convert-links
convert-file-only backups= K,backup-converted m,mirror p,page-requisites strict-comments A,accept= R,reject= accept-regex= reject-regex= regex-type=
D,domains= exclude-domains= follow-ftp follow-tags= ignore-tags= H,span-hosts L,relative I,include-directories= trust-server-names
X,exclude-directories= no-parent`

// curlOperands judges curl's URLs as curl expands them ({a,b}, [1-3]),
// its --url, --resolve and --connect-to rules.
func curlOperands(cc *clientCall) {
	urls := append([]operand{}, cc.p.operands...)
	for _, h := range cc.opt("--url") {
		if strings.HasPrefix(h.value, "@") {
			cc.unknowable(h.name, false, "curl --url @FILE reads its URLs from a file the hook does not read")
			continue
		}
		urls = append(urls, operand{word: word{s: h.value, dyn: h.dyn}})
	}
	glob := !cc.has("-g", "--globoff")
	for _, u := range urls {
		if u.dyn {
			cc.host("URL argument", u.s, true, false)
			continue
		}
		expanded := []string{u.s}
		if glob {
			var ok bool
			if expanded, ok = curlGlob(u.s); !ok {
				cc.unknowable("URL argument", false, "curl expands the URL "+clip.String(u.s, 60)+" by its globbing into more URLs than the hook can check, or refuses it")
				continue
			}
		}
		for _, e := range expanded {
			cc.host("URL argument", e, false, false)
		}
	}
	for _, h := range cc.opt("--resolve") {
		// [+]HOST:PORT:ADDR[,ADDR]…: HOST is then reached at ADDR.
		parts := strings.SplitN(strings.TrimPrefix(h.value, "+"), ":", 3)
		switch {
		case h.dyn:
			cc.host(h.name, h.value, true, false)
		case strings.HasPrefix(h.value, "-"):
		case len(parts) < 3:
			cc.host(h.name, h.value, false, false)
		default:
			for _, a := range strings.Split(parts[2], ",") {
				cc.host(h.name, a, false, false)
			}
		}
	}
	for _, h := range cc.opt("--connect-to") {
		// HOST1:PORT1:HOST2:PORT2: a request for HOST1 goes to HOST2.
		v := h.value
		if h.dyn {
			cc.host(h.name, v, true, false)
			continue
		}
		fields := splitHostPorts(v)
		if len(fields) != 4 {
			cc.host(h.name, v, false, false)
			continue
		}
		if fields[2] != "" {
			cc.host(h.name, fields[2], false, false)
		}
	}
	for _, h := range cc.p.opts {
		if strings.HasPrefix(h.name, "--expand-") {
			cc.unknowable(h.name, false, h.name+" fills the URL from curl variables the hook does not follow")
		}
	}
	for _, h := range cc.opt("--unix-socket", "--abstract-unix-socket") {
		// The request goes to whatever listens there, which may pass it on
		// to any host.
		cc.unknowable(h.name, false, "curl "+h.name+" "+clip.String(h.value, 60)+" sends the request to a Unix socket, and the hook cannot identify the server behind it")
	}
	curlConfigs(cc)
}

// curlNoRC: curl's first option is -q (no .curlrc).
func curlNoRC(cc *clientCall) bool {
	return len(cc.p.opts) > 0 && (cc.p.opts[0].name == "-q" || cc.p.opts[0].name == "--disable")
}

// splitHostPorts splits HOST1:PORT1:HOST2:PORT2, keeping [v6] hosts whole.
func splitHostPorts(v string) []string {
	var out []string
	for v != "" || len(out) < 4 {
		if strings.HasPrefix(v, "[") {
			if i := strings.IndexByte(v, ']'); i >= 0 {
				out = append(out, v[:i+1])
				v = strings.TrimPrefix(v[i+1:], ":")
				continue
			}
		}
		f, rest, ok := strings.Cut(v, ":")
		out = append(out, f)
		v = rest
		if !ok {
			break
		}
	}
	return out
}

// wgetOperands judges wget's URLs and its -e wgetrc commands.
func wgetOperands(cc *clientCall) {
	urlOperands(cc)
	for _, h := range cc.opt("-e", "--execute") {
		if h.dyn {
			cc.host(h.name, h.value, true, false)
			continue
		}
		wgetCommand(cc, h.name, h.value)
	}
	wgetConfigs(cc)
}

// wgetCommand judges one wgetrc command (KEY = VALUE), given by -e or read
// from a wgetrc.
func wgetCommand(cc *clientCall, flag, kv string) {
	k, v, _ := strings.Cut(kv, "=")
	k = strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(k)))
	v = strings.TrimSpace(v)
	switch {
	case k == "httpproxy" || k == "httpsproxy" || k == "ftpproxy":
		cc.host(flag+" "+k, v, false, false)
	case wgetInert()[k]:
	default:
		why := "wget -e " + clip.String(kv, 40) + " runs a wgetrc command the hook does not know"
		if cc.from != "" {
			why = clip.String(strings.TrimSpace(kv), 40) + " in " + cc.from + " is a wgetrc command the hook does not know"
		}
		cc.unknowable(flag, false, why)
	}
}

// wgetInert are the wgetrc commands (dashes and underscores dropped) that
// do not change where wget connects.
var wgetInert = sync.OnceValue(func() map[string]bool {
	return setOf(`robots tries timeout wait verbose quiet header useragent checkcertificate continue recursive dirprefix
contentdisposition maxredirect noparent timestamping convertlinks pagerequisites level reclevel retryconnrefused waitretry randomwait
limitrate usercookies cookies inet4only inet6only showprogress progress serverresponse spider outputdocument logfile adjustextension
httpsonly useproxy noproxy readtimeout connecttimeout dnstimeout compression iri localencoding remoteencoding passiveftp numtries
dotstyle dotbytes dotspacing dotsinline cache dnscache dirstruct noclobber netrc httpkeepalive cacertificate cadirectory certificate
certificatetype privatekey privatekeytype secureprotocol httpuser httppassword httppasswd user password passwd ftpuser ftppassword
ftppasswd askpassword loadcookies savecookies keepsessioncookies saveheaders restrictfilenames unlink backups backupconverted mirror
hsts hstsfile accept reject acceptregex rejectregex regextype excludedirectories includedirectories ignorecase ignorelength
ignoretags followtags strictcomments cutdirs addhostdir protocoldirectories defaultpage quota deleteafter timestampingonly
retryonhttperror retryonhosterror contentonerror maxredirects trustservernames xattr ifmodifiedsince useservertimestamps
preferfamily preservepermissions retrsymlinks removelisting glob dirmode reportspeed startpos waitretry proxyuser proxypassword
proxypasswd referer method postdata postfile bodydata bodyfile authnochallenge chooseconfig noconfig convertfileonly debug
background egdfile randomfile relativeonly htmlextension htmlify forcehtml dotsperline followftp`)()
})

const httpieOpts = `j,json f,form multipart boundary= raw= x,compress pretty= s,style= unsorted sorted response-charset= response-mime= format-options=
p,print= h,headers m,meta b,body v,verbose all history-print= S,stream o,output= d,download c,continue q,quiet session= session-read-only=
a,auth= A,auth-type= ignore-netrc offline proxy= F,follow max-redirects= max-headers= timeout= check-status path-as-is chunked verify= ssl=
ciphers= cert= cert-key= cert-key-pass= I,ignore-stdin help manual version traceback default-scheme= debug
resolve= unix-socket= http-version= 4,ipv4 6,ipv6 native-tls interface= B,bearer= curl https`

// httpieOperands: [METHOD] URL [ITEM…]; :port/path is localhost.
func httpieOperands(cc *clientCall) {
	ops := cc.p.operands
	if len(ops) > 0 && !ops[0].dyn && isMethod(ops[0].s) {
		ops = ops[1:]
	}
	if len(ops) > 0 {
		u := ops[0]
		if strings.HasPrefix(u.s, ":") {
			u.s = "localhost" + u.s
		}
		cc.host("URL argument", u.s, u.dyn, false)
	}
	for _, h := range cc.opt("--proxy") {
		// PROTOCOL:URL
		_, v, _ := strings.Cut(h.value, ":")
		cc.host(h.name, v, h.dyn, false)
	}
	for _, h := range cc.opt("--unix-socket") {
		cc.unknowable(h.name, false, cc.name+" --unix-socket sends the request to a Unix socket, and the hook cannot identify the server behind it")
	}
	if len(ops) > 0 && strings.Contains(strings.ToLower(strings.SplitN(ops[0].s, "://", 2)[0]), "unix") && strings.Contains(ops[0].s, "://") {
		cc.unknowable("URL argument", false, cc.name+" "+clip.String(ops[0].s, 60)+" sends the request to a Unix socket, and the hook cannot identify the server behind it")
	}
	for _, h := range cc.opt("--resolve") {
		// HOST:ADDRESS (xh)
		_, v, _ := strings.Cut(h.value, ":")
		cc.host(h.name, v, h.dyn, false)
	}
	for _, v := range []string{"HTTPIE_CONFIG_DIR", "XDG_CONFIG_HOME", "HOME"} {
		if _, ok := cc.set[v]; ok {
			cc.unknowable(v, true, v+" makes it read default options from a config the hook does not read")
		}
	}
}

func isMethod(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

const ncOpts = `4 6 b C D d F h k l N n r S t U u v z I= i= M= m= O= P= p= q= s= T= V= W= w= X= x=H e= c= proxy=H proxy-type= proxy-auth= proxy-dns=
unixsock
exec= sh-exec= lua-exec= source= source-port= ssl ssl-cert= ssl-key= listen keep-open udp sctp verbose wait= idle-timeout= allow= deny=
send-only recv-only broker chat crlf nodns telnet`

// netOperands: HOST [PORT…]; a bare number is a port. With -U the
// operand is a Unix socket.
func netOperands(cc *clientCall) {
	if cc.has("-U", "--unixsock") && cc.name != "telnet" && cc.name != socketCommand {
		if len(cc.p.operands) > 0 {
			cc.unknowable("-U "+clip.String(cc.p.operands[0].s, 60), false, cc.name+" -U connects to a Unix socket, and the hook cannot identify the server behind it")
		}
		return
	}
	for _, o := range cc.p.operands {
		if !o.dyn && strings.Trim(o.s, "0123456789-") == "" {
			continue
		}
		cc.host("host argument", o.s, o.dyn, false)
		if cc.name != socketCommand {
			break
		}
	}
}

// socatOperands: each address of type TCP:host:port, OPENSSL:…, PROXY:…,
// SOCKS4:… names a host.
func socatOperands(cc *clientCall) {
	for _, o := range cc.p.operands {
		if o.dyn {
			cc.host("address", o.s, true, false)
			continue
		}
		typ, rest, ok := strings.Cut(o.s, ":")
		if !ok {
			if strings.Contains(o.s, "/") {
				// A bare path is GOPEN: a file, or a Unix socket.
				cc.unknowable("address "+clip.String(o.s, 60), false, "socat opens "+clip.String(o.s, 60)+", which may be a Unix socket, and the hook cannot identify the server behind it")
			}
			continue
		}
		switch strings.ToUpper(typ) {
		case "UNIX", "UNIX-CONNECT", "UNIX-CLIENT", "UNIX-SENDTO", "ABSTRACT", "ABSTRACT-CONNECT", "ABSTRACT-CLIENT", "ABSTRACT-SENDTO", "GOPEN":
			cc.unknowable("address "+typ, false, "socat "+clip.String(o.s, 60)+" connects to a Unix socket, and the hook cannot identify the server behind it")
		case "TCP", "TCP4", "TCP6", "TCP-CONNECT", "TCP4-CONNECT", "TCP6-CONNECT", "UDP", "UDP4", "UDP6", "UDP-CONNECT", "UDP-SENDTO",
			"OPENSSL", "OPENSSL-CONNECT", "SSL", "SCTP", "SCTP-CONNECT", "DCCP-CONNECT", "UDP4-SENDTO", "UDP6-SENDTO":
			h := strings.Split(rest, ",")[0]
			cc.host("address "+typ, stripPort(h), false, false)
		case "PROXY", "PROXY-CONNECT", "SOCKS4", "SOCKS4A", "SOCKS5", "SOCKS5-CONNECT":
			// PROXY:proxy:host:port[,opts]
			fields := strings.Split(strings.Split(rest, ",")[0], ":")
			for _, f := range fields[:min(2, len(fields))] {
				cc.host("address "+typ, f, false, false)
			}
		}
	}
}

// clientTable lists the clients. Service clients come from catalog.go's
// services (the catalogue writes their filters); HTTP clients and raw
// connections apply whatever the handler.
var clientTable = []*client{
	{names: []string{"curl", "curlie"}, abbrev: true, opts: parseOpts(curlOpts, false), env: proxyEnv(), operands: curlOperands},
	{names: []string{"wget"}, abbrev: true, opts: parseOpts(wgetOpts, false), env: proxyEnv(), operands: wgetOperands},
	// Other downloaders and text browsers: every operand is a URL (their
	// options are not read: an unknown option's value is judged too).
	{names: []string{"aria2c", "axel", "lynx", "links", "elinks", "w3m", "httpx", "websocat"}, abbrev: true, opts: parseOpts("", false), env: proxyEnv(),
		operands: func(cc *clientCall) {
			for _, o := range cc.p.operands {
				if o.dyn || strings.Trim(o.s, "0123456789") != "" {
					cc.host("URL argument", o.s, o.dyn, false)
				}
			}
		}},
	{names: []string{"wget2"}, abbrev: true, opts: parseOpts(wgetOpts, false), env: proxyEnv(), operands: wgetOperands},
	{names: []string{"http", "https", "httpie", "xh", "xhs"}, abbrev: true, opts: parseOpts(httpieOpts, false), env: proxyEnv(), operands: httpieOperands},
	{names: []string{"nc", "ncat", "netcat", "telnet", socketCommand}, opts: parseOpts(ncOpts, false), operands: netOperands},
	{names: []string{"socat"}, opts: parseOpts("d D h l= L= s t= T= u U v x g 4 6 V hh hhh", false), operands: socatOperands},
	{names: []string{"openssl"}, syntax: goFlag, opts: parseOpts("connect=H proxy=H host=H port= servername= CAfile= cert= key= msg debug unix=", true),
		operands: func(cc *clientCall) {
			for _, h := range cc.opt("-unix") {
				cc.unknowable(h.name, false, "openssl -unix connects to a Unix socket, and the hook cannot identify the server behind it")
			}
		}},
	jiraClient, kubectlClient, helmClient, awsClient, ghClient, glabClient, gcloudClient, azClient, sfClient, sentryClient, terraformClient, gitClient,
	libpqClient("psql", psqlOpts), libpqClient("pg_dump", pgDumpOpts), libpqClient("pg_dumpall", pgDumpallOpts), libpqClient("pg_restore", pgRestoreOpts),
	libpqClient("createdb", createdbOpts), libpqClient("dropdb", dropdbOpts), libpqClient("vacuumdb", vacuumdbOpts), libpqClient("reindexdb", reindexdbOpts),
	libpqClient("clusterdb", clusterdbOpts), libpqClient("createuser", createuserOpts), libpqClient("dropuser", createuserOpts), libpqClient("pgbench", pgbenchOpts),
	libpqClient("pg_isready", pgIsreadyOpts), libpqClient("pg_basebackup", pgBasebackupOpts), libpqClient("pg_receivewal", pgReceiveOpts),
	libpqClient("pg_recvlogical", pgReceiveOpts), libpqClient("pg_amcheck", pgAmcheckOpts), libpqClient("vacuumlo", vacuumloOpts),
	libpqClient("pg_rewind", pgRewindOpts), libpqClient("pg_createsubscriber", pgCreateSubscriberOpts), libpqClient("oid2name", oid2nameOpts),
	pgcliClient, mysqlClient, mysqlConfigEditorClient, mysqlBackupClient, mydumperClient, mysqlshClient, mycliClient, usqlClient,
	clickhouseClient, mongoClient, mongoToolsClient, redisClient,
}
