#!/usr/bin/env bash
# Installs agent-eval for the GitHub Action (action.yml): a release archive
# whose sha256 must match the release's checksums.txt, or a build of the
# action's own checkout with Go. The folder holding the binary is printed on
# stdout and, on a runner, added to $GITHUB_PATH.
#
# Environment (the action's inputs):
#   AGENT_EVAL_VERSION            release tag (v0.9.0) or bare version (0.9.0);
#                                 empty: AGENT_EVAL_ACTION_REF when it is a
#                                 release tag (vX.Y.Z), else build from source
#   AGENT_EVAL_ACTION_REF         the ref the action was used at (github.action_ref)
#   AGENT_EVAL_BUILD_FROM_SOURCE  true: build from AGENT_EVAL_SOURCE_DIR with go
#   AGENT_EVAL_DOWNLOAD_URL       the archive's URL, with {tag} (v0.9.0),
#                                 {version} (0.9.0), {os} and {arch} filled in;
#                                 checksums.txt is read from the same folder.
#                                 http(s):// or file://
#   AGENT_EVAL_SOURCE_DIR         the checkout to build (default: this script's repository)
#   AGENT_EVAL_INSTALL_DIR        where the binary goes (default: $RUNNER_TEMP/agent-eval/bin)
set -euo pipefail

die() {
	echo "install.sh: $*" >&2
	exit 2
}

default_url='https://github.com/agent-eval/agent-eval/releases/download/{tag}/agent-eval_{version}_{os}_{arch}.tar.gz'
version="${AGENT_EVAL_VERSION:-}"
from_source="${AGENT_EVAL_BUILD_FROM_SOURCE:-false}"
url_pattern="${AGENT_EVAL_DOWNLOAD_URL:-$default_url}"
script_dir=$(cd "$(dirname "$0")" && pwd)
source_dir="${AGENT_EVAL_SOURCE_DIR:-$script_dir/../..}"
install_dir="${AGENT_EVAL_INSTALL_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/agent-eval/bin}"

case "$from_source" in
true | false) ;;
*) die "build-from-source must be true or false, not \"$from_source\"" ;;
esac
if [ -z "$version" ]; then
	ref="${AGENT_EVAL_ACTION_REF:-}"
	if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		version="$ref"
	else
		from_source=true
	fi
fi

mkdir -p "$install_dir"
install_dir=$(cd "$install_dir" && pwd)

if [ "$from_source" = true ]; then
	command -v go >/dev/null || die "build-from-source needs go on PATH (actions/setup-go)"
	[ -f "$source_dir/go.mod" ] || die "build-from-source: $source_dir is not agent-eval's checkout (no go.mod)"
	ldflags="-s -w"
	if [ -n "$version" ]; then
		ldflags="$ldflags -X github.com/agent-eval/agent-eval/internal/version.Version=$version"
	fi
	echo "install.sh: building agent-eval from $source_dir" >&2
	(cd "$source_dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$install_dir/agent-eval" ./cmd/agent-eval) ||
		die "build-from-source: go build failed"
else
	case "$(uname -s)" in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	*) die "no release archive for the system $(uname -s); use build-from-source: true" ;;
	esac
	case "$(uname -m)" in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) die "no release archive for the machine $(uname -m); use build-from-source: true" ;;
	esac
	tag="v${version#v}"
	bare="${version#v}"
	url="${url_pattern//\{tag\}/$tag}"
	url="${url//\{version\}/$bare}"
	url="${url//\{os\}/$os}"
	url="${url//\{arch\}/$arch}"
	archive="${url##*/}"
	[ -n "$archive" ] || die "download-url \"$url_pattern\" names no file"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	echo "install.sh: downloading $url" >&2
	curl -fsSL --retry 3 -o "$work/$archive" "$url" || die "download $url failed"
	curl -fsSL --retry 3 -o "$work/checksums.txt" "${url%/*}/checksums.txt" ||
		die "download ${url%/*}/checksums.txt failed"
	# checksums.txt: "<sha256>  <file name>" lines, as sha256sum writes them.
	want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$work/checksums.txt")
	[ -n "$want" ] || die "checksums.txt has no line for $archive"
	got=$(sha256sum "$work/$archive" | awk '{ print $1 }')
	if [ "$got" != "$want" ]; then
		echo "install.sh: checksum mismatch for $archive: checksums.txt says $want, the download is $got" >&2
		exit 3
	fi
	mkdir -p "$work/x"
	tar -xzf "$work/$archive" -C "$work/x" || die "unpack $archive failed"
	bin=$(find "$work/x" -type f -name agent-eval | head -n 1)
	[ -n "$bin" ] || die "$archive holds no agent-eval"
	install -m 0755 "$bin" "$install_dir/agent-eval"
fi

"$install_dir/agent-eval" version >&2 || die "the installed agent-eval does not run"
if [ -n "${GITHUB_PATH:-}" ]; then
	echo "$install_dir" >>"$GITHUB_PATH"
fi
echo "$install_dir"
