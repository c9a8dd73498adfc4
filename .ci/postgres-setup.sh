#!/usr/bin/env bash
# Installs Debian's PostgreSQL server binaries for @toolnexus/store-postgres's tests, which start
# throwaway clusters (initdb and pg_ctl in a temp dir, a free port on 127.0.0.1). Idempotent: does
# nothing when some /usr/lib/postgresql/<version>/bin/initdb exists. Run as root, like
# browser-setup.sh.
set -euo pipefail

if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  echo "::: postgresql present: $(ls -d /usr/lib/postgresql/*/bin/initdb | tr '\n' ' ')"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "::: PostgreSQL's server binaries are missing and installing them needs root (apt-get install postgresql)" >&2
  exit 1
fi

echo "::: installing postgresql from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
# One apt at a time: the demo and store-postgres tests may both install at once under turbo.
exec 9>/tmp/toolnexus-apt.lock
flock 9
apt-get update -q
apt-get install -y -q --no-install-recommends postgresql
if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  echo "::: apt-get finished but /usr/lib/postgresql/*/bin/initdb is still missing" >&2
  exit 1
fi
echo "::: postgresql installed: $(ls -d /usr/lib/postgresql/*/bin/initdb | tr '\n' ' ')"
