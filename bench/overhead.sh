#!/usr/bin/env bash
# Overhead of agent-eval run over bare Claude Code, measured pairwise: N cases
# through `agent-eval run --fake-model` (workspaces, hook, permissions, parsing,
# results), where the agent binary is a wrapper that, for every case, also runs
# a bare `claude --print` on the same model script and times it — alternately
# before and after the real call, so the two see the same machine at the same
# moment. The harness's share is the run's wall time less the bare calls made
# inside it; the ratio is that share over the bare calls' total.
# Usage: bench/overhead.sh [N]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10}"
claude="$(scripts/install-claude.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT; [ -n "${KEEP:-}" ] && trap - EXIT && echo "kept $tmp" >&2
CGO_ENABLED=0 go build -trimpath -o "$tmp/agent-eval" ./cmd/agent-eval

mkdir -p "$tmp/eval/cases" "$tmp/bare" "$tmp/config"
cat > "$tmp/eval/eval.yaml" <<'YAML'
name: overhead
execution:
  prompt: "Run step {n}."
models: {skill: claude-sonnet-4-5}
dataset: {path: cases}
inputs:
  tools:
    - match: Questions asked to the user via AskUserQuestion.
    - match: Any interaction with Jira via Bash scripts calling the Jira API.
YAML
for i in $(seq -w 1 "$n"); do
	mkdir -p "$tmp/eval/cases/case-$i"
	echo "n: $i" > "$tmp/eval/cases/case-$i/input.yaml"
	cat > "$tmp/eval/cases/case-$i/fake_model.yaml" <<'YAML'
turns:
  - tool_use: {name: Bash, input: {command: "echo step", description: "Step"}}
  - text: Done.
YAML
done

# The wrapper gets agent-eval's environment for the agent (the fake's URL and
# the case's script header among it). The bare call gets only what a user
# would give claude by hand: the same HOME (Claude Code snapshots the user's
# shell from it), a throwaway config dir, a fresh folder, the fake.
cat > "$tmp/agent" <<SH
#!/usr/bin/env bash
case " \$* " in *" --print "*) ;; *) exec "$claude" "\$@" ;; esac
prompt="\${@: -1}"
bare() {
	d="\$(mktemp -d "$tmp/bare/case-XXXXXX")"
	s=\$(date +%s%N)
	(cd "\$d" && env -i PATH="\$PATH" HOME="\$HOME" CLAUDE_CONFIG_DIR="$tmp/config" \\
		ANTHROPIC_BASE_URL="\$ANTHROPIC_BASE_URL" ANTHROPIC_API_KEY=fake ANTHROPIC_CUSTOM_HEADERS="\$ANTHROPIC_CUSTOM_HEADERS" \\
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \\
		"$claude" --print --output-format stream-json --verbose -- "\$prompt" </dev/null >/dev/null 2>&1)
	echo \$(( \$(date +%s%N) - s )) >> "$tmp/bare.ns"
}
k=\$(wc -l < "$tmp/bare.ns")
if [ \$((k % 2)) -eq 0 ]; then
	bare
	exec "$claude" "\$@"
fi
"$claude" "\$@"
rc=\$?
bare
exit \$rc
SH
chmod +x "$tmp/agent"

now() { date +%s%N; }
measure() { # run-id label
	: > "$tmp/bare.ns"
	local start wall bare
	start=$(now)
	(cd "$tmp/eval" && "$tmp/agent-eval" run --fake-model --agent-bin "$tmp/agent" --parallel 1 --run-id "$1" >/dev/null 2>"$tmp/$1.stderr") ||
		{ echo "agent-eval run failed:" >&2; cat "$tmp/$1.stderr" >&2; exit 1; }
	wall=$(( $(now) - start ))
	bare=$(awk '{s+=$1} END {print s}' "$tmp/bare.ns")
	awk -v l="$2" -v n="$n" -v w="$wall" -v b="$bare" 'BEGIN {
		h = w - b
		printf "%-32s agent-eval %5.0f ms per case, bare claude %5.0f ms per case, ratio %.3f\n", l, h/1e6/n, b/1e6/n, h/b
	}'
}
echo "$n cases, one at a time, each paired with a bare claude --print call"
measure intercept "with interception"
# The same without inputs.tools: no hook and no AskUserQuestion wiring, which
# separates the harness's own cost from the interception it adds.
sed -i '/^inputs:/,$d' "$tmp/eval/eval.yaml"
measure plain "without inputs.tools"
