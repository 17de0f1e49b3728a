#!/usr/bin/env bash
# Posts a run's verdict as one comment on the pull request, for the GitHub
# Action (action.yml): the comment carrying the marker <!-- agent-eval -->
# is updated (PATCH) when there is one, else created, so a pull request
# gets one comment however often it is pushed to. The body is
# agent-eval report --format markdown (which, for a run scored with a
# baseline, already says what got better or worse against it).
#
# Usage: comment.sh RUN_DIR
# Environment: GH_TOKEN (gh's), GITHUB_REPOSITORY (owner/name), and the
# pull request's number in AGENT_EVAL_PR or else from GITHUB_REF
# (refs/pull/N/merge). A token that may not comment (a fork's) is a
# warning, not a failure.
set -euo pipefail

marker='<!-- agent-eval -->'
if [ $# -ne 1 ]; then
	echo "usage: comment.sh RUN_DIR" >&2
	exit 2
fi
run_dir="$1"
repo="${GITHUB_REPOSITORY:?comment.sh: GITHUB_REPOSITORY is not set}"
pr="${AGENT_EVAL_PR:-}"
if [ -z "$pr" ]; then
	case "${GITHUB_REF:-}" in
	refs/pull/*/merge | refs/pull/*/head)
		pr="${GITHUB_REF#refs/pull/}"
		pr="${pr%/*}"
		;;
	esac
fi
case "$pr" in
'' | *[!0-9]*)
	echo "comment.sh: not a pull request (GITHUB_REF=${GITHUB_REF:-}); no comment" >&2
	exit 0
	;;
esac

body=$(mktemp)
trap 'rm -f "$body"' EXIT
{
	echo "$marker"
	agent-eval report --format markdown "$run_dir"
} >"$body"

warn() {
	echo "::warning title=agent-eval::$*"
	exit 0
}

# The first of our comments, by the marker; --paginate walks every page
# (the filter is applied to each, so a line a page at most).
id=$(gh api --paginate "repos/$repo/issues/$pr/comments" \
	--jq "[.[] | select(.body | startswith(\"$marker\")) | .id] | .[0] // empty" | sed -n 1p) ||
	warn "could not list the comments of pull request $pr"
if [ -n "$id" ]; then
	gh api --method PATCH "repos/$repo/issues/comments/$id" -F "body=@$body" >/dev/null ||
		warn "could not update comment $id on pull request $pr"
	echo "comment.sh: updated comment $id on pull request $pr" >&2
else
	gh api --method POST "repos/$repo/issues/$pr/comments" -F "body=@$body" >/dev/null ||
		warn "could not comment on pull request $pr"
	echo "comment.sh: commented on pull request $pr" >&2
fi
