#!/usr/bin/env bash
# Issue 20 benchmarks, PostgreSQL and Citus search speed (engineer pgq):
# the kept 100k stores searched by two builds in turn (BASE, NEW, BASE,
# NEW, ...), each run alternating SQLite, PostgreSQL and Citus query by
# query (pgbench -reuse), so each run gives its own PostgreSQL / SQLite
# and Citus / PostgreSQL ratios at the same moment; then TestSearchStatements
# of NEW (statements a search sends, by query kind and mode).
#
#   bench/pgq-remeasure.sh [BASE [NEW]]     # default 28a0aac HEAD
#   ROUNDS=3 bench/pgq-remeasure.sh         # rounds of BASE then NEW (default 2)
#   PATCH=/tmp/coord/pgq-search.patch bench/pgq-remeasure.sh   # a third build, NEW with the patch
#                                           # applied (a change asked of another package), in each round too
#   AGAIN=1 bench/pgq-remeasure.sh B N      # BASE twice a round (B, B.2, N): the noise of a build beside itself
#
# Each revision is built from `git archive` into $OUT/src-REV (OUT default
# /tmp/pgq/remeasure). The stores are pgbench's -scale 47000 -work $WORK
# -schema $SCHEMA (98,324 chunks; SQLite in $WORK/data-sqlite, the schema
# on both servers of scripts/pg-test-servers.sh, agent bench, six fill
# agents on Citus; defaults WORK=/tmp/pgq/w100k, SCHEMA=pgq_keep); when
# one is missing BASE builds them, the three syncs at once (about 25
# minutes at load 20). Both revisions read schema 5; nothing is migrated.
# A search run is 200 queries a mode and store: 2 to 4 minutes at load 20.
set -euo pipefail
base=${1:-28a0aac}
new=${2:-HEAD}
here=$(cd "$(dirname "$0")/.." && pwd)
# Servers already named (CAIRN_TEST_POSTGRES_URL and _CITUS_URL) are used
# as they are; else scripts/pg-test-servers.sh starts (or reuses) its own.
if [ -z "${CAIRN_TEST_POSTGRES_URL:-}" ] || [ -z "${CAIRN_TEST_CITUS_URL:-}" ]; then
  eval "$("$here/scripts/pg-test-servers.sh" start)"
fi
work=${WORK:-/tmp/pgq/w100k}
schema=${SCHEMA:-pgq_keep}
out=${OUT:-/tmp/pgq/remeasure}
rounds=${ROUNDS:-2}
mkdir -p "$out"
short() { git -C "$here" rev-parse --short "$1"; }
# Resolved once: HEAD may move while this runs (others commit).
b=$(short "$base") a=$(short "$new")
revs="$b"
[ -n "${AGAIN:-}" ] && revs="$revs $b.2"
[ "$a" != "$b" ] && revs="$revs $a"
[ -n "${PATCH:-}" ] && revs="$revs $a+patch"
for r in $revs; do
  if [ "$r" != "${r%.2}" ]; then # BASE's second label: the same binary and sources
    ln -sf "pgbench-${r%.2}" "$out/pgbench-$r"
    ln -sfn "src-${r%.2}" "$out/src-$r"
    continue
  fi
  [ -x "$out/pgbench-$r" ] && continue
  rm -rf "$out/src-$r" && mkdir -p "$out/src-$r"
  git -C "$here" archive "${r%+patch}" | tar -x -C "$out/src-$r"
  if [ "$r" != "${r%+patch}" ]; then (cd "$out/src-$r" && git apply "$PATCH"); fi
  (cd "$out/src-$r" && GOFLAGS=-p=1 nice -n 10 go build -tags sqlite_fts5 -o "$out/pgbench-$r" ./bench/cmd/pgbench)
done
psqlp() { psql -X -q -t -A -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d postgres "$@"; }
chunks() { psqlp -p "$1" -c "SELECT count(*) FROM $schema.chunks WHERE agent = 'bench'" 2>/dev/null || echo 0; }
if [ ! -d "$work/data-sqlite" ] || [ "$(chunks 55432)" = 0 ] || [ "$(chunks 56001)" = 0 ]; then
  echo "== building the stores with $b into $work and schema $schema (load $(cut -d' ' -f1 /proc/loadavg))"
  mkdir -p "$work"
  nice -n 10 "$out/pgbench-$b" -scale 47000 -queries 1 -work "$work" -schema "$schema" -stores sqlite >"$out/build-sqlite.txt" 2>&1 &
  s=$!
  until grep -q "notes;" "$out/build-sqlite.txt" 2>/dev/null; do sleep 5; done # the notes are written
  pids=$s
  for st in postgres citus; do
    nice -n 10 "$out/pgbench-$b" -scale 47000 -queries 1 -work "$work" -reuse -schema "$schema" -stores $st \
      -pg "$CAIRN_TEST_POSTGRES_URL" -citus "$CAIRN_TEST_CITUS_URL" >"$out/build-$st.txt" 2>&1 &
    pids="$pids $!"
  done
  for p in $pids; do wait "$p"; done
  cat "$out"/build-*.txt
fi
# Each build searches its own copy of the SQLite index (a newer build may
# migrate it on open, and an older one then refuses it).
for r in $revs; do
  [ -d "$out/sqlite-$r" ] || cp -a "$work/data-sqlite" "$out/sqlite-$r"
done
run() {
  local rev=$1 n=$2
  echo "== $rev run $n, load $(cut -d' ' -f1-3 /proc/loadavg)"
  /usr/bin/time -f "wall %e s, this process CPU %U+%S s" nice -n 10 "$out/pgbench-$rev" -scale 47000 -queries 200 -work "$work" -reuse \
    -sqlite-dir "$out/sqlite-$rev" -schema "$schema" -pg "$CAIRN_TEST_POSTGRES_URL" -citus "$CAIRN_TEST_CITUS_URL" 2>&1 | tee "$out/run-$rev-$n.txt"
}
for n in $(seq "$rounds"); do
  for r in $revs; do run "$r" "$n"; done
done
echo "== table (lexical and hybrid p50 / p99 ms; each run's load in its header above)"
for n in $(seq "$rounds"); do
  for r in $revs; do
    grep -E '^(sqlite|postgres|citus) ' "$out/run-$r-$n.txt" | sed "s|^|run-$r-$n  |"
  done
done
for r in $revs; do
  [ "$r" = "$b" ] || [ "$r" = "$b.2" ] && continue # BASE's are not asked for
  echo "== statements a search ($r, TestSearchStatements)"
  (cd "$out/src-$r" && nice -n 10 go test -tags sqlite_fts5 ./postgres/ -run TestSearchStatements -v -count=1 2>&1 | grep -E 'statements a search|^(ok|FAIL|---)')
done
