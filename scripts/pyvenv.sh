# Sourced by the installers of pinned Python tools (install-harbor.sh,
# install-mlflow.sh): pyvenv_install PACKAGE VERSION COMMAND PYTHON_ENV_VAR
# installs PACKAGE==VERSION into the git-ignored virtual environment
# $AGENT_EVAL_CACHE/PACKAGE-VERSION (default <repo>/.cache) unless COMMAND
# there already reports VERSION, and prints the command's path on stdout.
# Progress goes to stderr. The tools need Python 3.12 or newer: $PYTHON_ENV_VAR
# when set, else the first of python3.13, python3.12 (pyenv's too) that has
# its venv module. The product never runs Python; only tests use these.

pyvenv_python() {
	local want="$1" v p
	if [ -n "$want" ]; then
		echo "$want"
		return
	fi
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

# pyvenv_version prints the version COMMAND --version reports: its last
# word ("mlflow, version 3.17.2" and "0.26.0" both work).
pyvenv_version() {
	"$1" --version 2>/dev/null | awk 'NR == 1 { print $NF }' || true
}

pyvenv_install() {
	local pkg="$1" version="$2" cmd="$3" pyvar="$4"
	local root cache dir bin py
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
	cache="${AGENT_EVAL_CACHE:-$root/.cache}"
	dir="$cache/$pkg-$version"
	bin="$dir/bin/$cmd"
	if [ -x "$bin" ] && [ "$(pyvenv_version "$bin")" = "$version" ]; then
		echo "$pkg $version already installed in $dir" >&2
	else
		py="$(pyvenv_python "${!pyvar:-}")" || {
			echo "install-$pkg: $pkg needs Python 3.12 or newer with its venv module (pyenv install 3.12, or set $pyvar)" >&2
			return 1
		}
		echo "installing $pkg==$version into $dir with $py" >&2
		rm -rf "$dir"
		mkdir -p "$cache"
		"$py" -m venv "$dir"
		"$dir/bin/pip" install --quiet --disable-pip-version-check "$pkg==$version" >&2
		if [ "$(pyvenv_version "$bin")" != "$version" ]; then
			echo "install-$pkg: $bin --version does not say $version after the install" >&2
			return 1
		fi
	fi
	echo "$bin"
}
