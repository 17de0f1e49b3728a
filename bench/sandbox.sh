#!/usr/bin/env bash
# What Claude Code's sandbox (on by default) costs per Bash call: one case
# whose scripted model makes CALLS Bash calls (`true`), and one that makes
# none, each run through `agent-eval run --fake-model` with the sandbox on
# (the default) and with permissions.sandbox: off, REPS times each,
# alternating. Per-call latency = (median wall time with CALLS calls -
# median with none) / CALLS, so the start-up of claude is left out; the
# ratio on/off is printed. The load averages are printed too: other work on
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

# evaldir NAME SANDBOX N: an eval of one case making N Bash calls.
evaldir() {
	local d="$tmp/$1" i
	mkdir -p "$d/cases/c1"
	printf 'name: %s\nexecution: {prompt: go}\npermissions: {allow: [Bash], sandbox: %s}\ndataset: {path: cases}\n' "$1" "$2" > "$d/eval.yaml"
	echo '{}' > "$d/cases/c1/input.yaml"
	{
		echo "turns:"
		for i in $(seq 1 "$3"); do
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

for mode in on off; do
	evaldir "$mode-0" "$( [ $mode = on ] && echo auto || echo off )" 0
	evaldir "$mode-$calls" "$( [ $mode = on ] && echo auto || echo off )" "$calls"
done
for name in on-0 off-0; do wall "$name" >/dev/null; done # warm-up
for r in $(seq 1 "$reps"); do
	for name in on-0 on-"$calls" off-0 off-"$calls"; do
		wall "$name" >> "$tmp/$name.times"
	done
	echo "pass $r: $(load)"
done
per() { echo "($(median < "$tmp/$1-$calls.times") - $(median < "$tmp/$1-0.times")) / $calls" | bc -l; }
on=$(per on) off=$(per off)
printf 'claude %s, %s Bash calls, %s passes (medians)\n' "$("$claude" --version | cut -d' ' -f1)" "$calls" "$reps"
printf 'sandbox on:  %6.3f s per Bash call (run with none: %.2f s)\n' "$on" "$(median < "$tmp/on-0.times")"
printf 'sandbox off: %6.3f s per Bash call (run with none: %.2f s)\n' "$off" "$(median < "$tmp/off-0.times")"
printf 'ratio on/off: %.2f\n' "$(echo "$on / $off" | bc -l)"
