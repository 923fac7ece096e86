#!/usr/bin/env bash
# Run by `npm test` (pretest): the console's browser test drives Debian's Chromium, which a
# fresh machine lacks. Installs it from Debian's packages when it is missing and we may.
set -euo pipefail
CHROMIUM=/usr/bin/chromium
[ -x "$CHROMIUM" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "pretest: installing Debian's chromium for the console's browser test" >&2
  apt-get install -y chromium >/dev/null 2>&1 ||
    { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
  exit 0
fi
echo "pretest: no Chromium at $CHROMIUM; install it (Debian: sudo apt-get install -y chromium)" >&2
exit 1
