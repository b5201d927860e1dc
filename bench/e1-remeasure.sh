#!/bin/bash
# Issue 19 items 5 and 6, every goal in one run beside its baseline (a
# build of BASE, default 4157f76, the start of the session that added the
# optimized-graph cache): sync's embedding phase on real chunks
# (embedbench, the two builds alternating), the embedder alone on real
# texts by batch size, order, threads, spinning and length cap (embedbench
# -explore, the after build: docs chunks of /tmp/i1docs and LoCoMo turns),
# one-shot hybrid search without a server (oneshot-ab.sh, alternating),
# with a server (cli-hybrid.sh), warm hybrid p50/p99 at 105k chunks and
# the synthetic 1M vector lane (hybridbench). Needs /tmp/hb50 (the kept
# 105k-chunk index, read only: copied), /tmp/i1docs and ../shared. Writes
# everything under WORK (default /tmp/e1r). About 8 minutes on a quiet
# machine with the defaults.
#
#   bench/e1-remeasure.sh            # from the repository root
#   BASE=4157f76 AFTER=HEAD bench/e1-remeasure.sh
#
# AFTER (the commit measured, default HEAD; both builds come from commits,
# not the working tree), RUNS (embedbench runs of each build, default 3),
# SYNTH (size of the synthetic vector lane, default 1000000; 0: none),
# ROUNDS (one-shot rounds of 12 queries, default 2), EXPLORE (0: skip the
# embedder-alone tables) shorten a trial run.
set -eu
BASE=${BASE:-4157f76} WORK=${WORK:-/tmp/e1r} SHARED=$(cd ../shared && pwd)
RUNS=${RUNS:-3} SYNTH=${SYNTH:-1000000} ROUNDS=${ROUNDS:-2} EXPLORE=${EXPLORE:-1}
mkdir -p "$WORK"
# Both builds from commits, each with its own embedbench (the child mode
# each runs is its own sync; the driver is the after build's).
for side in before after; do
  rev=$BASE; [ $side = after ] && rev=${AFTER:-HEAD}
  rm -rf "$WORK/src-$side" && mkdir -p "$WORK/src-$side"
  git archive "$rev" | tar -x -C "$WORK/src-$side"
  (cd "$WORK/src-$side" && go build -tags sqlite_fts5 -o "$WORK/cairn-$side" ./cmd/cairn &&
    go build -tags sqlite_fts5 -o "$WORK/embedbench-$side" ./bench/cmd/embedbench)
done
(cd "$WORK/src-after" && go build -tags sqlite_fts5 -o "$WORK/hybridbench" ./bench/cmd/hybridbench)
echo "== item 5: embedding phase, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$WORK/embedbench-after" -before "$WORK/embedbench-before" -after "$WORK/embedbench-after" -repo . -shared "$SHARED" -sessions 30 -runs "$RUNS"
if [ "$EXPLORE" != 0 ]; then
  echo "== item 5: the embedder alone, docs chunks, load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$WORK/embedbench-after" -explore docs -docs /tmp/i1docs -shared "$SHARED" -n 256 -passes 2 \
    -configs b1,b2,b4,b8,b16,b32,b4-input,b4-global,b4-w1-t2,b4-w1-t2-nospin,b4-cap32,b4-cap64,b4-cap96
  echo "== item 5: the embedder alone, LoCoMo turns, load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$WORK/embedbench-after" -explore locomo -shared "$SHARED" -n 1024 -passes 2 -configs b1,b4,b8,b32,b4-w1-t2,b4-w1-t2-nospin
fi
# Copies of the kept index as an agent's data directory, one a build (the
# after build may migrate its copy to a schema the before build refuses).
for h in "$WORK/cli" "$WORK/cli-before"; do
  if [ ! -d "$h/agents/default" ]; then
    mkdir -p "$h/agents" && cp -r /tmp/hb50/data "$h/agents/default" && rm -f "$h/agents/default/sync.lock"
  fi
  printf '[[corpus]]\nname = "bench"\nkind = "files"\npaths = ["/tmp/hb50/notes"]\n\n[embedder]\nprovider = "onnx"\nmodel = "%s"\nlibrary = "%s"\n' \
    "$SHARED/models/use-lite" "$SHARED/lib/onnxruntime/libonnxruntime.so.1" > "$h/config.toml"
done
export CAIRN_HOME=$WORK/cli
echo "== item 6: warm hybrid at 105k chunks and the synthetic 1M lane, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$WORK/hybridbench" -out /tmp/hb50 -data "$CAIRN_HOME/agents/default" -shared "$SHARED" -synthetic "$SYNTH"
echo "== item 6: one-shot hybrid without a server, before and after, load $(cut -d' ' -f1-3 /proc/loadavg)"
HOME_A=$WORK/cli-before HOME_B=$WORK/cli bench/oneshot-ab.sh "$WORK/cairn-before" "$WORK/cairn-after" "$ROUNDS"
echo "== item 6: one-shot hybrid through a running server (after), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$WORK/cairn-after" serve --addr 127.0.0.1:0 --watch=false --ui=false 2>"$WORK/serve.err" &
SERVE=$!
trap 'kill $SERVE 2>/dev/null; wait $SERVE 2>/dev/null' EXIT
for _ in $(seq 600); do [ -f "$CAIRN_HOME/agents/default/server.json" ] && break; sleep 0.5; done
BIN="$WORK/cairn-after" bench/cli-hybrid.sh
