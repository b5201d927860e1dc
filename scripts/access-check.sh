#!/bin/sh
# The access-control checks of a team server (issue 20 item 4), run twice:
# on the committed tree, and on a copy of it whose engine scope check is
# turned off (engine.ScopeOf reports no scope), where they must fail.
# Needs the test servers: eval "$(scripts/pg-test-servers.sh start)".
# Usage: scripts/access-check.sh [COMMIT]   (default HEAD)
set -u
rev=${1:-HEAD}
root=$(git rev-parse --show-toplevel) || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tests='-run TestAccessControl|TestScopeLimitsCorpora|TestCurationHTTP'
for variant in checked unchecked; do
	dir=$tmp/$variant
	mkdir -p "$dir"
	git -C "$root" archive "$rev" | tar -x -C "$dir"
	if [ "$variant" = unchecked ]; then
		sed -i 's/^\treturn s, ok$/\treturn s, ok \&\& false/' "$dir/engine/scope.go"
		grep -q 'ok && false' "$dir/engine/scope.go" || { echo "could not turn the check off"; exit 2; }
	fi
	out=$tmp/$variant.out
	(cd "$dir" && go test -tags sqlite_fts5 ./engine/ ./mcpserver/ ./postgres/ $tests -count=1 -v >"$out" 2>&1)
	rc=$?
	fails=$(grep -c '_test.go:[0-9]*: ' "$out")
	echo "$variant ($rev): exit $rc, $fails failed assertions; $(grep -c -- '--- PASS' "$out") passed, $(grep -c -- '--- SKIP' "$out") skipped"
	grep -- '--- FAIL' "$out" | head -20
done
