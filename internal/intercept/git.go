package intercept

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/agent-eval/agent-eval/internal/clip"
	"github.com/agent-eval/agent-eval/internal/lazyre"
	"github.com/agent-eval/agent-eval/internal/pathutil"
)

// GitPolicy gates git commands by their sub-command, as git itself finds
// it: after any global options (-C DIR, -c KEY=VALUE, --git-dir=…,
// --work-tree, --namespace, -p, --no-pager, …). Claude Code's Bash(git
// add:*) rules are prefixes of the command text and miss `git -C . add`;
// this is the semantic check behind them.
type GitPolicy struct {
	// ReadOnly lets only the sub-commands that cannot change a repository
	// run (workspace_mode: repo, where the agent works in the user's own
	// repository): anything else, an unknown sub-command (an alias, a
	// git-NAME program) included, is denied.
	ReadOnly bool `yaml:"read_only,omitempty" json:"read_only,omitempty"`
	// Deny are the eval's git deny rules, as the words after "git" (the
	// rule Bash(git push:*) is "push"; Bash(git:*) is ""). A word may hold
	// * (any text).
	Deny []string `yaml:"deny,omitempty" json:"deny,omitempty"`
	// Folders are the repository's git folders wherever they are (a
	// linked worktree's or a .git file's, not always named .git), absolute:
	// in read-only mode nothing may write into them.
	Folders []string `yaml:"folders,omitempty" json:"folders,omitempty"`
}

// GitDenyRule reads a Claude Code Bash rule that names a git command
// (Bash(git push:*), Bash(git push origin main), Bash(git:*)) into a
// GitPolicy.Deny entry.
func GitDenyRule(rule string) (string, bool) {
	body, ok := strings.CutPrefix(rule, "Bash(")
	if !ok || !strings.HasSuffix(body, ")") {
		return "", false
	}
	body = strings.TrimSuffix(strings.TrimSuffix(body, ")"), ":*")
	body = strings.TrimSpace(strings.TrimSuffix(body, "*"))
	f := strings.Fields(body)
	if len(f) == 0 || f[0] != "git" {
		return "", false
	}
	return strings.Join(f[1:], " "), true
}

// gitCommands are git's own sub-commands (git --list-cmds=main, 2.39 and
// later ones): a name not here is an alias or a git-NAME program on PATH,
// which could run anything.
var gitCommands = setOf(`add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr
check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column
commit commit-graph commit-tree config count-objects credential credential-cache credential-store daemon describe
diagnose diff diff-files diff-index diff-pairs diff-tree difftool fast-export fast-import fetch fetch-pack
filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc
get-tar-commit-id grep gui hash-object help hook http-backend http-fetch http-push imap-send index-pack init
init-db instaweb interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo mailsplit maintenance
merge merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive merge-resolve
merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes p4 pack-objects pack-redundant
pack-refs patch-id prune prune-packed pull push quiltimport range-diff read-tree rebase receive-pack reflog refs
remote repack replace replay request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack
shell shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule
subtree svn switch symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info
upload-archive upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree write-tree`)

// gitReads are the sub-commands that only read a repository (given none
// of the options gitWrites lists for them).
var gitReads = setOf(`annotate blame cat-file check-attr check-ignore check-mailmap check-ref-format cherry column
count-objects describe diff diff-files diff-index diff-tree for-each-ref get-tar-commit-id grep hash-object help
log ls-files ls-remote ls-tree merge-base name-rev patch-id range-diff rev-list rev-parse shortlog show show-branch
show-index show-ref status stripspace var verify-commit verify-pack verify-tag version whatchanged fsck
interpret-trailers`)

// gitWriteOptions are the options that make a reading sub-command write a
// file or run a program: long ones by name (git takes any unambiguous
// abbreviation of a long option), short ones by letter.
var gitWriteOptions = sync.OnceValue(func() map[string]struct {
	long  []string
	short string
} {
	return map[string]struct {
		long  []string
		short string
	}{
		"log": {long: []string{"output"}}, "show": {long: []string{"output"}}, "diff": {long: []string{"output"}},
		"diff-files": {long: []string{"output"}}, "diff-index": {long: []string{"output"}}, "diff-tree": {long: []string{"output"}},
		"range-diff": {long: []string{"output"}}, "whatchanged": {long: []string{"output"}}, "shortlog": {long: []string{"output"}},
		"grep":               {long: []string{"open-files-in-pager"}, short: "O"},
		"ls-remote":          {long: []string{"upload-pack"}, short: "u"},
		"fsck":               {long: []string{"lost-found"}},
		"interpret-trailers": {long: []string{"in-place"}},
	}
})

// gitSubModes are sub-commands whose first operand says whether they
// read: these words only.
var gitSubModes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"stash":            {"list", "show"},
		"worktree":         {"list"},
		"notes":            {"list", "show"},
		"submodule":        {"status", "summary"},
		"sparse-checkout":  {"list"},
		"commit-graph":     {"verify"},
		"multi-pack-index": {"verify"},
		"bundle":           {"verify", "list-heads"},
		"remote":           {"show", "get-url"},
		"bisect":           {"log"},
		"rerere":           {"status"},
		"hook":             {},
	}
})

// inertGitKeys are the configuration keys -c may set without making git
// run a program or change what a command does to the repository.
var inertGitKeys = []string{"color.", "advice.", "column.", "i18n.", "user.", "author.", "committer.", "core.quotepath",
	"core.abbrev", "safe.directory", "init.defaultbranch", "log.date", "log.decorate", "log.abbrevcommit", "log.follow",
	"log.mailmap", "diff.noprefix", "diff.mnemonicprefix", "diff.renames", "diff.relative", "diff.algorithm",
	"diff.context", "diff.interhunkcontext", "diff.colormoved", "diff.statgraphwidth", "status.short", "status.branch",
	"status.showuntrackedfiles", "grep.linenumber", "grep.patterntype", "grep.extendedregexp", "blame.date",
	"format.pretty", "pretty.", "core.pager", "pager.", "commit.gpgsign", "tag.gpgsign", "gc.auto", "maintenance.auto"}

// inertGitEnv are the variables a command line may set for git without
// making it run a program or read configuration the hook cannot see.
var inertGitEnv = setOf(`GIT_DIR GIT_WORK_TREE GIT_NAMESPACE GIT_INDEX_FILE GIT_CEILING_DIRECTORIES
GIT_DISCOVERY_ACROSS_FILESYSTEM GIT_TERMINAL_PROMPT GIT_OPTIONAL_LOCKS GIT_LITERAL_PATHSPECS GIT_GLOB_PATHSPECS
GIT_NOGLOB_PATHSPECS GIT_ICASE_PATHSPECS GIT_FLUSH GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE
GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE GIT_PAGER PAGER LESS LANG LC_ALL TZ GIT_ADVICE`)

// inertPagers are the pager commands that only show text.
var inertPagers = setOf(`cat less more`)

// gitDrivers are other programs that change a repository's refs, index,
// configuration or hooks through git: denied in read-only mode.
var gitDrivers = setOf(`scalar git-lfs lazygit gitk git-gui hub husky`)

func setOf(words string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(words) {
			m[w] = true
		}
		return m
	})
}

// gitFolderRE finds a path with a .git segment (.git, .git/x, a/.git/x);
// gitRedirectRE one that a redirect writes.
var (
	gitFolderRE   = lazyre.New(`(?:^|[/="':,(])\.git(?:[/"',)]|$)`)
	gitRedirectRE = lazyre.New(`>[>|&]?\s*['"]?(?:[^\s;&|<>'"]*/)?\.git(?:[/\s'";&|)]|$)`)
	// gitConfigRE finds git's configuration outside the repository, which
	// the repository's git reads all the same (core.hooksPath,
	// core.fsmonitor, a filter driver): ~/.gitconfig, $XDG_CONFIG_HOME/git/
	// config, attributes and ignore, /etc/gitconfig.
	gitConfigRE = lazyre.New(`(?:^|/)\.?gitconfig$|(?:^|/)(?:\.config|\$\{?XDG_CONFIG_HOME\}?)/git(?:/|$)`)
	// gitExclusionRE finds where a command line names .git only to leave
	// it out (grep --exclude-dir=.git, find -not -path './.git/*', find
	// -path ./.git -prune, rg -g '!.git', grep -v .git).
	gitExclusionRE = lazyre.New(`--exclude-dir[= ]['"]?\.git['"]?|(?:-not|!)\s+-(?:path|name|wholename)\s+['"]?[^\s'"]*\.git[^\s'"]*['"]?|-path\s+['"]?[^\s'"]*\.git['"]?\s+-prune|(?:-g|--glob)[= ]['"]?![^\s'"]*\.git[^\s'"]*['"]?|grep\s+-v\s+['"]?[^\s'"]*\.git[^\s'"]*['"]?`)
	// redirectTargetRE finds what a redirect writes.
	redirectTargetRE = lazyre.New(`>{1,2}\|?\s*("[^"]*"|'[^']*'|[^\s;&|<>()]+)`)
)

// namesGitState: a word (or a redirect's target) names a path in a git
// folder or a git configuration file, also through a glob that matches
// .git (.gi?, .[g]it, .g*); dynamic: it is only known when the command
// runs, and mentions is whether the command line names .git anywhere.
func namesGitState(g *GitPolicy, v string, dynamic, mentions bool) bool {
	if gitFolderRE().MatchString(v) || gitConfigRE().MatchString(v) || slices.ContainsFunc(g.Folders, func(f string) bool { return pathutil.Within(v, f) }) {
		return true
	}
	if dynamic && mentions {
		return true // d=.git; cp x $d/hooks, $(echo .git)/config
	}
	for _, seg := range strings.Split(v, "/") {
		if strings.ContainsAny(seg, "*?[") {
			if ok, _ := path.Match(seg, ".git"); ok {
				return true
			}
		}
	}
	return false
}

// gitFolderReaders only read what they are given (find as long as it
// deletes and runs nothing): they may name .git.
var gitFolderReaders = setOf(`cat ls head tail less more grep egrep fgrep rg ag ack stat file wc du tree diff cmp
sha1sum sha256sum md5sum od xxd hexdump realpath readlink basename dirname echo printf test [ find fd`)

// gitFolderVerdict: in read-only mode a command line may not write into a
// .git folder by a redirect, nor hand one to a program that writes (cp, mv,
// tee, sed -i, ln, rm, chmod, …); the sandbox makes it read-only as well,
// and the repository's record catches what a spelling hides.
func gitFolderVerdict(g *GitPolicy, command string, an *analysis) string {
	mentions := strings.Contains(gitExclusionRE().ReplaceAllString(command, ""), ".git")
	if gitRedirectRE().MatchString(command) || redirectsInto(command, g.Folders) {
		return "the command writes into a .git folder, and this eval runs in the user's own repository (workspace_mode: repo)"
	}
	for _, m := range redirectTargetRE().FindAllStringSubmatch(command, -1) {
		t := strings.Trim(m[1], `"'`)
		if t != "" && t[0] != '&' && namesGitState(g, t, strings.ContainsAny(t, "$`"), mentions) {
			return "the command writes into a .git folder or git's configuration (" + clip.String(t, 60) + "), and this eval runs in the user's own repository (workspace_mode: repo)"
		}
	}
	for _, c := range an.calls {
		if len(c.words) == 0 {
			continue
		}
		base := path.Base(c.words[0].s)
		if base == "git" || strings.HasPrefix(base, "git-") {
			continue // judged by its sub-command
		}
		if (base == "xargs" || base == "parallel") && mentions {
			// grep -rl x .git | xargs rm: the paths come from the input.
			if prog := xargsProgram(c.words[1:]); prog != "" && !gitFolderReaders()[prog] && prog != "git" && !strings.HasPrefix(prog, "git-") {
				return base + " " + prog + " is given paths from its input on a command line that names .git, and this eval runs in the user's own repository (workspace_mode: repo), whose git state the agent may not change"
			}
		}
		if base == "mkfifo" || base == "mknod" {
			// git waits for ever on a FIFO named .gitattributes or .gitignore.
			for _, w := range c.words[1:] {
				if strings.HasPrefix(path.Base(w.s), ".git") {
					return base + " " + clip.String(w.s, 40) + " would make git wait for ever on it, and this eval runs in the user's own repository (workspace_mode: repo)"
				}
			}
		}
		named := false
		for _, w := range c.words[1:] {
			v := w.s
			if _, after, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "-") {
				v = after
			}
			if namesGitState(g, v, w.dyn, mentions) {
				named = true
				break
			}
		}
		if !named {
			continue
		}
		if gitFolderReaders()[base] && !(base == "find" && findActs(c.words[1:])) {
			continue
		}
		return base + " is given a path in a .git folder or git's configuration, and this eval runs in the user's own repository (workspace_mode: repo), whose git state the agent may not change"
	}
	return ""
}

// xargsProgram is the base name of the program xargs (or parallel) runs,
// "" when none is named (xargs alone runs echo).
func xargsProgram(args []word) string {
	for i := 0; i < len(args); i++ {
		a := args[i].s
		switch {
		case slices.Contains([]string{"-I", "-i", "-n", "-P", "-d", "-L", "-l", "-s", "-a", "-E", "-e", "--max-args", "--max-procs", "--delimiter", "--arg-file", "--eof", "-j", "--jobs"}, a):
			if a != "-i" && a != "-l" && a != "-e" {
				i++ // its value
			}
		case strings.HasPrefix(a, "-"):
		default:
			return path.Base(a)
		}
	}
	return ""
}

// redirectsInto: a redirect of command names a path in one of folders.
func redirectsInto(command string, folders []string) bool {
	for _, f := range folders {
		for i := 0; ; {
			j := strings.Index(command[i:], f)
			if j < 0 {
				break
			}
			k := strings.TrimRight(command[:i+j], " \t'\"")
			if strings.HasSuffix(k, ">") {
				return true
			}
			i += j + len(f)
		}
	}
	return false
}

// findActs: find deletes, runs or writes something.
func findActs(args []word) bool {
	for _, a := range args {
		switch a.s {
		case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls":
			return true
		}
	}
	return false
}

// gitVerdict judges the git calls of an analysed command line: "" when
// they may run, else why not (for the agent).
func gitVerdict(g *GitPolicy, an *analysis) string {
	if an.unknown != "" {
		return "the hook cannot tell whether this command runs git: " + an.unknown
	}
	for _, c := range an.calls {
		if len(c.words) == 0 {
			continue
		}
		base := path.Base(c.words[0].s)
		var why string
		switch {
		case base == "git":
			why = g.judgeGit(c.words[1:], c.env, true)
		case strings.HasPrefix(base, "git-") && !gitDrivers()[base]:
			why = g.judgeGit(append([]word{{s: strings.TrimPrefix(base, "git-")}}, c.words[1:]...), c.env, false)
		case base == "xargs":
			// xargs adds words from its input after the ones it is given.
			for j, w := range c.words[1:] {
				if b := path.Base(w.s); b == "git" || strings.HasPrefix(b, "git-") {
					inner := append(slices.Clone(c.words[1+j:]), word{s: "\x00appended", dyn: true})
					why = gitVerdict(g, &analysis{calls: []call{{words: inner, env: c.env}}})
					break
				}
			}
		case g.ReadOnly && gitDrivers()[base]:
			why = base + " changes a repository through git"
		case g.ReadOnly && base == "pre-commit" && len(c.words) > 1 && strings.Contains(c.words[1].s, "install"):
			why = "pre-commit " + c.words[1].s + " writes the repository's hooks"
		case g.ReadOnly && base == "gh" && ghChangesRepo(c.words[1:]):
			why = "gh " + joinWords(c.words[1:min(3, len(c.words))]) + " changes the local repository"
		}
		if why != "" {
			return why
		}
	}
	return ""
}

// ghChangesRepo: a gh command that switches or updates the local
// repository's branches or config.
func ghChangesRepo(args []word) bool {
	var ops []string
	for _, a := range args {
		if !strings.HasPrefix(a.s, "-") {
			ops = append(ops, a.s)
		}
	}
	if len(ops) < 2 {
		return false
	}
	switch ops[0] + " " + ops[1] {
	case "pr checkout", "pr co", "repo sync", "repo set-default", "repo clone", "repo fork", "auth setup-git":
		return true
	}
	return false
}

// judgeGit judges one git call: args are its words after "git" (global
// options first when globals is set), env what the line sets for it.
func (g *GitPolicy) judgeGit(args []word, env map[string]string, globals bool) string {
	for k, v := range env {
		if !strings.HasPrefix(k, "GIT_") && k != "PAGER" && k != "EDITOR" && k != "VISUAL" || v == unsetValue {
			continue
		}
		if !inertGitEnv()[k] {
			return k + " set for git can make it run a program or read configuration the hook cannot see"
		}
		if (k == "GIT_PAGER" || k == "PAGER") && !inertPagers()[strings.TrimSpace(v)] && strings.TrimSpace(v) != "" {
			return k + "=" + clip.String(v, 40) + " makes git run that program"
		}
	}
	i := 0
	for globals && i < len(args) {
		a := args[i]
		s := a.s
		if a.dyn {
			return "a git option or sub-command is only known when the command runs"
		}
		if !strings.HasPrefix(s, "-") {
			break
		}
		switch {
		case slices.Contains(gitValueOptions, s):
			i += 2 // the folder may be any: the sub-command is what is judged
			continue
		case s == "-c" || s == "--config-env":
			if i+1 >= len(args) {
				return "git " + s + " without its KEY=VALUE"
			}
			if why := judgeGitKey(args[i+1], s == "--config-env"); why != "" {
				return why
			}
			i += 2
			continue
		case strings.HasPrefix(s, "--config-env="):
			if why := judgeGitKey(word{s: strings.TrimPrefix(s, "--config-env="), dyn: a.dyn}, true); why != "" {
				return why
			}
		case strings.HasPrefix(s, "--exec-path="):
			return "git --exec-path=DIR runs git's sub-commands from a folder of the command's choosing"
		case strings.HasPrefix(s, "-c") && len(s) > 2:
			// git rejects an attached -cKEY=VALUE; judged as one anyway.
			if why := judgeGitKey(word{s: s[2:]}, false); why != "" {
				return why
			}
		case slices.Contains([]string{"--exec-path", "--html-path", "--man-path", "--info-path", "--version", "-v", "--help", "-h"}, s) ||
			strings.HasPrefix(s, "--list-cmds="):
			if s == "--help" || s == "-h" {
				// git --help WORDS is git help WORDS (-w runs a browser).
				return g.judgeGit(append([]word{{s: "help"}}, args[i+1:]...), nil, false)
			}
			if i == len(args)-1 {
				return "" // prints and exits
			}
			return "git " + s + " followed by more words is not a form the hook knows"
		case hasValuePrefix(s, "--git-dir", "--work-tree", "--namespace", "--attr-source", "--super-prefix"):
		case slices.Contains([]string{"-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--bare", "--literal-pathspecs",
			"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-lazy-fetch", "--advice", "--no-advice"}, s):
		default:
			return "git " + clip.String(s, 40) + " is not a global option the hook knows, so it cannot tell the sub-command"
		}
		i++
	}
	if i >= len(args) {
		return "" // git alone prints its usage
	}
	sub, rest := args[i], args[i+1:]
	if sub.dyn {
		return "the git sub-command is only known when the command runs"
	}
	name := sub.s
	for _, a := range rest {
		// A remote helper that runs a command or talks over a descriptor;
		// git refuses it unless protocol.allow says otherwise, which the
		// hook does not see.
		if l := strings.ToLower(a.s); strings.HasPrefix(l, "ext::") || strings.HasPrefix(l, "fd::") {
			return "git " + name + " " + clip.String(a.s, 40) + " names a remote that runs a command"
		}
	}
	if !gitCommands()[name] {
		return fmt.Sprintf("git %s is not a git command the hook knows (an alias or a git-%s program could run anything)", clip.String(name, 40), clip.String(name, 40))
	}
	for _, rule := range g.Deny {
		if gitRuleMatches(rule, name, rest) {
			shown := "git"
			if rule != "" {
				shown += " " + rule
			}
			return fmt.Sprintf("the eval denies %s (Bash(%s:*)), whatever options come before the sub-command", shown, shown)
		}
	}
	if !g.ReadOnly {
		return ""
	}
	if why := gitReadOnly(name, rest); why != "" {
		return why
	}
	return ""
}

func hasValuePrefix(s string, names ...string) bool {
	for _, n := range names {
		if strings.HasPrefix(s, n+"=") {
			return true
		}
	}
	return false
}

// judgeGitKey judges a -c KEY=VALUE (or --config-env KEY=ENVVAR, whose
// value the hook does not know).
func judgeGitKey(w word, fromEnv bool) string {
	if w.dyn {
		return "git -c with a setting only known when the command runs"
	}
	key, value, _ := strings.Cut(w.s, "=")
	k := strings.ToLower(key)
	inert := slices.ContainsFunc(inertGitKeys, func(p string) bool {
		return strings.HasSuffix(p, ".") && strings.HasPrefix(k, p) || k == p
	})
	if k == "core.pager" || strings.HasPrefix(k, "pager.") {
		v := strings.TrimSpace(value)
		inert = !fromEnv && (inertPagers()[v] || v == "" || v == "true" || v == "false")
	}
	if !inert {
		return fmt.Sprintf("git -c %s can make git run a program or change what it does to the repository", clip.String(key, 40))
	}
	return ""
}

// gitRuleMatches: a deny rule's words are the sub-command and the first
// words after it.
func gitRuleMatches(rule, sub string, rest []word) bool {
	f := strings.Fields(rule)
	if len(f) == 0 {
		return true
	}
	if ok, _ := path.Match(f[0], sub); !ok {
		return false
	}
	for j, want := range f[1:] {
		if j >= len(rest) {
			return false
		}
		if rest[j].dyn {
			return true // it may be the word denied
		}
		if ok, _ := path.Match(want, rest[j].s); !ok {
			return false
		}
	}
	return true
}

// gitReadOnly is "" when git SUB REST only reads the repository.
func gitReadOnly(sub string, rest []word) string {
	changes := "git " + sub + " changes the repository, and this eval runs in the user's own repository (workspace_mode: repo), where only git commands that read it may run"
	_, hasWrites := gitWriteOptions()[sub]
	for _, a := range rest {
		if a.s == "--" && !a.dyn {
			break // operands from here on, never options
		}
		// What only reads whatever its words are may take unknown ones.
		if a.dyn && (!gitReads()[sub] || hasWrites || sub == "hash-object") {
			return "git " + sub + " is given words only known when the command runs, which could be options that change the repository or write a file"
		}
	}
	words := make([]string, len(rest))
	for i, a := range rest {
		words[i] = a.s
	}
	opts, ops := splitOptions(words)
	if gitReads()[sub] {
		if w, ok := gitWriteOptions()[sub]; ok {
			for _, o := range opts {
				if longHits(o, w.long) || w.short != "" && shortHas(o, w.short) {
					return "git " + sub + " " + clip.String(o, 40) + " writes a file or runs a program"
				}
			}
		}
		if sub == "hash-object" && (slices.Contains(opts, "-w") || longHitsAny(opts, "write")) {
			return changes
		}
		return ""
	}
	if modes, ok := gitSubModes()[sub]; ok {
		// git stash -q -- list is git stash push -q -- list (measured,
		// git 2.39: it stashes the file "list"): with an option first,
		// stash pushes.
		if sub == "stash" && len(words) > 0 && !slices.Contains(modes, words[0]) {
			return changes
		}
		if sub == "notes" {
			ops = withoutValue(words, "--ref")
		}
		if len(ops) == 0 {
			// stash, notes, reflog, remote, submodule alone list.
			if slices.Contains([]string{"notes", "remote", "submodule"}, sub) && onlyListing(opts) {
				return ""
			}
			return changes
		}
		if slices.Contains(modes, ops[0]) {
			return ""
		}
		return changes
	}
	switch sub {
	case "reflog":
		// reflog [show] [REF]; expire, delete, drop and write change it.
		if len(ops) > 0 && slices.Contains([]string{"expire", "delete", "drop", "write"}, ops[0]) {
			return changes
		}
		return ""
	case "branch":
		return gitListing(sub, opts, ops, changes, "avrliq", []string{"list", "all", "remotes", "verbose", "show-current", "contains",
			"no-contains", "merged", "no-merged", "points-at", "format", "sort", "column", "no-column", "color", "no-color",
			"ignore-case", "abbrev", "no-abbrev", "quiet", "omit-empty"})
	case "tag":
		// -v/--verify with nothing else that acts: it reads.
		if slices.ContainsFunc(opts, func(o string) bool { return o == "-v" || longHits(o, []string{"verify"}) }) &&
			!slices.ContainsFunc(opts, func(o string) bool {
				return !(o == "-v" || longHits(o, []string{"verify"}) || strings.HasPrefix(o, "--format"))
			}) {
			return ""
		}
		return gitListing(sub, opts, ops, changes, "lni", []string{"list", "contains", "no-contains", "merged", "no-merged",
			"points-at", "format", "sort", "column", "no-column", "color", "ignore-case", "omit-empty"})
	case "config":
		return gitConfigReads(opts, ops, changes)
	case "symbolic-ref":
		for _, o := range opts {
			if !slices.Contains([]string{"-q", "--quiet", "--short", "--no-recurse", "--recurse"}, o) {
				return changes
			}
		}
		if len(ops) == 1 {
			return ""
		}
		return changes
	case "format-patch":
		if slices.Contains(opts, "--stdout") && !slices.ContainsFunc(opts, func(o string) bool { return shortHas(o, "o") || longHits(o, []string{"output-directory"}) }) {
			return ""
		}
		return changes
	case "apply":
		check := slices.ContainsFunc(opts, func(o string) bool { return longHits(o, []string{"check", "stat", "numstat", "summary"}) })
		writes := slices.ContainsFunc(opts, func(o string) bool {
			return o == "-3" || longHits(o, []string{"index", "cached", "apply", "3way", "reject", "intent-to-add", "build-fake-ancestor"})
		})
		if check && !writes {
			return ""
		}
		return changes
	}
	return changes
}

// gitListing judges branch/tag: listing flags only, and operands only
// as --list patterns.
func gitListing(sub string, opts, ops []string, changes, letters string, long []string) string {
	list := false
	for _, o := range opts {
		switch {
		case o == "-l" || longHits(o, []string{"list"}):
			list = true
		case strings.HasPrefix(o, "--"):
			name, _, _ := strings.Cut(o[2:], "=")
			if !slices.Contains(long, name) {
				return changes
			}
		case strings.Trim(o[1:], letters+"0123456789") != "":
			return changes
		default:
			list = list || strings.Contains(o, "l")
		}
	}
	if len(ops) > 0 && !list && !valueOperands(opts, ops) {
		return changes
	}
	return ""
}

// valueOperands: every operand is the value of a listing option
// (--contains X, --points-at X).
func valueOperands(opts, ops []string) bool {
	n := 0
	for _, o := range opts {
		if slices.Contains([]string{"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}, o) {
			n++
		}
	}
	return len(ops) <= n
}

// gitConfigReads: git config that reads (--get…, --list, get, list, or one
// key alone).
func gitConfigReads(opts, ops []string, changes string) string {
	read := false
	for _, o := range opts {
		name, _, _ := strings.Cut(strings.TrimLeft(o, "-"), "=")
		switch {
		case o == "-l" || strings.HasPrefix(o, "--") && slices.Contains([]string{"get", "get-all", "get-regexp", "get-urlmatch", "list", "get-color", "get-colorbool"}, name):
			read = true
		case o == "-f" || o == "-z" || o == "-t" || strings.HasPrefix(o, "--") && slices.Contains([]string{"global", "system", "local", "worktree", "file",
			"blob", "show-origin", "show-scope", "null", "name-only", "type", "bool", "int", "bool-or-int", "path", "expiry-date",
			"default", "includes", "no-includes", "all", "regexp", "value", "fixed-value", "url", "no-type"}, name):
		default:
			return changes
		}
	}
	if len(ops) > 0 && (ops[0] == "get" || ops[0] == "list") {
		return ""
	}
	if read || len(ops) == 1 && !slices.Contains([]string{"set", "unset", "rename-section", "remove-section", "edit"}, ops[0]) {
		return ""
	}
	return changes
}

// onlyListing: -v/--verbose/-q and the like, nothing that acts.
func onlyListing(opts []string) bool {
	for _, o := range opts {
		if !slices.Contains([]string{"-v", "--verbose", "-q", "--quiet", "--cached", "--recursive"}, o) {
			return false
		}
	}
	return true
}

// splitOptions parts words into options and operands (everything after
// -- is an operand). An option's separate value counts as an operand;
// the judges above allow for it.
func splitOptions(words []string) (opts, ops []string) {
	for i, w := range words {
		if w == "--" {
			return opts, append(ops, words[i+1:]...)
		}
		if strings.HasPrefix(w, "-") && w != "-" {
			opts = append(opts, w)
		} else {
			ops = append(ops, w)
		}
	}
	return opts, ops
}

// withoutValue drops OPT and its value (and OPT=…) from words, then
// returns the operands.
func withoutValue(words []string, opt string) []string {
	var rest []string
	for i := 0; i < len(words); i++ {
		switch {
		case words[i] == opt:
			i++
		case strings.HasPrefix(words[i], opt+"="):
		default:
			rest = append(rest, words[i])
		}
	}
	_, ops := splitOptions(rest)
	return ops
}

// longHits: o is --NAME (or an abbreviation of it of two letters or more,
// which git accepts when unambiguous) for one of names, with or without
// =VALUE.
func longHits(o string, names []string) bool {
	if !strings.HasPrefix(o, "--") {
		return false
	}
	n, _, _ := strings.Cut(o[2:], "=")
	if len(n) < 2 {
		return false
	}
	for _, name := range names {
		if strings.HasPrefix(name, n) {
			return true
		}
	}
	return false
}

func longHitsAny(opts []string, names ...string) bool {
	return slices.ContainsFunc(opts, func(o string) bool { return longHits(o, names) })
}

// shortHas: o is a cluster of short options holding letter.
func shortHas(o, letter string) bool {
	return len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.Contains(o[1:], letter)
}

// gitValueOptions are git's global options that take the next word as
// their value (a folder or a name), whatever it is.
var gitValueOptions = []string{"-C", "--git-dir", "--work-tree", "--namespace", "--attr-source", "--super-prefix"}

// gitDataCommands are the git sub-commands whose arguments are data
// (messages, patterns, paths, revisions): none runs a program it is given.
// rebase -x, bisect run, submodule foreach, difftool -x and the like are
// not here, so their arguments are read as code.
var gitDataCommands = setOf(`add blame branch checkout cherry-pick clone commit describe diff fetch grep init log
	ls-files ls-tree merge mv notes pull push remote reset restore revert rev-list rev-parse rm shortlog show stash
	status switch tag`)

// gitTakesData reports whether a git call's arguments are data: its global
// options and environment are inert (no -c key or GIT_* variable that
// makes git run a program) and its sub-command is one of gitDataCommands.
// Such a call's text is not read as commands git might run.
func gitTakesData(args []word, env map[string]string) bool {
	if (&GitPolicy{}).judgeGit(args, env, true) != "" {
		return false
	}
	for i := 0; i < len(args); i++ {
		switch s := args[i].s; {
		case s == "-c" || s == "--config-env" || slices.Contains(gitValueOptions, s):
			i++ // and its value
		case strings.HasPrefix(s, "-"):
		default:
			return gitDataCommands()[s]
		}
	}
	return false
}

// gitGrepPager finds the pager of git grep -O[PAGER] /
// --open-files-in-pager[=PAGER] (git runs it with the matching files as its
// arguments) in a git call's words after "git": found is false when the
// call is no git grep with the option, given when a pager is stuck to it
// (git takes it from nowhere else; with none it runs the default pager).
func gitGrepPager(args []word) (pager word, given, found bool) {
	p := parseArgs(args, gitGlobalOpts, firstOperand, false)
	if len(p.operands) == 0 || p.operands[0].dyn || p.operands[0].s != "grep" {
		return word{}, false, false
	}
	for _, a := range p.operands[1:] {
		s := a.s
		switch {
		case s == "--" && !a.dyn:
			return pager, given, found
		case strings.HasPrefix(s, "--"):
			name, v, eq := strings.Cut(s[2:], "=")
			if len(name) >= 2 && strings.HasPrefix("open-files-in-pager", name) {
				found, given = true, eq
				pager = word{s: v, dyn: a.dyn}
			}
		case strings.HasPrefix(s, "-") && len(s) > 1:
			// A cluster of short options: a letter that takes a value ends
			// it (-e PATTERN, -A 3, -m 1), and so does -O with its pager.
			for i := 1; i < len(s); i++ {
				if strings.IndexByte("efABCm", s[i]) >= 0 {
					break
				}
				if s[i] == 'O' {
					found, given = true, i+1 < len(s) || a.dyn
					pager = word{s: s[i+1:], dyn: a.dyn}
					break
				}
			}
		}
	}
	return pager, given, found
}

// gitPager reads the pager git grep -O is given as code it runs (as
// core.pager would be): one only known when it runs cannot be read. The
// default pager (core.pager of the configuration files, which the target
// layer reads) is not this walk's.
func (w *walker) gitPager(args []word, env map[string]string, depth int) {
	pager, given, found := gitGrepPager(args)
	switch {
	case !found || !given:
	case pager.dyn:
		w.deny("git grep -O runs a pager command only known when it runs (%q)", clip.String(pager.s, 80))
	case strings.TrimSpace(pager.s) != "":
		w.nested(pagerCode(pager.s), clone(env), depth+1)
	}
}

// pagerCode is the shell code git runs for a pager given the matching
// files: sh -c 'PAGER "$@"' PAGER FILE…, the file names being words only
// known when it runs.
func pagerCode(pager string) string { return pager + ` "$@"` }
