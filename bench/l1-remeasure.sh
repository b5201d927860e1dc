#!/bin/bash
# Issue 19 item 7 (vector p50 at 1M x 384) and item 4's lexical p99 at 1M
# chunks, each beside its baseline in one run, alternating:
#  - vector: TestScanVariants (the Go loop, the scan loop before the
#    prefetch hint, the full scan of 4157f76 and the coarse lists now),
#    p50/p90/p99 and recall@10, the lists' build time and resident memory;
#    then the lists on real vectors (TestListsRealRecall on a copy of
#    /tmp/hb50's 105k USE-lite vectors) and on hybridbench's synthetic 1M
#    lane with real query embeddings (lists against the full scan,
#    alternating, recall@10 of both; HYBRID=0 skips it);
#  - lexical: the kept 1M-chunk index as it is after cairnbench's edit sync
#    (8 full-text segments, tombstones) against an optimized copy of it,
#    one lextail binary, thread CPU and wall by query kind, hits compared.
# Needs /tmp/l1big (read only: copied to WORK, about 1.4 GB, removed at the
# end). Writes under WORK (default /tmp/l1r).
#
#   bench/l1-remeasure.sh        # from the repository root
#
# VECTOR=0 or LEXICAL=0 skips one; QUERIES (lexical, default 2000).
set -eu
WORK=${WORK:-/tmp/l1r} QUERIES=${QUERIES:-2000}
IX=/tmp/l1big/n480000/home/agents/default NOTES=/tmp/l1big/n480000/notes
mkdir -p "$WORK"
if [ "${VECTOR:-1}" != 0 ]; then
  echo "== item 7: vector search 1M x 384, load $(cut -d' ' -f1-3 /proc/loadavg)"
  CAIRN_VECTOR_AB=1000000 nice -n 10 go test -count=1 -run TestScanVariants -v -timeout 0 ./vector/ | grep 'n=1000000'
  echo "   load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  cp /tmp/hb50/data/vectors.bin "$WORK/real.bin"
  CAIRN_VECTOR_REAL=$WORK/real.bin nice -n 10 go test -count=1 -run TestListsRealRecall -v -timeout 0 ./vector/ | grep -v '^='
  rm -f "$WORK"/real.bin*
  if [ "${HYBRID:-1}" != 0 ]; then
    echo "== item 7: synthetic 1M lane (hybridbench), lists against the full scan, load $(cut -d' ' -f1-3 /proc/loadavg)"
    rm -rf "$WORK/hb" && cp -r /tmp/hb50/data "$WORK/hb" && rm -f "$WORK/hb/sync.lock"
    go build -tags sqlite_fts5 -o "$WORK/hybridbench" ./bench/cmd/hybridbench
    nice -n 10 "$WORK/hybridbench" -out /tmp/hb50 -data "$WORK/hb" -shared ../shared -modes hybrid -queries 500 -synthetic 1000000
    rm -rf "$WORK/hb"
    echo "   load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  fi
fi
if [ "${LEXICAL:-1}" != 0 ]; then
  go build -tags sqlite_fts5 -o "$WORK/lextail" ./bench/cmd/lextail
  rm -rf "$WORK/optimized" && cp -r "$IX" "$WORK/optimized"
  "$WORK/lextail" -index "$WORK/optimized" -merge optimize
  echo "== item 4: lexical at 1M chunks, as synced against optimized, load $(cut -d' ' -f1-3 /proc/loadavg)"
  nice -n 10 "$WORK/lextail" -before "$WORK/lextail" -after "$WORK/lextail" -index "$IX" \
    -index-after "$WORK/optimized" -notes "$NOTES" -queries "$QUERIES"
  echo "   load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  rm -rf "$WORK/optimized"
fi
