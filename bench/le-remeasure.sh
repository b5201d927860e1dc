#!/bin/sh
# bench/le-remeasure.sh BASE NEW: issue 19/20 loose ends (engineer le), the
# web pages' server time at 50k notes (about 135k chunks with the sessions
# and memories), 10k sessions and 10k memories: every browsing page of
# BASE and NEW, alternating ROUNDS times (default 3), each page timed over
# 20 requests after a warm one (wall and process CPU, p50 and p99).
#
# BASE and NEW are git revisions (. = the working tree's HEAD), each built
# from `git archive` into a temp dir; both run NEW's bench/cmd/uibench (it
# uses only engine, web and mcpserver APIs that BASE has too), so the
# driver is the same and only the library differs.
#
# Data: DATA (default /tmp/le-ui50), made on first use by uibench -build
# (50,000 generated notes, 10,000 OpenAI chat sessions, 10,000 told
# memories, synced lexically: about 4-5 minutes at load 25, 600 MB);
# measured read only afterwards. Runs about 3 minutes at load 25 after the
# build. Run under nice; compare CPU, not wall, on a loaded machine.
set -eu
BASE=${1:?usage: bench/le-remeasure.sh BASE NEW}
NEW=${2:?usage: bench/le-remeasure.sh BASE NEW}
DATA=${DATA:-/tmp/le-ui50}
ROUNDS=${ROUNDS:-3}
repo=$(git rev-parse --show-toplevel)
[ "$NEW" = . ] && NEW=HEAD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for side in base new; do
	rev=$BASE
	[ $side = new ] && rev=$NEW
	mkdir -p "$tmp/$side"
	git -C "$repo" archive "$rev" | tar -x -C "$tmp/$side"
done
rm -rf "$tmp/base/bench/cmd/uibench"
cp -a "$tmp/new/bench/cmd/uibench" "$tmp/base/bench/cmd/uibench"
for side in base new; do
	(cd "$tmp/$side" && GOFLAGS=-p=1 nice -n 10 go build -tags sqlite_fts5 -o "$tmp/uibench-$side" ./bench/cmd/uibench)
done
if [ ! -e "$DATA/built" ]; then
	echo "building $DATA (uibench -build)"
	nice -n 10 "$tmp/uibench-new" -work "$DATA" -shared "" -build -queries 0 -rounds 1 >/dev/null
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
	for side in base new; do
		nice -n 10 "$tmp/uibench-$side" -work "$DATA" -shared "" -queries 0 -rounds 20 |
			awk -v side=$side -v r=$r '$1 ~ /^\/ui/ {print side, r, $1, $2, $3, $4, $5, $6}' >>"$tmp/all.txt"
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "medians over $ROUNDS alternating runs (ms; each run's p50/p99 of 20 requests)"
printf '%-44s %18s %18s %18s %18s %8s\n' page "wall p50 base/new" "wall p99 base/new" "CPU p50 base/new" "CPU p99 base/new" KB
awk '{print $3}' "$tmp/all.txt" | awk '!seen[$0]++' | while read -r page; do
	med() { grep -F " $page " "$tmp/all.txt" | awk -v s="$1" -v c="$2" '$1 == s {print $c}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
	printf '%-44s %8s/%-9s %8s/%-9s %8s/%-9s %8s/%-9s %8s\n' "$page" \
		"$(med base 4)" "$(med new 4)" "$(med base 5)" "$(med new 5)" "$(med base 6)" "$(med new 6)" "$(med base 7)" "$(med new 7)" "$(med new 8)"
done
