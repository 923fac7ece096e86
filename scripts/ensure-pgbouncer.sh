#!/usr/bin/env bash
# Run by `npm test` (pretest): test/integration/pgbouncer.test.ts runs waymark through a real
# PgBouncer in transaction mode, which a fresh machine lacks. The suite starts a private
# pgbouncer of its own (test/support/Pgbouncer.ts: its own port, its own ini, stopped when jest
# ends); this script only makes sure the program is there.
#   - pgbouncer on PATH or in /usr/sbin: nothing to do;
#   - missing, as root with apt-get: installs Debian's package (apt-get update only when the
#     install fails), then stops and disables the system service the package may have
#     started on port 6432, so that nothing outlives the tests;
#   - missing otherwise: fails, saying how to install it. The suite is never skipped.
#
#   scripts/ensure-pgbouncer.sh [--dry-run]   # --dry-run prints what it would do, changes nothing
set -euo pipefail

DRY_RUN=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    *) echo "usage: $0 [--dry-run]" >&2; exit 2 ;;
  esac
done

say() { echo "ensure-pgbouncer: $*" >&2; }
# Runs a command quietly, or with --dry-run prints it.
act() {
  if [ "$DRY_RUN" = 1 ]; then
    echo "would run: $*" >&2
  else
    "$@" >/dev/null 2>&1
  fi
}

installed() { command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ]; }

# The package's service, if the install started one: stopped now and at every boot.
stop_system_service() {
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    act systemctl disable --now pgbouncer.service || true
  elif [ -x /etc/init.d/pgbouncer ]; then
    act /etc/init.d/pgbouncer stop || true
    if command -v update-rc.d >/dev/null; then act update-rc.d pgbouncer disable || true; fi
  fi
}

installed && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  say "pgbouncer is not installed; the PgBouncer suite needs it: sudo apt-get install -y pgbouncer (Debian/Ubuntu), or put pgbouncer on PATH"
  exit 1
fi
say "installing Debian's pgbouncer for the PgBouncer suite"
if [ "$DRY_RUN" = 1 ]; then
  echo "would run: apt-get install -y pgbouncer (after apt-get update if that fails)" >&2
else
  DEBIAN_FRONTEND=noninteractive apt-get install -y pgbouncer >/dev/null 2>&1 ||
    { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y pgbouncer >/dev/null; }
fi
stop_system_service
[ "$DRY_RUN" = 1 ] || installed || { say "apt-get installed pgbouncer, yet there is no pgbouncer program"; exit 1; }
