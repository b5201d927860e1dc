#!/bin/bash
# Issue 19 item 4, engineer fence: the cost of the pair drift check that
# sqlite's IdleMergeDue runs at 1M chunks, exact (every doclist through
# fts5vocab, what BASE does) against sampled (driftSample chunks, what NEW
# does), in one NEW lextail process alternating three times
# (`lextail -terms 300`: thread CPU, the terms in 10% of the chunks on
# each side, the largest share error). NEW's lextail is built from git
# archive; a copy of the kept 1M index is merged into one segment first
# (as serve's idle work leaves it). BASE's build has no sampled count; it
# is checked out only to say which revision the exact side stands for.
# Then bench/fence-check.sh (the schema fence: what 1df441c does with a
# paired index) with NEW.
#
#   bench/fence-remeasure.sh [BASE [NEW]]     # default 28a0aac and HEAD
#
# Needs /tmp/l1big (cairnbench -sizes 480000 -queries 2000 -out /tmp/l1big;
# read only: copied once under WORK, 1.2 GB, removed at the end). WORK
# (default /tmp/fence-remeasure), TERMS (default 300), FENCE=0 skips the
# fence check. About 10 minutes at a load of 30.
set -eu
BASE=${1:-28a0aac} NEW=${2:-HEAD}
WORK=${WORK:-/tmp/fence-remeasure} TERMS=${TERMS:-300}
IX=/tmp/l1big/n480000/home/agents/default
rm -rf "$WORK" && mkdir -p "$WORK/src"
git archive "$NEW" | tar -x -C "$WORK/src"
(cd "$WORK/src" && nice -n 10 go build -tags sqlite_fts5 -o "$WORK/lt" ./bench/cmd/lextail)
echo "lextail: $(git rev-parse --short "$NEW") (exact side = $(git rev-parse --short "$BASE")'s check)"
load() { cut -d' ' -f1-3 /proc/loadavg; }
cp -r "$IX" "$WORK/ix"
echo "== merge the copy into one segment, load $(load)"
nice -n 10 "$WORK/lt" -index "$WORK/ix" -merge optimize | cut -c1-200
echo "== exact against sampled term counts, load $(load)"
nice -n 10 "$WORK/lt" -index "$WORK/ix" -terms "$TERMS"
echo "   load at the end $(load)"
rm -rf "$WORK"
if [ "${FENCE:-1}" != 0 ]; then
  echo "== the schema fence"
  bench/fence-check.sh 1df441c 28a0aac "$NEW"
fi
