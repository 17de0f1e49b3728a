#!/usr/bin/env bash
# Installs the pinned Harbor (PyPI harbor) into a git-ignored virtual
# environment and prints the path of its harbor command on stdout.
# Idempotent: does nothing when that version is already there. Progress goes
# to stderr. The tests that run `harbor run` on exported tasks use it; the
# product never runs Python itself.
#
#   HARBOR_BIN=$(scripts/install-harbor.sh)
#
# Harbor needs Python 3.12 or newer: the first of python3.13, python3.12
# (pyenv's too) that works is used. Environment: HARBOR_VERSION (default:
# scripts/harbor.version), HARBOR_PYTHON (an interpreter to use),
# AGENT_EVAL_CACHE (default <repo>/.cache).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
version="${HARBOR_VERSION:-$(cat "$root/scripts/harbor.version")}"
cache="${AGENT_EVAL_CACHE:-$root/.cache}"
dir="$cache/harbor-$version"
bin="$dir/bin/harbor"

works() {
	[ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null || true)" = "$version" ]
}

python() {
	if [ -n "${HARBOR_PYTHON:-}" ]; then
		echo "$HARBOR_PYTHON"
		return
	fi
	local v p
	for v in 3.13 3.12; do
		for p in "python$v" "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/"$v"*/bin/python"$v"; do
			if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
				command -v "$p"
				return
			fi
		done
	done
	return 1
}

if works; then
	echo "harbor $version already installed in $dir" >&2
else
	py="$(python)" || { echo "install-harbor: Harbor needs Python 3.12 or newer with its venv module (pyenv install 3.12, or set HARBOR_PYTHON)" >&2; exit 1; }
	echo "installing harbor==$version into $dir with $py" >&2
	rm -rf "$dir"
	mkdir -p "$cache"
	"$py" -m venv "$dir"
	"$dir/bin/pip" install --quiet --disable-pip-version-check "harbor==$version" >&2
	works || { echo "install-harbor: $bin --version does not say $version after the install" >&2; exit 1; }
fi
echo "$bin"
