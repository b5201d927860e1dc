#!/usr/bin/env bash
# The README's first command: build cairn, index this repository's docs/ in
# a throwaway data directory and search it.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -tags sqlite_fts5 -o bin/cairn ./cmd/cairn
export CAIRN_HOME="$(mktemp -d)"
trap 'rm -rf "$CAIRN_HOME"' EXIT
bin/cairn corpus add docs ./docs >/dev/null
bin/cairn sync
bin/cairn search "${1:-how does sync skip unchanged files}" --limit 3
