#!/usr/bin/env bash
# Installs Chromium for the test that opens report.html in a headless
# browser (internal/report TestReportInChromium), which fails in CI
# (CI=true) without it. Idempotent: does nothing when a chromium is on PATH.
# Installs Debian's `chromium` with apt-get when run as root on
# Debian/Ubuntu; elsewhere it prints what to install and exits 1. A browser
# elsewhere can be named with CHROMIUM_BIN=/path/to/chrome.
set -euo pipefail

for name in chromium chromium-browser google-chrome google-chrome-stable; do
	if command -v "$name" >/dev/null; then
		echo "chromium ready: $(command -v "$name")" >&2
		exit 0
	fi
done
if [ -n "${CHROMIUM_BIN:-}" ] && [ -x "$CHROMIUM_BIN" ]; then
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "installing chromium" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
	echo "chromium ready: $(command -v chromium)" >&2
	exit 0
fi
echo "install-chromium: the report's browser test needs Chromium: sudo apt-get install chromium" >&2
echo "  (Ubuntu: snap install chromium; Fedora: dnf install chromium; macOS: brew install --cask chromium;" >&2
echo "   or point CHROMIUM_BIN at any Chrome/Chromium binary)" >&2
exit 1
