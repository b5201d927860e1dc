#!/usr/bin/env bash
# bench/pl-import-ab.sh BEFORE AFTER [RUNS]: `cairn import` of one export
# (JSON Lines) into PostgreSQL by two builds, alternating (BEFORE, AFTER,
# AFTER, BEFORE, ...), each into a schema of its own in one database:
# wall, client CPU (user+sys, /usr/bin/time), the server's CPU (the
# postmaster's and its children's, /proc), rows/s and chunks/s, the load
# average; then each pair of schemas compared table by table (counts, and
# an md5 over every chunk's columns, tsvector and tf map, every posting,
# every vector, document and content, in id or key order).
#
# BEFORE and AFTER are git revisions (built in worktrees under $WORK) or
# cairn binaries. Issue 20, item 5's COPY path: BEFORE 4157f76, AFTER HEAD.
#
#   eval "$(scripts/pg-test-servers.sh start)"
#   FILE=/tmp/pl/x100k.jsonl bench/pl-import-ab.sh 4157f76 HEAD 2
#
# FILE: the export (make one with `cairn export --store DATA FILE`); PGURL:
# the server (default $CAIRN_TEST_POSTGRES_URL); DB: the database used
# (default pl_ab, created if missing; the schemas are dropped at the end
# unless KEEP=1). About 10 minutes for 2 runs at 100k chunks on a quiet
# machine (the INSERT path takes most of it).
set -euo pipefail
before=${1:?usage: bench/pl-import-ab.sh BEFORE AFTER [RUNS]}
after=${2:?usage: bench/pl-import-ab.sh BEFORE AFTER [RUNS]}
runs=${3:-2}
file=${FILE:?set FILE to an export}
pgurl=${PGURL:-${CAIRN_TEST_POSTGRES_URL:?set PGURL or CAIRN_TEST_POSTGRES_URL}}
db=${DB:-pl_ab}
work=${WORK:-/tmp/pl-import-ab}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"

binary() { # revision or binary -> binary path
	if [[ -x $1 && -f $1 ]]; then echo "$1"; return; fi
	local rev; rev=$(git -C "$repo" rev-parse --short "$1")
	local out=$work/cairn-$rev
	if [[ ! -x $out ]]; then
		git -C "$repo" worktree add -f "$work/src-$rev" "$rev" >/dev/null 2>&1 || true
		(cd "$work/src-$rev" && go build -tags sqlite_fts5 -o "$out" ./cmd/cairn)
	fi
	echo "$out"
}
bin_before=$(binary "$before")
bin_after=$(binary "$after")

base=${pgurl%/*}
url=$base/$db
psql -q "$base/postgres" -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 ||
	psql -q "$base/postgres" -c "CREATE DATABASE $db"
port=$(sed -E 's|.*:([0-9]+)/.*|\1|' <<<"$url")

server_cpu() { # the postmaster on $port: its and its reaped children's CPU, and its live children's (seconds)
	local pm; pm=$(pgrep -f -- "bin/postgres .*-p $port( |$)" | head -1)
	python3 - "$pm" <<'EOF'
import os, sys
pm = sys.argv[1]
def fields(pid):
    s = open(f"/proc/{pid}/stat").read()
    return s[s.rindex(")") + 2:].split()
f = fields(pm)
t = sum(int(x) for x in f[11:15])
for d in os.listdir("/proc"):
    if d.isdigit():
        try:
            g = fields(d)
        except OSError:
            continue
        if g[1] == pm:
            t += int(g[11]) + int(g[12])
print(t / os.sysconf("SC_CLK_TCK"))
EOF
}

rows=$(python3 -c "
import json,sys
h=json.loads(open(sys.argv[1]).readline())
print(sum(h['counts'].values()), h['counts']['chunks'])" "$file")
read -r nrows nchunks <<<"$rows"
echo "file $file: $nrows rows, $nchunks chunks; before $bin_before, after $bin_after"
printf '%-7s %3s %9s %9s %9s %9s %10s %10s  %s\n' side run wall_s client_s server_s rss_MB rows/s chunks/s load
schemas=()
one() { # side bin run
	local side=$1 bin=$2 run=$3 schema=ab_${1}_$3 home=$work/home-$1-$3
	mkdir -p "$home"
	printf '[store]\nurl = "%s"\nschema = "%s"\n' "$url" "$schema" >"$home/config.toml"
	psql -q "$url" -c "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null
	local s0; s0=$(server_cpu)
	CAIRN_HOME=$home /usr/bin/time -f '%e %U %S %M' -o "$work/time" nice -n 10 "$bin" import --agent bench --any-model --json "$file" >"$work/out-$side-$run.json"
	local s1; s1=$(server_cpu)
	read -r wall u s rss <"$work/time"
	python3 -c "
w,u,s,rss,s0,s1,n,c=map(float,'$wall $u $s $rss $s0 $s1 $nrows $nchunks'.split())
print('%-7s %3s %9.1f %9.1f %9.1f %9.0f %10.0f %10.0f  %s' % ('$side', '$run', w, u+s, s1-s0, rss/1024, n/w, c/w, open('/proc/loadavg').read().split()[0]))"
	schemas+=("$schema")
}
for ((i = 1; i <= runs; i++)); do
	if ((i % 2)); then one before "$bin_before" "$i"; one after "$bin_after" "$i"
	else one after "$bin_after" "$i"; one before "$bin_before" "$i"; fi
done

digest() { # schema -> one line per table
	psql -qAt "$url" <<EOF
SET search_path = $1;
SELECT 'content', count(*), md5(string_agg(hash || title || md5(doc) || created_at, ',' ORDER BY hash)) FROM content;
SELECT 'documents', count(*), md5(string_agg(concat_ws('|', id, corpus, path, hash, size, mtime, created_at, modified_at), ',' ORDER BY id)) FROM documents;
SELECT 'chunks', count(*), md5(string_agg(concat_ws('|', id, hash, seq, pos, len, start_line, end_line, tokens, noise, tsv::text, tf::text), ',' ORDER BY id)) FROM chunks;
SELECT 'vectors', count(*), md5(string_agg(concat_ws('|', chunk_id, identity, vec::text), ',' ORDER BY chunk_id)) FROM vectors;
SELECT 'postings', count(*), md5(string_agg(concat_ws('|', lexeme, chunk, tf, pos::text), ',' ORDER BY lexeme COLLATE "C", chunk)) FROM postings;
SELECT 'agent_meta', count(*), md5(string_agg(key || '=' || value, ',' ORDER BY key)) FROM agent_meta WHERE key NOT LIKE 'pending%';
EOF
}
echo "compare (each schema against ${schemas[0]}):"
ref=$(digest "${schemas[0]}")
for s in "${schemas[@]:1}"; do
	if [[ $(digest "$s") == "$ref" ]]; then echo "  $s: same"; else echo "  $s: DIFFERS"; diff <(echo "$ref") <(digest "$s") || true; fi
done
echo "$ref" | cut -d'|' -f1,2 | tr '\n' ' '; echo
if [[ ${KEEP:-0} != 1 ]]; then
	for s in "${schemas[@]}"; do psql -q "$url" -c "DROP SCHEMA $s CASCADE"; done
fi
