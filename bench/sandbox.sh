#!/usr/bin/env bash
# What a Bash call costs under each layer: one case whose scripted model
# makes CALLS Bash calls (`true`), and one that makes none, each run through
# `agent-eval run --fake-model` in three modes — Claude Code's sandbox (on by
# default; as root it goes without the harness's boundary), the harness's
# boundary alone (permissions.sandbox: off), and neither (sandbox off,
# permissions.boundary: off) — REPS times each, alternating. Per-call
# latency = (median wall time with CALLS calls - median with none) / CALLS,
# so the start-up of claude (and of the boundary, once per case) is left
# out; the ratios to "neither" are printed. The load averages are printed too: other work on
# the machine moves every figure.
# Usage: bench/sandbox.sh [CALLS [REPS]]   (default 20 3)
set -euo pipefail
cd "$(dirname "$0")/.."
calls="${1:-20}" reps="${2:-3}"
claude="${CLAUDE_BIN:-$(scripts/install-claude.sh)}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT; [ -n "${KEEP:-}" ] && trap - EXIT && echo "kept $tmp" >&2
. bench/lib.sh
CGO_ENABLED=0 go build -trimpath -o "$tmp/agent-eval" ./cmd/agent-eval
export PATH="$(dirname "$claude"):$PATH" HOME="$tmp/home" ANTHROPIC_API_KEY=fake
mkdir -p "$HOME"

# evaldir NAME SANDBOX BOUNDARY N: an eval of one case making N Bash calls.
evaldir() {
	local d="$tmp/$1" i
	mkdir -p "$d/cases/c1"
	printf 'name: %s\nexecution: {prompt: go}\npermissions: {allow: [Bash], sandbox: %s, boundary: %s}\ndataset: {path: cases}\n' "$1" "$2" "$3" > "$d/eval.yaml"
	echo '{}' > "$d/cases/c1/input.yaml"
	{
		echo "turns:"
		for i in $(seq 1 "$4"); do
			echo "  - tool_use: {name: Bash, input: {command: \"true\", description: \"call $i\"}}"
		done
		echo "  - text: Done."
	} > "$d/cases/c1/fake_model.yaml"
}
# wall NAME: seconds one run of the eval NAME takes.
wall() {
	local d="$tmp/$1" s e
	s=$(date +%s.%N)
	(cd "$d" && "$tmp/agent-eval" run --fake-model --agent-bin claude >/dev/null 2>&1)
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

modes="sandbox boundary none"
for mode in $modes; do
	case $mode in
	sandbox) sb=auto bd=on ;;
	boundary) sb=off bd=on ;;
	none) sb=off bd=off ;;
	esac
	evaldir "$mode-0" $sb $bd 0
	evaldir "$mode-$calls" $sb $bd "$calls"
done
for mode in $modes; do wall "$mode-0" >/dev/null; done # warm-up
for r in $(seq 1 "$reps"); do
	for mode in $modes; do
		wall "$mode-0" >> "$tmp/$mode-0.times"
		wall "$mode-$calls" >> "$tmp/$mode-$calls.times"
	done
	echo "pass $r: $(load)"
done
per() { echo "($(median < "$tmp/$1-$calls.times") - $(median < "$tmp/$1-0.times")) / $calls" | bc -l; }
none=$(per none)
printf 'claude %s, %s Bash calls, %s passes (medians), as uid %s\n' "$("$claude" --version | cut -d' ' -f1)" "$calls" "$reps" "$(id -u)"
for mode in $modes; do
	p=$(per "$mode")
	printf '%-9s %6.3f s per Bash call (run with none: %.2f s), %.2fx neither\n' "$mode:" "$p" "$(median < "$tmp/$mode-0.times")" "$(echo "$p / $none" | bc -l)"
done
