#!/bin/bash
# Issue 19 items 5 to 7 with FP32 and INT8 weights side by side in one
# build (engineer hy's round on a VNNI CPU; the earlier rounds, BASE
# against AFTER, are bench/e1-remeasure.sh 1df441c HEAD and
# bench/e1-remeasure.sh 28a0aac HEAD). Everything alternates FP32 and
# INT8 in one run, and every step prints the load:
#
#   1. the embedder alone on real texts (embedbench -explore): docs
#      chunks and LoCoMo turns, CPU-ms a text; cosine of INT8 to FP32
#      (-quality); the query embedding, call by call (-queries);
#   2. memory by stage (-memory), with and without the graph cache;
#   3. sync's embedding phase (embedbench children: repository Markdown
#      and 30 LoCoMo sessions, the graph cache as cairn opens it):
#      chunks/s, CPU-ms a chunk, peak RSS; and a whole `cairn sync` of
#      SMALL gencorpus notes each way (/usr/bin/time: wall, CPU, peak);
#   4. warm hybrid at 105k chunks (hybridbench's 50,000 notes, embedded
#      with INDEXQ weights, default int8: half the CPU of FP32 on a VNNI
#      CPU): hybridbench -int8 -stages, the two query models alternating
#      under the index's identity, each hybrid search split into query
#      embedding, index search, the rest and the lexical search;
#   5. the vector half of hybrid over a 1M lane (the 105k real vectors
#      plus synthetic neighbours, SYNTH, 0 skips), both models;
#   6. one-shot `cairn search --mode hybrid` through a running server
#      and cold in process (cli-hybrid.sh) on a copy of the 105k index;
#   7. vector search at 1M x 384 (TestScanVariants, VQ queries).
#
#   bench/q8-remeasure.sh [REV]   # from the repository root; REV default HEAD
#
# The build comes from REV (git archive). Data under WORK (default
# /tmp/q8r): the docs folder (as bench/i1-remeasure.sh builds it) and
# the 105k index (WORK/hb50-INDEXQ: kept, built when missing: 105k
# chunks to embed, about 5 minutes of CPU with INT8 on a VNNI CPU, 12
# with FP32). About 25 minutes on a quiet machine with the index present.
# QUERIES (default 500), SYNTH (1000000), SMALL (1000), VQ (500).
set -eu
REV=${1:-HEAD} WORK=${WORK:-/tmp/q8r} SHARED=$(cd ../shared && pwd)
INDEXQ=${INDEXQ:-int8} QUERIES=${QUERIES:-500} SYNTH=${SYNTH:-1000000} SMALL=${SMALL:-1000} VQ=${VQ:-500}
MODEL=$SHARED/models/use-lite LIB=$SHARED/lib/onnxruntime/libonnxruntime.so.1
load() { cut -d' ' -f1-3 /proc/loadavg; }
step() { echo "== $* ($(date -u +%T), load $(load))"; }
mkdir -p "$WORK/bin"
rm -rf "$WORK/src" && mkdir -p "$WORK/src"
git archive "$REV" | tar -x -C "$WORK/src"
(cd "$WORK/src" && for c in embedbench hybridbench gencorpus; do go build -tags sqlite_fts5 -o "$WORK/bin/$c" ./bench/cmd/$c; done &&
  go build -tags sqlite_fts5 -o "$WORK/bin/cairn" ./cmd/cairn && go test -c -o "$WORK/bin/vector.test" ./vector/)
EB=$WORK/bin/embedbench HB=$WORK/bin/hybridbench
grep -m1 'model name' /proc/cpuinfo
echo "VNNI: $(grep -o -m1 -w -E 'avx512_vnni|avx_vnni' /proc/cpuinfo || echo none)"
DOCS=$WORK/docs
if [ ! -d "$DOCS" ]; then
  for d in usr/share/doc usr/lib/node_modules root/go/pkg/mod; do
    dst=$DOCS/$(echo $d | tr / _)
    mkdir -p "$dst"
    [ -d "/$d" ] && (cd "/$d" && find . -name '*.md' -type f -print0 | tar --null -T - -cf - | tar -xf - -C "$dst")
  done
  (cd "$DOCS" && find . -depth -type d -name node_modules -execdir mv node_modules nm \;)
fi
step "1. the embedder alone, docs chunks ($(find "$DOCS" -type f | wc -l) files)"
"$EB" -explore docs -docs "$DOCS" -shared "$SHARED" -n 128 -passes 2 -configs b4,b4-int8,b2-int8,b8-int8 | grep -v '^padding'
step "1. the embedder alone, LoCoMo turns"
"$EB" -explore locomo -shared "$SHARED" -n 512 -passes 2 -configs b4,b4-int8,b8,b8-int8 | grep -v '^padding'
step "1. cosine of INT8 to FP32"
"$EB" -explore docs -docs "$DOCS" -shared "$SHARED" -n 384 -quality
"$EB" -explore locomo -shared "$SHARED" -n 1000 -quality
step "1. query embedding, LoCoMo questions"
"$EB" -explore questions -shared "$SHARED" -n 400 -queries 400
step "2. memory by stage (pass 1 builds the graph caches, pass 2 maps them)"
"$EB" -explore docs -docs "$DOCS" -shared "$SHARED" -n 128 -passes 2 -memory -configs b4,b4-int8,b4-cache,b4-int8-cache
step "3. sync's embedding phase, FP32 (before) and INT8 (after), graph cache"
"$EB" -before "$EB" -after "$EB" -after-quantize int8 -cache -repo . -shared "$SHARED" -sessions 30 -runs 2
[ -d "$WORK/small/notes" ] || "$WORK/bin/gencorpus" -notes "$SMALL" -out "$WORK/small/notes"
config() { # home notes quantize
  printf '[[corpus]]\nname = "bench"\nkind = "files"\npaths = ["%s"]\n\n[embedder]\nprovider = "onnx"\nmodel = "%s"\nlibrary = "%s"\n' "$2" "$MODEL" "$LIB" > "$1/config.toml"
  [ -z "$3" ] || printf 'quantize = "%s"\n' "$3" >> "$1/config.toml"
}
for r in 1 2; do
  for q in none int8; do
    h=$WORK/sync-$q && rm -rf "$h" && mkdir -p "$h" && config "$h" "$WORK/small/notes" "$q"
    step "3. cairn sync of $SMALL notes, quantize $q, run $r"
    CAIRN_HOME=$h /usr/bin/time -f "time: %e s wall, %U+%S s CPU, %M KB peak" "$WORK/bin/cairn" sync 2>"$h/err.txt" >/dev/null || true
    grep -E '^embedding|time:' "$h/err.txt" | tail -3
  done
done
HBW=$WORK/hb50-$INDEXQ
if [ ! -d "$HBW/data" ]; then
  step "building the 105k-chunk index in $HBW ($INDEXQ)"
  "$HB" -notes 50000 -out "$HBW" -shared "$SHARED" -modes lexical -queries 10 -quantize "$INDEXQ" | grep 'sync with'
fi
rm -rf "$WORK/hbcopy" && mkdir -p "$WORK/hbcopy" && cp -r "$HBW/data" "$WORK/hbcopy/data" && rm -f "$WORK/hbcopy/data/sync.lock"
step "4. warm hybrid at 105k chunks, index $INDEXQ, FP32 and INT8 query models alternating"
"$HB" -out "$HBW" -data "$WORK/hbcopy/data" -shared "$SHARED" -queries "$QUERIES" -quantize "$INDEXQ" -int8 -stages
if [ "$SYNTH" != 0 ]; then
  step "5. the vector half of hybrid over a $SYNTH lane"
  "$HB" -out "$HBW" -data "$WORK/hbcopy/data" -shared "$SHARED" -queries "$QUERIES" -quantize "$INDEXQ" -int8 -modes hybrid -synthetic "$SYNTH" | grep -E '^s-|synthetic'
fi
H=$WORK/cli
rm -rf "$H" && mkdir -p "$H/agents" && cp -r "$HBW/data" "$H/agents/default" && rm -f "$H/agents/default/sync.lock"
config "$H" "$HBW/notes" "$([ "$INDEXQ" = int8 ] && echo int8)"
export CAIRN_HOME=$H
"$WORK/bin/cairn" serve --addr 127.0.0.1:0 --watch=false --ui=false 2>"$WORK/serve.err" &
SERVE=$!
trap 'kill $SERVE 2>/dev/null; wait $SERVE 2>/dev/null' EXIT
for _ in $(seq 600); do [ -f "$H/agents/default/server.json" ] && break; sleep 0.5; done
step "6. one-shot hybrid through the server, cold in process, lexical (105k, $INDEXQ)"
BIN=$WORK/bin/cairn bench/cli-hybrid.sh
kill $SERVE; wait $SERVE 2>/dev/null || true
trap - EXIT
unset CAIRN_HOME
step "7. vector search at 1M x 384, $VQ queries"
CAIRN_VECTOR_AB=1000000 CAIRN_VECTOR_AB_QUERIES=$VQ "$WORK/bin/vector.test" -test.run TestScanVariants -test.v -test.timeout 0 | grep -E 'n=1000000'
step "end"
