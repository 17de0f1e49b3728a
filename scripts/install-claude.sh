#!/usr/bin/env bash
# Installs the pinned Claude Code CLI into a git-ignored cache folder and prints
# the path of its binary on stdout. Idempotent: does nothing when that version
# is already there. Progress goes to stderr.
#
#   CLAUDE_BIN=$(scripts/install-claude.sh)
#
# Environment: CLAUDE_CODE_VERSION (default: scripts/claude-code.version),
# AGENT_EVAL_CACHE (default <repo>/.cache).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
version="${CLAUDE_CODE_VERSION:-$(cat "$root/scripts/claude-code.version")}"
cache="${AGENT_EVAL_CACHE:-$root/.cache}"
dir="$cache/claude-code-$version"
pkg="$dir/node_modules/@anthropic-ai/claude-code/package.json"
bin="$dir/node_modules/.bin/claude"

installed_version() {
	[ -f "$pkg" ] && node -p "require(process.argv[1]).version" "$pkg" 2>/dev/null || true
}

works() {
	[ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$version"
}

if [ "$(installed_version)" = "$version" ] && works; then
	echo "claude $version already installed in $dir" >&2
else
	command -v npm >/dev/null || { echo "install-claude: npm is not installed (Node.js 20 or newer is needed)" >&2; exit 1; }
	echo "installing @anthropic-ai/claude-code@$version into $dir" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	# The exact version is pinned: on Node 20 an unpinned install resolves to an
	# older release whose engines field matches. The postinstall script copies
	# the native binary into place, so scripts must run.
	(cd "$dir" && npm init -y >/dev/null &&
		npm install --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$version" >&2)
	if ! works; then
		# The postinstall step did not put the native binary in place: run it.
		(cd "$dir" && node node_modules/@anthropic-ai/claude-code/install.cjs >&2) || true
	fi
	works || { echo "install-claude: $bin does not run or is not version $version" >&2; exit 1; }
fi
echo "$bin"
