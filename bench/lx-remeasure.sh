#!/bin/bash
# Issue 19 item 4, lexical p99 at 1M chunks, beside its baseline in one run
# (bench/RESULTS.md, "Lexical p99 at 1M chunks: scan order and idle
# merging"). lextail is built from two revisions (git archive); each A/B
# sends every query to both sides in random order and prints wall and
# thread-CPU p50/p99 by query kind and how many queries got other hits:
#  1. BASE and NEW over the kept index as cairnbench's edit sync left it
#     (8 full-text segments, 9,969 tombstones): the scan order alone;
#  2. BASE over that index against NEW over a copy merged the way serve's
#     idle-time maintenance merges it (lextail -merge idle: MergeStep's
#     256-page steps back to back, with their count, time and CPU).
# Needs /tmp/l1big (read only: copied twice under WORK, 2.8 GB, removed at
# the end). About 10 minutes at a load of 20 on two cores.
#
#   bench/lx-remeasure.sh [BASE [NEW]]     # default 4157f76 and HEAD
#
# QUERIES (default 2000), WORK (default /tmp/lxr).
set -eu
BASE=${1:-4157f76} NEW=${2:-HEAD}
WORK=${WORK:-/tmp/lxr} QUERIES=${QUERIES:-2000}
IX=/tmp/l1big/n480000/home/agents/default NOTES=/tmp/l1big/n480000/notes
rm -rf "$WORK" && mkdir -p "$WORK"
for side in base new; do
  rev=$BASE; [ $side = new ] && rev=$NEW
  mkdir -p "$WORK/src-$side"
  git archive "$rev" | tar -x -C "$WORK/src-$side"
  (cd "$WORK/src-$side" && go build -tags sqlite_fts5 -o "$WORK/lt-$side" ./bench/cmd/lextail)
  echo "lextail $side: $(git rev-parse --short "$rev")"
done
cp -r "$IX" "$WORK/synced"
cp -r "$IX" "$WORK/merged"
echo "== idle-time merge of a copy, load $(cut -d' ' -f1-3 /proc/loadavg)"
nice -n 10 "$WORK/lt-new" -index "$WORK/merged" -merge idle
echo "== 1. scan order: $BASE against $NEW, both as synced, load $(cut -d' ' -f1-3 /proc/loadavg)"
nice -n 10 "$WORK/lt-new" -before "$WORK/lt-base" -after "$WORK/lt-new" -index "$WORK/synced" \
  -notes "$NOTES" -queries "$QUERIES"
echo "== 2. $BASE as synced against $NEW merged in idle time, load $(cut -d' ' -f1-3 /proc/loadavg)"
nice -n 10 "$WORK/lt-new" -before "$WORK/lt-base" -after "$WORK/lt-new" -index "$WORK/synced" \
  -index-after "$WORK/merged" -notes "$NOTES" -queries "$QUERIES"
echo "   load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$WORK"
