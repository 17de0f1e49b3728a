#!/usr/bin/env bash
# Scale of agent-eval run (issue 12 §4):
#  a) SCALE_N (1000) cases with the cli runner and a trivial agent (a shell
#     one-liner writing an output file) at --parallel 8: wall, cases/s,
#     agent-eval's peak RSS and its CPU per case. Goal: under 60 s on 2 cores.
#  b) CLAUDE_N (200) cases with claude + the fake model at --parallel 8
#     against the same bare `claude --print` calls through xargs -P 8, side
#     by side (bench/overhead.sh's comparison, CLAUDE_PASSES passes, default
#     1). Goal: tree CPU and wall within 10 % of the bare calls.
#  c) memory flat: agent-eval's peak RSS at SCALE_N cli cases against 100.
#     Goal: within 20 %.
# A cli eval that does not validate stops a) and c) with its error, and the
# script exits 2 after b). Every figure is printed with the load averages.
# Usage: bench/scale.sh [a|b|c|all]   (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
scale_n="${SCALE_N:-1000}" claude_n="${CLAUDE_N:-200}" claude_passes="${CLAUDE_PASSES:-1}" p=8
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT; [ -n "${KEEP:-}" ] && trap - EXIT && echo "kept $tmp" >&2
. bench/lib.sh
build_tools

# cli_eval DIR N: an eval of N cases whose agent is a shell one-liner that
# writes output/out.txt.
cli_eval() {
	local dir="$1" n="$2" i
	mkdir -p "$dir/cases"
	cat > "$dir/eval.yaml" <<'YAML'
name: scale
execution:
  prompt: "case {n}"
runner:
  type: cli
  command: [sh, -c, 'echo ok > "$1/out.txt"', sh, "{output_dir}"]
dataset: {path: cases}
YAML
	for i in $(seq -w 1 "$n"); do
		mkdir -p "$dir/cases/c$i"
		echo "n: \"$i\"" > "$dir/cases/c$i/input.yaml"
	done
}

# cli_valid: whether the one-case cli eval validates; says why not otherwise.
cli_valid() {
	cli_eval "$tmp/probe" 1
	local out
	if out="$(cd "$tmp/probe" && "$tmp/agent-eval" validate -c eval.yaml 2>&1)"; then
		return 0
	fi
	echo "the cli eval does not validate: $out" >&2
	return 1
}

# cli_run N OUT: N cli cases at --parallel 8, timed by treetime (label cli-N).
cli_run() {
	local n="$1" dir="$tmp/cli-$1"
	cli_eval "$dir" "$n"
	(cd "$dir" && "$tmp/treetime" -o "$2" -label "cli-$n" -- \
		"$tmp/agent-eval" run --parallel "$p" --run-id r >/dev/null 2>"$tmp/cli-$n.stderr") ||
		{ echo "agent-eval run failed:" >&2; tail -20 "$tmp/cli-$n.stderr" >&2; return 1; }
	local made
	made=$(find "$dir" -path '*/outputs/out.txt' -o -path '*/output/out.txt' | wc -l)
	[ "$made" -eq "$n" ] || echo "warning: $made of $n cases wrote out.txt" >&2
}

status=0
if [ "$what" = a ] || [ "$what" = c ] || [ "$what" = all ]; then
	if cli_valid; then
		out="$tmp/cli.txt"
		if [ "$what" != c ]; then
			cli_run "$scale_n" "$out"
			awk -v n="$scale_n" -v w="$(field "$out" "cli-$scale_n" wall_s)" -v s="$(field "$out" "cli-$scale_n" self_cpu_s)" \
				-v r="$(field "$out" "cli-$scale_n" self_rss_mb)" -v load="$(load)" \
				'BEGIN { printf "a) %d cli cases at --parallel 8: wall %.1f s (%s the 60 s goal), %.1f cases/s, agent-eval peak RSS %.1f MB, its CPU %.1f ms per case; %s\n",
					n, w, (w < 60 ? "within" : "OVER"), n / w, r, 1000 * s / n, load }'
		fi
		if [ "$what" != a ]; then
			{ [ -f "$out" ] && [ -n "$(field "$out" "cli-$scale_n" self_rss_mb)" ]; } || cli_run "$scale_n" "$out"
			cli_run 100 "$out"
			awk -v n="$scale_n" -v big="$(field "$out" "cli-$scale_n" self_rss_mb)" -v small="$(field "$out" cli-100 self_rss_mb)" -v load="$(load)" \
				'BEGIN { printf "c) agent-eval peak RSS %.1f MB at %d cases vs %.1f MB at 100 (x%.2f, %s the 20 %% goal); %s\n",
					big, n, small, big / small, (big / small <= 1.2 ? "within" : "OVER"), load }'
		fi
	else
		status=2
	fi
fi
if [ "$what" = b ] || [ "$what" = all ]; then
	claude="${CLAUDE_BIN:-$(scripts/install-claude.sh)}"
	echo "b) claude + the fake model against bare claude --print (goal: within 10 %)"
	compare "$claude_n" "$p" "$claude_passes"
fi
exit "$status"
