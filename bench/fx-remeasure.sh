#!/usr/bin/env bash
# fx-remeasure.sh BASE AFTER [NOTES]: the upgrade review's four items, for two
# revisions side by side (each built from a git worktree; "." = the working tree),
# over an index written by INDEX_REV (default 4157f76, schema 11). The fixes came
# after the schema-12 migration itself, so BASE is best the commit before them:
#   bench/fx-remeasure.sh 6494854 HEAD        (4157f76 as BASE has no migration to show)
#   1. the schema-12 migration of an index written by BASE: the lines it prints,
#      the schema on disk when each line was printed (a line printed before the
#      commit reads 11), wall seconds;
#   2. SIGINT during that migration: message, exit code, schema left on disk;
#   3. SIGINT during `cairn import` into PostgreSQL (needs CAIRN_TEST_POSTGRES_URL,
#      scripts/pg-test-servers.sh): message, and whether a row of the new agent
#      stayed in cairn.agents;
#   4. the ONNX graph cache folders after a sync (needs ../shared models and
#      runtime): where they are and their modes, starting from 0755 folders.
# NOTES notes (default 20000, about 40k chunks) make the index; about 4-6 minutes
# in all on a quiet 2-core machine, most of it the two builds.
set -euo pipefail
base=${1:?usage: fx-remeasure.sh BASE AFTER [NOTES]} after=${2:?usage: fx-remeasure.sh BASE AFTER [NOTES]}
notes=${3:-20000}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${FX_WORK:-/tmp/fx-remeasure}
rm -rf "$work" && mkdir -p "$work"
shared=${SHARED:-$repo/../shared}

build() { # build REV NAME
	local src=$repo
	if [ "$1" != . ]; then
		src=$work/wt-$2
		git -C "$repo" worktree add --detach -q "$src" "$1"
	fi
	(cd "$src" && nice -n 19 go build -tags sqlite_fts5 -o "$work/$2" ./cmd/cairn)
	[ "$1" = . ] || git -C "$repo" worktree remove --force "$src"
}
build "${INDEX_REV:-4157f76}" idx
build "$base" base
build "$after" after

schema() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select value from meta where key=\"schema_version\"").fetchone()[0])' "$1"; }

# An index written by BASE (schema 11 when BASE is 4157f76).
python3 - "$work/notes" "$notes" <<'EOF'
import os, sys, random
d, n = sys.argv[1], int(sys.argv[2]); random.seed(7)
words = "walrus seal tusk colony ice floe krill herring pod beach cove tide current reef kelp".split()
for i in range(n):
    sub = os.path.join(d, "n%03d" % (i // 1000)); os.makedirs(sub, exist_ok=True)
    with open(os.path.join(sub, "%06d.md" % i), "w") as f:
        f.write("# Note %d\n\n%s\n\n## More\n\n%s\n" % (i, " ".join(random.choices(words, k=40)), " ".join(random.choices(words, k=40))))
EOF
export CAIRN_HOME=$work/home
"$work/idx" corpus add notes "$work/notes" >/dev/null
nice -n 19 "$work/idx" sync >/dev/null 2>&1
index=$CAIRN_HOME/agents/default/index.db
[ -f "$index" ] || index=$(find "$CAIRN_HOME/agents" -name index.db | head -1)
echo "index by ${INDEX_REV:-4157f76}: schema $(schema "$index"), $notes notes"

for rev in base after; do
	echo "== $rev"
	# 1. the migration's lines, each with the schema on disk at that moment.
	cp -a "$CAIRN_HOME" "$work/h1-$rev"
	start=$(date +%s.%N)
	CAIRN_HOME=$work/h1-$rev "$work/$rev" search walrus 2>&1 >/dev/null | while IFS= read -r line; do
		echo "  line: $line   [schema on disk: $(schema "${index/$CAIRN_HOME/$work/h1-$rev}")]"
	done
	wall=$(echo "$(date +%s.%N) - $start" | bc)
	echo "  1. migration wall $wall s, schema after $(schema "${index/$CAIRN_HOME/$work/h1-$rev}")"
	# 2. SIGINT as the migration starts: at its start line (AFTER prints one),
	# else at 0.6 of step 1's wall (the process starts before it migrates).
	cp -a "$CAIRN_HOME" "$work/h2-$rev"
	CAIRN_HOME=$work/h2-$rev "$work/$rev" search walrus >/dev/null 2>"$work/int-$rev.err" &
	pid=$!
	for _ in $(seq 1 "$(echo "$wall * 0.6 / 0.02" | bc)"); do
		grep -q 'upgrading the index' "$work/int-$rev.err" 2>/dev/null && break
		sleep 0.02
	done
	kill -INT "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" || rc=$?
	echo "  2. SIGINT: rc $rc, schema left $(schema "${index/$CAIRN_HOME/$work/h2-$rev}"), stderr:"
	sed 's/^/     /' "$work/int-$rev.err"
done

# 3. SIGINT during an import into a new PostgreSQL agent.
if [ -n "${CAIRN_TEST_POSTGRES_URL:-}" ]; then
	CAIRN_HOME=$work/h1-after "$work/after" export "$work/export.jsonl" >/dev/null 2>&1
	for rev in base after; do
		agent=fx$(date +%s%N | tail -c 9)$rev
		CAIRN_HOME=$work/h1-after "$work/$rev" --agent "$agent" import --store "$CAIRN_TEST_POSTGRES_URL" "$work/export.jsonl" >/dev/null 2>"$work/imp-$rev.err" &
		pid=$!
		sleep 3
		kill -INT "$pid" 2>/dev/null || true
		rc=0
		wait "$pid" || rc=$?
		rows=$(psql "$CAIRN_TEST_POSTGRES_URL" -Atc "SELECT count(*) FROM cairn.agents WHERE agent = '$agent'")
		echo "== $rev 3. import SIGINT: rc $rc, agent rows left $rows, last stderr line: $(tr '\r' '\n' <"$work/imp-$rev.err" | grep -v '^$' | tail -1)"
	done
else
	echo "3. skipped: no CAIRN_TEST_POSTGRES_URL (eval \"\$(scripts/pg-test-servers.sh start)\")"
fi

# 4. the graph cache folders, starting from 0755 ones as an earlier build left them.
if [ -f "$shared/models/use-lite/model.onnx" ]; then
	for rev in base after; do
		h=$work/h4-$rev
		mkdir -p "$h"
		CAIRN_HOME=$h "$work/$rev" corpus add notes "$work/notes/n000" >/dev/null 2>&1 || true
		printf '\n[embedder]\nprovider = "onnx"\nmodel = "%s"\nlibrary = "%s"\n' "$shared/models/use-lite" "$shared/lib/onnxruntime/libonnxruntime.so.1" >>"$h/config.toml"
		mkdir -p "$h/cache/onnx" && chmod 0755 "$h/cache" "$h/cache/onnx"
		CAIRN_HOME=$h nice -n 19 "$work/$rev" sync >/dev/null 2>&1 || true
		echo "== $rev 4. cache: $(find "$h" -name '*.ort' | sed "s|$h|\$CAIRN_HOME|"); modes cache $(stat -c %a "$h/cache") cache/onnx $(stat -c %a "$h/cache/onnx")"
	done
else
	echo "4. skipped: no $shared/models/use-lite"
fi
