#!/usr/bin/env bash
# Installs the pinned OpenCode CLI (npm package opencode-ai) into a git-ignored
# cache folder and prints the path of its binary on stdout. Idempotent: does
# nothing when that version is already there. Progress goes to stderr. The
# end-to-end tests of the cli runner use it as a real second agent.
#
#   OPENCODE_BIN=$(scripts/install-opencode.sh)
#
# Environment: OPENCODE_VERSION (default: scripts/opencode.version),
# AGENT_EVAL_CACHE (default <repo>/.cache).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
version="${OPENCODE_VERSION:-$(cat "$root/scripts/opencode.version")}"
cache="${AGENT_EVAL_CACHE:-$root/.cache}"
dir="$cache/opencode-$version"
bin="$dir/node_modules/.bin/opencode"

works() {
	# --version must not write into the real home: point every XDG folder at a
	# throwaway one.
	local tmp
	tmp="$(mktemp -d)"
	local out
	out="$(HOME="$tmp" XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" \
		XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" \
		"$bin" --version 2>/dev/null || true)"
	rm -rf "$tmp"
	[ -x "$bin" ] && [ "$out" = "$version" ]
}

if works; then
	echo "opencode $version already installed in $dir" >&2
else
	command -v npm >/dev/null || { echo "install-opencode: npm is not installed (Node.js 20 or newer is needed)" >&2; exit 1; }
	echo "installing opencode-ai@$version into $dir" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	# The exact version is pinned. Its postinstall script picks the native
	# binary for this platform and runs it (--version), so scripts must run,
	# with OpenCode's XDG folders pointed away from the real home (npm keeps
	# HOME for its own cache and configuration).
	tmp="$(mktemp -d)"
	(cd "$dir" && npm init -y >/dev/null &&
		XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" \
			XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" \
			npm install --no-audit --no-fund --loglevel=error "opencode-ai@$version" >&2)
	rm -rf "$tmp"
	works || { echo "install-opencode: $bin does not run or is not version $version" >&2; exit 1; }
fi
echo "$bin"
