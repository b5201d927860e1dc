#!/usr/bin/env bash
# Issue 20 benchmarks, PostgreSQL lexical speed (PS, then PP: pair postings
# for phrases of common words): the kept 100k stores searched by two builds
# in turn (BASE, NEW, BASE, NEW), each run alternating SQLite, PostgreSQL
# and Citus query by query (pgbench -reuse), so each run gives its own
# PostgreSQL / SQLite and Citus / PostgreSQL ratios at the same moment.
#
#   bench/ps-remeasure.sh [BASE [NEW]]     # default 1df441c HEAD
#   ROUNDS=1 bench/ps-remeasure.sh         # one BASE and one NEW run (default 2 of each)
#   LOCOMO=1 bench/ps-remeasure.sh         # also LoCoMo lexical recall on SQLite and PostgreSQL with NEW (+6 minutes)
#
# Each revision is built from `git archive` into $OUT/src-REV. It needs the
# stores pgbench makes with -scale 47000 -work $WORK -schema $SCHEMA
# (98,324 chunks: SQLite in $WORK/data-sqlite, the schema on both servers
# of scripts/pg-test-servers.sh; defaults WORK=/tmp/pp/w100k,
# SCHEMA=pp_keep) and builds them with BASE when any is missing: three
# syncs, about 35 minutes at load 20 to 30 (SQLite 7 minutes, PostgreSQL
# and Citus 15 to 20 each, run one after another by pgbench).
#
# Schemas: BASE knows schema 4, NEW (from 471e4fa on) schema 5 (pair
# postings). The first NEW run migrates the stores to 5 (its start and
# done lines are printed; about a minute a 100,000 chunks at load 20,
# then the vacuum). Before each BASE run the script marks the schemas as
# version 4 again: the pair postings stay (BASE never reads a posting whose
# lexeme starts with \x1f, pairs' mark) and before each NEW run it marks
# them 5 again, so nothing is written twice. Each search run: 200 queries
# a mode and store, 2 to 4 minutes at load 20. In all, with the stores
# kept and the builds cached, about 15 minutes at load 20.
set -euo pipefail
base=${1:-1df441c}
new=${2:-HEAD}
here=$(cd "$(dirname "$0")/.." && pwd)
eval "$("$here/scripts/pg-test-servers.sh" start)"
work=${WORK:-/tmp/pp/w100k}
schema=${SCHEMA:-pp_keep}
out=${OUT:-/tmp/ps-remeasure}
rounds=${ROUNDS:-2}
mkdir -p "$out"
short() { git -C "$here" rev-parse --short "$1"; }
# Resolved once: HEAD may move while this runs (others commit).
b=$(short "$base") a=$(short "$new")
for r in "$b" "$a"; do
  [ -x "$out/pgbench-$r" ] && continue
  rm -rf "$out/src-$r" && mkdir -p "$out/src-$r"
  git -C "$here" archive "$r" | tar -x -C "$out/src-$r"
  (cd "$out/src-$r" && GOFLAGS=-p=1 nice -n 10 go build -tags sqlite_fts5 -o "$out/pgbench-$r" ./bench/cmd/pgbench)
done
psqlp() { psql -X -q -t -A -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d postgres "$@"; }
version() { psqlp -p "$1" -c "SELECT coalesce((SELECT value FROM $schema.cairn_meta WHERE key = 'schema_version'), '0')" 2>/dev/null || echo 0; }
if [ ! -d "$work/data-sqlite" ] || [ "$(version 55432)" = 0 ] || [ "$(version 56001)" = 0 ]; then
  echo "== building the stores with $b into $work and schema $schema (load $(cut -d' ' -f1 /proc/loadavg))"
  nice -n 10 "$out/pgbench-$b" -scale 47000 -queries 1 -work "$work" -schema "$schema" \
    -pg "$CAIRN_TEST_POSTGRES_URL" -citus "$CAIRN_TEST_CITUS_URL" 2>&1 | tee "$out/build.txt"
fi
setversion() { # mark both schemas as version $1, if they hold pair postings
  for p in 55432 56001; do
    if [ "$(version $p)" -ge 4 ] && [ -n "$(psqlp -p $p -c "SELECT 1 FROM $schema.postings WHERE lexeme >= chr(31) AND lexeme < chr(32) LIMIT 1")" ]; then
      psqlp -p $p -c "UPDATE $schema.cairn_meta SET value = '$1' WHERE key = 'schema_version'"
    fi
  done
}
run() {
  local rev=$1 stores=$2 n=$3
  echo "== $rev run $n, load $(cut -d' ' -f1 /proc/loadavg), schema versions $(version 55432) / $(version 56001)"
  /usr/bin/time -f "wall %e s, this process CPU %U+%S s" nice -n 10 "$out/pgbench-$rev" -scale 47000 -queries 200 -work "$work" -reuse \
    -schema "$schema" -pg "$CAIRN_TEST_POSTGRES_URL" -citus "$CAIRN_TEST_CITUS_URL" -stores "$stores" 2>&1 | tee "$out/run-$rev-$n.txt"
}
# The SQLite index may be made by a build of a newer SQLite schema than
# BASE knows (it then refuses to open it), so BASE searches the two servers
# only by default: its PostgreSQL numbers stand beside NEW's, and the
# ratio to SQLite is NEW's, in NEW's runs.
for n in $(seq "$rounds"); do
  setversion 4
  run "$b" "${BASE_STORES:-postgres,citus}" "$n"
  setversion 5
  run "$a" sqlite,postgres,citus "$n"
done
echo "== table (lexical and hybrid p50 / p99 ms; each run's load in its header above)"
for f in "$out"/run-"$b"-*.txt "$out"/run-"$a"-*.txt; do
  [ -f "$f" ] || continue
  grep -E '^(sqlite|postgres|citus) ' "$f" | sed "s|^|$(basename "$f" .txt)  |"
done
if [ -n "${LOCOMO:-}" ]; then
  (cd "$out/src-$a" && nice -n 10 go run -tags sqlite_fts5 ./bench/cmd/pgbench -locomo -schema pp_locomo -citus "") | tee "$out/locomo-$a.txt"
  psqlp -p 55432 -c "DROP SCHEMA IF EXISTS pp_locomo CASCADE"
fi
