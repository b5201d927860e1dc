#!/usr/bin/env bash
# bench/nu-remeasure.sh BASE NEW: the new-user/attacker review's findings
# (engineer nu) checked on two revisions, each built from `git archive` into
# a temporary folder, the scenarios alternating BASE, NEW per row. Prints one
# table: scenario, what BASE does, what NEW does. Needs no data (each scenario
# makes its own CAIRN_HOME under the temp folder), no network, no GPU; takes
# about 10 minutes on the loaded 2-vCPU machine at load 31-35 (two builds of
# cmd/cairn, 4 to 5 min each, then a few seconds a scenario; the query-terms row
# runs a serve of each build for about 20 s).
#
#   bench/nu-remeasure.sh 1df441c HEAD
set -euo pipefail
BASE=${1:?usage: bench/nu-remeasure.sh BASE NEW}
NEW=${2:?usage: bench/nu-remeasure.sh BASE NEW}
cd "$(dirname "$0")/.."
REPO=$PWD
WORK=$(mktemp -d /tmp/nu-remeasure.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

build() { # rev -> $WORK/<rev>/cairn
	local rev=$1 dir=$WORK/src-$1
	mkdir -p "$dir"
	git -C "$REPO" archive "$rev" | tar -x -C "$dir"
	(cd "$dir" && GOFLAGS=-p=1 nice -n 10 go build -tags sqlite_fts5 -o "$WORK/cairn-$rev" ./cmd/cairn)
}
build "$BASE"
build "$NEW"

# fresh NAME: a CAIRN_HOME with a docs corpus of a few notes.
fresh() {
	local h=$WORK/home-$1
	rm -rf "$h"
	mkdir -p "$h/notes"
	printf '# Deploy\n\nThe staging cluster deploys from the release branch.\n' >"$h/notes/deploy.md"
	printf '[[corpus]]\nname = "notes"\nkind = "files"\npaths = ["%s"]\n' "$h/notes" >"$h/config.toml"
	echo "$h"
}

# Each scenario: s_NAME BIN TAG prints one short result.
s_request_timeout() { # cairn serve --request-timeout 0s: refused (exit 2) or served
	local h; h=$(fresh "$2")
	CAIRN_HOME=$h timeout 5 "$1" serve --addr 127.0.0.1:0 --request-timeout 0s >/dev/null 2>&1 && echo "exit 0" || echo "exit $?"
}
s_llm_line() { # the line an [llm.consolidate] api error names (table at line 6, key at line 8)
	local h; h=$(fresh "$2")
	printf '\n[llm.consolidate]\nmodel = "m"\napi = "x"\n' >>"$h/config.toml"
	CAIRN_HOME=$h "$1" corpus list 2>&1 | grep -o 'config.toml:[0-9]*' | head -1
}
s_bad_glob() { # glob = "[[": refused when the config loads (exit 2) or only at sync
	local h; h=$(fresh "$2")
	printf 'glob = "[["\n' >>"$h/config.toml"
	CAIRN_HOME=$h "$1" corpus list >/dev/null 2>&1 && echo "loads (exit 0)" || echo "refused (exit $?)"
}
s_aider_root() { # corpus add --kind sessions --source aider without --root; does the config still load?
	local h; h=$(fresh "$2") rc=0
	CAIRN_HOME=$h "$1" corpus add sessions --kind sessions --source aider >/dev/null 2>&1 || rc=$?
	CAIRN_HOME=$h "$1" corpus list >/dev/null 2>&1 && echo "add exit $rc, config loads" || echo "add exit $rc, config broken"
}
s_access_line() { # the line an error in the second [[token]] (header at line 6) names
	local h; h=$(fresh "$2")
	local hx; hx=$(printf 'ab%.0s' {1..32})
	printf '[[token]]\nname = "a"\nsha256 = "%s"\nagents = ["a"]\n\n[[token]]\nname = "b"\nsha256 = "abc"\nagents = ["b"]\n' "$hx" >"$h/access.toml"
	printf '\n[store]\naccess = "access.toml"\n' >>"$h/config.toml"
	CAIRN_HOME=$h timeout 10 "$1" serve --addr 127.0.0.1:0 2>&1 | grep -o 'access.toml:[0-9]*' | head -1
}
s_diag_scope() { # memory_diagnostics' index status under a token that reads only notes
	local h; h=$(fresh "$2")
	local tok=nu-remeasure-token-notes
	printf '[[token]]\nname = "notes"\nsha256 = "%s"\nagents = ["default"]\ncorpora = ["notes"]\n' "$(printf %s "$tok" | sha256sum | cut -c1-64)" >"$h/access.toml"
	printf '\n[store]\naccess = "access.toml"\n' >>"$h/config.toml"
	CAIRN_HOME=$h "$1" sync >/dev/null 2>&1
	local port=$((20000 + RANDOM % 20000))
	CAIRN_HOME=$h "$1" serve --addr 127.0.0.1:$port >/dev/null 2>&1 &
	local pid=$!
	for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
	curl -s -H "Authorization: Bearer $tok" "http://127.0.0.1:$port/v1/diagnostics" |
		python3 -c 'import json,sys; d=json.load(sys.stdin)["index"]; print(d.get("status") or "ok", "corpora", ",".join(d["scope"]["corpora"]))'
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}
s_hooks_symlink() { # hooks install over a symlinked settings.json: still a symlink?
	local h; h=$(fresh "$2")
	mkdir -p "$h/claude" "$h/dotfiles"
	echo '{"model": "opus"}' >"$h/dotfiles/settings.json"
	ln -s "$h/dotfiles/settings.json" "$h/claude/settings.json"
	CAIRN_HOME=$h CLAUDE_CONFIG_DIR=$h/claude "$1" hooks install claude-code >/dev/null 2>&1 || true
	[ -L "$h/claude/settings.json" ] && echo "symlink kept" || echo "replaced by a file"
}
s_recall_told() { # cairn recall of a told memory: its source line
	local h; h=$(fresh "$2")
	CAIRN_HOME=$h "$1" remember "the staging database moved to port 6543" --kind fact --title "staging database port" >/dev/null 2>&1
	CAIRN_HOME=$h "$1" recall "staging database port" 2>&1 | sed -n 3p | sed 's/^ *//' | cut -c1-24
}
s_export_dir() { # cairn export DIR
	local h; h=$(fresh "$2")
	CAIRN_HOME=$h "$1" sync >/dev/null 2>&1
	mkdir -p "$h/out"
	CAIRN_HOME=$h "$1" export "$h/out" >/dev/null 2>&1 && echo "exit 0" || echo "exit $?"
}
s_query_terms() { # server CPU of one POST /v1/search of 'ab ' x 30000 over docs/ (not fixed here: search/, sqlite/)
	local h; h=$(fresh "$2")
	cp "$REPO"/docs/*.md "$h/notes/"
	CAIRN_HOME=$h "$1" sync >/dev/null 2>&1
	local port=$((20000 + RANDOM % 20000))
	CAIRN_HOME=$h "$1" serve --addr 127.0.0.1:$port --watch=false >/dev/null 2>&1 &
	local pid=$!
	for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
	python3 -c "print('{\"query\":\"'+'ab '*30000+'\"}')" >"$h/q.json"
	local c0 c1
	c0=$(awk '{print $14+$15}' /proc/$pid/stat)
	curl -s -m 120 "http://127.0.0.1:$port/v1/search" --data-binary @"$h/q.json" >/dev/null || true
	c1=$(awk '{print $14+$15}' /proc/$pid/stat)
	echo "$(((c1 - c0) * 1000 / $(getconf CLK_TCK))) CPU-ms"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

printf 'load %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s | %-34s | %-34s\n' scenario "$BASE" "$NEW"
for s in request_timeout llm_line bad_glob aider_root access_line diag_scope hooks_symlink recall_told export_dir query_terms; do
	a=$("s_$s" "$WORK/cairn-$BASE" "$s-a" 2>/dev/null || true)
	b=$("s_$s" "$WORK/cairn-$NEW" "$s-b" 2>/dev/null || true)
	printf '%-18s | %-34s | %-34s\n' "$s" "$a" "$b"
done
