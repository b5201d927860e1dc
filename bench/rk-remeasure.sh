#!/bin/sh
# Re-measures issue 19 items 1-2 (hybrid ranking) beside the baseline in one run:
# 1. TestFusionSweep on the LoCoMo dev split: lexical, score fusion alone (before) and the adopted
#    lean 0.5 by rare with context 0.3 (after), every question under each, by category (log) and
#    per question (JSON), cross-validated by conversation over the two hybrid settings;
# 2. the LoCoMo evaluation as cairn eval locomo runs it, hybrid and lexical, at min score 0 and the
#    default (bench/cmd/calibrate -eval).
# Usage: bench/rk-remeasure.sh [OUT]   (from the repository root; about 25 + 30 min on 2 busy cores)
set -eu
OUT=${1:-/tmp/rk-remeasure}
mkdir -p "$OUT"
CAIRN_FUSION_SWEEP=1 CAIRN_FUSION_DIR="$OUT/index" CAIRN_FUSION_OUT="$OUT/sweep.json" \
  CAIRN_FUSION_GRID="1:0.5:0,1:0.5:0:0:0:0.5:4:0:0:0.3" \
  go test -tags sqlite_fts5 ./engine/ -run TestFusionSweep -v -timeout 2h | tee "$OUT/sweep.log"
go run -tags sqlite_fts5 ./bench/cmd/calibrate -shared ../shared -modes hybrid,lexical -eval | tee "$OUT/eval.log"
