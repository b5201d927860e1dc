#!/bin/bash
# Issue 19 item 4, lexical p99 at 1M chunks, beside its baseline in one run
# (bench/RESULTS.md, "Lexical p99 at 1M chunks: scan order and idle
# merging"). lextail is built from two revisions (git archive); each A/B
# sends every query to both sides in random order and prints wall and
# thread-CPU p50/p99 by query kind and how many queries got other hits:
#  1. BASE and NEW, each over its own copy of the kept index as
#     cairnbench's edit sync left it (8 full-text segments, 9,969
#     tombstones): the scan order (and whatever else NEW changed);
#  2. the same after NEW's copy is merged the way serve's idle-time
#     maintenance merges it (lextail -merge idle: MergeStep's 256-page
#     steps back to back, with their count, time and CPU).
# Needs /tmp/l1big (read only: copied twice under WORK, 2.8 GB, removed at
# the end). About 10 minutes on a quiet machine, 25 at a load of 40.
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
# Each build searches a copy of its own: a newer build migrates the index
# it opens (schema 12 keys content by id), which the base build refuses.
cp -r "$IX" "$WORK/base"
cp -r "$IX" "$WORK/new"
echo "== 1. scan order: $BASE against $NEW, both as synced, load $(cut -d' ' -f1-3 /proc/loadavg)"
nice -n 10 "$WORK/lt-new" -before "$WORK/lt-base" -after "$WORK/lt-new" -index "$WORK/base" \
  -index-after "$WORK/new" -notes "$NOTES" -queries "$QUERIES"
echo "== idle-time merge of the new build's copy, load $(cut -d' ' -f1-3 /proc/loadavg)"
nice -n 10 "$WORK/lt-new" -index "$WORK/new" -merge idle
echo "== 2. $BASE as synced against $NEW merged in idle time, load $(cut -d' ' -f1-3 /proc/loadavg)"
nice -n 10 "$WORK/lt-new" -before "$WORK/lt-base" -after "$WORK/lt-new" -index "$WORK/base" \
  -index-after "$WORK/new" -notes "$NOTES" -queries "$QUERIES"
echo "   load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$WORK"
