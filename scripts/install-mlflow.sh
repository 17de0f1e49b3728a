#!/usr/bin/env bash
# Installs the pinned MLflow (PyPI mlflow) into a git-ignored virtual
# environment and prints the path of its mlflow command on stdout.
# Idempotent: does nothing when that version is already there. Progress goes
# to stderr. The tests that log runs and traces to a real MLflow tracking
# server start it from there; the product never runs Python, it speaks to
# MLflow's REST and OTLP endpoints.
#
#   MLFLOW_BIN=$(scripts/install-mlflow.sh)
#
# Environment: MLFLOW_VERSION (default: scripts/mlflow.version),
# MLFLOW_PYTHON (an interpreter, 3.12 or newer), AGENT_EVAL_CACHE (default
# <repo>/.cache). See scripts/pyvenv.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/pyvenv.sh"
pyvenv_install mlflow "${MLFLOW_VERSION:-$(cat "$here/mlflow.version")}" mlflow MLFLOW_PYTHON
