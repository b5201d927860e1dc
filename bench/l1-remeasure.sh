#!/bin/bash
# Issue 19 item 7 (vector p50 at 1M x 384) and item 4's lexical p99 at 1M
# chunks, each beside its baseline in one run, alternating:
#  - vector: TestScanVariants (the scan loop before the prefetch hint, the
#    one now, and the Go loop), p50/p90/p99 and recall@10;
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
