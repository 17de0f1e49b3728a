#!/usr/bin/env bash
# Installs python3 with its venv module for the tests of check judges and
# Python exec judges (internal/score, the score_upstream_checks script),
# which fail in CI (CI=true) without them. Idempotent: does nothing when
# the python3 on PATH imports venv and ensurepip. Installs Debian's python3
# and python3-venv with apt-get when run as root on Debian/Ubuntu;
# elsewhere it prints what to install and exits 1.
set -euo pipefail

ready() {
	command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null
}

if ! ready; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing python3 and python3-venv" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null
	else
		echo "install-python: the judges' tests need python3 with its venv module: sudo apt-get install python3 python3-venv" >&2
		echo "  (Fedora: dnf install python3; Alpine: apk add python3; macOS: brew install python)" >&2
		exit 1
	fi
fi
if ! ready; then
	echo "install-python: $(command -v python3 || echo python3) cannot import venv and ensurepip after the install (is another python3 first on PATH?)" >&2
	exit 1
fi
echo "python3 ready: $(command -v python3) ($(python3 --version 2>&1))" >&2
