package intercept

import (
	"path"
	"strings"
)

// targetTexts are more forms of a call for the filters, as its client reads
// it: a client's command with its options left out, however many there are
// (kubectl -n x --v=9 --context y … apply is also "kubectl apply …"), the
// later words of any command after any number of option words, and every
// URL as the server will read it (curl globs expanded, percent-encoding
// and dot segments undone, the host canonical), so /rest/ap[i-i]/ and
// /rest/%61pi/ meet a filter for /rest/api/; and what the client reads
// from its configuration files (confTexts).
func targetTexts(c call) []string {
	if len(c.words) == 0 || c.words[0].dyn {
		return nil
	}
	name := path.Base(c.words[0].s)
	var out []string
	if cl := clientsByName()[name]; cl != nil {
		p := parseArgs(c.words[1:], cl.opts, cl.syntax, cl.abbrev)
		ops := make([]word, 0, len(p.operands))
		for _, o := range p.operands {
			ops = append(ops, o.word)
		}
		for i := 0; i < len(ops) && i < maxTextStarts; i++ {
			out = append(out, name+" "+joinWords(ops[i:]))
		}
		if name == "curl" || name == "wget" || name == "curlie" {
			for _, o := range ops {
				out = append(out, urlTexts(name, o.s)...)
			}
		}
		out = append(out, laterCallProbes(name, p.operands)...)
		out = append(out, confTexts(name, c)...)
	}
	// texts() tries the first few later words; any number of option words
	// may come first.
	for i := 6; i < len(c.words); i++ {
		end := len(c.words)
		if i >= maxTextStarts {
			end = min(end, i+8)
		}
		out = append(out, name+" "+joinWords(c.words[i:end]))
	}
	for _, w := range c.words[1:] {
		for _, u := range urlStartRE().FindAllString(w.s, -1) {
			out = append(out, urlTexts(name, u)...)
		}
	}
	return out
}

// maxTextStarts bounds how many later words start a text of the whole rest.
const maxTextStarts = 64

// urlTexts are a URL's canonical forms, one per curl glob expansion.
func urlTexts(name, u string) []string {
	exp, ok := curlGlob(u)
	if !ok {
		exp = []string{u}
	}
	out := make([]string, 0, len(exp))
	for _, e := range exp {
		c := canonURLText(e)
		if !strings.EqualFold(c, u) {
			out = append(out, name+" "+c)
		}
	}
	return out
}

// laterCallProbes: a call that rewrites what later calls of its client
// target (kubectl config set-cluster, aws configure set, git remote
// set-url) is gated by every handler that gates those later calls, even if
// its filters name only them: it is also read as one of them.
func laterCallProbes(name string, ops []operand) []string {
	arg := func(i int) string {
		if i < len(ops) {
			return ops[i].s
		}
		return ""
	}
	var what string
	var probes []string
	switch {
	case (name == "kubectl" || name == "oc") && arg(0) == "config" && kubeconfigWrites.has(arg(1)),
		name == "oc" && arg(0) == "login", name == "kubectx":
		what, probes = name+" "+arg(0)+" "+arg(1), []string{"kubectl apply -f x.yaml", "kubectl delete pod x", "kubectl create namespace x",
			"kubectl patch deployment x", "kubectl get pods", "helm upgrade --install x ./chart", "helm install x ./chart"}
	case name == "aws" && arg(0) == "configure" && (arg(1) == "set" || arg(1) == "import"):
		what, probes = "aws configure "+arg(1), []string{"aws s3 ls", "aws sts get-caller-identity", "aws ec2 describe-instances", "aws lambda invoke"}
	case name == "gcloud" && arg(0) == "config" && (arg(1) == "set" || arg(1) == "configurations"):
		what, probes = "gcloud config "+arg(1), []string{"gcloud compute instances list", "gcloud run deploy x"}
	case name == "az" && (arg(0) == "account" || arg(0) == "cloud") && arg(1) == "set":
		what, probes = "az "+arg(0)+" set", []string{"az group list", "az vm list"}
	case name == "git" && (arg(0) == "remote" && (arg(1) == "add" || arg(1) == "set-url" || arg(1) == "rename") || arg(0) == "config"):
		what, probes = "git "+arg(0), []string{"git push origin main"}
	case name == "gh" && (arg(0) == "repo" && arg(1) == "set-default" || arg(0) == "auth" && arg(1) == "switch"):
		what, probes = "gh "+arg(0)+" "+arg(1), []string{"gh pr create", "gh api repos/x/y", "gh issue create"}
	default:
		return nil
	}
	out := make([]string, len(probes))
	for i, p := range probes {
		out[i] = p + " (what " + what + " changes for later calls)"
	}
	return out
}

var kubeconfigWrites = wordSet{ // sorted
	"delete-cluster", "delete-context", "delete-user", "rename-context", "set", "set-cluster", "set-context",
	"set-credentials", "unset", "use", "use-context",
}

// confTexts are what a client reads besides its command line, for the
// filters: the options of its configuration files, and, when the line
// writes one of them before it or may pipe it a request (a raw connection
// such as nc), the calls before it.
func confTexts(name string, c call) []string {
	l := c.line
	if l == nil {
		return nil
	}
	if c.set == nil {
		c.set = c.env // a call as the analysis records it: env is what the line sets
	}
	var out []string
	written := false
	switch name {
	case "curl", "curlie":
		out, written = curlConfText(c, l)
	case "wget", "wget2":
		out, written = wgetConfText(name, c, l)
	case "nc", "ncat", "netcat", "telnet", "socat", "openssl":
		written = true
	case "git":
		out = gitPagerTexts(c, l)
	}
	if written {
		out = append(out, l.earlierTexts()...)
	}
	return out
}
