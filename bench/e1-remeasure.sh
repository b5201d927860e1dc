#!/bin/bash
# Issue 19 items 5 and 6, every goal in one run beside its baseline (a
# build of BASE, default 5760e6b, the commit before this work): sync's
# embedding phase on real chunks (embedbench), one-shot hybrid search
# without a server (oneshot-ab.sh), with a server (cli-hybrid.sh), warm
# hybrid p50/p99 at 105k chunks and the synthetic 1M vector lane
# (hybridbench). Needs /tmp/hb50 (the kept 105k-chunk index, read only:
# copied) and ../shared. Writes everything under WORK (default /tmp/e1r).
#
#   bench/e1-remeasure.sh            # from the repository root
#
# AFTER (the commit measured, default HEAD; both builds come from commits,
# not the working tree), RUNS (embedbench runs of each build, default 3), SYNTH (size of the
# synthetic vector lane, default 1000000; 0: none) and ROUNDS (one-shot
# rounds of 12 queries, default 2) shorten a trial run.
set -eu
BASE=${BASE:-5760e6b} WORK=${WORK:-/tmp/e1r} SHARED=$(cd ../shared && pwd)
RUNS=${RUNS:-3} SYNTH=${SYNTH:-1000000} ROUNDS=${ROUNDS:-2}
mkdir -p "$WORK"
# Both builds from commits (AFTER, default HEAD), not the working tree.
for side in before after; do
  rev=$BASE; [ $side = after ] && rev=${AFTER:-HEAD}
  rm -rf "$WORK/src-$side" && mkdir -p "$WORK/src-$side"
  git archive "$rev" | tar -x -C "$WORK/src-$side"
  cp bench/cmd/embedbench/main.go "$WORK/src-$side/bench/cmd/embedbench/main.go"
  (cd "$WORK/src-$side" && go build -tags sqlite_fts5 -o "$WORK/cairn-$side" ./cmd/cairn &&
    go build -tags sqlite_fts5 -o "$WORK/embedbench-$side" ./bench/cmd/embedbench)
done
(cd "$WORK/src-after" && go build -tags sqlite_fts5 -o "$WORK/hybridbench" ./bench/cmd/hybridbench)
echo "== item 5: embedding phase, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$WORK/embedbench-after" -before "$WORK/embedbench-before" -after "$WORK/embedbench-after" -repo . -shared "$SHARED" -sessions 30 -runs "$RUNS"
# A copy of the kept index as an agent's data directory.
export CAIRN_HOME=$WORK/cli
if [ ! -d "$CAIRN_HOME/agents/default" ]; then
  mkdir -p "$CAIRN_HOME/agents" && cp -r /tmp/hb50/data "$CAIRN_HOME/agents/default" && rm -f "$CAIRN_HOME/agents/default/sync.lock"
fi
printf '[[corpus]]\nname = "bench"\nkind = "files"\npaths = ["/tmp/hb50/notes"]\n\n[embedder]\nprovider = "onnx"\nmodel = "%s"\nlibrary = "%s"\n' \
  "$SHARED/models/use-lite" "$SHARED/lib/onnxruntime/libonnxruntime.so.1" > "$CAIRN_HOME/config.toml"
echo "== item 6: warm hybrid at 105k chunks and the synthetic 1M lane, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$WORK/hybridbench" -out /tmp/hb50 -data "$CAIRN_HOME/agents/default" -shared "$SHARED" -synthetic "$SYNTH"
echo "== item 6: one-shot hybrid without a server, before and after, load $(cut -d' ' -f1-3 /proc/loadavg)"
bench/oneshot-ab.sh "$WORK/cairn-before" "$WORK/cairn-after" "$ROUNDS"
echo "== item 6: one-shot hybrid through a running server (after), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$WORK/cairn-after" serve --addr 127.0.0.1:0 --watch=false --ui=false 2>"$WORK/serve.err" &
SERVE=$!
trap 'kill $SERVE 2>/dev/null; wait $SERVE 2>/dev/null' EXIT
for _ in $(seq 600); do [ -f "$CAIRN_HOME/agents/default/server.json" ] && break; sleep 0.5; done
BIN="$WORK/cairn-after" bench/cli-hybrid.sh
