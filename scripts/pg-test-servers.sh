#!/usr/bin/env bash
# Throwaway PostgreSQL servers for the postgres package's tests: one single
# server with pgvector, and a three-node Citus cluster (coordinator and two
# workers), all on loopback ports, run as the postgres user in temporary
# folders. Needs root (apt-get, su) and the sources in ../shared/vendor
# (see its README: pgvector 0.8.6, Citus 12.1.12).
#
#   scripts/pg-test-servers.sh install   # Debian packages, build pgvector (~15 s) and Citus (~2.5 min)
#   eval "$(scripts/pg-test-servers.sh start)"   # prints the exports of the two URLs (reuses running servers)
#   scripts/pg-test-servers.sh stop
#
# start prints CAIRN_TEST_POSTGRES_URL and CAIRN_TEST_CITUS_URL as export
# lines (everything else goes to stderr). The state (data folders, ports)
# is kept in $CAIRN_PG_STATE (default /tmp/cairn-pg-test) for stop.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
B=/usr/lib/postgresql/15/bin
PGC=$B/pg_config
state=${CAIRN_PG_STATE:-/tmp/cairn-pg-test}
single_port=${CAIRN_PG_PORT:-55432}
citus_ports=(56001 56002 56003)

vendor() {
  for d in "${CAIRN_SHARED:-}/vendor" "$here/../shared/vendor" /work/shared/vendor; do
    if [ -f "$d/pgvector-0.8.6.tar.gz" ]; then echo "$d"; return; fi
  done
  echo "pg-test-servers: no pgvector-0.8.6.tar.gz in ../shared/vendor" >&2
  exit 1
}

install() {
  local need=()
  for p in postgresql-15 postgresql-server-dev-15 postgresql-contrib libcurl4-openssl-dev liblz4-dev libzstd-dev \
    libkrb5-dev libssl-dev flex bison make gcc; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
  fi
  local v w
  v=$(vendor)
  w=$(mktemp -d)
  if [ ! -f "$($PGC --pkglibdir)/vector.so" ]; then
    echo "== build pgvector" >&2
    tar xzf "$v/pgvector-0.8.6.tar.gz" -C "$w"
    make -s -C "$w/pgvector-0.8.6" OPTFLAGS="" PG_CONFIG=$PGC >&2
    make -s -C "$w/pgvector-0.8.6" install PG_CONFIG=$PGC >&2
  fi
  if [ ! -f "$($PGC --pkglibdir)/citus.so" ]; then
    echo "== build Citus" >&2
    tar xzf "$v/citus-12.1.12.tar.gz" -C "$w"
    (cd "$w/citus-12.1.12" && ./configure -q PG_CONFIG=$PGC >&2 && make -s -j"$(nproc)" >&2 && make -s install >&2)
  fi
  rm -rf "$w"
}

# server DIR PORT [citus]: initialise and start one server.
server() {
  local d=$1 port=$2 citus=${3:-}
  mkdir -p "$d" && chown postgres "$d" && chmod 700 "$d"
  su postgres -c "$B/initdb -D $d -A trust -U postgres -E UTF8 --locale=C --no-sync" >/dev/null
  {
    [ -n "$citus" ] && echo "shared_preload_libraries = 'citus'"
    echo "fsync = off"                 # throwaway test servers: durability is not what they test
    echo "max_connections = 300"
    echo "shared_buffers = 256MB"
  } >>"$d/postgresql.conf"
  su postgres -c "$B/pg_ctl -D $d -o '-p $port -k $d -c listen_addresses=127.0.0.1' -l $d/log -w start" >/dev/null
}

psqlc() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres "$@"; }

# running: the four servers of $state answer (start then reuses them:
# several sessions share one set, and a second start must not wipe the
# first's databases; stop, then start, for fresh ones).
running() {
  local p
  for p in "$single_port" "${citus_ports[@]}"; do
    $B/pg_isready -q -h 127.0.0.1 -p "$p" || return 1
  done
  [ -f "$state/single/postmaster.pid" ] && [ -f "$state/citus-${citus_ports[2]}/postmaster.pid" ]
}

urls() {
  echo "export CAIRN_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$single_port/postgres"
  echo "export CAIRN_TEST_CITUS_URL=postgres://postgres@127.0.0.1:${citus_ports[0]}/postgres"
}

start() {
  if running; then
    urls
    return
  fi
  stop_quiet
  mkdir -p "$state"
  server "$state/single" "$single_port"
  psqlc -p "$single_port" -c 'create extension if not exists vector' >&2
  local p
  for p in "${citus_ports[@]}"; do
    server "$state/citus-$p" "$p" citus
    psqlc -p "$p" -c 'create extension if not exists citus' -c 'create extension if not exists vector' >&2
  done
  psqlc -p "${citus_ports[0]}" \
    -c "select citus_set_coordinator_host('127.0.0.1', ${citus_ports[0]})" \
    -c "select citus_add_node('127.0.0.1', ${citus_ports[1]})" \
    -c "select citus_add_node('127.0.0.1', ${citus_ports[2]})" >/dev/null
  urls
}

stop_quiet() {
  local d
  for d in "$state"/single "$state"/citus-*; do
    [ -f "$d/postmaster.pid" ] && su postgres -c "$B/pg_ctl -D $d stop -m fast" >/dev/null 2>&1 || true
  done
  rm -rf "$state"
}

case "${1:-}" in
install) install ;;
start) start ;;
stop) stop_quiet ;;
*) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
