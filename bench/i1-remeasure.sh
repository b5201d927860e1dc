#!/bin/bash
# Issue 19 item 3 (first index of the docs corpus) in one run beside its
# baseline: indexbench built from BASE (default 5760e6b, the commit before
# this work) and from the working tree, PAIRS first indexes of DOCS
# alternating (wall, CPU seconds, cores used, load), then one fingerprint
# of each: the chunk lines (chunks and their postings) must be equal; the
# query lines also hold scores, which other changes to ranking move.
#
#   bench/i1-remeasure.sh            # from the repository root
#
# DOCS defaults to /tmp/i1docs (565 Markdown files, 17.8 MB: bench/RESULTS.md
# says how it was made); WORK (default /tmp/i1r) holds builds and indexes.
set -eu
BASE=${BASE:-5760e6b} WORK=${WORK:-/tmp/i1r} DOCS=${DOCS:-/tmp/i1docs} PAIRS=${PAIRS:-3}
mkdir -p "$WORK"
rm -rf "$WORK/src-before" && mkdir -p "$WORK/src-before"
git archive "$BASE" | tar -x -C "$WORK/src-before"
cp bench/cmd/indexbench/*.go "$WORK/src-before/bench/cmd/indexbench/"
(cd "$WORK/src-before" && go build -tags sqlite_fts5 -o "$WORK/ib-before" ./bench/cmd/indexbench)
go build -tags sqlite_fts5 -o "$WORK/ib-after" ./bench/cmd/indexbench
show() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print("%-6s load %5.1f  first %6.2f s  CPU %5.2f s  cores used %.2f  no-op %.3f s" % (sys.argv[1], d["load1"], d["firstSeconds"], d["userSeconds"]+d["sysSeconds"], d["cpuShare"], d["noopSeconds"][0]))' "$1"; }
for i in $(seq "$PAIRS"); do
  for b in before after; do
    "$WORK/ib-$b" -dir "$DOCS" -index "$WORK/ix-$b" -noop 1 -keep=false | show "$b"
  done
done
for b in before after; do
  "$WORK/ib-$b" -dir "$DOCS" -index "$WORK/ix-$b" -noop 0 -keep=false -fingerprint "$WORK/fp-$b.txt" > /dev/null
done
if cmp -s <(grep '^chunk' "$WORK/fp-before.txt") <(grep '^chunk' "$WORK/fp-after.txt"); then
  echo "chunks and postings identical ($(grep -c '^chunk' "$WORK/fp-after.txt") chunks)"
else
  echo "CHUNKS OR POSTINGS DIFFER: diff $WORK/fp-before.txt $WORK/fp-after.txt"
fi
cmp -s "$WORK/fp-before.txt" "$WORK/fp-after.txt" && echo "whole fingerprint identical (hits and scores too)" || echo "query hits or scores differ (ranking changes since $BASE?)"
