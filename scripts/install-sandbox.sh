#!/usr/bin/env bash
# Installs what Claude Code's OS sandbox needs — bubblewrap and socat — and
# checks that bubblewrap can start a sandbox here. agent-eval turns the
# sandbox on when an eval denies a path to Bash (docs/security.md "Sandbox"), and `run`
# refuses to start such an eval without it. Idempotent: does nothing when
# both are there. Installs with apt-get when run as root on Debian/Ubuntu;
# elsewhere it prints the command to run and exits 1.
set -euo pipefail

if ! command -v bwrap >/dev/null || ! command -v socat >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing bubblewrap and socat" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap socat >/dev/null
	else
		echo "install-sandbox: bubblewrap and socat are needed: sudo apt-get install bubblewrap socat" >&2
		echo "  (Fedora: dnf install bubblewrap socat; Alpine: apk add bubblewrap socat; Arch: pacman -S bubblewrap socat)" >&2
		exit 1
	fi
fi
# What agent-eval's preflight runs too: a sandbox with its own network and pids.
if ! bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net --unshare-pid --die-with-parent true; then
	echo "install-sandbox: bwrap is installed but cannot start a sandbox here (it needs unprivileged user namespaces, or root)" >&2
	exit 1
fi
echo "bubblewrap and socat ready" >&2
