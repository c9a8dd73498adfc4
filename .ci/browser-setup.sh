#!/usr/bin/env bash
# Installs Debian's Chromium for the demo's real-browser test (apps/demo). Idempotent: does
# nothing when /usr/bin/chromium is already there. Run as root; never downloads a browser build
# of its own (playwright-core drives this system Chromium).
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "::: chromium present: $(/usr/bin/chromium --version 2>/dev/null || echo unknown version)"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "::: /usr/bin/chromium is missing and installing it needs root (apt-get install chromium)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "::: installing chromium from Debian's packages"
# One apt at a time: the demo and store-postgres tests may both install at once under turbo.
exec 9>/tmp/toolnexus-apt.lock
flock 9
apt-get update -q
apt-get install -y -q --no-install-recommends chromium

if [ ! -x /usr/bin/chromium ]; then
  echo "::: apt-get finished but /usr/bin/chromium is still missing" >&2
  exit 1
fi
echo "::: chromium installed: $(/usr/bin/chromium --version 2>/dev/null || echo unknown version)"
