# Shared by bench/overhead.sh and bench/scale.sh (source it; bash).
# Needs: $tmp (a scratch folder), the repository as the current directory.

# build_tools builds agent-eval and treetime into $tmp.
build_tools() {
	CGO_ENABLED=0 go build -trimpath -o "$tmp/agent-eval" ./cmd/agent-eval
	go build -o "$tmp/treetime" ./bench/treetime
}

# load: the load averages, to print next to every figure (other work on
# the machine moves them).
load() { uptime | sed 's/.*load average: /load /'; }

# claude_eval DIR N: an eval of N cases for claude + the fake model, each
# one Bash call then a text answer, its scripts also in DIR/scripts for
# the bare calls' fake server.
claude_eval() {
	local dir="$1" n="$2" i
	mkdir -p "$dir/cases" "$dir/scripts"
	cat > "$dir/eval.yaml" <<'YAML'
name: overhead
execution:
  prompt: "Run step {n}."
models: {skill: claude-sonnet-4-5}
dataset: {path: cases}
YAML
	for i in $(seq -w 1 "$n"); do
		mkdir -p "$dir/cases/case-$i"
		echo "n: \"$i\"" > "$dir/cases/case-$i/input.yaml"
		cat > "$dir/cases/case-$i/fake_model.yaml" <<'YAML'
turns:
  - tool_use: {name: Bash, input: {command: "echo step", description: "Step"}}
  - text: Done.
YAML
		cp "$dir/cases/case-$i/fake_model.yaml" "$dir/scripts/case-$i.yaml"
	done
}

# record_agent FILE CLAUDE: the --agent-bin of the warm-up case. It keeps
# what agent-eval gives Claude Code — the arguments, the environment, the
# working directory (the workspace), its .claude folder, the config folder
# and agent-eval's private HOME — in $tmp/recorded, then runs CLAUDE with
# them.
record_agent() {
	cat > "$1" <<SH
#!/usr/bin/env bash
r="$tmp/recorded"
rm -rf "\$r" && mkdir -p "\$r"
printf '%s\0' "\$@" > "\$r/args"
env -0 > "\$r/env"
pwd > "\$r/cwd"
[ -d .claude ] && cp -a .claude "\$r/dot-claude"
[ -n "\${CLAUDE_CONFIG_DIR:-}" ] && cp -a "\$CLAUDE_CONFIG_DIR" "\$r/config"
# A private HOME of agent-eval's (not the user's) is copied too.
if [ "\$HOME" != "$HOME" ]; then
	cp -a "\$HOME" "\$r/home"
	case "\$PWD" in "\$HOME"/*) rm -rf "\$r/home/\${PWD#"\$HOME"/}" ;; esac # the workspace, when inside it
fi
exec "$2" "\$@"
SH
	chmod +x "$1"
}

# bare_agent FILE CLAUDE GIT: a script that runs one bare `claude --print`
# for case $1 like for like with agent-eval's: the same arguments (settings
# file, appended system prompt, permission and sandbox flags), environment,
# .claude folder and config folder as the warm-up case recorded
# (record_agent), with the workspace's and HOME's paths made the bare
# call's own, in a fresh folder (a git repository with one commit when GIT
# is 1, as the harness's workspace is when Claude sees one), against the
# fake model named by
# $FAKE_URL with the case's script by header, the same prompt. What differs
# is agent-eval's own work: its PreToolUse hook (the "hooks" of the
# settings), the guard process, preparing the workspace, reading the
# stream, the ledger.
bare_agent() {
	local r="$tmp/recorded" old home a prompt=""
	command -v jq >/dev/null || { echo "bench: jq is needed to take agent-eval's hook out of the bare side's settings" >&2; return 1; }
	[ -s "$r/args" ] || { echo "bench: the warm-up case recorded no claude command line" >&2; return 1; }
	old="$(cat "$r/cwd")" home=""
	[ -d "$r/home" ] && home="$(tr '\0' '\n' < "$r/env" | sed -n 's/^HOME=//p')"
	# The recorded command line up to the prompt and the environment, as
	# bash arrays with @WS@ for the workspace and @HOME@ for HOME.
	printf 'args=(' > "$tmp/bare-args.sh"
	while IFS= read -r -d '' a; do
		if [ "$a" = -- ]; then
			IFS= read -r -d '' prompt
			break
		fi
		printf '%q ' "${a//"$old"/@WS@}" >> "$tmp/bare-args.sh"
	done < "$r/args"
	case "$prompt" in
	"Run step "*1.) ;; # the warm-up case's, as the bare calls write it
	*) echo "bench: warning: agent-eval's prompt for the warm-up case was \"$prompt\", not the bare calls' \"Run step N.\"" >&2 ;;
	esac
	printf ')\nenvs=(' >> "$tmp/bare-args.sh"
	# Not agent-eval's own variables, nor those the bare call sets itself.
	while IFS= read -r -d '' a; do
		case "${a%%=*}" in
		AGENT_EVAL_* | ANTHROPIC_BASE_URL | ANTHROPIC_CUSTOM_HEADERS | CLAUDE_CONFIG_DIR | PWD | OLDPWD | SHLVL | _) continue ;;
		esac
		a="${a//"$old"/@WS@}"
		[ -n "$home" ] && a="${a//"$home"/@HOME@}"
		printf '%q ' "$a" >> "$tmp/bare-args.sh"
	done < "$r/env"
	printf ')\n' >> "$tmp/bare-args.sh"
	for f in "$r"/dot-claude/*.json; do
		[ -f "$f" ] && jq 'del(.hooks)' "$f" > "$f.tmp" && mv "$f.tmp" "$f"
	done
	cat > "$1" <<SH
#!/usr/bin/env bash
set -u
id="\$1"
d="\$(mktemp -d "$tmp/bare/\$id-XXXXXX")"
ws="\$d/ws"
mkdir -p "\$ws"
if [ "$3" = 1 ]; then
	git -C "\$ws" -c init.defaultBranch=main init -q
	git -C "\$ws" -c user.name=b -c user.email=b@localhost commit -q --allow-empty -m baseline
fi
[ -d "$r/dot-claude" ] && cp -a "$r/dot-claude" "\$ws/.claude"
[ -d "$r/config" ] && cp -a "$r/config" "\$d/config" || mkdir -p "\$d/config"
[ -d "$r/home" ] && cp -a "$r/home" "\$d/home"
grep -rlF -- "$old" "\$ws/.claude" "\$d/config" 2>/dev/null | while IFS= read -r f; do sed -i "s#$old#\$ws#g" "\$f"; done
[ -n "$home" ] && grep -rlF -- "$home" "\$ws/.claude" "\$d/config" 2>/dev/null | while IFS= read -r f; do sed -i "s#$home#\$d/home#g" "\$f"; done
. "$tmp/bare-args.sh"
envs=("\${envs[@]//@WS@/\$ws}")
cd "\$ws" && exec env -i "\${envs[@]//@HOME@/\$d/home}" CLAUDE_CONFIG_DIR="\$d/config" \\
	ANTHROPIC_BASE_URL="\$FAKE_URL" ANTHROPIC_CUSTOM_HEADERS="X-Fake-Script: \$id" \\
	"$2" "\${args[@]//@WS@/\$ws}" -- "Run step \${id#case-}." </dev/null >/dev/null 2>&1
SH
	chmod +x "$1"
}

# harness_pass DIR P RUNID OUT: agent-eval run over DIR's cases (the run
# lands in DIR/eval/runs/overhead/RUNID) at --parallel
# P, timed by treetime into OUT (label harness).
harness_pass() {
	(cd "$1" && "$tmp/treetime" -o "$4" -label harness -- \
		"$tmp/agent-eval" run --fake-model --agent-bin "$claude" --parallel "$2" --run-id "$3" >/dev/null 2>"$tmp/$3.stderr") ||
		{ echo "agent-eval run failed:" >&2; tail -20 "$tmp/$3.stderr" >&2; return 1; }
}

# bare_pass DIR P OUT [LIST]: the same cases (or those LIST names) as bare
# claude calls through xargs -P P, against a fake-model server of their
# own; OUT gets the xargs tree (label bare) and the server (label
# bare-fake).
bare_pass() {
	local dir="$1" p="$2" out="$3" list="${4:-}" fifo="$tmp/fake.url" pid url
	rm -f "$fifo" && mkfifo "$fifo"
	"$tmp/treetime" -o "$out" -label bare-fake -- "$tmp/agent-eval" fake-model --scripts "$dir/scripts" >"$fifo" 2>/dev/null &
	pid=$!
	read -r url <"$fifo"
	{ if [ -n "$list" ]; then cat "$list"; else ls "$dir/cases"; fi; } | FAKE_URL="$url" "$tmp/treetime" -o "$out" -label bare -- xargs -P "$p" -n 1 "$tmp/bare-agent"
	kill -INT "$pid" && wait "$pid" || true
}

# field OUT LABEL KEY: the value of KEY on OUT's last LABEL line.
field() { awk -v l="label=$2" -v k="$3" '$1 == l { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) v = kv[2] } } END { print v }' "$1"; }

# compare N P PASSES GIT: PASSES alternating passes (harness first on odd
# passes, bare first on even ones) of N cases at --parallel P, one line
# per pass and a summary: tree CPU and wall of both sides, their ratios,
# the spread of the ratios across passes, agent-eval's own CPU per case
# and peak RSS.
compare() {
	local n="$1" p="$2" passes="$3" k out git="${BARE_GIT:-auto}"
	mkdir -p "$tmp/bare"
	claude_eval "$tmp/eval" "$n"
	# A warm-up case on each side (file caches, Node's compile cache), which
	# also shows whether Claude sees a git repository in agent-eval's
	# workspace: the bare workspaces get one when it does.
	# It also records what agent-eval gives Claude Code, for the bare side.
	record_agent "$tmp/record-agent" "$claude"
	(cd "$tmp/eval" && "$tmp/agent-eval" run --fake-model --agent-bin "$tmp/record-agent" --cases case-$(printf "%0${#n}d" 1) --run-id warm >/dev/null 2>"$tmp/warm.stderr") ||
		{ echo "agent-eval run failed:" >&2; tail -20 "$tmp/warm.stderr" >&2; return 1; }
	if [ "$git" = auto ]; then
		git=0
		grep -q 'Is a git repository: true' "$tmp/eval/eval/runs/overhead/warm/fake_model_requests.jsonl" && git=1
	fi
	bare_agent "$tmp/bare-agent" "$claude" "$git"
	printf '%s\n' "case-$(printf "%0${#n}d" 1)" >"$tmp/one"
	bare_pass "$tmp/eval" 1 "$tmp/warm.txt" "$tmp/one"
	echo "bare workspaces are git repositories: $git (BARE_GIT=0|1 overrides)"
	printf '%s cases at --parallel %s, %s passes, on %s cores\n' "$n" "$p" "$passes" "$(nproc)"
	for k in $(seq 1 "$passes"); do
		out="$tmp/pass-$k.txt"
		: > "$out"
		if [ $((k % 2)) -eq 1 ]; then
			harness_pass "$tmp/eval" "$p" "p$k" "$out"; bare_pass "$tmp/eval" "$p" "$out"
		else
			bare_pass "$tmp/eval" "$p" "$out"; harness_pass "$tmp/eval" "$p" "p$k" "$out"
		fi
		# Both sides carry a fake model: agent-eval's runs inside it, the
		# bare calls' is a server of its own, added to their tree.
		awk -v k="$k" -v n="$n" -v load="$(load)" \
			-v hc="$(field "$out" harness tree_cpu_s)" -v hw="$(field "$out" harness wall_s)" \
			-v hs="$(field "$out" harness self_cpu_s)" -v hr="$(field "$out" harness self_rss_mb)" \
			-v bc="$(field "$out" bare tree_cpu_s)" -v bw="$(field "$out" bare wall_s)" -v fc="$(field "$out" bare-fake tree_cpu_s)" \
			'BEGIN { b = bc + fc
			printf "pass %d: tree CPU %7.1f s vs bare %7.1f s (x%.3f); wall %6.1f s vs %6.1f s (x%.3f); agent-eval itself %5.1f ms CPU per case, peak RSS %5.1f MB; bare fake %4.1f s; %s\n",
				k, hc, b, hc / b, hw, bw, hw / bw, 1000 * hs / n, hr, fc, load }' | tee -a "$tmp/passes.txt"
	done
	awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /^\(x/) { v = substr($i, 3) + 0; if (++j % 2) c[++nc] = v; else w[++nw] = v } } }
		function stats(a, m,   i, s, lo, hi) { s = 0; lo = 1e9; hi = 0; for (i = 1; i <= m; i++) { s += a[i]; if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] } return sprintf("mean x%.3f, range x%.3f..x%.3f", s / m, lo, hi) }
		END { printf "tree CPU ratio %s; wall ratio %s (over %d passes)\n", stats(c, nc), stats(w, nw), nc }' "$tmp/passes.txt"
}
