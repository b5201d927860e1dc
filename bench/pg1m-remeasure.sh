#!/usr/bin/env bash
# bench/pg1m-remeasure.sh [BASE] [NEW]: issue 20's 1M benchmark from the kept
# 1M SQLite index (/tmp/l1big, cairnbench -sizes 480000: about 1,007,000
# chunks, lexical only, no vectors), SQLite beside single PostgreSQL and the
# three-node Citus cluster (defaults: BASE 28a0aac, NEW HEAD). /tmp/l1big is
# only read: everything works on a copy under WORK (default /tmp/pg1m-re).
#
#  export  copy the index, `cairn export` of it by NEW (wall, CPU, peak RSS
#          from /usr/bin/time -v)
#  import  `cairn import --agent pg1m` of that export by NEW into schema
#          pg1m of the single server and of the Citus coordinator, both at
#          once (each is one transaction and one server backend; on 2 vCPUs
#          and at load 30 about 35 to 60 minutes each), then where the
#          agent's shard lives (Citus distributes by agent: one agent's rows
#          are on one worker, the other worker holds other agents' shards).
#          An import holds the agent's write lock: up to 30f4576 keyed by
#          the agent name alone, so no other import or sync of an agent
#          pg1m, in any schema of the server, may run meanwhile (it would
#          wait silently); from 2a8e6dc by schema and agent (postgres
#          lockKeys), and a newer build still waits for an older one's.
#  search  the three stores searched by BASE and NEW, builds alternating
#          ROUNDS times (default 2), each run alternating the stores query
#          by query: portbench -search (engine searches, QUERIES a store,
#          default 1000, lexical: the store has no vectors, so no hybrid)
#          and TestLexicalTail CAIRN_PG_TAIL_AB=stores (search.Searcher over
#          each store, p50/p99 by query kind, every query's hits compared
#          with SQLite's: paths, lines, order, scores within 1e-9)
#  own     NEW's TestLexicalTail CAIRN_PG_TAIL_AB=ownpairs on each server's
#          store: every query with phrases over GramWords's pairs alone and
#          over the agent's own pair words too (postgres/ownpairs.go),
#          alternating, hits compared (an import by a build of schema 6
#          chooses the words; a store without them gets them first, as
#          Optimize gives them: minutes)
#  merge   NEW's TestLexicalTail CAIRN_PG_TAIL_AB=stores over SQLite and each
#          server's store twice: phrases of frequent lexemes through
#          cairn_phrase_v1 (postgres/phrasefn.go) and as the planner's join
#          (postgres-join, citus-join), alternating query by query, MERGE_ROUNDS
#          rounds (default 2), the two forms' hits compared (a difference
#          fails); the whole log in WORK/merge-NEW.log (the slowest
#          statements' plans, MERGE_EXPLAIN of them); MERGE_STORES
#          names other stores (TestLexicalTail's: postgres-server is
#          PostgreSQL with the server's JIT and parallel workers, as
#          before 12-04c)
#  size    SQLite's files, PostgreSQL per table, Citus per worker
#
# SERVERS (default pg,citus) names the servers every step uses: SERVERS=pg
# imports into the single server alone (half the import's CPU on a busy
# machine), then searches SQLite beside it, runs `own` and `size` on it only;
# a later SERVERS=citus STEPS=import adds the Citus copy.
#
# From schema 6 (own pair words) a build before it refuses the stores a
# newer one imported or opened: then pass the same build as BASE and NEW
# (BASE's search is that build beside itself) and compare over `own`.
#
#   eval "$(scripts/pg-test-servers.sh start)"
#   bench/pg1m-remeasure.sh 28a0aac HEAD                  # all steps, ~1.5 h at load 30, 30 GB of disk
#   STEPS=search,size bench/pg1m-remeasure.sh 28a0aac HEAD # the kept stores again, ~15 minutes, 2.5 GB more
#   STEPS=search QUERIES=300 ROUNDS=1 bench/pg1m-remeasure.sh 28a0aac 30f4576  # run 17:40 at load 4-7: 1 min a build
#
# A quiet 1M export and both imports (16:01 to 16:23, load 2.3 to 2.9, 30f4576): 22.6 s export,
# then 21.5 minutes each import, 15 of them the postings statement (5.2 GB in pgsql_tmp).
# With own pairs (ecc6bbc, schema 6; 2026-12-04 01:32 to 02:07, load 12 falling to 6): 26.7 s export,
# 32.7 minutes each import, about 20 of them the postings statement (6.5 GB in pgsql_tmp), 18.1 GB a store;
# STEPS=own 4 minutes and STEPS=search,size ROUNDS=1 2.5 minutes at load 3 to 5.
# Disk: both imports at once need about 50 GB free (18 GB a store and 6.5 GB of sort files each at the peak);
# on 2026-12-04 at 04:12 both failed with "No space left on device" after 41 minutes (16 GB free at 04:07,
# other engineers' files included). SERVERS=pg alone (76146fb, 04:15 to 04:40, load 8 to 20): 24.9 minutes.
# STEPS=merge MERGE_ROUNDS=2 SERVERS=pg: 53 s; STEPS=search ROUNDS=2 SERVERS=pg: 2.5 minutes (load 3 to 4).
# 2026-12-04 19:04 (5ee6aae, SERVERS=pg, load 8 to 14 with other engineers' work): export 31 s, import 37.9 minutes
# (rows 8 minutes, the postings statement about 25); STEPS=merge QUERIES=1000 MERGE_ROUNDS=2 with three stores: 6 minutes.
# Citus alone after it (d2c29ce, 19:54 to 20:29, load 5 to 22): 34.8 minutes. Free disk fell from 41 to 17 GB.
# Do not edit this file while it runs: bash reads it as it goes (an edit at 19:17 broke the step after the import).
#
# The stores are kept (schema pg1m on both servers, WORK/sqlite); drop
# them with DROP SCHEMA pg1m CASCADE on each server and rm -rf WORK.
set -euo pipefail
base=${1:-28a0aac}
new=${2:-HEAD}
work=${WORK:-/tmp/pg1m-re}
steps=${STEPS:-export,import,search,size}
queries=${QUERIES:-1000}
rounds=${ROUNDS:-2}
servers=${SERVERS:-pg,citus}
case $servers in pg | citus | pg,citus | citus,pg) ;; *) echo "SERVERS=$servers: want pg, citus or pg,citus" >&2; exit 2 ;; esac
on() { [[ ,$servers, == *,$1,* ]]; }
stores=sqlite
on pg && stores+=,postgres
on citus && stores+=,citus
src1m=${SRC1M:-/tmp/l1big/n480000/home/agents/default}
notes=${NOTES:-/tmp/l1big/n480000/notes}
agent=pg1m schema=pg1m
repo=$(cd "$(dirname "$0")/.." && pwd)
pg=${CAIRN_TEST_POSTGRES_URL:?run eval "\$(scripts/pg-test-servers.sh start)" first}
citus=${CAIRN_TEST_CITUS_URL:?run eval "\$(scripts/pg-test-servers.sh start)" first}
mkdir -p "$work"
load() { cut -d' ' -f1-3 /proc/loadavg; }

# build REV: cairn, portbench and the postgres test binary of REV's tree
# (TestLexicalTail's stores mode is NEW's postgres/tail_test.go).
build() {
	local rev src
	rev=$(git -C "$repo" rev-parse --short "$1")
	if [[ ! -x $work/postgres.test-$rev ]]; then
		src=$work/src-$rev
		rm -rf "$src" && mkdir -p "$src"
		git -C "$repo" archive "$rev" | tar -x -C "$src"
		git -C "$repo" archive "$new" postgres/tail_test.go | tar -x -C "$src"
		(cd "$src" && nice -n 10 go build -tags sqlite_fts5 -o "$work/cairn-$rev" ./cmd/cairn &&
			nice -n 10 go build -tags sqlite_fts5 -o "$work/portbench-$rev" ./bench/cmd/portbench &&
			nice -n 10 go test -c -tags sqlite_fts5 -o "$work/postgres.test-$rev" ./postgres/) >&2
	fi
	echo "$rev"
}
b=$(build "$base")
a=$(build "$new")
echo "load $(load); base $b, new $a"

if [[ $steps == *export* ]]; then
	rm -rf "$work/sqlite" && cp -a "$src1m" "$work/sqlite"
	sqlite3 -readonly "$work/sqlite/index.db" "SELECT 'chunks ' || count(*) FROM chunks; SELECT 'vectors ' || count(*) FROM vectors"
	mkdir -p "$work/home0"
	CAIRN_HOME=$work/home0 /usr/bin/time -v nice -n 10 "$work/cairn-$a" export --store "$work/sqlite" "$work/x1m.jsonl" 2>"$work/export.time"
	grep -E 'Elapsed|Maximum resident|User time|System time' "$work/export.time"
	echo "export: $(du -b "$work/x1m.jsonl" | cut -f1) bytes, load $(load)"
fi

if [[ $steps == *import* ]]; then
	pids=()
	for s in pg citus; do
		on "$s" || continue
		url=$pg && [[ $s == citus ]] && url=$citus
		psql -q "$url" -c "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null || true
		mkdir -p "$work/home-$s"
		printf '[store]\nurl = "%s"\nschema = "%s"\n' "$url" "$schema" >"$work/home-$s/config.toml"
		CAIRN_HOME=$work/home-$s /usr/bin/time -v nice -n 10 "$work/cairn-$a" import --agent "$agent" --any-model "$work/x1m.jsonl" >"$work/import-$s.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	for s in pg citus; do
		on "$s" || continue
		echo "import $s: $(grep -a '^imported' "$work/import-$s.log" | tail -1)"
		grep -aE 'Elapsed|Maximum resident|User time|System time' "$work/import-$s.log"
	done
	echo "load $(load)"
fi

if [[ $steps == *search* ]]; then
	if on citus; then
		n=$(psql -qAt "$citus" -c "SELECT count(*) FROM $schema.chunks WHERE agent = '$agent'")
		echo "citus: $n chunks of $agent; its shard: $(psql -qAt "$citus" -c "SELECT nodename || ':' || nodeport FROM citus_shards
			WHERE shardid = get_shard_id_for_distribution_column('$schema.chunks', '$agent')")"
	fi
	# Each build searches its own copy of the index: a newer build may
	# mark the file with a schema an older one refuses (sqlite's pair
	# fence, schema 13).
	for rev in "$b" "$a"; do
		[[ -d $work/sqlite-$rev ]] || cp -a "$work/sqlite" "$work/sqlite-$rev"
	done
	for round in $(seq "$rounds"); do
		for rev in "$b" "$a"; do
			echo "== round $round, build $rev, load $(load)"
			nice -n 10 "$work/portbench-$rev" -search -data "$work/sqlite-$rev" -notes "$notes" -corpus bench -glob default \
				-pg "$pg" -citus "$citus" -schema "$schema" -agent "$agent" -work "$work/pb-$rev" -queries "$queries" \
				-stores "$stores" -modes lexical
			CAIRN_PG_TAIL=$schema CAIRN_PG_TAIL_AGENT=$agent CAIRN_PG_TAIL_AB=stores CAIRN_PG_TAIL_STORES=$stores CAIRN_PG_TAIL_SQLITE=$work/sqlite-$rev \
				CAIRN_PG_TAIL_URL=$pg CAIRN_PG_TAIL_CITUS=$citus CAIRN_PG_TAIL_QUERIES=$queries CAIRN_PG_TAIL_ROUNDS=1 CAIRN_PG_TAIL_EXPLAIN=3 \
				nice -n 10 "$work/postgres.test-$rev" -test.run 'TestLexicalTail$' -test.v -test.timeout 0 |
				grep -E 'chunks \(ids|round 1|tail_test.go:[0-9]+: +(common|mid|rare|mixed|ident|phrase) |differ|hits |FAIL|ok|PASS' || true
		done
	done
fi

if [[ $steps == *own* ]]; then
	for s in pg citus; do
		on "$s" || continue
		url=$pg && [[ $s == citus ]] && url=$citus
		echo "== own pairs A/B, $url, build $a, load $(load)"
		CAIRN_PG_TAIL=$schema CAIRN_PG_TAIL_AGENT=$agent CAIRN_PG_TAIL_AB=ownpairs CAIRN_PG_TAIL_URL=$url \
			CAIRN_PG_TAIL_QUERIES=$queries CAIRN_PG_TAIL_ROUNDS=${OWN_ROUNDS:-2} CAIRN_PG_TAIL_EXPLAIN=3 \
			nice -n 10 "$work/postgres.test-$a" -test.run 'TestLexicalTail$' -test.v -test.timeout 0 |
			grep -E 'chunks \(ids|own pairs:|round [0-9]|tail_test.go:[0-9]+: +(common|mid|rare|mixed|ident|phrase) |differ|hits |FAIL|ok|PASS' || true
	done
fi

if [[ $steps == *merge* ]]; then
	# NEW's phrases of frequent lexemes through cairn_phrase_v1 (postgres/phrasefn.go)
	# and as the planner's join (postgres-join, citus-join: mergePhrases off), SQLite
	# beside them, all alternating query by query; the two forms' hits compared.
	ms=sqlite
	on pg && ms+=,postgres-join,postgres
	on citus && ms+=,citus-join,citus
	ms=${MERGE_STORES:-$ms}
	[[ -d $work/sqlite-$a ]] || cp -a "$work/sqlite" "$work/sqlite-$a"
	echo "== merge A/B ($ms), build $a, load $(load)"
	CAIRN_PG_TAIL=$schema CAIRN_PG_TAIL_AGENT=$agent CAIRN_PG_TAIL_AB=stores CAIRN_PG_TAIL_STORES=$ms CAIRN_PG_TAIL_SQLITE=$work/sqlite-$a \
		CAIRN_PG_TAIL_URL=$pg CAIRN_PG_TAIL_CITUS=$citus CAIRN_PG_TAIL_QUERIES=$queries CAIRN_PG_TAIL_ROUNDS=${MERGE_ROUNDS:-2} CAIRN_PG_TAIL_EXPLAIN=${MERGE_EXPLAIN:-3} \
		nice -n 10 "$work/postgres.test-$a" -test.run 'TestLexicalTail$' -test.v -test.timeout 0 >"$work/merge-$a.log" 2>&1 || true
	grep -E 'chunks \(ids|round [0-9]|tail_test.go:[0-9]+: +(common|mid|rare|mixed|ident|phrase) |differ|hits |FAIL|ok|PASS' "$work/merge-$a.log" || true
	echo "load $(load)"
fi

if [[ $steps == *size* ]]; then
	echo "SQLite: $(du -b "$work/sqlite/index.db" | cut -f1) bytes index.db"
	if on pg; then
		psql -qAt "$pg" -c "SELECT 'postgres ' || c.relname || ' ' || pg_total_relation_size(c.oid) || ' (table ' || pg_table_size(c.oid) || ')' FROM pg_class c
			WHERE c.relnamespace = '$schema'::regnamespace AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 8"
		psql -qAt "$pg" -c "SELECT 'postgres all ' || sum(pg_total_relation_size(c.oid)) FROM pg_class c WHERE c.relnamespace = '$schema'::regnamespace AND c.relkind = 'r'"
	fi
	if on citus; then
		psql -qAt "$citus" -c "SELECT 'citus ' || nodename || ':' || nodeport || ' ' || sum(shard_size) FROM citus_shards
			WHERE table_name::text LIKE '$schema.%' GROUP BY nodename, nodeport ORDER BY 1"
	fi
fi
