#!/usr/bin/env bash
# Issue 20 benchmarks, PostgreSQL lexical speed (PS): the kept 100k stores
# searched by two builds, each run alternating SQLite, PostgreSQL and Citus
# query by query (pgbench -reuse), so each run gives its own PostgreSQL /
# SQLite and Citus / PostgreSQL ratios at the same moment.
#
#   bench/ps-remeasure.sh [BASE [AFTER]]     # default 4157f76 HEAD; about 8 minutes on a quiet machine
#   LOCOMO=1 bench/ps-remeasure.sh           # also LoCoMo lexical recall on SQLite and PostgreSQL with AFTER (+6 minutes)
#
# It needs the stores pgbench made with -schema ps_keep -work /tmp/ps/w100k
# (98,324 chunks: SQLite in /tmp/ps/w100k/data-sqlite, schema ps_keep on
# both servers of scripts/pg-test-servers.sh). BASE builds know schema 3,
# so before the BASE run the script marks the schema as version 3 and puts
# the lexeme statistics back to PostgreSQL's default (what schema 4
# changed); the AFTER build then migrates it to 4 again when it opens it
# (the statistics target, VACUUM (ANALYZE) of the postings: about a minute).
set -euo pipefail
base=${1:-4157f76}
after=${2:-HEAD}
here=$(cd "$(dirname "$0")/.." && pwd)
eval "$("$here/scripts/pg-test-servers.sh" start)"
work=${WORK:-/tmp/ps/w100k}
out=${OUT:-/tmp/ps-remeasure}
mkdir -p "$out"
for rev in "$base" "$after"; do
  dir=$out/src-$rev
  [ -d "$dir" ] || git -C "$here" worktree add -q -f --detach "$dir" "$rev"
  (cd "$dir" && go build -tags sqlite_fts5 -o "$out/pgbench-$rev" ./bench/cmd/pgbench)
done
psqlp() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d postgres "$@"; }
down() { # schema 4 -> 3 on both servers: default statistics, version 3
  psqlp -p 55432 -c "ALTER TABLE ps_keep.postings ALTER COLUMN lexeme SET STATISTICS -1" -c "ANALYZE ps_keep.postings" \
    -c "UPDATE ps_keep.cairn_meta SET value = '3' WHERE key = 'schema_version'"
  psqlp -p 56001 -c "SELECT count(*) FROM run_command_on_shards('ps_keep.postings', \$\$ALTER TABLE %s ALTER COLUMN lexeme SET STATISTICS -1\$\$)" \
    -c "ANALYZE ps_keep.postings" -c "UPDATE ps_keep.cairn_meta SET value = '3' WHERE key = 'schema_version'"
}
run() {
  local rev=$1 stores=$2
  echo "== $rev ($(git -C "$here" rev-parse --short "$rev")), load $(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "wall %e s, this process CPU %U+%S s" nice -n 10 "$out/pgbench-$rev" -scale 47000 -queries 200 -work "$work" -reuse \
    -schema ps_keep -pg "$CAIRN_TEST_POSTGRES_URL" -citus "$CAIRN_TEST_CITUS_URL" -stores "$stores" 2>&1 | tee "$out/run-$rev.txt"
}
down
# The SQLite index was made by a build of a newer SQLite schema than BASE
# knows (it refuses to open it), so BASE searches the two servers only:
# its PostgreSQL numbers stand beside AFTER's, its ratio to SQLite is
# AFTER's SQLite run's, minutes later.
run "$base" "${BASE_STORES:-postgres,citus}"
run "$after" sqlite,postgres,citus
if [ -n "${LOCOMO:-}" ]; then
  (cd "$out/src-$after" && nice -n 10 go run -tags sqlite_fts5 ./bench/cmd/pgbench -locomo -schema ps_locomo -citus "") | tee "$out/locomo-$after.txt"
  psqlp -p 55432 -c "DROP SCHEMA IF EXISTS ps_locomo CASCADE"
fi
