#!/usr/bin/env bash
# bench/big-remeasure.sh [BASE] [NEW]: issue 20 at 1M chunks, for a quiet
# machine (defaults: BASE 1df441c, NEW HEAD). About 10 minutes quiet
# (STEPS=embed,search; either alone), 2 GB of scratch beside the kept stores.
#
#  embed   sync's embedding pass (bench/hashembed, the stand-in embedder) of
#          BASE and NEW alternating, twice each, on fresh copies of an index
#          without vectors: /tmp/big/c48 (cairnbench -sizes 48000, 100,382
#          chunks; built here when missing, about a minute quiet) and
#          /tmp/l1big (cairnbench -sizes 480000, 1,010,774 chunks: needed,
#          not built here, 30 minutes). Both builds run NEW's portbench
#          (BASE's has no -stop-after) over their own engine and store:
#          vectors/s, CPU-ms and KB read (rchar) a vector over the first
#          STOP vectors (default 20000).
#  search  the kept 1M stores, no rebuild: the SQLite index with its
#          vectors (/tmp/big/sqlite), its import into PostgreSQL and Citus
#          (schema big_1m, agent bench), searched by NEW's portbench
#          -search, QUERIES (default 1000) a store and mode, the stores
#          alternating query by query: lexical over all three, hybrid over
#          SQLite and PostgreSQL, then SQLite and Citus (each store's vector
#          lane holds its 1M vectors in memory: about 3 GB resident for
#          SQLite, mapped and copied into huge pages, 1.6 GB for a
#          PostgreSQL store, so a pair takes about 4.6 GB); wall and this
#          process's CPU a query (a server's CPU not in it); then the
#          sizes, per table, and on Citus per worker.
#
#   eval "$(scripts/pg-test-servers.sh start)"
#   bench/big-remeasure.sh 1df441c HEAD
#
# WORK (default /tmp/big-remeasure) holds the builds and copies; delete it
# after. The stores are the coordinator's to drop: rm -rf /tmp/big/sqlite;
# DROP SCHEMA big_1m CASCADE on both servers.
set -euo pipefail
base=${1:-1df441c}
new=${2:-HEAD}
work=${WORK:-/tmp/big-remeasure}
steps=${STEPS:-embed,search}
stop=${STOP:-20000}
queries=${QUERIES:-1000}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"

# build REV: portbench of REV's tree with NEW's bench/cmd/portbench.
build() {
	local rev src
	rev=$(git -C "$repo" rev-parse --short "$1")
	if [[ ! -x $work/portbench-$rev ]]; then
		src=$work/src-$rev
		rm -rf "$src" && mkdir -p "$src"
		git -C "$repo" archive "$rev" | tar -x -C "$src"
		rm -rf "$src/bench/cmd/portbench" && mkdir -p "$src/bench/cmd/portbench"
		git -C "$repo" archive "$new" bench/cmd/portbench | tar -x -C "$src"
		(cd "$src" && nice -n 10 go build -tags sqlite_fts5 -o "$work/portbench-$rev" ./bench/cmd/portbench)
	fi
	echo "$work/portbench-$rev"
}
b=$(build "$base")
a=$(build "$new")
echo "load $(cut -d' ' -f1-3 /proc/loadavg); base $b, new $a"

if [[ $steps == *embed* ]]; then
	if [[ ! -d /tmp/big/c48/n48000/home/agents/default ]]; then
		(cd "$repo" && go build -tags sqlite_fts5 -o "$work/cairnbench" ./bench/cmd/cairnbench)
		"$work/cairnbench" -sizes 48000 -queries 10 -out /tmp/big/c48 >/dev/null
	fi
	embed() { # label index-dir notes
		local round bin
		for round in 1 2; do
			for bin in "$b" "$a"; do
				rm -rf "$work/copy" && cp -a "$2" "$work/copy"
				printf '%s %s round %d: ' "$1" "$(basename "$bin")" "$round"
				"$bin" -notes "$3" -data "$work/copy" -corpus bench -glob default -hashembed -stop-after "$stop" | grep '^embedding phase'
			done
		done
		rm -rf "$work/copy"
	}
	embed 100k /tmp/big/c48/n48000/home/agents/default /tmp/big/c48/n48000/notes
	if [[ -d /tmp/l1big/n480000/home/agents/default ]]; then
		embed 1M /tmp/l1big/n480000/home/agents/default /tmp/l1big/n480000/notes
	else
		echo "1M: no /tmp/l1big (cairnbench -sizes 480000 -queries 2000 -out /tmp/l1big builds it)"
	fi
fi

if [[ $steps == *search* ]]; then
	pg=${CAIRN_TEST_POSTGRES_URL:?run eval "\$(scripts/pg-test-servers.sh start)" first}
	citus=${CAIRN_TEST_CITUS_URL:?run eval "\$(scripts/pg-test-servers.sh start)" first}
	search() { # stores modes
		"$a" -search -data /tmp/big/sqlite -notes /tmp/l1big/n480000/notes -corpus bench -glob default \
			-pg "$pg" -citus "$citus" -schema big_1m -agent bench -work "$work" -queries "$queries" -stores "$1" -modes "$2"
	}
	# A store whose import has not run (or not finished: one transaction)
	# holds no chunks of the agent: it is left out, and said so.
	chunks() { psql -qAt "$1" -c "SELECT count(*) FROM big_1m.chunks WHERE agent = 'bench'" 2>/dev/null || echo 0; }
	stores=sqlite
	for s in postgres citus; do
		url=$pg && [[ $s == citus ]] && url=$citus
		n=$(chunks "$url")
		echo "$s: $n chunks of agent bench in schema big_1m"
		[[ $n -gt 0 ]] && stores=$stores,$s
	done
	search "$stores" lexical
	for s in postgres citus; do
		[[ ,$stores, == *,$s,* ]] && search "sqlite,$s" hybrid
	done
	[[ $stores == sqlite ]] && search sqlite hybrid
	echo "SQLite: $(du -b /tmp/big/sqlite/index.db | cut -f1) bytes index.db, $(du -b /tmp/big/sqlite/vectors.bin | cut -f1) vectors.bin"
	psql -qAt "$pg" -c "SELECT 'postgres ' || c.relname || ' ' || pg_total_relation_size(c.oid) FROM pg_class c
		WHERE c.relnamespace = 'big_1m'::regnamespace AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 8"
	psql -qAt "$citus" -c "SELECT 'citus ' || nodename || ':' || nodeport || ' ' || sum(shard_size) FROM citus_shards
		WHERE table_name::text LIKE 'big_1m.%' GROUP BY 1 ORDER BY 1"
fi
