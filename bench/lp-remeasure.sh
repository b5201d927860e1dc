#!/bin/bash
# Issue 19 item 4, lexical p99 at 1M chunks with pair tokens for the
# index's own frequent words (bench/RESULTS.md, "SQLite lexical p99 at 1M
# chunks: pair tokens for the index's own frequent words"), beside its
# baseline in one run. lextail is built from two revisions (git archive),
# then:
#  1. each build opens a copy of the kept 1M index and does what serve
#     does with it in idle time (lextail -merge idle: IdleMergeDue, then
#     MergeStep back to back: a build with pair lists first finds the
#     index's frequent terms drifted from its pair list, rebuilds the
#     table with them in bounded steps, swaps it in, empties the old table
#     in steps where it retires it, and merges), timed: the check, steps by
#     kind (rebuild, swap, drop, merge) with wall and thread CPU, the
#     slowest steps, pages in use. BASE's lextail is built with NEW's
#     bench/cmd/lextail over BASE's packages (LT_BASE=own: BASE's own), so
#     both print the steps by kind;
#  2. lextail A/B of the two copies: every query to both sides in random
#     order, wall and thread-CPU p50/p99 by kind, and how many queries got
#     other hits;
#  3. when DOCS exists (default /tmp/i1docs, bench/i1-remeasure.sh's docs
#     corpus), what pairing costs a write: the docs index (built once with
#     NEW's indexbench) rebuilt in one transaction with GramWords alone
#     and with its own top PAIRS words (lextail -pairs 0 / -pairs N),
#     alternating three times: thread CPU, leaf pages, pages in use.
# Needs /tmp/l1big (cairnbench -sizes 480000 -queries 2000 -out
# /tmp/l1big; read only: copied twice under WORK, 2.6 GB, removed at the
# end). On a quiet 2-core machine about 25 minutes (the NEW rebuild is
# about 150 s CPU, the A/B about 5 minutes); at a load of 30, an hour.
#
#   bench/lp-remeasure.sh [BASE [NEW]]     # default 1df441c and HEAD
#
# QUERIES (default 2000), WORK (default /tmp/lpr), DOCS, PAIRS (default 100),
# LT_BASE (new or own), SKIP_DOCS=1 leaves step 3 out.
set -eu
BASE=${1:-1df441c} NEW=${2:-HEAD}
WORK=${WORK:-/tmp/lpr} QUERIES=${QUERIES:-2000} DOCS=${DOCS:-/tmp/i1docs} PAIRS=${PAIRS:-100}
IX=/tmp/l1big/n480000/home/agents/default NOTES=/tmp/l1big/n480000/notes
rm -rf "$WORK" && mkdir -p "$WORK"
for side in base new; do
  rev=$BASE; [ $side = new ] && rev=$NEW
  mkdir -p "$WORK/src-$side"
  git archive "$rev" | tar -x -C "$WORK/src-$side"
  if [ $side = base ] && [ "${LT_BASE:-new}" = new ]; then
    rm -rf "$WORK/src-base/bench/cmd/lextail"
    mkdir -p "$WORK/src-base/bench/cmd/lextail"
    git archive "$NEW" bench/cmd/lextail | tar -x -C "$WORK/src-base"
  fi
  (cd "$WORK/src-$side" && nice -n 10 go build -tags sqlite_fts5 -o "$WORK/lt-$side" ./bench/cmd/lextail)
  echo "lextail $side: $(git rev-parse --short "$rev")"
done
load() { cut -d' ' -f1-3 /proc/loadavg; }
for side in base new; do
  cp -r "$IX" "$WORK/$side"
  echo "== 1. $side opens the index and does serve's idle-time work, load $(load)"
  nice -n 10 "$WORK/lt-$side" -index "$WORK/$side" -merge idle | cut -c1-400
  echo "   load after $(load)"
done
echo "== 2. $BASE against $NEW, each after its idle-time work, load $(load)"
nice -n 10 "$WORK/lt-new" -before "$WORK/lt-base" -after "$WORK/lt-new" -index "$WORK/base" \
  -index-after "$WORK/new" -notes "$NOTES" -queries "$QUERIES"
rm -rf "$WORK/base" "$WORK/new"
if [ -d "$DOCS" ] && [ -z "${SKIP_DOCS:-}" ]; then
  echo "== 3. the docs corpus rebuilt with GramWords alone and with its own top $PAIRS, load $(load)"
  (cd "$WORK/src-new" && go build -tags sqlite_fts5 -o "$WORK/ib" ./bench/cmd/indexbench)
  nice -n 10 "$WORK/ib" -dir "$DOCS" -index "$WORK/docs" -noop 0 >/dev/null
  for i in 1 2 3; do
    for n in 0 "$PAIRS"; do
      rm -rf "$WORK/dc" && cp -r "$WORK/docs" "$WORK/dc"
      echo "-- pairs $n, load $(load)"
      nice -n 10 "$WORK/lt-new" -index "$WORK/dc" -pairs "$n" | grep -v '^  '
    done
  done
fi
echo "   load at the end $(load)"
rm -rf "$WORK"
