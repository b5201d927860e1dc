#!/bin/sh
# Issue 19 item 6: warm hybrid search end to end at 100k and 1M chunks
# (bench/cmd/hybrid1m), the INT8 and FP32 query models alternating query
# by query inside each process, the sizes alternating process by process.
#
#   bench/h1m-remeasure.sh            # build from the tree, prepare what is missing, ROUNDS rounds
#
# Indexes (copies under WORK; the sources are never written):
#   d1m    /tmp/l1big/n480000 (cairnbench, 1,010,774 chunks, no vectors): every chunk given a
#          vector by hybrid1m -prepare, one in EVERY (100) embedded by USE-lite INT8, the others
#          synthetic neighbours of the last real one (noise NOISE, 0.1)
#   d100   /tmp/hy/hb50q/data (hybridbench -notes 50000, 104,582 chunks, every vector real, INT8)
#   d100s  d100 with its vectors deleted and given again as d1m's are (SYNTH100=1): the same size
#          measured with real and with mostly synthetic vectors, to see what the synthetic ones change
# The first search of a prepared copy reads the vectors out of SQLite, builds the coarse lists
# (1M) and writes vectors.bin and vectors.bin.lists, as after a real sync; later runs map them.
# Disk: d1m takes 7.6 GB (index.db grows from 1.35 to 5.5 GB with the vectors; vectors.bin 2.1 GB),
# d100 0.75 GB: remove WORK when done.
# Heavy: runs under nice -n 10 and waits while /tmp/coord/QUIET exists.
set -eu
WORK=${WORK:-/tmp/h1m}
SHARED=${SHARED:-/work/shared}
SRC1M=${SRC1M:-/tmp/l1big/n480000}
SRC100=${SRC100:-/tmp/hy/hb50q}
EVERY=${EVERY:-100}
NOISE=${NOISE:-0.1}
QUERIES=${QUERIES:-500}
ROUNDS=${ROUNDS:-2}
SLOWEST=${SLOWEST:-5}
SYNTH100=${SYNTH100:-0}
SIZES=${SIZES:-"d100 d1m"}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$WORK"
quiet() { while [ -d /tmp/coord/QUIET ]; do sleep 15; done; }
quiet
(cd "$repo" && nice -n 10 go build -tags sqlite_fts5 -o "$WORK/hybrid1m" ./bench/cmd/hybrid1m)
echo "build $(cd "$repo" && git rev-parse --short HEAD) (tree), $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)"
notes_of() {
	case $1 in
	d1m) echo "$SRC1M/notes" ;;
	*) echo "$SRC100/notes" ;;
	esac
}
vectors() { sqlite3 "$1/index.db" "SELECT count(*) FROM vectors"; }
if [ ! -d "$WORK/d1m" ]; then
	cp -r "$SRC1M/home/agents/default" "$WORK/d1m"
fi
if [ ! -d "$WORK/d100" ]; then
	cp -r "$SRC100/data" "$WORK/d100"
fi
if [ "$SYNTH100" = 1 ]; then
	if [ ! -d "$WORK/d100s" ]; then
		cp -r "$SRC100/data" "$WORK/d100s"
		rm -f "$WORK/d100s/vectors.bin" "$WORK/d100s/vectors.bin.lists"
		sqlite3 "$WORK/d100s/index.db" "DELETE FROM vectors"
	fi
	SIZES="$SIZES d100s"
fi
for d in $SIZES; do
	if [ "$(vectors "$WORK/$d")" = 0 ]; then
		quiet
		echo "== prepare $d, $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)"
		nice -n 10 "$WORK/hybrid1m" -data "$WORK/$d" -notes "$(notes_of $d)" -shared "$SHARED" \
			-quantize int8 -prepare -every "$EVERY" -noise "$NOISE" -queries 0
	fi
done
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for d in $SIZES; do
		quiet
		echo "== round $r $d, $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)"
		nice -n 10 "$WORK/hybrid1m" -data "$WORK/$d" -notes "$(notes_of $d)" -shared "$SHARED" \
			-quantize int8 -int8 -queries "$QUERIES" -slowest "$SLOWEST"
	done
	r=$((r + 1))
done
