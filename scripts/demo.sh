#!/usr/bin/env bash
# The demo: installs what is missing, builds, and shows offcputime naming
# the function where a bundled workload blocks (20 x 50 ms in
# offcpu_block_here), as folded stacks and as the human report.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
make -s -j2 all
echo
echo "== workload: a thread 'ocpu_blocker' blocks 20 x 50 ms in offcpu_block_here()"
out=$(mktemp)
build/workloads/offcpu_blocker 20 50 300 >"$out" &
sleep 0.1
pid=$(head -1 "$out")
echo "== ./offcputime -p $pid -f   (folded: one line per stack, value in us)"
./offcputime -p "$pid" -f -d 10
wait
echo
build/workloads/offcpu_blocker 10 20 300 >"$out" &
sleep 0.1
pid=$(head -1 "$out")
echo "== ./offcputime -p $pid   (human view; 10 x 20 ms)"
./offcputime -p "$pid" -d 10
wait
rm -f "$out"
