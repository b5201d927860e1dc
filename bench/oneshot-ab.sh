#!/bin/bash
# One-shot `cairn search` in hybrid mode without a server, two builds
# alternating query by query (the order flips every query), plus a lexical
# search of the newer build as the machine's noise level. Prints per call:
# wall ms, CPU ms (user + system) and the load average. Any running server
# of the data directory must be stopped first (its record would answer).
# The summary at the end: median wall and CPU ms of each label, and how
# many calls took under UNDER ms of wall (default 150, issue 19 item 6).
#
#   CAIRN_HOME=/tmp/e1/cli bench/oneshot-ab.sh /tmp/e1/cairn-before /tmp/e1/cairn-after 3
#
# HOME_A and HOME_B (default CAIRN_HOME) give each build its own copy of
# the data: a newer build may migrate the index to a schema the older one
# refuses to open.
set -eu
A=$1 B=$2 ROUNDS=${3:-2}
HOME_A=${HOME_A:-$CAIRN_HOME} HOME_B=${HOME_B:-$CAIRN_HOME}
for h in "$HOME_A" "$HOME_B"; do
  [ ! -f "$h/agents/default/server.json" ] || { echo "a server record exists in $h: stop cairn serve first" >&2; exit 1; }
done
qs=("pleagaind thoupleand decision" "trechex grohou" "mountain weather" "meshourBishas" "dripon bagrun ceamouplo" "stupem crazeaplund" "zishouvas drean" "keachoun recrai" "which thing did we decide" "lofeacix stitox config" "treabrigoun leastoreathe" "shithaigrest brin")
one() { # label binary mode query
  local tf s0 out
  tf=$(mktemp)
  s0=$(date +%s%N)
  local home=$HOME_B
  [ "$2" = "$A" ] && home=$HOME_A
  CAIRN_HOME=$home /usr/bin/time -o "$tf" -f "%U %S" "$2" search "$4" --mode "$3" --limit 5 >/dev/null 2>&1 || true
  out="$(( ($(date +%s%N) - s0) / 1000000 )) $(tail -1 "$tf")"
  rm -f "$tf"
  set -- "$1" $out
  awk -v l="$1" -v e="$2" -v u="$3" -v s="$4" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { printf "%s wall %d cpu %.0f load %s\n", l, e, (u+s)*1000, load }'
}
# One call of each build first, not counted: it builds what a build keeps
# between calls (the optimized-graph cache in the data directory's
# cache/onnx, from c624da9 on) and warms the page cache for both alike.
CAIRN_HOME=$HOME_A "$A" search warmup --mode hybrid --limit 1 >/dev/null 2>&1 || true
CAIRN_HOME=$HOME_B "$B" search warmup --mode hybrid --limit 1 >/dev/null 2>&1 || true
LOG=${LOG:-$(mktemp)}
i=0
for r in $(seq "$ROUNDS"); do
  for q in "${qs[@]}"; do
    i=$((i+1))
    if [ $((i%2)) = 1 ]; then one before "$A" hybrid "$q"; one after "$B" hybrid "$q"
    else one after "$B" hybrid "$q"; one before "$A" hybrid "$q"; fi
    one lexical "$B" lexical "$q"
  done
done | tee "$LOG"
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for l in before after lexical; do
  echo "median $l: wall $(awk -v l=$l '$1 == l { print $3 }' "$LOG" | med) ms, cpu $(awk -v l=$l '$1 == l { print $5 }' "$LOG" | med) ms, under ${UNDER:-150} ms: $(awk -v l=$l -v u="${UNDER:-150}" '$1 == l { n++; if ($3 < u) k++ } END { printf "%d of %d", k, n }' "$LOG")"
done
