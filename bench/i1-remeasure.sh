#!/bin/bash
# Issue 19 item 3 (first index of the docs corpus) in one run beside its
# baseline: indexbench built from BASE and from NEW (each from `git
# archive`, this tree's bench/cmd/indexbench copied into both so both
# measure alike; NEW "." builds the working tree as it is), then
#   - PAIRS first indexes of DOCS alternating (wall, CPU seconds, cores
#     used, load),
#   - PAIRS runs of the writer alone alternating (indexbench -writer: the
#     same batches prepared first, then Apply and the final optimize on one
#     locked thread; that thread's CPU seconds and what it wrote),
#   - one fingerprint of each: the chunk lines (chunks and their postings)
#     must be equal; the query lines also hold scores, which other changes
#     to ranking move (a query the search refuses, such as one stop word,
#     is a "refused" line).
#   The close column is the store's Close after the syncs: the checkpoint
#   of what the WAL still holds, which a one-shot sync pays before it exits.
#
#   bench/i1-remeasure.sh [BASE [NEW]]   # from the repository root; BASE 1df441c, NEW .
#   (BASE or NEW may also be a folder holding a source tree, built as it is:
#   git archive of a revision with only the measured files changed, so that
#   others' uncommitted work in this tree is in neither side)
#   EXTRA (a revision or folder, optional) is built as a third side,
#   "extra", run after "after" in every round and fingerprinted too.
#
#   PLAIN=N (default 0) first runs N rounds of the goal's pairs with the
#   NEW build: a plain insert of the same chunks into a bare table like
#   chunks_fts (indexbench -plain: one transaction, its wall, thread and
#   process CPU), then a first index (wall, CPU, load), alternating; the
#   ratio column is first index wall / plain insert wall (and the same
#   with each one's close, the checkpoint a one-shot process pays).
#   PLAINALL=1 runs the first index of every side after each plain insert.
#   NICE=-10 (optional) runs every measured command at that priority, so
#   that others' jobs at nice 0 take less of the two cores meanwhile.
#   BUILT=1 reuses the indexbench builds already in WORK (build first,
#   then take the quiet lock for the runs alone); FP=0 skips the
#   fingerprints; PAIRS=0 skips the BASE/NEW rounds.
#
# About 3 minutes on a quiet 2-core machine plus the two builds. DOCS
# defaults to /tmp/i1docs, built here when missing: every Markdown file
# under /usr/share/doc, /usr/lib/node_modules and /root/go/pkg/mod (565
# files, 17.8 MB when bench/RESULTS.md measured it; 561 in a later
# session: the module cache moves), folders named node_modules renamed nm
# (the default excludes skip them); WORK (default /tmp/i1r) holds builds
# and indexes.
set -eu
BASE=${1:-${BASE:-1df441c}} NEW=${2:-.}
WORK=${WORK:-/tmp/i1r} DOCS=${DOCS:-/tmp/i1docs} PAIRS=${PAIRS:-3}
mkdir -p "$WORK"
if [ ! -d "$DOCS" ]; then
  for d in usr/share/doc usr/lib/node_modules root/go/pkg/mod; do
    dst=$DOCS/$(echo $d | tr / _)
    mkdir -p "$dst"
    [ -d "/$d" ] && (cd "/$d" && find . -name '*.md' -type f -print0 | tar --null -T - -cf - | tar -xf - -C "$dst")
  done
  (cd "$DOCS" && find . -depth -type d -name node_modules -execdir mv node_modules nm \;)
  echo "built $DOCS: $(find "$DOCS" -type f | wc -l) files"
fi
build() { # build REV NAME
  if [ "$1" = . ]; then
    go build -tags sqlite_fts5 -o "$WORK/ib-$2" ./bench/cmd/indexbench
    return
  fi
  if [ -d "$1" ]; then # a source tree (say git archive of BASE plus the files measured)
    (cd "$1" && go build -tags sqlite_fts5 -o "$WORK/ib-$2" ./bench/cmd/indexbench)
    return
  fi
  rm -rf "$WORK/src-$2" && mkdir -p "$WORK/src-$2"
  git archive "$1" | tar -x -C "$WORK/src-$2"
  cp bench/cmd/indexbench/*.go "$WORK/src-$2/bench/cmd/indexbench/"
  rm -f "$WORK/src-$2/bench/cmd/indexbench/"*_test.go
  (cd "$WORK/src-$2" && go build -tags sqlite_fts5 -o "$WORK/ib-$2" ./bench/cmd/indexbench)
}
[ -n "${NICE:-}" ] && renice -n "$NICE" -p $$ > /dev/null
SIDES="before after"
[ -n "${EXTRA:-}" ] && SIDES="before after extra"
if [ "${BUILT:-0}" != 1 ]; then
  build "$BASE" before
  build "$NEW" after
  [ -n "${EXTRA:-}" ] && build "$EXTRA" extra
fi
echo "before = $BASE, after = $NEW${EXTRA:+, extra = $EXTRA}"
show() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print("%-6s load %5.1f  first %6.2f s  CPU %5.2f s  cores used %.2f  no-op %.3f s  close %.2f s" % (sys.argv[1], d["load1"], d["firstSeconds"], d["userSeconds"]+d["sysSeconds"], d["cpuShare"], d["noopSeconds"][0], d.get("closeSeconds", 0)))' "$1"; }
showw() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print("%-6s load %5.1f  writer alone %6.2f s  thread CPU %5.2f s (optimize %.2f)  close %.2f s (CPU %.2f)  wrote %4.0f MB  %d batches, %d chunks" % (sys.argv[1], d["load1"], d["writerSeconds"], d["writerCPUSeconds"], d["optimizeCPUSeconds"], d.get("closeSeconds", 0), d.get("closeCPUSeconds", 0), d["writerMB"], d["batches"], d["chunks"]))' "$1"; }
PLAINSIDES=after
[ "${PLAINALL:-0}" = 1 ] && PLAINSIDES=$SIDES
for i in $(seq "${PLAIN:-0}"); do
  p=$("$WORK/ib-after" -plain -dir "$DOCS" -index "$WORK/ix-plain" -keep=false)
  for b in $PLAINSIDES; do
    f=$("$WORK/ib-$b" -dir "$DOCS" -index "$WORK/ix-$b" -noop 1 -keep=false)
    python3 -c 'import json,sys; p=json.loads(sys.argv[1]); f=json.loads(sys.argv[2]); print("plain  load %5.1f  insert %5.2f s  thread CPU %5.2f s  process CPU %5.2f s  close %.2f s  %d rows  wrote %3.0f MB | %-6s first index load %5.1f  %5.2f s  CPU %5.2f s  cores used %.2f  close %.2f s | wall ratio %.2f (with closes %.2f)  CPU ratio %.2f" % (p["load1"], p["insertSeconds"], p["insertCPUSeconds"], p["processCPUSeconds"], p["closeSeconds"], p["rows"], p["writtenMB"], sys.argv[3], f["load1"], f["firstSeconds"], f["userSeconds"]+f["sysSeconds"], f["cpuShare"], f["closeSeconds"], f["firstSeconds"]/p["insertSeconds"], (f["firstSeconds"]+f["closeSeconds"])/(p["insertSeconds"]+p["closeSeconds"]), (f["userSeconds"]+f["sysSeconds"])/p["processCPUSeconds"]))' "$p" "$f" "$b"
  done
done
for i in $(seq "$PAIRS"); do
  for b in $SIDES; do
    "$WORK/ib-$b" -dir "$DOCS" -index "$WORK/ix-$b" -noop 1 -keep=false | show "$b"
  done
done
for i in $(seq "$PAIRS"); do
  for b in $SIDES; do
    "$WORK/ib-$b" -writer -dir "$DOCS" -index "$WORK/ix-$b" -keep=false | showw "$b"
  done
done
[ "${FP:-1}" = 0 ] && exit 0
for b in $SIDES; do
  "$WORK/ib-$b" -dir "$DOCS" -index "$WORK/ix-$b" -noop 0 -keep=false -fingerprint "$WORK/fp-$b.txt" > /dev/null
done
if cmp -s <(grep '^chunk' "$WORK/fp-before.txt") <(grep '^chunk' "$WORK/fp-after.txt"); then
  echo "chunks and postings identical ($(grep -c '^chunk' "$WORK/fp-after.txt") chunks)"
else
  echo "CHUNKS OR POSTINGS DIFFER: diff $WORK/fp-before.txt $WORK/fp-after.txt"
fi
cmp -s "$WORK/fp-before.txt" "$WORK/fp-after.txt" && echo "whole fingerprint identical (hits and scores too)" || echo "query hits or scores differ (ranking changes since $BASE?)"
if [ -n "${EXTRA:-}" ]; then
  cmp -s "$WORK/fp-before.txt" "$WORK/fp-extra.txt" && echo "extra: whole fingerprint identical to before" || echo "EXTRA DIFFERS: diff $WORK/fp-before.txt $WORK/fp-extra.txt"
fi
