#!/bin/sh
# Re-measures issue 19 items 1-2 (hybrid ranking) of NEW beside BASE in one run:
# 1. TestFusionSweep (NEW's tree) on the LoCoMo dev split: lexical, the fusion of ce521c9 (lean 0.5
#    by rare, context 0.3: BASE's defaults) and NEW's adopted one (dates 0.5 on top), every question
#    under each, by category (log), per question (JSON), cross-validated by conversation;
# 2. the LoCoMo evaluation as cairn eval locomo runs it (bench/cmd/calibrate -eval: hybrid and
#    lexical at min score 0 and the default 0.3, by category), BASE then NEW.
# Usage: bench/rk-remeasure.sh [BASE [NEW [OUT]]]   (defaults 4157f76, HEAD, /tmp/rk-remeasure; from
# the repository root, ../shared beside it). About 8 min for the sweep and 8 for each evaluation at
# low load on 2 cores (the sweep embeds the six conversations once; 21 min under load 20 to 45).
set -eu
BASE=${1:-4157f76}
NEW=${2:-HEAD}
OUT=${3:-/tmp/rk-remeasure}
SHARED=$(cd ../shared && pwd)
rm -rf "$OUT/base" "$OUT/new" "$OUT/index"
mkdir -p "$OUT/base" "$OUT/new"
git archive "$BASE" | tar -x -C "$OUT/base"
git archive "$NEW" | tar -x -C "$OUT/new"
ln -sfn "$SHARED" "$OUT/shared"
B="1:0.5:0:0:0:0.5:4:0:0:0.3"
(cd "$OUT/new" && CAIRN_FUSION_SWEEP=1 CAIRN_FUSION_DIR="$OUT/index" CAIRN_FUSION_OUT="$OUT/sweep.json" \
  CAIRN_FUSION_GRID="$B,$B:0:0:0:0.5" \
  go test -tags sqlite_fts5 ./engine/ -run TestFusionSweep -v -timeout 2h) | tee "$OUT/sweep.log"
for rev in base new; do
  (cd "$OUT/$rev" && go run -tags sqlite_fts5 ./bench/cmd/calibrate -shared "$SHARED" -modes hybrid,lexical -eval) | tee "$OUT/eval-$rev.log"
done
