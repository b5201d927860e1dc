#!/bin/sh
# Re-measures issue 19 items 1-2 (hybrid ranking) of NEW beside BASE in one run:
# 1. TestFusionSweep (NEW's tree) on the LoCoMo dev split, every question under each setting, by
#    category (log), per question (JSON), cross-validated by conversation: lexical, the fusion of
#    ce521c9 (lean 0.5 by rare, context 0.3: BASE's defaults), the date lift (dates 0.5, the default
#    since cf57822), and the speaker lift on top of it (speaker 0.1, 0.2, 0.3, 0.5, always and only
#    when the lexical lane is unsure: speakerby 4; then 0.75 and 1, and by kinds 1 and 3, the wider
#    grid of the report; and the shapes of "Ranking: the speaker lift, its cost and its shape": only
#    when the query names one participant, capped per session, shrunk by the share it reaches);
#    bench/rk-cv.py prints the tables of bench/RESULTS.md (each family cross-validated, every
#    category and cutoff) from the JSON, and the questions the setting SPEAKER ("speaker 0.75 one",
#    the default since 2c50894) loses against now; then the feedback pass on top of it, ungated and
#    gated by the first pass's confidence (prfby 4 rare, 1 match; "Ranking: the one-participant
#    speaker lift re-tested, and gated feedback"), and bench/rk-fam.py's families and cells below
#    lexical and now;
# 2. with EVAL=1, the LoCoMo evaluation as cairn eval locomo runs it (bench/cmd/calibrate -eval:
#    hybrid and lexical at min score 0 and the default 0.3, by category), BASE then NEW.
# 3. TestSpeakerLiftCost (NEW's tree, COST=1): the lift's cost per warm hybrid search over long agent
#    transcripts (12 sessions of 1,000 to 5,000 messages and 150 LoCoMo-sized ones), lift off, on
#    without the span cache and on with it alternating query by query (about 4 min to build the
#    index at load 20, kept in $OUT/cost; COST_DIR=DIR reuses one, /tmp/rk/cost was kept).
# 4. (2026-12-03) the session lift and the vector pass without the name (sweep fields 29 to 32) on
#    top of the default before them, as a family checked against lexical, that default and the
#    one adopted ("Ranking: a session lift and the vector lane without the name"); FCOST=1 also
#    their cost per question (CAIRN_FUSION_COST: wall and process CPU, three rounds alternating).
# 5. (2026-12-04b) the neighbour mix (VecMix 1: the mixed copy; VecMixDepth 2: at query time) and
#    feedback for things asked (PRF 0.3/3/5, PRFAsks) on the default, as families checked against
#    lexical and the default ("Ranking: the audit corrected"); with MISS=1 also where the default's
#    misses are: the default with its turns at limit 50, lexical and vector alone at 100, and
#    bench/rk-miss.py's tables. NEW must be 54cf583 or later for the corrected audit (the audit's
#    corrections scored the question before the one they quote until then).
# Usage: bench/rk-remeasure.sh [BASE [NEW [OUT]]]   (defaults 1df441c, HEAD, /tmp/rk-remeasure; from
# the repository root, ../shared beside it). INDEX=DIR starts the sweep from a copy of a kept sweep
# index (CAIRN_FUSION_DIR of an earlier run: no embedding; /tmp/rk/fdir was kept, LoCoMo dev with
# USE-lite from ../shared/models/use-lite; without INDEX the sweep builds it). With INDEX the
# whole run took 8.5 min at load 6 (the sweep's 17 settings 475 s with the test's build); embedding
# the six conversations first adds about 8 min at low load; each evaluation about 8 min more.
set -eu
BASE=${1:-1df441c}
NEW=${2:-HEAD}
OUT=${3:-/tmp/rk-remeasure}
SHARED=$(cd ../shared && pwd)
HERE=$(pwd)
rm -rf "$OUT/base" "$OUT/new" "$OUT/index"
mkdir -p "$OUT/base" "$OUT/new"
git archive "$BASE" | tar -x -C "$OUT/base"
git archive "$NEW" | tar -x -C "$OUT/new"
ln -sfn "$SHARED" "$OUT/shared"
if [ -n "${INDEX:-}" ]; then
  mkdir -p "$OUT/index"
  sqlite3 "$INDEX/index.db" ".backup $OUT/index/index.db"
  sqlite3 "$INDEX/memory.db" ".backup $OUT/index/memory.db"
  cp -r "$INDEX/sessions" "$INDEX/vectors.bin" "$OUT/index/"
fi
B="1:0.5:0:0:0:0.5:4:0:0:0.3"
D="$B:0:0:0:0.5"
G="$B,$D,$D:0.1,$D:0.2,$D:0.3,$D:0.5,$D:0.1:4,$D:0.2:4,$D:0.3:4,$D:0.5:4,$D:0.75,$D:1,$D:0.5:1,$D:0.5:3,$D:0.75:4,$D:1:4"
G="$G,$D:0.5:0:1,$D:0.75:0:1,$D:1:0:1,$D:0.5:4:1,$D:0.5:0:0:3,$D:0.5:0:0:0:0.5,$D:0.5:0:0:0:1,$D:0.75:0:0:0:1"  # one, cap, share
G="$G,$D:0.3:0:1"
for p in 0.3:5:10 0.5:5:10 0.5:10:20; do for by in 0 4 1; do G="$G,$B:$p:0.5:0.75:0:1:0:0:$by"; done; done  # feedback on the default, gated
Z="$D:0.75:0:1:0:0:0:0:0:0:0:0:0:0:0"  # the default before 2026-12-03, fields 18 to 28 off
G="$G,$Z:0.75:1,$Z:0:0:1:0.5,$Z:0.5:1:1:0.5,$Z:0.75:1:1:0.5,$Z:1:1:1:0.5,$Z:0.75:1:1:0.3,$Z:0.75:1:1:0.7"  # session lift, vector pass without the name
N5="$Z:0.75:1:1:0.5:0:0"  # the default since 2026-12-03, fields 33 and 34 off
P5="1:0.5:0:0:0:0.5:4:0:0:0.3:0.3:3:5:0.5:0.75:0:1:0:0:0:0:0:0:0:0:0:0:0:0.75:1:1:0.5:1:0"  # + feedback for things asked
G="$G,$N5:0.5,$N5:1,$N5:1:2,$N5:1:3,$P5,$P5:0.5,$P5:1,$P5:1:2"  # neighbour mix: copy, at query time; with feedback
SPEAKER=${SPEAKER:-speaker 0.75 one}
(cd "$OUT/new" && CAIRN_FUSION_SWEEP=1 CAIRN_FUSION_DIR="$OUT/index" CAIRN_FUSION_OUT="$OUT/sweep.json" \
  CAIRN_FUSION_GRID="$G" nice -n 19 go test -tags sqlite_fts5 ./engine/ -run TestFusionSweep -v -timeout 2h) | tee "$OUT/sweep.log"
python3 "$HERE/bench/rk-cv.py" "$OUT/sweep.json" -all -diff "$SPEAKER" | tee "$OUT/table.md"
python3 "$HERE/bench/rk-fam.py" "$OUT/sweep.json" -fam 'one=speaker [\d.]+ one$' \
  -fam 'feedback on one=(ctx 0.30 dates 0.50 speaker 0.75 one$|prf .* speaker 0.75 one$)' \
  -fam 'gated feedback on one=(ctx 0.30 dates 0.50 speaker 0.75 one$|prf .* by \d dates 0.50 speaker 0.75 one$)' \
  -fam 'session and vecstrip=(ctx 0.30 dates 0.50 speaker 0.75 one( vecstrip( [\d.]+)?)?( session [\d.]+ top \d)?$)' \
  -vs 'the default before 2026-12-03=ctx 0.30 dates 0.50 speaker 0.75 one$' \
  -vs 'the default=speaker 0.75 one vecstrip 0.50 session 0.75 top 1$' | tee "$OUT/families.md"
DEF='vec 0.50 k 0 m false s 0.00 lean 0.50 by 4 ctx 0.30 dates 0.50 speaker 0.75 one vecstrip 0.50 session 0.75 top 1'
python3 "$HERE/bench/rk-fam.py" "$OUT/sweep.json" \
  -fam "vecmix=lean 0.50 by 4 ctx 0.30 dates 0.50 speaker 0.75 one vecstrip 0.50 session 0.75 top 1( vecmix [\d.]+( depth \d)?)?\$" \
  -fam "vecmix and feedback for things asked=lean 0.50 by 4 ctx 0.30( prf 0.30 docs 3 terms 5 asks)? dates 0.50 speaker 0.75 one vecstrip 0.50 session 0.75 top 1( vecmix [\d.]+( depth \d)?)?\$" \
  -vs "the default=$DEF\$" | tee "$OUT/families5.md"
if [ -n "${MISS:-}" ]; then
  (cd "$OUT/new" && CAIRN_FUSION_SWEEP=1 CAIRN_FUSION_DIR="$OUT/index" CAIRN_FUSION_OUT="$OUT/miss50.json" CAIRN_FUSION_TURNS=1 \
    CAIRN_FUSION_GRID="$N5" nice -n 19 go test -tags sqlite_fts5 ./engine/ -run 'TestFusionSweep$' -v -timeout 1h) > "$OUT/miss50.log"
  (cd "$OUT/new" && CAIRN_FUSION_SWEEP=1 CAIRN_FUSION_DIR="$OUT/index" CAIRN_FUSION_OUT="$OUT/miss100.json" CAIRN_FUSION_TURNS=1 \
    CAIRN_FUSION_VECTOR=1 CAIRN_FUSION_LIMIT=100 CAIRN_FUSION_GRID="$N5" nice -n 19 go test -tags sqlite_fts5 ./engine/ -run 'TestFusionSweep$' -v -timeout 1h) > "$OUT/miss100.log"
  python3 "$HERE/bench/rk-miss.py" -data "$SHARED/data/locomo/locomo-dev.json" -hybrid "$OUT/miss50.json" -deep "$OUT/miss100.json" | tee "$OUT/miss.md"
fi
if [ -n "${FCOST:-}" ]; then
  # What the two passes cost: every search pays its lanes and embeddings (CAIRN_FUSION_COST),
  # the default before 2026-12-03, the default and the session lift alone in turn, three rounds.
  A="$Z"; N="$Z:0.75:1:1:0.5"; S="$Z:0.75:1"
  (cd "$OUT/new" && CAIRN_FUSION_COST=1 CAIRN_FUSION_NO_LEXICAL=1 CAIRN_FUSION_SWEEP=1 CAIRN_FUSION_DIR="$OUT/index" \
    CAIRN_FUSION_OUT="$OUT/fcost.json" CAIRN_FUSION_GRID="$A,$N,$S,$A,$N,$S,$A,$N,$S" \
    nice -n 19 go test -tags sqlite_fts5 ./engine/ -run 'TestFusionSweep$' -v -timeout 2h) | grep -E 'cost ' | tee "$OUT/fcost.log"
fi
if [ -n "${COST:-}" ]; then
  (cd "$OUT/new" && CAIRN_SPEAKER_COST=1 CAIRN_SPEAKER_COST_DIR="${COST_DIR:-$OUT/cost}" \
    nice -n 19 go test -tags sqlite_fts5 ./engine/ -run TestSpeakerLiftCost -v -timeout 1h) | tee "$OUT/cost.log"
fi
if [ -n "${EVAL:-}" ]; then
  for rev in base new; do
    (cd "$OUT/$rev" && nice -n 19 go run -tags sqlite_fts5 ./bench/cmd/calibrate -shared "$SHARED" -modes hybrid,lexical -eval) | tee "$OUT/eval-$rev.log"
  done
fi
