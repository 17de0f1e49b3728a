#!/usr/bin/env bash
# Overhead of agent-eval run over bare Claude Code: N cases through
# `agent-eval run --fake-model` (workspaces, hook, permissions, parsing,
# results) against N bare `claude --print` calls on the same model scripts,
# one at a time. Prints both wall times and their ratio.
# Usage: bench/overhead.sh [N]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10}"
claude="$(scripts/install-claude.sh)"
tmp="$(mktemp -d)"
trap 'kill "${fake_pid:-0}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$tmp/agent-eval" ./cmd/agent-eval

mkdir -p "$tmp/eval/cases" "$tmp/scripts"
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
	cp "$tmp/eval/cases/case-$i/fake_model.yaml" "$tmp/scripts/case-$i.yaml"
done

now() { date +%s%N; }
cd "$tmp/eval"
start=$(now)
"$tmp/agent-eval" run --fake-model --agent-bin "$claude" --parallel 1 --run-id bench >/dev/null 2>&1
harness=$(( $(now) - start ))
# The same without inputs.tools: no hook and no AskUserQuestion wiring, which
# separates the harness's own cost from the interception it adds.
sed -i '/^inputs:/,$d' eval.yaml
start=$(now)
"$tmp/agent-eval" run --fake-model --agent-bin "$claude" --parallel 1 --run-id bench-plain >/dev/null 2>&1
plain=$(( $(now) - start ))

"$tmp/agent-eval" fake-model --scripts "$tmp/scripts" > "$tmp/url" 2>/dev/null &
fake_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url="$(head -1 "$tmp/url")"
# Like for like: the same HOME as agent-eval gives the agent (Claude Code
# snapshots the user's shell from it), and a throwaway config dir as
# agent-eval uses, so ~/.claude.json is not touched.
mkdir -p "$tmp/bare" "$tmp/config"
start=$(now)
for i in $(seq -w 1 "$n"); do
	mkdir -p "$tmp/bare/case-$i" # a fresh folder per case, as agent-eval's workspaces
	(cd "$tmp/bare/case-$i" && CLAUDE_CONFIG_DIR="$tmp/config" ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=fake \
		ANTHROPIC_CUSTOM_HEADERS="X-Fake-Script: case-$i" CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		"$claude" --print --output-format stream-json --verbose -- "Run step $i." </dev/null >/dev/null 2>&1)
done
bare=$(( $(now) - start ))

awk -v n="$n" -v h="$harness" -v p="$plain" -v b="$bare" 'BEGIN {
	printf "%d cases, one at a time\n", n
	printf "agent-eval run --fake-model, with interception:    %.2f s (%.0f ms per case)\n", h/1e9, h/1e6/n
	printf "agent-eval run --fake-model, without inputs.tools: %.2f s (%.0f ms per case)\n", p/1e9, p/1e6/n
	printf "bare claude --print:                               %.2f s (%.0f ms per case)\n", b/1e9, b/1e6/n
	printf "overhead ratio: %.3f with interception, %.3f without\n", h/b, p/b
}'
