#!/usr/bin/env bash
# Engineer caps: what a query of thousands of terms costs, by two
# revisions alternating. Each is built with git archive; one note is
# indexed; then `cairn search --mode lexical` of N generated distinct terms
# (w0 w1 ...) runs for each N, BASE and NEW alternating, REPS times; wall
# and user seconds and the exit status are printed (NEW refuses a query
# over search.MaxQueryBytes or MaxQueryTerms with exit 2). Last, the
# store's capped any-of scan by its number of terms (BenchmarkLexicalTerms)
# on NEW.
#
#   bench/caps-remeasure.sh 28a0aac HEAD          # SIZES="5000 50000" REPS=1
set -euo pipefail
BASE=${1:?usage: caps-remeasure.sh BASE NEW}
NEW=${2:?usage: caps-remeasure.sh BASE NEW}
SIZES=${SIZES:-5000 50000}
REPS=${REPS:-1}
repo=$(git rev-parse --show-toplevel)
work=$(mktemp -d /tmp/caps-remeasure.XXXXXX)
trap 'rm -rf "$work"' EXIT
for rev in "$BASE" "$NEW"; do
	mkdir -p "$work/src-$rev"
	git -C "$repo" archive "$rev" | tar -x -C "$work/src-$rev"
	(cd "$work/src-$rev" && nice -n 10 go build -tags sqlite_fts5 -o "$work/cairn-$rev" ./cmd/cairn)
done
mkdir -p "$work/notes" "$work/home"
printf '# Walrus\n\nThe walrus sleeps on the ice.\n' >"$work/notes/a.md"
export CAIRN_HOME="$work/home"
"$work/cairn-$NEW" corpus add notes "$work/notes" >/dev/null
"$work/cairn-$NEW" sync >/dev/null 2>&1
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $SIZES; do
	read -r -a q <<<"$(python3 -c "print(' '.join('w%d' % i for i in range($n)))")"
	for _ in $(seq "$REPS"); do
		for rev in "$BASE" "$NEW"; do
			/usr/bin/time -f "$rev $n terms: %e s wall, %U s user, exit %x" \
				timeout 600 "$work/cairn-$rev" search --mode lexical "${q[@]}" >/dev/null 2>"$work/err" || true
			tail -1 "$work/err"
		done
	done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$work/src-$NEW" && nice -n 10 go test -tags sqlite_fts5 ./sqlite/ -run XXX -bench LexicalTerms -benchtime 30x | grep Benchmark)
