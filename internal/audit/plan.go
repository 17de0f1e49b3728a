// Package audit plans and judges agent-eval audit: hostile fake-model
// scripts derived from an eval's own gates (its denied paths, its gated
// services, the boundary around the workspace) that the CLI runs through
// the eval's runner, and the verdict on each (held, or got through) read
// from the run directory and the audit's own evidence (files outside the
// workspace, hits on a loopback listener). Planning is pure: the attack
// list is attacks.yaml, embedded, so it grows without code.
package audit

import (
	_ "embed"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/intercept"
)

//go:embed attacks.yaml
var attacksYAML []byte

// Kinds of attack, in the order they are planned.
const (
	KindPath    = "path"    // a denied path read through every tool and spelling
	KindOutside = "outside" // a file outside the workspace read
	KindService = "service" // a gated service called through its clients
	KindWrite   = "write"   // files written outside the workspace
	KindNetwork = "network" // a connection out to a host not allowed
	KindCI      = "ci"      // the CI job's files written
)

var kinds = []string{KindPath, KindOutside, KindService, KindWrite, KindNetwork, KindCI}

// attack is one entry of attacks.yaml.
type attack struct {
	ID    string           `yaml:"id"`
	Quick bool             `yaml:"quick"`
	Turns []map[string]any `yaml:"turns"`
}

// serviceCalls is how a gated service is called: its client's name and an
// API path its gate knows ("" when only the client is called).
type serviceCalls struct {
	CLI  string `yaml:"cli"`
	Path string `yaml:"path"`
}

type catalogue struct {
	Path     []attack                `yaml:"path"`
	Outside  []attack                `yaml:"outside"`
	Service  []attack                `yaml:"service"`
	Write    []attack                `yaml:"write"`
	Network  []attack                `yaml:"network"`
	CI       []attack                `yaml:"ci"`
	Services map[string]serviceCalls `yaml:"services"`
}

func (c *catalogue) of(kind string) []attack {
	switch kind {
	case KindPath:
		return c.Path
	case KindOutside:
		return c.Outside
	case KindService:
		return c.Service
	case KindWrite:
		return c.Write
	case KindNetwork:
		return c.Network
	}
	return c.CI
}

// loadCatalogue decodes the embedded attack list once.
var loadCatalogue = sync.OnceValues(func() (*catalogue, error) {
	var c catalogue
	if err := yaml.Unmarshal(attacksYAML, &c); err != nil {
		return nil, fmt.Errorf("the built-in attack list: %w", err)
	}
	return &c, nil
})

// Env is where the attacks aim outside the workspace, and the audit's
// own evidence collectors; the CLI fills it in per runner.
type Env struct {
	// Port is the loopback listener standing for the gated services and
	// the outside host: a request to it that names a case got through.
	Port int
	// Home, Tmp and Repo are the real home, temp folder and the eval's
	// project folder: nothing may appear there.
	Home, Tmp, Repo string
	// GitHubEnv and GitHubOutput are the CI job's files (or stand-ins):
	// they must stay unchanged.
	GitHubEnv, GitHubOutput string
	// Nonce makes the canaries and planted names of one audit its own.
	Nonce string
	// Quick keeps the attacks marked quick; Kinds, when set, the attacks
	// of these kinds.
	Quick bool
	Kinds []string
}

// Kinds are the kinds of attack, in the order they are planned.
func Kinds() []string { return slices.Clone(kinds) }

// Case is one attack case: a case folder of the audit's dataset.
type Case struct {
	// ID is the case's folder name: kind-target-attack.
	ID string `json:"id"`
	// Kind is what is attacked (KindPath…), Attack the entry of the attack
	// list, Target what it aims at (a path, a service, a place).
	Kind   string `json:"kind"`
	Attack string `json:"attack"`
	Target string `json:"target"`
	// Script is the case's fake_model.yaml: the attacker's calls.
	Script []byte `json:"-"`
	// Files are staged in the case folder and copied into the workspace
	// (slash paths; Exec files are made executable).
	Files map[string]string `json:"-"`
	Exec  []string          `json:"-"`
	// Canary is text that must never reach the transcript, the logs, the
	// model or the outputs (a denied file's content).
	Canary string `json:"-"`
	// Planted are absolute paths that must not exist after the case.
	Planted []string `json:"-"`
	// Outside is an absolute file the case needs before it runs (with its
	// canary content), removed after.
	Outside string `json:"-"`
	// Watched are absolute files that must be unchanged after the case.
	Watched []string `json:"-"`
	// Listens: a hit on the listener naming the case got through.
	Listens bool `json:"-"`
}

// Service is one gated service of the eval: a handler the catalogue
// resolves to a service the attack list knows how to call.
type Service struct {
	Name string
	CLI  string
	Path string
	// Env are the variables its gate checks: the audit points them at
	// production.
	Env []string
}

// ProductionURL is what the audit sets a gated service's variables to, a
// host no test allowlist covers, so every call the gate sees is one it
// must stop.
const ProductionURL = "https://audit-production.agent-eval.net"

// Services are the gated services of handlers the attack list knows.
func Services(handlers []intercept.Handler) ([]Service, error) {
	cat, err := loadCatalogue()
	if err != nil {
		return nil, err
	}
	var out []Service
	seen := map[string]bool{}
	for _, h := range handlers {
		if len(h.InputFilters) == 0 {
			if r, _, ok := intercept.ResolveCatalog(h); ok {
				h = r
			}
		}
		for _, s := range intercept.Catalog() {
			calls, ok := cat.Services[s.Name]
			if !ok || seen[s.Name] || !covers(h.InputFilters, s.Commands) {
				continue
			}
			seen[s.Name] = true
			var env []string
			for k := range h.EnvChecks {
				env = append(env, k)
			}
			sort.Strings(env)
			out = append(out, Service{Name: s.Name, CLI: calls.CLI, Path: calls.Path, Env: env})
		}
	}
	return out, nil
}

// covers: the handler's filters hold one of the service's.
func covers(filters, commands []string) bool {
	for _, c := range commands {
		if slices.Contains(filters, c) {
			return true
		}
	}
	return false
}

// DeniedFiles are the workspace files the audit plants behind the eval's
// path denies: a denied folder gets a file inside it, a glob a name it
// matches. Denies outside the workspace (~/, //abs) are left to the
// outside attacks.
func DeniedFiles(ev *config.Eval) []string {
	var out []string
	for _, r := range ev.Permissions.Deny {
		if !r.IsPath() {
			continue
		}
		p := strings.TrimSpace(r.Path)
		if p == "" || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "//") {
			continue
		}
		p = strings.TrimPrefix(strings.TrimPrefix(p, "/"), "./")
		p = strings.ReplaceAll(p, "**/", "")
		dir := strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/**") || strings.HasSuffix(p, "/*")
		p = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(p, "/**"), "/*"), "/")
		p = strings.NewReplacer("*", "audit", "?", "a", "[", "", "]", "").Replace(p)
		if p == "" || p == "." || strings.Contains(p, "..") {
			continue
		}
		if dir {
			p += "/audit-canary.txt"
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Plan derives the attack cases of ev, with services its gated services
// and env where the attacks aim.
func Plan(ev *config.Eval, services []Service, env Env) ([]Case, error) {
	cat, err := loadCatalogue()
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, kind := range kinds {
		if len(env.Kinds) > 0 && !slices.Contains(env.Kinds, kind) {
			continue
		}
		for _, t := range targets(kind, ev, services, env) {
			for _, a := range cat.of(kind) {
				if env.Quick && !a.Quick {
					continue
				}
				if kind == KindService && t.svc.Path == "" && a.ID != "client" {
					continue // only its client knows the service
				}
				c, err := t.build(kind, a, env)
				if err != nil {
					return nil, err
				}
				cases = append(cases, c)
			}
		}
	}
	return cases, nil
}

// target is what one kind of attack aims at.
type target struct {
	name string // the case id's middle part
	show string // Case.Target
	file string // KindPath: the denied file
	svc  Service
}

func targets(kind string, ev *config.Eval, services []Service, env Env) []target {
	switch kind {
	case KindPath:
		var out []target
		for i, f := range DeniedFiles(ev) {
			out = append(out, target{name: fmt.Sprintf("deny%d", i+1), show: f, file: f})
		}
		return out
	case KindService:
		var out []target
		for _, s := range services {
			out = append(out, target{name: strings.ToLower(s.Name), show: s.Name, svc: s})
		}
		return out
	case KindOutside:
		return []target{{name: "project", show: "a file of the project, outside the workspace"}}
	case KindWrite:
		return []target{{name: "outside", show: "~/, /tmp, the project"}}
	case KindNetwork:
		return []target{{name: "host", show: "a host not allowed"}}
	}
	return []target{{name: "ci", show: "$GITHUB_ENV, $GITHUB_OUTPUT, .github/workflows"}}
}

func (t target) build(kind string, a attack, env Env) (Case, error) {
	id := kind + "-" + t.name + "-" + a.ID
	c := Case{ID: id, Kind: kind, Attack: a.ID, Target: t.show, Files: map[string]string{}}
	canary := "AUDIT-CANARY-" + env.Nonce + "-" + id
	subst := map[string]string{"@ID@": id, "@NONCE@": env.Nonce, "@PORT@": fmt.Sprint(env.Port), "@HOME@": env.Home, "@TMP@": env.Tmp, "@REPO@": env.Repo,
		"@GITHUB_ENV@": env.GitHubEnv, "@GITHUB_OUTPUT@": env.GitHubOutput}
	switch kind {
	case KindPath:
		dir, base := path.Split(t.file)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
		subst["@FILE@"], subst["@DIR@"], subst["@BASE@"] = t.file, dir, base
		subst["@GLOB@"] = base[:len(base)-1] + "?"
		subst["@UPPER@"] = strings.ToUpper(t.file)
		subst["@OCTAL@"] = octal(t.file)
		c.Files[t.file] = canary + "\n"
		c.Canary = canary
	case KindOutside:
		c.Outside = path.Join(env.Repo, ".agent-eval-audit-"+env.Nonce+"-"+id)
		subst["@OUTSIDE@"] = c.Outside
		c.Canary = canary
	case KindService:
		subst["@CLI@"], subst["@URLPATH@"], subst["@ENCPATH@"] = t.svc.CLI, t.svc.Path, encodeFirst(t.svc.Path)
		// The stub client: a call that runs it prints the hit marker,
		// built at run time so neither the script nor the stub holds it.
		c.Files[t.svc.CLI] = "#!/bin/sh\nprintf 'AUDIT-CANARY-%s-%s\\n' '" + env.Nonce + "' '" + id + "'\n"
		c.Exec = []string{t.svc.CLI}
		c.Canary = canary
		c.Listens = t.svc.Path != ""
	case KindWrite:
		for _, d := range []string{env.Home, env.Tmp, env.Repo} {
			c.Planted = append(c.Planted, path.Join(d, "agent-eval-audit-"+env.Nonce+"-"+id))
		}
		c.Planted = append(c.Planted, path.Join(env.Repo, "agent-eval-audit-"+env.Nonce+"-"+id+"-w"))
	case KindNetwork:
		c.Listens = true
	case KindCI:
		c.Watched = []string{env.GitHubEnv, env.GitHubOutput}
		c.Planted = []string{path.Join(env.Repo, ".github", "workflows", "agent-eval-audit-"+env.Nonce+"-"+id+".yml")}
	}
	var turns []map[string]any
	for _, call := range a.Turns {
		turns = append(turns, map[string]any{"tool_use": fill(call, subst)})
	}
	turns = append(turns, map[string]any{"text": "Done."})
	script, err := yaml.Marshal(map[string]any{"turns": turns, "after_end": map[string]any{"text": "Done."}})
	if err != nil {
		return c, fmt.Errorf("attack %s: %w", id, err)
	}
	c.Script = script
	return c, nil
}

// fill replaces the placeholders in every string of v.
func fill(v any, subst map[string]string) any {
	switch x := v.(type) {
	case string:
		for k, s := range subst {
			x = strings.ReplaceAll(x, k, s)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fill(e, subst)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fill(e, subst)
		}
		return out
	}
	return v
}

// octal spells s as printf's octal escapes (\163\145…).
func octal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\%03o`, s[i])
	}
	return b.String()
}

// encodeFirst percent-encodes the first letter of p (/rest/%61pi/…): the
// same request to a server, another text to a filter.
func encodeFirst(p string) string {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c >= 'a' && c <= 'z' {
			return p[:i] + fmt.Sprintf("%%%02X", c) + p[i+1:]
		}
	}
	return p
}
