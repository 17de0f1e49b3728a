#!/usr/bin/env bash
# Overhead of agent-eval run over bare Claude Code at saturation: N cases
# through `agent-eval run --fake-model --parallel P` against the same N bare
# `claude --print` calls through `xargs -P P`, each with the same fake model
# (the bare calls' runs as a server of its own, its CPU added to theirs) and
# a fresh workspace (a git repository when Claude sees one in agent-eval's).
# The bare calls are like for like: the warm-up case records the command
# line, environment, .claude folder and config folder agent-eval gives
# Claude Code (--settings, the appended system prompt, permission and
# sandbox flags), and each bare call replays them in its own workspace
# without agent-eval's hook, so the figure is what the harness's own work
# costs (the hook per tool call, the guard, the workspace, reading the
# stream). Needs jq.
# PASSES alternating passes (harness first, then bare first, …), after a
# one-case warm-up of each. Per pass and side: the CPU of the whole process
# tree (user+sys of every process waited for, bench/treetime) and the wall
# time; the ratios and their spread across passes; agent-eval's own CPU per
# case (its process alone, its in-process fake model included, not its
# children) and its peak RSS. The load averages are printed with each pass:
# other work on the machine moves every figure.
# Usage: bench/overhead.sh [N [P [PASSES]]]   (default 24 8 3)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-24}" p="${2:-8}" passes="${3:-3}"
claude="${CLAUDE_BIN:-$(scripts/install-claude.sh)}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT; [ -n "${KEEP:-}" ] && trap - EXIT && echo "kept $tmp" >&2
. bench/lib.sh
build_tools
compare "$n" "$p" "$passes"
