#!/usr/bin/env bash
# Builds agent-eval's release archives into $DIST (default dist/): for each
# target (default linux and darwin on amd64 and arm64, else the OS/ARCH
# arguments) a static binary (CGO_ENABLED=0, -trimpath, an empty build id,
# no VCS stamp, the version stamped by -X) in
# agent-eval_<version>_<os>_<arch>.tar.gz (the version without a leading v, as
# the GitHub Action downloads it) beside README.md, CHANGELOG.md, docs/,
# LICENSE when there is one, man pages (share/man/man1) and bash, zsh and
# fish completions (share/completions), those generated once by a host
# build of cmd/agent-eval-docs; then $DIST/checksums.txt (SHA-256) and
# $DIST/RELEASE_NOTES.md, the version's CHANGELOG.md section
# (scripts/release-notes.sh: a vX.Y.Z release without one is refused
# before anything is built).
#
# The same commit and Go toolchain give the same bytes: tar entries are
# sorted, owned by 0:0 and dated $SOURCE_DATE_EPOCH (default: the last
# commit's time), modes normalised, gzip stores no name or time. Needs GNU
# tar. `make release` runs it with VERSION from git describe.
#
#   VERSION=v1.2.3 scripts/release.sh [OS/ARCH ...]
#   make release [RELEASE_TARGETS='linux/amd64 linux/arm64']
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
VERSION=${VERSION:?set VERSION, e.g. VERSION=v1.2.3 scripts/release.sh}
DIST=${DIST:-dist}
case "$VERSION" in
*[!A-Za-z0-9._+-]*) echo "release: VERSION=$VERSION: only letters, digits and . _ + - make a file name" >&2; exit 2 ;;
esac
if [ $# -gt 0 ]; then targets=("$@"); else targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64); fi
notes=$(scripts/release-notes.sh "$VERSION") || exit 2
if ! tar --version 2>/dev/null | grep -q 'GNU tar'; then
	echo "release: needs GNU tar (--sort, --mtime, --owner); on macOS: brew install gnu-tar and put gtar first on PATH as tar" >&2
	exit 2
fi
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || echo 0)
fi
# GOAMD64 and GOARM64 are stamped into the binary and change its code: pinned
# to the baseline each architecture's Go release notes promise.
export SOURCE_DATE_EPOCH CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOAMD64=v1 GOARM64=v8.0
ldflags="-buildid= -s -w -X github.com/agent-eval/agent-eval/internal/version.Version=$VERSION"
hostos=$("$GO" env GOHOSTOS) hostarch=$("$GO" env GOHOSTARCH)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$DIST"

echo "release: man pages and completions (host build of cmd/agent-eval-docs)" >&2
GOOS=$hostos GOARCH=$hostarch "$GO" build -trimpath -ldflags "$ldflags" -o "$work/agent-eval-docs" ./cmd/agent-eval-docs
"$work/agent-eval-docs" --man "$work/share/man/man1" --completions "$work/share/completions"

archives=()
for t in "${targets[@]}"; do
	os=${t%/*} arch=${t#*/}
	case "$os/$arch" in
	linux/amd64 | linux/arm64 | darwin/amd64 | darwin/arm64) ;;
	*) echo "release: target $t: want linux/amd64, linux/arm64, darwin/amd64 or darwin/arm64" >&2; exit 2 ;;
	esac
	name="agent-eval_${VERSION#v}_${os}_${arch}"
	stage="$work/stage/$name"
	mkdir -p "$stage"
	echo "release: $name" >&2
	if ! GOOS=$os GOARCH=$arch "$GO" build -trimpath -ldflags "$ldflags" -o "$stage/agent-eval" ./cmd/agent-eval; then
		echo "release: building $name failed (above); no checksums.txt written" >&2
		exit 3
	fi
	if [ "$os/$arch" = "$hostos/$hostarch" ]; then
		got=$("$stage/agent-eval" version)
		case "$got" in
		"agent-eval $VERSION "*) ;;
		*) echo "release: $name: agent-eval version says \"$got\", not $VERSION" >&2; exit 3 ;;
		esac
	fi
	cp README.md CHANGELOG.md "$stage/"
	cp -R docs "$stage/docs"
	if [ -f LICENSE ]; then cp LICENSE "$stage/"; fi
	cp -R "$work/share" "$stage/share"
	tar --sort=name --format=gnu --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
		--mode='u=rwX,go=rX' -C "$work/stage" -cf - "$name" | gzip -n -9 >"$DIST/$name.tar.gz"
	archives+=("$name.tar.gz")
done

cd "$DIST"
if command -v sha256sum >/dev/null; then
	sha256sum "${archives[@]}" >checksums.txt
else
	shasum -a 256 "${archives[@]}" >checksums.txt
fi
printf '%s\n' "$notes" >RELEASE_NOTES.md
echo "release: $(pwd)/checksums.txt, $(pwd)/RELEASE_NOTES.md" >&2
cat checksums.txt
