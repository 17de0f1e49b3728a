#!/usr/bin/env bash
# Installs the pinned Harbor (PyPI harbor) into a git-ignored virtual
# environment and prints the path of its harbor command on stdout.
# Idempotent: does nothing when that version is already there. Progress goes
# to stderr. The tests that run `harbor run` on exported tasks use it; the
# product never runs Python itself.
#
#   HARBOR_BIN=$(scripts/install-harbor.sh)
#
# Environment: HARBOR_VERSION (default: scripts/harbor.version),
# HARBOR_PYTHON (an interpreter, 3.12 or newer), AGENT_EVAL_CACHE (default
# <repo>/.cache). See scripts/pyvenv.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/pyvenv.sh"
pyvenv_install harbor "${HARBOR_VERSION:-$(cat "$here/harbor.version")}" harbor HARBOR_PYTHON
