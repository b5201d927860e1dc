#!/usr/bin/env bash
# Issue 19 item 4, indexing growth, beside a baseline (bench/RESULTS.md,
# "Indexing growth"): builds indexbench and growbench from BASE and from the
# working tree, then alternates them.
#
#   bench/growth.sh BASE [ROUNDS]          # no-op syncs at 480,000 files
#   FIRST=1 bench/growth.sh BASE 1         # also first index at 48k and 480k notes (about an hour on a quiet machine)
#
# No-op: a fresh copy of L1's 1M-chunk index (/tmp/l1big, never written) per
# run, `indexbench -fresh=false -corpus bench -noop 2`, one JSON line each
# (firstSeconds includes opening the index; userSeconds + sysSeconds are the
# process's CPU). FIRST: growbench first indexes of gencorpus seed 1 at
# 48,000 notes (about 100k chunks) and the 480,000 of /tmp/big1m/notes (1M
# chunks), base and new one after the other, one at a time.
set -euo pipefail
base=${1:?usage: bench/growth.sh BASE [ROUNDS]}
rounds=${2:-3}
work=${WORK:-/tmp/growth}
repo=$(git rev-parse --show-toplevel)
mkdir -p "$work"
rm -rf "$work/base-src" && mkdir -p "$work/base-src"
git -C "$repo" archive "$base" | tar -x -C "$work/base-src"
mkdir -p "$work/base-src/bench/cmd/growbench"
cp "$repo/bench/cmd/growbench/main.go" "$work/base-src/bench/cmd/growbench/" # the same meter for both
for v in base new; do
  src=$repo
  [ $v = base ] && src=$work/base-src
  (cd "$src" && go build -tags sqlite_fts5 -o "$work/ib-$v" ./bench/cmd/indexbench &&
    go build -tags sqlite_fts5 -o "$work/gb-$v" ./bench/cmd/growbench)
done
load() { cut -d' ' -f1-3 /proc/loadavg; }
for r in $(seq "$rounds"); do
  for v in base new; do
    rm -rf "$work/ix" && cp -a /tmp/l1big/n480000/home/agents/default "$work/ix"
    echo "noop $v round $r load $(load)"
    "$work/ib-$v" -dir /tmp/l1big/n480000/notes -index "$work/ix" -fresh=false -corpus bench -noop 2
  done
done
rm -rf "$work/ix"
if [ "${FIRST:-}" = 1 ]; then
  [ -d "$work/n48000" ] || (cd "$repo" && go run ./bench/cmd/gencorpus -out "$work/n48000" -notes 48000 -seed 1)
  for dir in "$work/n48000" /tmp/big1m/notes; do
    for v in base new; do
      echo "first $v $dir load $(load)"
      nice -n 10 "$work/gb-$v" -dir "$dir" -index "$work/first" -every 120s
      rm -rf "$work/first"
    done
  done
fi
