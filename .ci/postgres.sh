#!/usr/bin/env bash
# Start a throwaway PostgreSQL for the storage tests on both engines (issue 27), idempotent.
# Debian's package, a cluster of its own under $PGCI_DIR run by the postgres user, listening on
# 127.0.0.1:$PGCI_PORT with trust authentication (nothing else can reach it). Prints the
# POSTGRES_URL to export on its last line; on any failure it says why and prints nothing, and
# the PostgreSQL cases of the suite skip with the reason.
set -uo pipefail
PGCI_DIR="${PGCI_DIR:-/tmp/forumbot-ci-postgres}"
PGCI_PORT="${PGCI_PORT:-54329}"
URL="postgresql://postgres@127.0.0.1:${PGCI_PORT}/postgres"

fail() { echo "PostgreSQL not started ($1): the PostgreSQL storage tests will skip" >&2; exit 0; }

bindir=""
find_bindir() {
    for dir in /usr/lib/postgresql/*/bin; do
        [ -x "$dir/initdb" ] && bindir="$dir"
    done
}
find_bindir
if [ -z "$bindir" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq postgresql >/dev/null 2>&1 || fail "apt-get install postgresql failed"
    find_bindir
fi
[ -n "$bindir" ] || fail "no initdb under /usr/lib/postgresql/*/bin"
id postgres >/dev/null 2>&1 || fail "no postgres user"

as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi; }

if [ ! -s "$PGCI_DIR/data/PG_VERSION" ]; then
    mkdir -p "$PGCI_DIR" && chown postgres "$PGCI_DIR" 2>/dev/null
    as_postgres "'$bindir/initdb' -D '$PGCI_DIR/data' -A trust -U postgres >'$PGCI_DIR/initdb.log' 2>&1" \
        || fail "initdb failed, see $PGCI_DIR/initdb.log"
fi
if ! as_postgres "'$bindir/pg_ctl' -D '$PGCI_DIR/data' status >/dev/null 2>&1"; then
    as_postgres "'$bindir/pg_ctl' -D '$PGCI_DIR/data' -l '$PGCI_DIR/server.log' -w -t 60 \
        -o \"-p $PGCI_PORT -c listen_addresses=127.0.0.1 -k '$PGCI_DIR' -c fsync=off -c max_connections=400\" start \
        >/dev/null" || fail "pg_ctl start failed, see $PGCI_DIR/server.log"
fi
"$bindir/pg_isready" -q -h 127.0.0.1 -p "$PGCI_PORT" -t 30 || fail "the server does not answer"
echo "$URL"
