#!/usr/bin/env bash
# Instructions the waymark process executes per step (user space, every thread), counted by
# valgrind's callgrind: repeatable whatever else the machine does, unlike time. Two runs of
# the bench's workload after the same warm-up, 3,000 and 9,000 steps; the difference over
# 6,000 is the steady per-step count. The database server's own work is not counted.
# About 2 minutes.
#
# What made it repeatable (the same code once read anywhere from 54k to 99k):
# - V8's predictable mode: no background compiler or GC threads, a fixed GC schedule, fixed
#   seeds;
# - a TypeScript transform cache of its own, filled before counting, so neither child
#   transforms a file the other found cached;
# - on SQLite, a file for each child, so neither waits on the other's lock.
#
# With a number of runs (C) after the URL, the steps are split over C runs started at once,
# whose checkpoints share group commits: the process's instructions per step at C. The
# batches then form as valgrind's slowed process meets the database, so such counts agree
# from run to run less closely than the sequential one does.
#
#   bench/instructions.sh [database-url [runs]]     default: SQLite files in a temporary folder, 1 run
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install -y valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SWC_NODE_CACHE_DIR=$tmp/transforms
predictable=(--single-threaded --predictable-gc-schedule --hash-seed=1 --random-seed=1)
database() { echo "${1:-sqlite:$tmp/$2.db}"; }
runs=${2:-1}
node "${predictable[@]}" -r @swc-node/register bench/instructionsChild.ts "$(database "${1:-}" warm)" 0 "$runs"
count() {
  valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=/dev/null \
    node "${predictable[@]}" -r @swc-node/register bench/instructionsChild.ts "$2" "$1" "$runs" 2>&1 |
    sed -n 's/.*Collected : //p'
}
count 3000 "$(database "${1:-}" a)" >"$tmp/a" &
count 9000 "$(database "${1:-}" b)" >"$tmp/b"
wait
a=$(cat "$tmp/a") b=$(cat "$tmp/b")
[ -n "$a" ] && [ -n "$b" ] || { echo "a child failed" >&2; exit 1; }
# The steps each child ran in all: its count split over the runs, each rounded as the child does.
steps() { echo $((runs * ((2 * $1 + runs) / (2 * runs)))); }
echo "${1:-SQLite file}${2:+, $2 runs at once}: $(((b - a) / ($(steps 9000) - $(steps 3000)))) instructions per step"
