package intercept

import (
	"path"
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
	out  []override
}

func (cc *clientCall) add(o override) {
	o.command = cc.name
	cc.out = append(cc.out, o)
}

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
		for k, v := range proxyEnv {
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

// readClient reads the call of a client at words[0] (nil when words[0]
// is no client the table knows).
func readClient(words []word, set, env map[string]string, line lineOf) []override {
	if len(words) == 0 || words[0].dyn {
		return nil
	}
	name := path.Base(words[0].s)
	cl := clientsByName()[name]
	if cl == nil {
		return nil
	}
	cc := &clientCall{cl: cl, name: name, set: set, env: env, line: line}
	cc.p = parseArgs(words[1:], cl.opts, cl.syntax, cl.abbrev)
	if cc.p.unknownDyn != "" {
		cc.add(override{flag: "a word only known when it runs (" + clip.String(cc.p.unknownDyn, 40) + ")", dyn: true, kind: kHost})
	}
	for _, h := range cc.p.opts {
		if h.dyn && h.spec.kind != kFlag && h.spec.kind != kValue {
			cc.add(override{flag: h.name, dyn: true, kind: kHost, vars: cl.hostVars})
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
	for k, v := range set {
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
		if !ok {
			continue
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

// rcFile records a config file the client reads by default, when it
// exists: its options are not read, so the call cannot be checked. dirVar
// names the directory's variable ("HOME"); escape is how to skip it.
func (cc *clientCall) rcFile(dirVar, file, escape string) {
	dir := cc.env[dirVar]
	if cc.line.fs == nil || dir == "" || dir == unknownValue || dir == unsetValue {
		return
	}
	p := path.Join(dir, file)
	if strings.ContainsAny(p, "*?[\\") {
		cc.unknowable(p, false, cc.name+" reads "+p+", whose options the hook does not read; "+escape)
		return
	}
	if m, err := cc.line.fs.Glob(p); err == nil && len(m) > 0 {
		cc.unknowable(p, false, cc.name+" reads "+p+", whose options the hook does not read; "+escape)
	}
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
var proxyEnv = map[string]optKind{"http_proxy": kHost, "HTTP_PROXY": kHost, "https_proxy": kHost, "HTTPS_PROXY": kHost,
	"ALL_PROXY": kHost, "all_proxy": kHost, "ftp_proxy": kHost, "FTP_PROXY": kHost}

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
K,config=X connect-timeout= connect-to= C,continue-at= b,cookie= c,cookie-jar= create-dirs create-file-mode= crlf crlfile= curves= d,data= data-ascii=
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
F,force-html B,base= config=X no-config rejected-log= t,tries= retry-connrefused retry-on-http-error= O,output-document= no-clobber no-netrc c,continue
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
	if !curlNoRC(cc) {
		for _, v := range []string{"CURL_HOME", "XDG_CONFIG_HOME", "HOME"} {
			if _, ok := cc.set[v]; ok {
				cc.unknowable(v, true, v+" makes curl read a .curlrc the hook does not read (run curl -q first)")
			}
		}
		// A .curlrc an earlier call may have written (url =, proxy =, …).
		for _, f := range [][2]string{{"CURL_HOME", ".curlrc"}, {"XDG_CONFIG_HOME", "curlrc"}, {"XDG_CONFIG_HOME", ".curlrc"}, {"HOME", ".curlrc"}, {"HOME", ".config/curlrc"}} {
			cc.rcFile(f[0], f[1], "run curl -q first")
		}
	}
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
		k, v, _ := strings.Cut(h.value, "=")
		k = strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(k)))
		v = strings.TrimSpace(v)
		switch k {
		case "httpproxy", "httpsproxy", "ftpproxy":
			cc.host(h.name+" "+k, v, false, false)
		case "robots", "tries", "timeout", "wait", "verbose", "quiet", "header", "useragent", "checkcertificate", "continue",
			"recursive", "dirprefix", "contentdisposition", "maxredirect", "noparent", "timestamping", "convertlinks", "pagerequisites",
			"level", "retryconnrefused", "waitretry", "randomwait", "limitrate", "usercookies", "cookies", "inet4only", "inet6only",
			"showprogress", "progress", "serverresponse", "spider", "outputdocument", "logfile", "adjustextension", "httpsonly",
			"useproxy", "noproxy", "readtimeout", "connecttimeout", "dnstimeout", "compression", "iri", "localencoding", "remoteencoding":
		default:
			cc.unknowable(h.name, false, "wget -e "+clip.String(h.value, 40)+" runs a wgetrc command the hook does not know")
		}
	}
	if !cc.has("--no-config") {
		for _, v := range []string{"WGETRC", "HOME"} {
			if _, ok := cc.set[v]; ok {
				cc.unknowable(v, true, v+" makes wget read a wgetrc the hook does not read (run wget --no-config)")
			}
		}
		if w := cc.env["WGETRC"]; w != "" && cc.set["WGETRC"] == "" {
			cc.rcFile("WGETRC", "", "run wget --no-config")
		}
		cc.rcFile("HOME", ".wgetrc", "run wget --no-config")
	}
}

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
exec= sh-exec= lua-exec= source= source-port= ssl ssl-cert= ssl-key= listen keep-open udp sctp verbose wait= idle-timeout= allow= deny=
send-only recv-only broker chat crlf nodns telnet`

// netOperands: HOST [PORT…]; a bare number is a port.
func netOperands(cc *clientCall) {
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
			continue
		}
		switch strings.ToUpper(typ) {
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
	{names: []string{"curl", "curlie"}, abbrev: true, opts: parseOpts(curlOpts, false), env: proxyEnv, operands: curlOperands},
	{names: []string{"wget"}, abbrev: true, opts: parseOpts(wgetOpts, false), env: proxyEnv, operands: wgetOperands},
	// Other downloaders and text browsers: every operand is a URL (their
	// options are not read: an unknown option's value is judged too).
	{names: []string{"aria2c", "axel", "lynx", "links", "elinks", "w3m", "httpx", "websocat"}, abbrev: true, opts: parseOpts("", false), env: proxyEnv,
		operands: func(cc *clientCall) {
			for _, o := range cc.p.operands {
				if o.dyn || strings.Trim(o.s, "0123456789") != "" {
					cc.host("URL argument", o.s, o.dyn, false)
				}
			}
		}},
	{names: []string{"wget2"}, abbrev: true, opts: parseOpts(wgetOpts, false), env: proxyEnv, operands: wgetOperands},
	{names: []string{"http", "https", "httpie", "xh", "xhs"}, abbrev: true, opts: parseOpts(httpieOpts, false), env: proxyEnv, operands: httpieOperands},
	{names: []string{"nc", "ncat", "netcat", "telnet", socketCommand}, opts: parseOpts(ncOpts, false), operands: netOperands},
	{names: []string{"socat"}, opts: parseOpts("d D h l= L= s t= T= u U v x g 4 6 V hh hhh", false), operands: socatOperands},
	{names: []string{"openssl"}, syntax: goFlag, opts: parseOpts("connect=H proxy=H host=H port= servername= CAfile= cert= key= msg debug", true)},
	jiraClient, kubectlClient, helmClient, awsClient, ghClient, glabClient, gcloudClient, azClient, sfClient, sentryClient, terraformClient, gitClient,
	libpqClient("psql", psqlOpts), libpqClient("pg_dump", pgDumpOpts), libpqClient("pg_dumpall", pgDumpallOpts), libpqClient("pg_restore", pgRestoreOpts),
	libpqClient("createdb", createdbOpts), libpqClient("dropdb", dropdbOpts), libpqClient("vacuumdb", vacuumdbOpts), libpqClient("reindexdb", reindexdbOpts),
	libpqClient("clusterdb", clusterdbOpts), libpqClient("createuser", createuserOpts), libpqClient("dropuser", createuserOpts), libpqClient("pgbench", pgbenchOpts),
	libpqClient("pg_isready", pgIsreadyOpts), libpqClient("pg_basebackup", pgBasebackupOpts), libpqClient("pg_receivewal", pgReceiveOpts),
	libpqClient("pg_recvlogical", pgReceiveOpts), libpqClient("pg_amcheck", pgAmcheckOpts), libpqClient("vacuumlo", vacuumloOpts),
	pgcliClient, mysqlClient, mysqlshClient, mycliClient, usqlClient, clickhouseClient, mongoClient, mongoToolsClient, redisClient,
}
