#!/usr/bin/env bash
# bench/pl-remeasure.sh [BEFORE] [AFTER]: issue 20's load-path goals in one
# run, for a quiet machine (defaults: BEFORE 4157f76, AFTER HEAD).
#
#  1. 100k chunks: `cairn import` of an export of /tmp/hb50 (hybridbench's
#     105k-chunk index, 512-dimension vectors; copied first, export opens
#     it) into PostgreSQL by both builds, alternating, twice each
#     (bench/pl-import-ab.sh: wall, client and server CPU, rows/s,
#     chunks/s, every table compared between the builds' schemas).
#  2. 1M chunks (STEP=1m or all): an export of a copy of /tmp/l1big
#     (cairnbench's 1,010,774 chunks) imported by AFTER into the database
#     pl_1m, then pgbench searching the SQLite copy and pl_1m alternating
#     query by query (lexical and hybrid p50/p99, size).
#
#   eval "$(scripts/pg-test-servers.sh start)"
#   bench/pl-remeasure.sh 4157f76 HEAD          # step 1 only: about 10 minutes quiet
#   STEP=all bench/pl-remeasure.sh 4157f76 HEAD # and step 2: add 40 minutes or more, ~20 GB of disk
#
# WORK (default /tmp/pl-remeasure) holds the copies, exports and builds;
# delete it after. pl_1m is kept (drop it with DROP DATABASE pl_1m).
set -euo pipefail
before=${1:-4157f76}
after=${2:-HEAD}
step=${STEP:-100k}
work=${WORK:-/tmp/pl-remeasure}
repo=$(cd "$(dirname "$0")/.." && pwd)
pgurl=${PGURL:-${CAIRN_TEST_POSTGRES_URL:?run eval "\$(scripts/pg-test-servers.sh start)" first}}
mkdir -p "$work/home0"
build() { # rev -> binary
	local rev; rev=$(git -C "$repo" rev-parse --short "$1")
	if [[ ! -x $work/cairn-$rev ]]; then
		git -C "$repo" worktree add -f "$work/src-$rev" "$rev" >/dev/null 2>&1 || true
		(cd "$work/src-$rev" && go build -tags sqlite_fts5 -o "$work/cairn-$rev" ./cmd/cairn &&
			go build -tags sqlite_fts5 -o "$work/pgbench-$rev" ./bench/cmd/pgbench)
	fi
	echo "$work/cairn-$rev"
}
b=$(build "$before")
a=$(build "$after")
echo "load $(cut -d' ' -f1-3 /proc/loadavg); before $b, after $a"

if [[ ! -f $work/x100k.jsonl ]]; then
	rm -rf "$work/hb50data" && cp -r /tmp/hb50/data "$work/hb50data"
	CAIRN_HOME=$work/home0 "$b" export --store "$work/hb50data" "$work/x100k.jsonl"
fi
FILE=$work/x100k.jsonl WORK=$work/ab PGURL=$pgurl "$repo/bench/pl-import-ab.sh" "$b" "$a" 2

[[ $step == all ]] || exit 0
if [[ ! -f $work/x1m.jsonl ]]; then
	rm -rf "$work/l1home" && mkdir -p "$work/l1home/agents"
	cp -r /tmp/l1big/n480000/home/agents/default "$work/l1home/agents/default"
	CAIRN_HOME=$work/home0 /usr/bin/time -f 'export 1M: %e s wall, %U+%S s CPU, %M KB' "$b" export --store "$work/l1home/agents/default" "$work/x1m.jsonl"
fi
base=${pgurl%/*}
psql -q "$base/postgres" -c "DROP DATABASE IF EXISTS pl_1m" -c "CREATE DATABASE pl_1m"
mkdir -p "$work/home1m"
printf '[store]\nurl = "%s/pl_1m"\nschema = "cairn_bench"\n' "$base" >"$work/home1m/config.toml"
CAIRN_HOME=$work/home1m /usr/bin/time -f 'import 1M: %e s wall, %U+%S s CPU, %M KB' "$a" import --agent bench --any-model "$work/x1m.jsonl"
psql -qAt "$base/pl_1m" -c "SELECT 'pl_1m: ' || pg_size_pretty(pg_database_size('pl_1m'))"
"$work/pgbench-$(git -C "$repo" rev-parse --short "$after")" -scale 480000 -queries 200 -reuse -work "$work/w1m" \
	-sqlite-dir "$work/l1home/agents/default" -notes /tmp/l1big/n480000/notes -corpus bench -glob default \
	-pg "$base/pl_1m" -schema cairn_bench -stores sqlite,postgres
