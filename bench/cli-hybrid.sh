#!/bin/bash
# One-shot `cairn search` wall time, query by query, three ways back to back:
# hybrid through a running `cairn serve` of the same data directory, hybrid in
# process (the server's record made untrusted with chmod 644 for that call: the
# path without a server), and lexical. Start the server first, e.g. on a copy of
# the kept hybridbench index:
#
#   mkdir -p /tmp/cli/agents && cp -r /tmp/hb50/data /tmp/cli/agents/default
#   printf '[[corpus]]\nname = "bench"\nkind = "files"\npaths = ["/tmp/hb50/notes"]\n\n[embedder]\nprovider = "onnx"\nmodel = "%s"\nlibrary = "%s"\n' \
#       "$PWD/../shared/models/use-lite" "$PWD/../shared/lib/onnxruntime/libonnxruntime.so.1" > /tmp/cli/config.toml
#   CAIRN_HOME=/tmp/cli cairn serve --addr 127.0.0.1:0 --watch=false --ui=false &
#   CAIRN_HOME=/tmp/cli BIN=cairn bench/cli-hybrid.sh
#
# Prints one line a query: milliseconds of each way and the load average.
set -eu
BIN=${BIN:-cairn}
REC=$CAIRN_HOME/agents/default/server.json
[ -f "$REC" ] || { echo "no $REC: start cairn serve first" >&2; exit 1; }
qs=("pleagaind thoupleand decision" "trechex grohou" "mountain weather" "meshourBishas" "dripon bagrun ceamouplo" "stupem crazeaplund" "zishouvas drean" "keachoun recrai" "which thing did we decide" "lofeacix stitox config" "treabrigoun leastoreathe" "shithaigrest brin")
ms() { local s; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; echo $(( ($(date +%s%N) - s) / 1000000 )); }
trap 'chmod 600 "$REC" 2>/dev/null || true' EXIT
for r in 1 2; do
  for q in "${qs[@]}"; do
    chmod 600 "$REC"; a=$(ms "$BIN" search "$q" --mode hybrid --limit 5)
    chmod 644 "$REC"; b=$(ms "$BIN" search "$q" --mode hybrid --limit 5)
    chmod 600 "$REC"; c=$(ms "$BIN" search "$q" --mode lexical --limit 5)
    echo "server $a inprocess $b lexical $c load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
