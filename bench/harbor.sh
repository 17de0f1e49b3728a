#!/usr/bin/env bash
# Harbor as the engine against a local run (issue 20, Scale):
#  a) HARBOR_N (50) trivial cases (Claude Code + the fake model, one Write)
#     run by `agent-eval run --backend harbor -n 8`: the real Harbor, each
#     trial in the test environment class (internal/harbor/testdata/localenv:
#     a folder under bubblewrap, the stand-in for a container), against the
#     same cases run locally at --parallel 8. Wall and the CPU of the whole
#     process tree, side by side, as ratios. Both runs must pass `--score`.
#  b) the export alone of EXPORT_N (1000) cases: time and size on disk
#     (apparent and allocated; the binaries are hard-linked).
# Every figure is printed with the load averages.
# Usage: bench/harbor.sh [a|b|all]   (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
what="${1:-all}"
n="${HARBOR_N:-50}" export_n="${EXPORT_N:-1000}" p=8
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT; [ -n "${KEEP:-}" ] && trap - EXIT && echo "kept $tmp" >&2
. bench/lib.sh
build_tools
harbor="${HARBOR_BIN:-$(scripts/install-harbor.sh)}"
claude="${CLAUDE_BIN:-$(scripts/install-claude.sh)}"

# trivial_eval DIR N: N cases, each one Write of out.txt, judged by an expression.
trivial_eval() {
	local dir="$1" count="$2" i
	mkdir -p "$dir/cases"
	cat > "$dir/eval.yaml" <<'YAML'
name: trivial
execution:
  prompt: "Write out.txt for case {n}."
  timeout: 120
models: {skill: claude-sonnet-4-5}
dataset: {path: cases}
permissions:
  sandbox: off
  allow: ["Write"]
outputs:
  - path: out.txt
judges:
  - name: wrote
    expr: 'files["out.txt"] contains "ok"'
thresholds:
  wrote: {min_pass_rate: 1.0}
YAML
	for i in $(seq -w 1 "$count"); do
		mkdir -p "$dir/cases/c$i"
		echo "n: \"$i\"" > "$dir/cases/c$i/input.yaml"
		cat > "$dir/cases/c$i/fake_model.yaml" <<'YAML'
turns:
  - tool_use: {name: Write, input: {file_path: "${CWD}/out.txt", content: "ok\n"}}
  - text: Done.
YAML
	done
}

# image DIR: the test environment's image: the claude shim over Claude Code.
image() {
	mkdir -p "$1/bin" "$1/lib"
	ln "$(readlink -f "$claude")" "$1/lib/claude" 2>/dev/null || cp "$(readlink -f "$claude")" "$1/lib/claude"
	# The image's own shim (agent-eval harbor image), over the binary at /image/lib.
	"$tmp/agent-eval" harbor image -o "$tmp/recipe" --binary "$tmp/agent-eval" >/dev/null
	sed 's#/usr/local/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe#/image/lib/claude#' "$tmp/recipe/claude" > "$1/bin/claude"
	chmod 755 "$1/bin/claude"
}

if [ "$what" = a ] || [ "$what" = all ]; then
	trivial_eval "$tmp/eval" "$n"
	image "$tmp/image"
	out="$tmp/a.txt"
	export PATH="$(dirname "$claude"):$PATH" ANTHROPIC_API_KEY=fake-key IS_SANDBOX=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
	(cd "$tmp/eval" && "$tmp/treetime" -o "$out" -label local -- \
		"$tmp/agent-eval" run --fake-model --score --parallel "$p" --runs-dir "$tmp/runs" --run-id local >/dev/null 2>"$tmp/local.stderr") ||
		{ echo "the local run failed:" >&2; tail -20 "$tmp/local.stderr" >&2; exit 1; }
	(cd "$tmp/eval" && "$tmp/treetime" -o "$out" -label harbor -- env \
		PYTHONPATH="$root/internal/harbor/testdata/localenv" LITELLM_LOCAL_MODEL_COST_MAP=True \
		"$tmp/agent-eval" run --backend harbor --harbor-bin "$harbor" --image bench --binary "$tmp/agent-eval" \
		--env agent_eval_localenv:LocalEnvironment --env-kwarg image_dir="$tmp/image" \
		--fake-model --score -n "$p" --runs-dir "$tmp/runs" --run-id harbor >/dev/null 2>"$tmp/harbor.stderr") ||
		{ echo "the Harbor run failed:" >&2; tail -20 "$tmp/harbor.stderr" >&2; exit 1; }
	awk -v n="$n" -v lw="$(field "$out" local wall_s)" -v lc="$(field "$out" local tree_cpu_s)" \
		-v hw="$(field "$out" harbor wall_s)" -v hc="$(field "$out" harbor tree_cpu_s)" -v load="$(load)" \
		'BEGIN { printf "a) %d trivial cases at 8 at once: local wall %.1f s, CPU %.1f s; on Harbor wall %.1f s (x%.2f), CPU %.1f s (x%.2f); %s\n",
			n, lw, lc, hw, hw / lw, hc, hc / lc, load }'
fi
if [ "$what" = b ] || [ "$what" = all ]; then
	go test ./internal/harbor -run '^$' -bench Export1000 -benchtime 1x | grep -E '^Benchmark|ns/op'
fi
