#!/bin/bash
# Issue 19 items 5 and 6, FP32 against INT8 weights ([embedder] quantize =
# "int8", embed/onnx/quantize.go), every number in one run beside its
# baseline. BASE (default 1df441c, before INT8 existed) is FP32 only; the
# AFTER build runs both ways:
#
#   1. sync's embedding phase on real chunks (embedbench, repository
#      Markdown + 30 LoCoMo sessions): BASE FP32 against AFTER INT8, then
#      AFTER FP32 against AFTER INT8, each pair alternating run by run:
#      chunks/s, CPU-ms a chunk, peak RSS;
#   2. the embedder alone (embedbench -explore, AFTER): docs chunks of
#      /tmp/i1docs and LoCoMo turns, FP32 and INT8 configurations in
#      passes; cosine of INT8 against FP32 vectors (-quality); the query
#      embedding p50/p99 of LoCoMo questions, the two alternating call by
#      call (-queries);
#   2b. memory by stage (embedbench -explore docs -memory, when AFTER has
#      it): each configuration in its own process, resident set (anon and
#      file), peak and Go heap after the texts, onnx.New, a GC and the
#      embedding; FP32 and INT8, with and without the graph cache, arena
#      and memory pattern off; and the embedding phase again with the
#      graph cache as cairn opens the model (-cache: peaks after the
#      model, at the start of embedding, at the end);
#   3. warm hybrid at ~100k chunks (105k, hybridbench's 50,000 notes):
#      hybridbench of AFTER (FP32, with -int8 when AFTER has it: the query
#      embedding FP32 and INT8 alternating, and the synthetic lane of
#      SYNTH vectors, default 1,000,000, 0 skips, with both embeddings
#      alternating), then embedbench -hybrid: FP32 and INT8 query
#      embeddings alternating query by query in one engine over the same
#      index;
#   4. one-shot `cairn search --mode hybrid` without a server
#      (oneshot-ab.sh, alternating query by query): BASE FP32 against
#      AFTER FP32 on copies of the 105k index, then AFTER FP32 against
#      AFTER INT8 on a 10k-chunk index synced both ways (SMALL notes; an
#      INT8 index of 105k chunks would need a full re-embedding), and the
#      same two through a running server (cli-hybrid.sh).
#
#   bench/e1-remeasure.sh [BASE [AFTER]]       # from the repository root
#   bench/e1-remeasure.sh 1df441c HEAD
#   bench/e1-remeasure.sh 28a0aac HEAD   # session q8's second round
#
# Both builds come from commits (git archive), not the working tree. Data:
# /tmp/hb50 (hybridbench -notes 50000 -out /tmp/hb50: notes and the FP32
# index, read only here, copied); built into WORK/hb50 when missing (about
# 105k chunks to embed: 10 to 15 minutes on a quiet machine). /tmp/i1docs
# (Markdown folder; the docs phase is skipped without it), ../shared.
# Everything is written under WORK (default /tmp/e1r). About 15 minutes on
# a quiet machine with /tmp/hb50 present. RUNS (embedbench runs, default
# 2), ROUNDS (one-shot rounds of 12 queries, default 2), SMALL (notes of
# the one-shot FP32/INT8 index, default 5000), QUERIES (warm hybrid
# queries, default 500), EXPLORE=0 (skip step 2) shorten a trial run.
set -eu
BASE=${1:-${BASE:-1df441c}} AFTER=${2:-${AFTER:-HEAD}}
WORK=${WORK:-/tmp/e1r} SHARED=$(cd ../shared && pwd)
RUNS=${RUNS:-2} ROUNDS=${ROUNDS:-2} SMALL=${SMALL:-5000} QUERIES=${QUERIES:-500} EXPLORE=${EXPLORE:-1} SYNTH=${SYNTH:-1000000}
MODEL=$SHARED/models/use-lite LIB=$SHARED/lib/onnxruntime/libonnxruntime.so.1
load() { cut -d' ' -f1-3 /proc/loadavg; }
mkdir -p "$WORK"
for side in before after; do
  rev=$BASE; [ $side = after ] && rev=$AFTER
  rm -rf "$WORK/src-$side" && mkdir -p "$WORK/src-$side"
  git archive "$rev" | tar -x -C "$WORK/src-$side"
  (cd "$WORK/src-$side" && go build -tags sqlite_fts5 -o "$WORK/cairn-$side" ./cmd/cairn &&
    go build -tags sqlite_fts5 -o "$WORK/embedbench-$side" ./bench/cmd/embedbench)
done
(cd "$WORK/src-after" && go build -tags sqlite_fts5 -o "$WORK/hybridbench" ./bench/cmd/hybridbench)
EB=$WORK/embedbench-after
echo "== base $BASE, after $AFTER ($(git rev-parse --short "$AFTER"))"
echo "== 1. embedding phase: base FP32 (before) against after INT8 (after), load $(load)"
"$EB" -before "$WORK/embedbench-before" -after "$EB" -after-quantize int8 -repo . -shared "$SHARED" -sessions 30 -runs "$RUNS"
echo "== 1. embedding phase: after FP32 (before) against after INT8 (after), load $(load)"
"$EB" -before "$EB" -after "$EB" -after-quantize int8 -repo . -shared "$SHARED" -sessions 30 -runs "$RUNS"
if [ "$EXPLORE" != 0 ]; then
  if [ -d /tmp/i1docs ]; then
    echo "== 2. the embedder alone, docs chunks, load $(load)"
    "$EB" -explore docs -docs /tmp/i1docs -shared "$SHARED" -n 256 -passes 2 -configs b4,b4-int8,b2-int8,b8-int8 | grep -v '^padding'
    "$EB" -explore docs -docs /tmp/i1docs -shared "$SHARED" -n 384 -quality
  fi
  echo "== 2. the embedder alone, LoCoMo turns, load $(load)"
  "$EB" -explore locomo -shared "$SHARED" -n 1024 -passes 2 -configs b4,b4-int8,b8,b8-int8 | grep -v '^padding'
  "$EB" -explore locomo -shared "$SHARED" -n 2000 -quality
  echo "== 2. query embedding, LoCoMo questions, load $(load)"
  "$EB" -explore questions -shared "$SHARED" -n 500 -queries 500
fi
if "$EB" -h 2>&1 | grep -q -- '-memory'; then
  if [ -d /tmp/i1docs ]; then
    echo "== 2b. memory by stage, docs chunks (pass 1 builds the graph caches, pass 2 maps them), load $(load)"
    "$EB" -explore docs -docs /tmp/i1docs -shared "$SHARED" -n 256 -passes 2 -memory \
      -configs b4,b4-int8,b4-cache,b4-int8-cache,b4-cache-noarena,b4-int8-cache-noarena,b4-cache-nopattern,b4-int8-cache-nopattern
  fi
  echo "== 2b. embedding phase with the graph cache (run 1 builds it), after FP32 (before) against after INT8 (after), load $(load)"
  "$EB" -before "$EB" -after "$EB" -after-quantize int8 -cache -repo . -shared "$SHARED" -sessions 30 -runs "$RUNS"
fi
HB=/tmp/hb50
if [ ! -d "$HB/data" ]; then
  HB=$WORK/hb50
  echo "== building the 105k-chunk index in $HB (FP32), load $(load)"
  "$WORK/hybridbench" -notes 50000 -out "$HB" -shared "$SHARED" -modes lexical -queries 10 >/dev/null
fi
rm -rf "$WORK/hbcopy" && mkdir -p "$WORK/hbcopy" && cp -r "$HB/data" "$WORK/hbcopy/data" && rm -f "$WORK/hbcopy/data/sync.lock"
HBFLAGS=()
if "$WORK/hybridbench" -h 2>&1 | grep -q -- '-int8'; then
  HBFLAGS=(-int8)
  [ "$SYNTH" = 0 ] || HBFLAGS+=(-synthetic "$SYNTH")
fi
echo "== 3. warm hybrid at 105k chunks, after FP32 (hybridbench ${HBFLAGS[*]:-}), load $(load)"
"$WORK/hybridbench" -out "$HB" -data "$WORK/hbcopy/data" -shared "$SHARED" -queries "$QUERIES" "${HBFLAGS[@]}"
echo "== 3. warm hybrid at 105k chunks, FP32 and INT8 query embedding alternating (FP32 index), load $(load)"
"$EB" -hybrid "$WORK/hbcopy/data" -notes "$HB/notes" -shared "$SHARED" -queries "$QUERIES"
# Homes: the 105k index for base and after (FP32), and a SMALL-note
# corpus synced FP32 and INT8 by the after build.
config() { # home notes quantize
  printf '[[corpus]]\nname = "bench"\nkind = "files"\npaths = ["%s"]\n\n[embedder]\nprovider = "onnx"\nmodel = "%s"\nlibrary = "%s"\n' "$2" "$MODEL" "$LIB" > "$1/config.toml"
  [ -z "$3" ] || printf 'quantize = "%s"\n' "$3" >> "$1/config.toml"
}
for h in cli-before cli; do
  if [ ! -d "$WORK/$h/agents/default" ]; then
    mkdir -p "$WORK/$h/agents" && cp -r "$HB/data" "$WORK/$h/agents/default" && rm -f "$WORK/$h/agents/default/sync.lock"
  fi
  config "$WORK/$h" "$HB/notes" ""
done
if [ ! -d "$WORK/small/notes" ]; then
  (cd "$WORK/src-after" && go run -tags sqlite_fts5 ./bench/cmd/gencorpus -notes "$SMALL" -out "$WORK/small/notes")
fi
QS="fp32 int8"
for q in fp32 int8; do
  mkdir -p "$WORK/small-$q"
  config "$WORK/small-$q" "$WORK/small/notes" "$([ $q = int8 ] && echo int8)"
  if ! CAIRN_HOME=$WORK/small-$q "$WORK/cairn-after" sync >/dev/null; then
    echo "after's cairn refused the $q config (no [embedder] quantize key in $AFTER?): FP32 only below" >&2
    QS=fp32
  fi
done
cp "$WORK/cairn-after" "$WORK/cairn-after-int8" # another path: oneshot-ab.sh tells the two sides by it
echo "== 4. one-shot hybrid without a server, base FP32 (A) and after FP32 (B), 105k chunks, load $(load)"
HOME_A=$WORK/cli-before HOME_B=$WORK/cli bench/oneshot-ab.sh "$WORK/cairn-before" "$WORK/cairn-after" "$ROUNDS"
if [ "$QS" != fp32 ]; then
  echo "== 4. one-shot hybrid without a server, after FP32 (A) and after INT8 (B), $SMALL notes, load $(load)"
  HOME_A=$WORK/small-fp32 HOME_B=$WORK/small-int8 bench/oneshot-ab.sh "$WORK/cairn-after" "$WORK/cairn-after-int8" "$ROUNDS"
fi
SERVE=
trap '[ -z "$SERVE" ] || { kill $SERVE 2>/dev/null; wait $SERVE 2>/dev/null; }' EXIT
for q in $QS; do
  echo "== 4. one-shot hybrid through a running server (after, $q, $SMALL notes), load $(load)"
  export CAIRN_HOME=$WORK/small-$q
  "$WORK/cairn-after" serve --addr 127.0.0.1:0 --watch=false --ui=false 2>"$WORK/serve-$q.err" &
  SERVE=$!
  for _ in $(seq 600); do [ -f "$CAIRN_HOME/agents/default/server.json" ] && break; sleep 0.5; done
  BIN="$WORK/cairn-after" bench/cli-hybrid.sh
  kill $SERVE; wait $SERVE 2>/dev/null || true
  SERVE=
done
