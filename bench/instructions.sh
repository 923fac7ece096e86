#!/usr/bin/env bash
# Instructions the waymark process executes per step (user space, every thread), counted by
# valgrind's callgrind: repeatable whatever else the machine does, unlike time. Two runs of
# the bench's workload after the same warm-up, 3,000 and 9,000 steps; the difference over
# 6,000 is the steady per-step count (±5% from garbage collection and the JIT's threads).
# The database server's own work is not counted. About 2 minutes.
#
#   bench/instructions.sh [database-url]     default: a SQLite file in a temporary folder
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install -y valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
url=${1:-sqlite:$tmp/instructions.db}
count() {
  valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=/dev/null \
    node -r @swc-node/register bench/instructionsChild.ts "$url" "$1" 2>&1 |
    sed -n 's/.*Collected : //p'
}
count 3000 >"$tmp/a" &
count 9000 >"$tmp/b"
wait
a=$(cat "$tmp/a") b=$(cat "$tmp/b")
[ -n "$a" ] && [ -n "$b" ] || { echo "a child failed" >&2; exit 1; }
echo "$url: $(((b - a) / 6000)) instructions per step"
