#!/bin/bash
# The schema fence of pair lists (sqlite/fence.go, sqlite/doc.go; issue 19
# item 4, engineer fence): what an older build does with an index whose
# full-text table pairs the index's own words. Builds from git archive:
#   OLD  (default 1df441c) cairn: a build from before pair lists;
#   PRE  (default 28a0aac) lextail: pair lists without the fence;
#   NEW  (default HEAD)    cairn and lextail: pair lists with the fence.
# NEW's cairn indexes a small folder (NEW's docs/ and README.md), then
# copies of that index are
#   plain     left as indexed;
#   pre       paired by PRE (lextail -pairs 10: its 10 most frequent terms),
#             then opened once by NEW;
#   new       paired by NEW, then its list dropped again (lextail -pairs 0);
# and OLD runs `cairn search`, `cairn sync` (one note changed after the
# first index: a chunk to write), `cairn doctor` (--repair once) on the states,
# printing the recorded schema version, the message, the exit status, and
# whether OLD changed index.db (sha256 of it and its WAL before and after);
# last, the pre copy's index.db is removed and OLD syncs it anew.
#
#   bench/fence-check.sh [OLD [PRE [NEW]]]
#
# WORK (default /tmp/fence-check, removed first and at the end; KEEP=1
# keeps it). About two minutes on a quiet 2-core machine (three builds).
set -eu
OLD=${1:-1df441c} PRE=${2:-28a0aac} NEW=${3:-HEAD}
WORK=${WORK:-/tmp/fence-check}
rm -rf "$WORK" && mkdir -p "$WORK"
build() { # rev dir packages...
  local rev=$1 dir=$2; shift 2
  mkdir -p "$WORK/src-$dir"
  git archive "$rev" | tar -x -C "$WORK/src-$dir"
  for p in "$@"; do
    (cd "$WORK/src-$dir" && nice -n 10 go build -tags sqlite_fts5 -o "$WORK/bin-$dir-$(basename "$p")" "./$p")
  done
  echo "built $dir at $(git rev-parse --short "$rev"): $*"
}
build "$OLD" old cmd/cairn
build "$PRE" pre bench/cmd/lextail
build "$NEW" new cmd/cairn bench/cmd/lextail
mkdir -p "$WORK/notes" && cp -r "$WORK/src-new/docs/"*.md "$WORK/src-new/README.md" "$WORK/notes/"

# home NAME: a CAIRN_HOME whose one corpus is the notes folder.
home() {
  mkdir -p "$WORK/$1"
  printf '[[corpus]]\nname = "notes"\nkind = "files"\npaths = ["%s"]\n' "$WORK/notes" >"$WORK/$1/config.toml"
}
db() { echo "$WORK/$1/agents/default/index.db"; }
version() { sqlite3 "file:$(db "$1")?mode=ro" "SELECT value FROM meta WHERE key='schema_version'"; }
tok() { sqlite3 "file:$(db "$1")?mode=ro" "SELECT substr(sql, instr(sql, 'tokenize='), 70) FROM sqlite_master WHERE name='chunks_fts'" | tr -s '\n\t' '  '; }
# old NAME ARGS...: OLD's cairn on the copy, message and exit status.
old() {
  local name=$1; shift
  local before after out rc=0
  before=$(sum "$name")
  out=$(CAIRN_HOME="$WORK/$name" "$WORK/bin-old-cairn" "$@" 2>&1) || rc=$?
  after=$(sum "$name")
  echo "  OLD cairn $* -> exit $rc; index.db $([ "$before" = "$after" ] && echo unchanged || echo CHANGED)"
  echo "$out" | head -3 | sed 's/^/    | /'
}
sum() { cat "$(db "$1")" "$(db "$1")-wal" 2>/dev/null | sha256sum | cut -c1-16; }
state() { echo "  recorded schema $(version "$1"); $(tok "$1")"; }

home plain
CAIRN_HOME="$WORK/plain" "$WORK/bin-new-cairn" sync >/dev/null
echo "NEW indexed $(ls "$WORK/notes" | wc -l) files: $(sqlite3 "file:$(db plain)?mode=ro" 'SELECT count(*) FROM chunks') chunks"
cp -r "$WORK/plain" "$WORK/pre" && cp -r "$WORK/plain" "$WORK/new"
# One changed note: every sync below has chunks to write.
echo "A line added after the first index, so a sync has a chunk to write." >>"$WORK/notes/mcp.md"

echo "== plain (no pair list)"
state plain
old plain search index
old plain sync

echo "== pre: paired by PRE ($PRE), no fence"
"$WORK/bin-pre-lextail" -index "$WORK/pre/agents/default" -pairs 10 | grep -v '^  ' | head -2
state pre
old pre search index
old pre sync
old pre doctor
echo "-- pre, after NEW opened it once (NEW cairn search index)"
CAIRN_HOME="$WORK/pre" "$WORK/bin-new-cairn" search index >/dev/null && echo "  NEW search: exit 0"
state pre
old pre search index
old pre sync

echo "== new: paired by NEW ($NEW)"
"$WORK/bin-new-lextail" -index "$WORK/new/agents/default" -pairs 10 | grep -v '^  ' | head -2
state new
old new search index
old new doctor --repair
CAIRN_HOME="$WORK/new" "$WORK/bin-new-cairn" search index >/dev/null && echo "  NEW search: exit 0"
echo "-- new, its pair list dropped again by NEW (lextail -pairs 0)"
"$WORK/bin-new-lextail" -index "$WORK/new/agents/default" -pairs 0 | grep -v '^  ' | tail -2
state new
old new search index
old new sync
echo "-- pre, index.db removed (the way back to OLD for a paired index)"
rm -f "$(db pre)" "$(db pre)-wal" "$(db pre)-shm"
CAIRN_HOME="$WORK/pre" "$WORK/bin-old-cairn" sync >/dev/null && echo "  OLD cairn sync -> exit 0"
state pre
old pre search index
[ "${KEEP:-}" = 1 ] || rm -rf "$WORK"
