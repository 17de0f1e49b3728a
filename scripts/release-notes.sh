#!/usr/bin/env bash
# Prints the release notes of VERSION from CHANGELOG.md (or the file given
# second): the body of its `## [X.Y.Z] - YYYY-MM-DD` section. A release
# version (vX.Y.Z exactly) must have that section, dated: without one it
# fails, so nothing is released that the changelog does not describe. Any
# other version (a pre-release, `git describe` output, dev) gets the
# [Unreleased] section, headed as such.
#
#   scripts/release-notes.sh v1.2.3 [CHANGELOG.md]
set -euo pipefail
version=${1:?usage: release-notes.sh VERSION [CHANGELOG]}
changelog=${2:-CHANGELOG.md}
[ -r "$changelog" ] || { echo "release-notes: cannot read $changelog" >&2; exit 2; }

section() { # the lines after the heading `## [$1]...` up to the next `## `
	awk -v want="## [$1]" '
		/^## / { if (on) exit; if (index($0, want) == 1) { on = 1; print; next } }
		on' "$changelog"
}

if [[ $version =~ ^v([0-9]+\.[0-9]+\.[0-9]+)$ ]]; then
	plain=${BASH_REMATCH[1]}
	notes=$(section "$plain")
	if [ -z "$notes" ]; then
		echo "release-notes: $changelog has no section \"## [$plain] - YYYY-MM-DD\" for $version: move the [Unreleased] entries under one before releasing" >&2
		exit 2
	fi
	if ! head -n1 <<<"$notes" | grep -Eq "^## \[$plain\] - [0-9]{4}-[0-9]{2}-[0-9]{2}\$"; then
		echo "release-notes: $changelog: the heading \"$(head -n1 <<<"$notes")\" wants the form \"## [$plain] - YYYY-MM-DD\"" >&2
		exit 2
	fi
	if [ -z "$(tail -n +2 <<<"$notes" | tr -d '[:space:]')" ]; then
		echo "release-notes: $changelog: the section for $version is empty" >&2
		exit 2
	fi
else
	notes=$(section Unreleased)
	[ -n "$notes" ] || { echo "release-notes: $changelog has no [Unreleased] section for the pre-release $version" >&2; exit 2; }
fi
printf '%s\n' "$notes"
