#!/usr/bin/env bash
# Issue 19 item 4, indexing growth, beside a baseline (bench/RESULTS.md,
# "Indexing growth"): builds indexbench and growbench from BASE and from the
# working tree, then alternates them.
#
#   bench/growth.sh BASE [ROUNDS]          # no-op syncs at 480,000 files (BASE 28a0aac this round; about 5 minutes)
#   COPY=once bench/growth.sh BASE 3       # the same on one copy of the index a build
#   FIRST=1 bench/growth.sh BASE 1         # also first index at 48k and 480k notes (about an hour on a quiet machine)
#   NOOP=0 INTO=1 bench/growth.sh BASE 2   # only: 20,000 new notes into an empty index and into the 1M index
#
# No-op: a fresh copy of L1's 1M-chunk index (/tmp/l1big, never written) per
# run, `indexbench -fresh=false -corpus bench -noop 2`, one JSON line each
# (firstSeconds includes opening the index; userSeconds + sysSeconds are the
# process's CPU during the first no-op, noopCPUSeconds that of each later one; runs at
# nice NICE, 10 unless set; the new build's copy is migrated first, see below). FIRST: growbench first indexes of gencorpus seed 1 at
# 48,000 notes (about 100k chunks) and the 480,000 of /tmp/l1big/n480000/notes
# (BIG_NOTES; 1M chunks), base and new one after the other, one at a time. INTO: the same
# 20,000 new notes (gencorpus seed 7, about 42,000 chunks) synced as a second
# corpus into an empty index and into a fresh copy of the 1M-chunk index,
# base and new alternating, under perf stat (page writes and reads). NOOP=0
# skips the no-op rounds. Disk: about 4.5 GB under WORK while it runs.
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
cp "$repo/bench/cmd/indexbench/main.go" "$work/base-src/bench/cmd/indexbench/" # (noopCPUSeconds)
rm -rf "$work/base-src/bench/procstat" && cp -r "$repo/bench/procstat" "$work/base-src/bench/" # the meters read load and peak RSS through it (94a7116)
for v in base new; do
  src=$repo
  [ $v = base ] && src=$work/base-src
  (cd "$src" && go build -tags sqlite_fts5 -o "$work/ib-$v" ./bench/cmd/indexbench &&
    go build -tags sqlite_fts5 -o "$work/gb-$v" ./bench/cmd/growbench)
done
load() { cut -d' ' -f1-3 /proc/loadavg; }
# The new build's copy of the 1M index, migrated once (an index of an older
# schema is migrated at open: schema 12, about 36 s CPU at 1M chunks, which
# must not count as a no-op or as indexing); each run copies it. The base
# build's runs copy /tmp/l1big itself.
rm -rf "$work/big-new" && cp -a /tmp/l1big/n480000/home/agents/default "$work/big-new"
echo "migrate the new build's copy, load $(load)"
"$work/gb-new" -dir /tmp/l1big/n480000/notes -index "$work/big-new" -fresh=false -corpus bench -open
copyof() { if [ "$1" = new ]; then echo "$work/big-new"; else echo /tmp/l1big/n480000/home/agents/default; fi; }
# COPY=once: one copy a build for every round (a no-op sync writes nothing),
# instead of a fresh copy a run: 1.6 GB less written, and no writeback of
# the copy during the next run.
if [ "${COPY:-}" = once ]; then
  for v in base new; do rm -rf "$work/ix-$v" && cp -a "$(copyof $v)" "$work/ix-$v"; done
fi
for r in $(seq "$rounds"); do
  [ "${NOOP:-1}" = 0 ] && break
  for v in base new; do
    ix=$work/ix
    if [ "${COPY:-}" = once ]; then
      ix=$work/ix-$v
    else
      rm -rf "$ix" && cp -a "$(copyof $v)" "$ix"
    fi
    echo "noop $v round $r load $(load)"
    nice -n "${NICE:-10}" "$work/ib-$v" -dir /tmp/l1big/n480000/notes -index "$ix" -fresh=false -corpus bench -noop 2
  done
done
rm -rf "$work/ix" "$work/ix-base" "$work/ix-new"
if [ "${INTO:-}" = 1 ]; then
  extra=$work/extra
  [ -d "$extra" ] || (cd "$repo" && go run ./bench/cmd/gencorpus -out "$extra" -notes 20000 -seed 7)
  for r in $(seq "$rounds"); do
    for v in base new; do
      for into in empty 1m; do
        rm -rf "$work/ix"
        fresh=true
        if [ $into = 1m ]; then
          fresh=false
          cp -a "$(copyof $v)" "$work/ix"
        fi
        echo "into $into $v round $r load $(load)"
        perf stat -x, -o "$work/perf.txt" -e syscalls:sys_enter_pwrite64,syscalls:sys_enter_pread64 \
          nice -n 10 "$work/gb-$v" -dir "$extra" -index "$work/ix" -fresh=$fresh -corpus extra -every 600s | tail -1
        grep -o 'sys_enter_p[a-z0-9]*' "$work/perf.txt" >/dev/null && awk -F, '/sys_enter/ {printf "%s %s  ", $3, $1} END {print ""}' "$work/perf.txt"
      done
    done
  done
  rm -rf "$work/ix"
fi
rm -rf "$work/big-new"
if [ "${FIRST:-}" = 1 ]; then
  [ -d "$work/n48000" ] || (cd "$repo" && go run ./bench/cmd/gencorpus -out "$work/n48000" -notes 48000 -seed 1)
  for dir in "$work/n48000" "${BIG_NOTES:-/tmp/l1big/n480000/notes}"; do
    for v in base new; do
      echo "first $v $dir load $(load)"
      nice -n 10 "$work/gb-$v" -dir "$dir" -index "$work/first" -every 120s
      rm -rf "$work/first"
    done
  done
fi
