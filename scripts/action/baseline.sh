#!/usr/bin/env bash
# Finds the base branch's run for the GitHub Action (action.yml): BASELINE
# is a scored run directory, used as it is, or the name of the artifact an
# earlier workflow run on the base branch uploaded it as; the newest such
# artifact that has not expired is downloaded (gh api) and unpacked. The
# run directory is printed on stdout; none found is a warning and an empty
# line (the run is then scored without a baseline).
#
# Usage: baseline.sh BASELINE
# Environment: GH_TOKEN, GITHUB_REPOSITORY, GITHUB_BASE_REF (else
# GITHUB_REF_NAME), RUNNER_TEMP.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: baseline.sh BASELINE (a run directory or an artifact name)" >&2
	exit 2
fi
if [ -d "$1" ]; then
	(cd "$1" && pwd)
	exit 0
fi
name="$1"
case "$name" in
*[!A-Za-z0-9._-]*)
	echo "baseline.sh: \"$name\" is neither a folder nor an artifact name" >&2
	exit 2
	;;
esac
repo="${GITHUB_REPOSITORY:?baseline.sh: GITHUB_REPOSITORY is not set}"
branch="${GITHUB_BASE_REF:-${GITHUB_REF_NAME:-}}"
case "$branch" in
'' | *'"'* | *'\'*)
	echo "baseline.sh: no usable base branch name (\"$branch\")" >&2
	exit 2
	;;
esac
dest="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/agent-eval/baseline"

none() {
	echo "::warning title=agent-eval::no baseline: $*" >&2
	echo ""
	exit 0
}

# Artifacts come newest first.
id=$(gh api "repos/$repo/actions/artifacts?name=$name&per_page=100" \
	--jq "[.artifacts[] | select(.expired | not) | select(.workflow_run.head_branch == \"$branch\") | .id] | .[0] // empty") ||
	none "could not list the artifacts named $name"
[ -n "$id" ] || none "no artifact $name from branch $branch"
rm -rf "$dest"
mkdir -p "$dest"
gh api "repos/$repo/actions/artifacts/$id/zip" >"$dest.zip" || none "could not download artifact $id"
unzip -q -o "$dest.zip" -d "$dest" || none "could not unpack artifact $id"
rm -f "$dest.zip"
echo "baseline.sh: baseline is artifact $name ($id) of branch $branch" >&2
echo "$dest"
