package intercept

import (
	"path"
	"strings"

	"github.com/agent-eval/agent-eval/internal/clip"
)

// The service CLIs of the catalogue: Jira, Kubernetes, AWS, GitHub and the
// others, and git push.

var jiraClient = &client{names: []string{"jira", "jira-cli", "acli"}, syntax: pflagSyntax, abbrev: true,
	opts:     parseOpts("s,server=H url=H site=H c,config=X p,project=~ t,type=~ summary=~ b,body=~ l,label=~ a,assignee=~ y,priority=~", false),
	hostVars: []string{"JIRA_SERVER", "JIRA_URL", "JIRA_BASE_URL"},
	env: map[string]optKind{"JIRA_SERVER": kHost, "JIRA_URL": kHost, "JIRA_BASE_URL": kHost, "JIRA_CONFIG_FILE": kUnknowable,
		"XDG_CONFIG_HOME": kUnknowable, "HOME": kUnknowable}}

const kubectlGlobal = `as= as-group= as-uid= cache-dir= certificate-authority= client-certificate= client-key= cluster=N context=N disable-compression
insecure-skip-tls-verify kubeconfig=N log-flush-frequency= match-server-version n,namespace= password= profile= profile-output= request-timeout=
s,server=H tls-server-name= token= user= username= v,v= vmodule= warnings-as-errors log-backtrace-at= log-dir= log-file= log-file-max-size=
logtostderr alsologtostderr one-output skip-headers skip-log-headers stderrthreshold= h,help
f,filename=~ k,kustomize=~ l,selector=~ o,output=~ c,container=~ field-selector= p,patch=~ type= timeout= grace-period= dry-run=? image=
replicas= port= sort-by= template= since= tail= L,label-columns=~ A,all-namespaces w,watch R,recursive force i,stdin t,tty`

// kubectlOperands: kubectl config use-context NAME switches the cluster
// every later call targets; the other config writes cannot be checked.
func kubectlOperands(cc *clientCall) {
	ops := cc.p.operands
	for i, o := range ops {
		if o.s != "config" || i+1 >= len(ops) {
			continue
		}
		sub := ops[i+1]
		switch sub.s {
		case "use-context", "use":
			if i+2 < len(ops) {
				cc.named("config "+sub.s, ops[i+2].s, ops[i+2].dyn, false)
			} else {
				cc.named("config "+sub.s, "", true, false)
			}
		default:
			if kubeconfigWrites.has(sub.s) {
				cc.unknowable("config "+sub.s, false, "kubectl config "+sub.s+" rewrites the kubeconfig that later calls read")
			}
		}
	}
	if cc.name == "oc" {
		for i, o := range ops {
			if o.s == "login" && i+1 < len(ops) {
				cc.host("login", ops[i+1].s, ops[i+1].dyn, false)
			}
		}
	}
	if cc.name == "kubectx" && len(ops) > 0 && ops[0].s != "-" {
		cc.named("context argument", ops[0].s, ops[0].dyn, false)
	}
}

var kubectlClient = &client{names: []string{"kubectl", "oc", "kubectx", "k9s"}, syntax: pflagSyntax, opts: parseOpts(kubectlGlobal, false),
	nameVars: []string{"KUBE_CONTEXT", "KUBECONFIG"}, hostVars: []string{"KUBE_CONTEXT", "KUBECONFIG"},
	env: map[string]optKind{"KUBECONFIG": kName, "HOME": kUnknowable}, operands: kubectlOperands}

var helmClient = &client{names: []string{"helm"}, syntax: pflagSyntax,
	opts: parseOpts(`kube-context=N kubeconfig=N kube-apiserver=H kube-token= kube-as-user= kube-as-group= kube-ca-file= kube-insecure-skip-tls-verify
kube-tls-server-name= n,namespace= registry-config= repository-cache= repository-config= burst-limit= qps= debug f,values=~ set=~ set-string=~
set-file=~ set-json=~ version= wait timeout= o,output=~ create-namespace atomic i,install h,help`, false),
	nameVars: []string{"KUBE_CONTEXT", "KUBECONFIG"}, hostVars: []string{"KUBE_CONTEXT", "KUBECONFIG"},
	env: map[string]optKind{"KUBECONFIG": kName, "HELM_KUBECONTEXT": kName, "HELM_KUBEAPISERVER": kHost, "HOME": kUnknowable}}

// awsOperands: aws configure set writes the config every later call reads.
func awsOperands(cc *clientCall) {
	ops := cc.p.operands
	for i := 0; i+2 < len(ops); i++ {
		if ops[i].s != "configure" || ops[i+1].s != "set" {
			continue
		}
		key := strings.ToLower(ops[i+2].s)
		val := ""
		if i+3 < len(ops) {
			val = ops[i+3].s
		}
		switch {
		case ops[i+2].dyn || strings.Contains(key, "ignore_configured_endpoint") || strings.HasSuffix(key, "services") || strings.HasPrefix(key, "services."):
			cc.unknowable("configure set "+ops[i+2].s, false, "aws configure set "+clip.String(ops[i+2].s, 40)+" changes which endpoint later calls use")
		case strings.Contains(key, "endpoint_url"):
			cc.host("configure set "+ops[i+2].s, val, i+3 >= len(ops) || ops[i+3].dyn, false)
		case strings.HasSuffix(key, "profile") || strings.HasPrefix(key, "profile.") && strings.Contains(key, "source_profile"):
			cc.named("configure set "+ops[i+2].s, val, i+3 >= len(ops) || ops[i+3].dyn, false)
		}
	}
	if v, ok := cc.set["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"]; ok && v != unsetValue && !strings.EqualFold(strings.TrimSpace(v), "false") && v != "" {
		cc.unknowable("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", true, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS makes aws ignore the endpoint the eval configured and call AWS itself")
	}
}

var awsClient = &client{names: []string{"aws", "awslocal", "sam"}, abbrev: true,
	opts: parseOpts(`debug endpoint-url=H no-verify-ssl no-paginate output= query= profile=N region= version color= no-sign-request ca-bundle=
cli-read-timeout= cli-connect-timeout= cli-binary-format= no-cli-pager cli-auto-prompt no-cli-auto-prompt`, false),
	hostVars: []string{"AWS_ENDPOINT_URL"}, nameVars: []string{"AWS_PROFILE"},
	env: map[string]optKind{"AWS_ENDPOINT_URL": kHost, "AWS_ENDPOINT_URL_": kHost, "AWS_PROFILE": kName, "AWS_DEFAULT_PROFILE": kName,
		"AWS_CONFIG_FILE": kUnknowable, "HOME": kUnknowable},
	envPrefixes: []string{"AWS_ENDPOINT_URL_"}, operands: awsOperands}

// ghRepo judges a -R / GH_REPO value: [HOST/]OWNER/REPO or a URL.
func ghRepo(cc *clientCall, flag, v string, dyn, env bool) {
	switch parts := strings.Split(strings.Trim(v, "/"), "/"); {
	case dyn:
		cc.host(flag, v, true, env)
	case strings.Contains(v, "://") || strings.HasPrefix(v, "git@"):
		cc.host(flag, v, false, env)
	case len(parts) >= 3:
		cc.host(flag, parts[0], false, env)
	}
}

func ghOperands(cc *clientCall) {
	for _, h := range cc.opt("-R", "--repo") {
		ghRepo(cc, h.name, h.value, h.dyn || !h.set, false)
	}
	if v, ok := cc.set["GH_REPO"]; ok && v != unsetValue {
		ghRepo(cc, "GH_REPO", v, v == unknownValue, true)
	}
	ops := cc.p.operands
	repoCmd := len(ops) > 0 && ops[0].s == "repo"
	for i, o := range ops {
		switch {
		case o.dyn && i > 0:
			cc.host("argument", o.s, true, false)
		case isURL(o.s):
			cc.host("URL argument", o.s, false, false)
		case repoCmd && i >= 2 && strings.Count(strings.Trim(o.s, "/"), "/") >= 2:
			ghRepo(cc, "repository argument", o.s, false, false)
		}
	}
}

var ghClient = &client{names: []string{"gh"}, syntax: pflagSyntax,
	opts: parseOpts(`R,repo= hostname=H h,help t,title=~ b,body=~ F,body-file=~ l,label=~ a,assignee=~ B,base=~ H,head=~ m,milestone=~ p,project=~
r,reviewer=~ q,jq=~ T,template=~ json=~ L,limit=~ s,state=~ S,search=~ X,method=~ f,field=~ raw-field=~ header=~ input=~ cache=~ preview=~
A,author=~ w,web`, false),
	hostVars: []string{"GH_HOST", "GITHUB_API_URL"},
	env: map[string]optKind{"GH_HOST": kHost, "GITHUB_API_URL": kHost, "GH_ENTERPRISE_HOST": kHost, "GITHUB_SERVER_URL": kHost,
		"GH_CONFIG_DIR": kUnknowable, "XDG_CONFIG_HOME": kUnknowable, "HOME": kUnknowable},
	operands: ghOperands}

var glabClient = &client{names: []string{"glab"}, syntax: pflagSyntax,
	opts:     parseOpts("R,repo= hostname=H h,help t,title=~ d,description=~ l,label=~ a,assignee=~ b,target-branch=~ s,source-branch=~ m,milestone=~ X,method=~ f,field=~ F,raw-field=~", false),
	hostVars: []string{"GITLAB_HOST", "GITLAB_URL", "GITLAB_URI"},
	env:      map[string]optKind{"GITLAB_HOST": kHost, "GITLAB_URI": kHost, "GL_HOST": kHost, "GITLAB_URL": kHost, "GLAB_CONFIG_DIR": kUnknowable, "HOME": kUnknowable},
	operands: func(cc *clientCall) {
		for _, h := range cc.opt("-R", "--repo") {
			if strings.Contains(h.value, "://") || h.dyn {
				cc.host(h.name, h.value, h.dyn, false)
			}
		}
		for _, o := range cc.p.operands {
			if strings.Contains(o.s, "://") {
				cc.host("URL argument", o.s, o.dyn, false)
			}
		}
	}}

var gcloudClient = &client{names: []string{"gcloud", "gsutil", "bq"}, abbrev: true,
	opts:     parseOpts("project=N project_id=N configuration=X account= impersonate-service-account= format= quiet q verbosity= h,help", false),
	nameVars: []string{"CLOUDSDK_CORE_PROJECT", "GOOGLE_CLOUD_PROJECT"}, hostVars: []string{"CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"},
	env: map[string]optKind{"CLOUDSDK_CORE_PROJECT": kName, "GOOGLE_CLOUD_PROJECT": kName, "CLOUDSDK_ACTIVE_CONFIG_NAME": kUnknowable,
		"CLOUDSDK_CONFIG": kUnknowable, "CLOUDSDK_API_ENDPOINT_OVERRIDES_": kHost, "HOME": kUnknowable},
	envPrefixes: []string{"CLOUDSDK_API_ENDPOINT_OVERRIDES_"},
	operands: func(cc *clientCall) {
		ops := cc.p.operands
		for i := 0; i+2 < len(ops); i++ {
			if ops[i].s != "config" {
				continue
			}
			switch {
			case ops[i+1].s == "set" && (ops[i+2].s == "project" || ops[i+2].s == "core/project") && i+3 < len(ops):
				cc.named("config set project", ops[i+3].s, ops[i+3].dyn, false)
			case ops[i+1].s == "set" && strings.HasPrefix(ops[i+2].s, "api_endpoint_overrides/") && i+3 < len(ops):
				cc.host("config set "+ops[i+2].s, ops[i+3].s, ops[i+3].dyn, false)
			case ops[i+1].s == "configurations" && ops[i+2].s == "activate":
				cc.unknowable("config configurations activate", false, "gcloud config configurations activate switches to a configuration the hook does not read")
			}
		}
	}}

var azClient = &client{names: []string{"az"}, abbrev: true, opts: parseOpts("subscription=N output= o,out= query= debug verbose only-show-errors h,help", false),
	nameVars: []string{"AZURE_SUBSCRIPTION_ID"}, hostVars: []string{"AZURE_ENDPOINT"},
	env: map[string]optKind{"AZURE_SUBSCRIPTION_ID": kName, "AZURE_CONFIG_DIR": kUnknowable, "HOME": kUnknowable},
	operands: func(cc *clientCall) {
		ops := cc.p.operands
		for i := 0; i+1 < len(ops); i++ {
			if ops[i].s == "cloud" && (ops[i+1].s == "set" || ops[i+1].s == "register" || ops[i+1].s == "update") {
				cc.unknowable("cloud "+ops[i+1].s, false, "az cloud "+ops[i+1].s+" changes the endpoints every later call uses")
			}
		}
	}}

var sfClient = &client{names: []string{"sf", "sfdx"}, syntax: pflagSyntax, opts: parseOpts("instance-url=H instanceurl=H", false),
	hostVars: []string{"SF_INSTANCE_URL", "SALESFORCE_INSTANCE_URL"},
	env:      map[string]optKind{"SF_INSTANCE_URL": kHost, "SFDX_INSTANCE_URL": kHost, "SF_ORG_INSTANCE_URL": kHost}}

var sentryClient = &client{names: []string{"sentry-cli"}, abbrev: true, opts: parseOpts("url=H auth-token= log-level= h,help", false),
	hostVars: []string{"SENTRY_URL"}, env: map[string]optKind{"SENTRY_URL": kHost, "SENTRY_PROPERTIES": kUnknowable}}

var terraformClient = &client{names: []string{"terraform", "tofu"}, syntax: goFlag,
	opts: parseOpts("chdir=X state=X state-out=X backend-config=X auto-approve input= lock= lock-timeout= no-color parallelism= var=~ var-file=~ target=~ replace=~ refresh= json", true),
	env: map[string]optKind{"TF_DATA_DIR": kUnknowable, "TF_CLI_ARGS": kUnknowable, "TF_CLI_ARGS_": kUnknowable,
		"TF_CLI_CONFIG_FILE": kUnknowable}, envPrefixes: []string{"TF_CLI_ARGS_"}}

// git: only git push sends the repository somewhere; it is judged by the
// URL it pushes to. A remote's URL lives in the repository's config, which
// the hook does not read, unless this command line defines it.
var gitGlobalOpts = parseOpts(`C= c= git-dir= work-tree= namespace= exec-path=? config-env= p,paginate P,no-pager bare no-replace-objects
literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs no-optional-locks list-cmds= super-prefix= attr-source= h,help version`, false)

var gitClient = &client{names: []string{"git"}, syntax: firstOperand, opts: gitGlobalOpts,
	env: map[string]optKind{"GIT_CONFIG_PARAMETERS": kUnknowable, "GIT_CONFIG_COUNT": kUnknowable, "GIT_SSH_COMMAND": kUnknowable,
		"GIT_SSH": kUnknowable, "GIT_PROXY_COMMAND": kUnknowable, "GIT_CONFIG_GLOBAL": kUnknowable, "GIT_CONFIG_SYSTEM": kUnknowable,
		"GIT_CONFIG": kUnknowable, "GIT_DIR": kUnknowable, "HOME": kUnknowable, "XDG_CONFIG_HOME": kUnknowable, "http_proxy": kHost,
		"https_proxy": kHost, "HTTPS_PROXY": kHost, "ALL_PROXY": kHost, "all_proxy": kHost},
	confVars: []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_DIR", "HOME", "XDG_CONFIG_HOME"}}

// init gives git its operands reader here rather than in gitClient's
// literal: gitOperands reads the pager of git grep -O as a call of its own,
// through readClient and so the client table, which would then refer to
// itself while it is initialised.
func init() { gitClient.operands = gitOperands }

var gitPushOpts = parseOpts(`repo= all branches mirror d,delete tags n,dry-run porcelain f,force force-with-lease=? force-if-includes
recurse-submodules= thin no-thin receive-pack=X exec=X u,set-upstream progress no-progress prune no-verify verify follow-tags no-follow-tags
signed=? no-signed atomic no-atomic o,push-option= 4,ipv4 6,ipv6 q,quiet v,verbose`, false)

func gitOperands(cc *clientCall) {
	ops := cc.p.operands
	if len(ops) == 0 || ops[0].dyn {
		return
	}
	// What git's -c sets: proxies and URL rewrites count for every
	// sub-command that goes out.
	remotes := lineRemotes(cc.line.calls)
	for _, h := range cc.opt("-c", "--config-env") {
		if h.name == "--config-env" {
			cc.unknowable(h.name, false, "git --config-env sets configuration from a variable the hook does not follow")
			continue
		}
		gitConfig(cc, h.value, h.dyn, remotes)
	}
	switch ops[0].s {
	case "push", "send-pack":
	case "grep":
		args := make([]word, 0, len(ops))
		for _, o := range ops {
			args = append(args, o.word)
		}
		cc.gitGrepOpens(args)
		return
	case "remote", "config":
		// A remote's URL or a URL rewrite, set for the pushes after it.
		var defined gitRemotes
		defined.urls = map[string][]string{}
		var rest []string
		for _, o := range ops[1:] {
			if o.dyn {
				cc.add(override{flag: ops[0].s + " " + clip.String(o.s, 40), dyn: true, kind: kHost})
				return
			}
			if !strings.HasPrefix(o.s, "-") {
				rest = append(rest, o.s)
			}
		}
		if ops[0].s == "config" {
			rest = gitConfigArgs(rest)
		}
		switch {
		case ops[0].s == "remote" && len(rest) >= 3 && (rest[0] == "add" || rest[0] == "set-url"):
			cc.gitURL("remote "+rest[0]+" "+rest[1], rest[2])
		case ops[0].s == "config" && len(rest) >= 2:
			defined.config(rest[0], rest[1], true)
			for _, kv := range defined.other {
				gitConfig(cc, kv[0]+"="+kv[1], false, defined)
			}
			for name, urls := range defined.urls {
				for _, u := range urls {
					cc.gitURL("config remote."+name, u)
				}
			}
			for _, base := range defined.rewrite {
				cc.host("config url."+clip.String(base, 40), base, false, false)
			}
		}
		return
	default:
		return
	}
	args := make([]word, 0, len(ops)-1)
	for _, o := range ops[1:] {
		args = append(args, o.word)
	}
	p := parseArgs(args, gitPushOpts, gnuSyntax, true)
	conf := cc.gitConf()
	for _, kv := range remotes.other {
		gitConfig(cc, kv[0]+"="+kv[1], false, remotes) // set by git config earlier on the line
	}
	for _, h := range p.opts {
		switch h.name {
		case "--repo":
			cc.gitRepo("--repo", h.value, h.dyn, remotes, conf)
		case "--receive-pack", "--exec":
			cc.unknowable(h.name, false, "git push "+h.name+" runs a program the hook does not know on the other side")
		}
	}
	if p.unknownDyn != "" {
		cc.add(override{flag: "git push " + clip.String(p.unknownDyn, 40), dyn: true, kind: kHost})
	}
	if len(p.operands) == 0 {
		switch {
		case hasOpt(p, "--repo"):
		case conf.ok:
			cc.gitRepo("default remote", cc.defaultRemote(conf), false, remotes, conf)
		default:
			cc.unknowable("with no repository", false, "git push sends to the branch's configured remote, whose URL is in the repository's config, which the hook does not read; push to the URL itself")
		}
		return
	}
	cc.gitRepo("repository argument", p.operands[0].s, p.operands[0].dyn, remotes, conf)
}

// gitConfigArgs are git config's operands without the sub-command of its
// newer form (git config set KEY VALUE); nil for one that sets nothing.
func gitConfigArgs(rest []string) []string {
	if len(rest) == 0 {
		return rest
	}
	switch rest[0] {
	case "set":
		return rest[1:]
	case "get", "list", "unset", "rename-section", "remove-section", "edit":
		return nil
	}
	return rest
}

// isURL: the word is a URL (scheme://…), not text that mentions one.
func isURL(s string) bool {
	m := schemeRE().FindStringSubmatch(s)
	return m != nil && m[2] != ""
}

func hasOpt(p parsedArgs, name string) bool {
	for _, h := range p.opts {
		if h.name == name {
			return true
		}
	}
	return false
}

// gitRemotes are the URLs this command line gives remotes (git remote add,
// git remote set-url, git config remote.NAME.url, git -c remote.NAME.url),
// and the url.BASE.insteadOf rewrites it sets.
type gitRemotes struct {
	urls    map[string][]string
	rewrite []string // BASEs of insteadOf / pushInsteadOf rules
	// other are the other settings git config writes on the line, for the
	// pushes after it (a proxy, an ssh command, an include).
	other [][2]string
}

func lineRemotes(line []call) gitRemotes {
	r := gitRemotes{urls: map[string][]string{}}
	for _, c := range line {
		ws := c.words
		if len(ws) < 2 || ws[0].dyn || baseName(ws[0].s) != "git" {
			continue
		}
		p := parseArgs(ws[1:], gitGlobalOpts, firstOperand, false)
		for _, h := range p.opts {
			if h.name == "-c" {
				k, v, _ := strings.Cut(h.value, "=")
				r.config(k, v, false)
			}
		}
		ops := p.operands
		if len(ops) < 2 {
			continue
		}
		var rest []string
		for _, o := range ops[1:] {
			if !strings.HasPrefix(o.s, "-") {
				rest = append(rest, o.s)
			}
		}
		switch ops[0].s {
		case "remote":
			if len(rest) >= 3 && (rest[0] == "add" || rest[0] == "set-url") {
				r.urls[rest[1]] = append(r.urls[rest[1]], rest[2])
			}
		case "config":
			if rest = gitConfigArgs(rest); len(rest) >= 2 {
				r.config(rest[0], rest[1], true)
			}
		}
	}
	return r
}

// config records one setting; written: git config writes it (not -c),
// so it stays for the commands after it.
func (r *gitRemotes) config(k, v string, written bool) {
	lk := strings.ToLower(k)
	switch {
	case strings.HasPrefix(lk, "remote.") && (strings.HasSuffix(lk, ".url") || strings.HasSuffix(lk, ".pushurl")):
		name := k[len("remote."):strings.LastIndexByte(k, '.')]
		r.urls[name] = append(r.urls[name], v)
	case strings.HasPrefix(lk, "url.") && (strings.HasSuffix(lk, ".insteadof") || strings.HasSuffix(lk, ".pushinsteadof")):
		r.rewrite = append(r.rewrite, k[len("url."):strings.LastIndexByte(k, '.')])
	case written:
		r.other = append(r.other, [2]string{k, v})
	}
}

// gitConfig judges one git -c KEY=VALUE of a call that may go out.
func gitConfig(cc *clientCall, kv string, dyn bool, remotes gitRemotes) {
	k, v, _ := strings.Cut(kv, "=")
	lk := strings.ToLower(k)
	switch {
	case dyn:
		cc.add(override{flag: "-c " + clip.String(kv, 40), dyn: true, kind: kHost})
	case strings.HasSuffix(lk, ".proxy") && (strings.HasPrefix(lk, "http.") || strings.HasPrefix(lk, "https.") || strings.HasPrefix(lk, "remote.")):
		cc.host("-c "+k, v, false, false)
	case lk == "core.sshcommand" || lk == "core.gitproxy" || strings.HasPrefix(lk, "include") || lk == "ssh.variant":
		cc.unknowable("-c "+k, false, "git -c "+k+" runs a program or reads a file the hook does not know")
	}
}

// gitRepo judges the repository git push sends to: a remote the line
// defines, one the configuration files define, or a URL or path, each
// after the configuration's rewrites.
func (cc *clientCall) gitRepo(flag, repo string, dyn bool, remotes gitRemotes, conf gitConf) {
	if dyn {
		cc.host(flag, repo, true, false)
		return
	}
	for _, base := range remotes.rewrite {
		cc.host("-c url."+clip.String(base, 40)+".insteadOf", base, false, false)
	}
	if urls, ok := remotes.urls[repo]; ok {
		for _, u := range urls {
			cc.gitRewritten("remote "+repo, u, conf, "")
		}
		return
	}
	switch {
	case strings.Contains(repo, "://") || scpLike(repo):
		cc.gitRewritten(flag, repo, conf, "")
	case strings.HasPrefix(repo, "/") || strings.HasPrefix(repo, ".") || strings.HasPrefix(repo, "~") || strings.Contains(repo, "/"):
		// A path: the repository is on this machine (unless a rewrite
		// says otherwise).
		cc.gitRewritten(flag, repo, conf, "")
	case conf.ok:
		urls, found := conf.pushURLs(repo)
		for _, u := range urls {
			cc.gitURL("remote "+repo+" (its url in git's configuration)", u)
			cc.judgeGitConfURL(conf, u, repo)
		}
		if !found && conf.gitDir != "" {
			// The remotes and branches files of old repositories.
			for _, legacy := range []string{path.Join(conf.gitDir, "remotes", repo), path.Join(conf.gitDir, "branches", repo)} {
				if f := cc.at.open(legacy, false); f.kind != confAbsent {
					cc.unknowable("remote "+repo, false, "git push sends to remote "+repo+", which "+legacy+" defines, a file the hook does not read; push to the URL itself")
				}
			}
		}
		// A name no configuration defines is a path on this machine.
	default:
		cc.unknowable("remote "+repo, false, "git push sends to remote "+repo+", whose URL is in the repository's config, which the hook does not read; push to the URL itself")
	}
}

// gitRewritten judges u as the configuration files rewrite it for a push
// (git connects only where the rewrite sends it), and what they add to a
// push there.
func (cc *clientCall) gitRewritten(flag, u string, conf gitConf, remote string) {
	r := conf.rewrite(u, true)
	if r != u {
		flag += " (rewritten by url.insteadOf in git's configuration)"
	}
	cc.gitURL(flag, r)
	cc.judgeGitConfURL(conf, r, remote)
}

func (cc *clientCall) gitURL(flag, u string) {
	if strings.HasPrefix(strings.ToLower(u), "file:") || !strings.Contains(u, "://") && !scpLike(u) {
		return // a local repository
	}
	if !strings.Contains(u, "://") {
		u = "ssh://" + strings.Replace(u, ":", "/", 1)
	}
	cc.host(flag, u, false, false)
}

// scpLike: [user@]host:path, git's ssh shorthand (a colon before any slash).
func scpLike(s string) bool {
	i := strings.IndexByte(s, ':')
	j := strings.IndexByte(s, '/')
	return i > 0 && (j < 0 || i < j) && !strings.Contains(s, "://")
}

func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}
