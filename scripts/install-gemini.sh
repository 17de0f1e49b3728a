#!/usr/bin/env bash
# Installs the pinned Gemini CLI (npm package @google/gemini-cli) into a
# git-ignored cache folder and prints the path of its binary on stdout.
# Idempotent: does nothing when that version is already there. Progress goes
# to stderr. The gemini runner's tests run it against the fake Gemini API.
#
#   GEMINI_BIN=$(scripts/install-gemini.sh)
#
# Environment: GEMINI_VERSION (default: scripts/gemini.version),
# AGENT_EVAL_CACHE (default <repo>/.cache).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
version="${GEMINI_VERSION:-$(cat "$root/scripts/gemini.version")}"
cache="${AGENT_EVAL_CACHE:-$root/.cache}"
dir="$cache/gemini-$version"
bin="$dir/node_modules/.bin/gemini"

works() {
	# --version must not write into the real home: give it a throwaway one.
	local tmp out
	tmp="$(mktemp -d)"
	out="$(HOME="$tmp" GEMINI_CLI_NO_RELAUNCH=true "$bin" --version 2>/dev/null || true)"
	rm -rf "$tmp"
	[ -x "$bin" ] && [ "$out" = "$version" ]
}

if works; then
	echo "gemini $version already installed in $dir" >&2
else
	command -v npm >/dev/null || { echo "install-gemini: npm is not installed (Node.js 20 or newer is needed)" >&2; exit 1; }
	echo "installing @google/gemini-cli@$version into $dir" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	# The exact version is pinned. Its postinstall step tries to download
	# ripgrep, which fails offline; the CLI then falls back to a built-in grep.
	(cd "$dir" && npm init -y >/dev/null &&
		npm install --no-audit --no-fund --loglevel=error "@google/gemini-cli@$version" >&2)
	works || { echo "install-gemini: $bin does not run or is not version $version" >&2; exit 1; }
fi
echo "$bin"
