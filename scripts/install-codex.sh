#!/usr/bin/env bash
# Installs the pinned Codex CLI (npm package @openai/codex) into a git-ignored
# cache folder and prints the path of its binary on stdout. Idempotent: does
# nothing when that version is already there. Progress goes to stderr. The
# codex runner's tests run it against the fake Responses API.
#
#   CODEX_BIN=$(scripts/install-codex.sh)
#
# Environment: CODEX_VERSION (default: scripts/codex.version),
# AGENT_EVAL_CACHE (default <repo>/.cache).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
version="${CODEX_VERSION:-$(cat "$root/scripts/codex.version")}"
cache="${AGENT_EVAL_CACHE:-$root/.cache}"
dir="$cache/codex-$version"
bin="$dir/node_modules/.bin/codex"

works() {
	# --version must not write into the real home: CODEX_HOME is a throwaway
	# folder (outside $TMPDIR would matter only for a sandboxed run).
	local tmp
	tmp="$(mktemp -d)"
	local out
	out="$(HOME="$tmp" CODEX_HOME="$tmp" "$bin" --version 2>/dev/null || true)"
	rm -rf "$tmp"
	[ -x "$bin" ] && [ "$out" = "codex-cli $version" ]
}

if works; then
	echo "codex $version already installed in $dir" >&2
else
	command -v npm >/dev/null || { echo "install-codex: npm is not installed (Node.js 20 or newer is needed)" >&2; exit 1; }
	echo "installing @openai/codex@$version into $dir" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	# The exact version is pinned; the package carries its native binary (and
	# its own rg and bwrap) as an optional dependency for this platform.
	(cd "$dir" && npm init -y >/dev/null &&
		npm install --no-audit --no-fund --loglevel=error "@openai/codex@$version" >&2)
	works || { echo "install-codex: $bin does not run or is not version $version" >&2; exit 1; }
fi
echo "$bin"
