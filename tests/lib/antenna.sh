# tests/lib/antenna.sh: what the end-to-end scripts of the commands share
# (tests/antenna, import, feeds, scale, formats): the environment, a
# temporary directory removed on exit, the loopback test server
# (tests/tools/testserver.c), the ok/notok/check/is/jget helpers and the
# plan (tests/lib/tap.sh).
# Sourced, never run (tests/run.sh runs only tests/*/run.sh), after the
# script has set TOP:
#   TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
#   . "$TOP/tests/lib/antenna.sh"
# test-needs: python3:python3
BUILD=${BUILD:-build}
ANTENNA=${ANTENNA:-$TOP/$BUILD/antenna}
LIRS=${LIRS:-$TOP/$BUILD/lirs}
SERVER=$TOP/$BUILD/tools/testserver
HTTPGET=$TOP/$BUILD/tools/httpget
A="${LIRS_WRAP:-} $ANTENNA"
# A_LITE: the antenna on SQLite files whatever the mode, for what is
# SQLite's alone (a file of an old schema made by hand, then migrated)
A_LITE=$A
L="${LIRS_WRAP:-} $LIRS"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# tmpdir NAME: $T, a new directory /tmp/NAME.XXXXXX with $WWW ($T/www, the
# server's root) in it; it and the server ($SPID) go when the script ends.
tmpdir() {
	T=$(mktemp -d "/tmp/$1.XXXXXX") || exit 1
	WWW=$T/www
	mkdir -p "$WWW"
	SPID=
	# a signal ends the script (cleanup on its way out): a trap that
	# returned would let it run on without its directory and server
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# ANTENNA_TEST_PG=1: every database the suite names is one of a
	# PostgreSQL server of its own (tests/lib/pg.sh, pgwrap.sh)
	if [ -n "${ANTENNA_TEST_PG:-}" ]; then
		. "$TOP/tests/lib/pg.sh"
		pg_start || exit 1
		export PG_HOST PGBIN
		A="${LIRS_WRAP:-} sh $TOP/tests/lib/pgwrap.sh $ANTENNA"
	fi
}
# dbname FILE: the database's name as the commands say it (FILE, or under
# ANTENNA_TEST_PG the PostgreSQL URI pgwrap.sh gives FILE)
dbname() {
	if [ -n "${ANTENNA_TEST_PG:-}" ]; then sh "$TOP/tests/lib/pgwrap.sh" --name "$1"; else echo "$1"; fi
}
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	[ -n "${PG_DIR:-}" ] && pg_stop
	rm -rf "$T"
}

. "$TOP/tests/lib/tap.sh"
# jget DB URL KEY: one key of one page from list --format jsonl
jget() {
	$A -d "$1" list --format jsonl | $PY -c '
import json, sys
url, key = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    o = json.loads(line)
    if o["url"] == url:
        v = o[key]
        print("null" if v is None else v)
' "$2" "$3"
}

# sql DB STATEMENT...: runs the statements on DB, in one transaction (a
# suite's fixture writes rows the commands cannot).  DB is the antenna's
# database as the suite names it: under ANTENNA_TEST_PG the PostgreSQL
# database pgwrap.sh maps it to (psql), else the SQLite file (python3's
# sqlite3).  The statements are the two dialects' common SQL; SQLite's
# hex() and zeroblob() are given to PostgreSQL too (sql_pg_compat).
# A file that exists is SQLite's whatever the mode (a lirs state file).
sql() {
	db=$1; shift
	if [ -n "${ANTENNA_TEST_PG:-}" ] && [ ! -f "$db" ]; then
		sql_pg "$db" 0 "$@"
		return
	fi
	$PY -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for s in sys.argv[2:]:
    c.execute(s)
c.commit()
' "$db" "$@"
}
# sqlq DB QUERY: QUERY's rows on DB, one a line, columns joined by "|"
# (sqlite3's own output), NULL as nothing; DB as for sql.
sqlq() {
	if [ -n "${ANTENNA_TEST_PG:-}" ] && [ ! -f "$1" ]; then
		sql_pg "$1" 1 "$2"
		return
	fi
	$PY -c '
import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in r))
' "$1" "$2"
}
# sql_pg DB ROWS STATEMENT...: the statements through psql, in one
# transaction, stopping at the first error (a loud one on stderr); ROWS 1
# prints the rows as sqlq does.
# test-needs: psql:postgresql-client
sql_pg_compat="CREATE OR REPLACE FUNCTION zeroblob(n bigint) RETURNS bytea LANGUAGE sql IMMUTABLE
	AS \$\$ SELECT decode(repeat('00', n::int), 'hex') \$\$;
CREATE OR REPLACE FUNCTION hex(b bytea) RETURNS text LANGUAGE sql IMMUTABLE AS \$\$ SELECT upper(encode(b, 'hex')) \$\$;"
sql_pg() {
	sp_uri=$(dbname "$1") || return 1
	sp_rows=$2; shift 2
	{
		echo "SET client_min_messages = warning;"
		[ "$sp_rows" = 1 ] || printf '%s\n' "$sql_pg_compat"
		for s in "$@"; do printf '%s;\n' "$s"; done
	} | psql -X -q -A -t -v ON_ERROR_STOP=1 --single-transaction -d "$sp_uri" -f -
}

# start_server MAX_SECONDS [OPTION...]: the test server on 127.0.0.1
# serving $WWW, for at most MAX_SECONDS; sets SPID and U (its base URL).
# A server that does not start within 5 s is a failure: the script ends.
start_server() {
	srv_max=$1; shift
	"$SERVER" --root "$WWW" --port-file "$T/port" --max-seconds "$srv_max" "$@" 2>"$T/server.log" &
	SPID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	if [ ! -s "$T/port" ]; then
		notok "testserver started" "$(cat "$T/server.log")"
		exit 1
	fi
	U="http://127.0.0.1:$(cat "$T/port")"
}

# asked PATH: how many times the server (started --verbose) was asked for
# PATH in $T/server.log.  Its log line comes after the answer: wait until
# the log stops growing, at most 3 s, so a slow build does not count early.
asked() {
	w=0 was=-1
	while [ $w -lt 30 ]; do
		sz=$(wc -c < "$T/server.log")
		[ "$sz" = "$was" ] && break
		was=$sz; sleep 0.1; w=$((w + 1))
	done
	grep -c "GET $1 " "$T/server.log"
}

# second_server: another test server on 127.0.0.1, serving $T/www2 (up to
# 300 s, --verbose: its log $T/server2.log), stopped at exit: the
# "internal" host of the guard's tests, asked as localhost.  Sets SPID2,
# P (the first server's port), P2 and U2 (http://localhost:P2).
second_server() {
	SPID2=
	trap '[ -n "$SPID2" ] && kill "$SPID2" 2>/dev/null; cleanup' EXIT INT TERM
	mkdir -p "$T/www2"
	"$SERVER" --root "$T/www2" --port-file "$T/port2" --max-seconds 300 --verbose 2>"$T/server2.log" &
	SPID2=$!
	i=0
	while [ ! -s "$T/port2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$T/port2" ] || { notok "second testserver started" "$(cat "$T/server2.log")"; exit 1; }
	P=$(cat "$T/port"); P2=$(cat "$T/port2")
	U2="http://localhost:$P2"
}

# server_suite NAME: how a suite against the test server starts: tmpdir
# NAME, the server (up to 300 s) and NOW, the clock when it started.
server_suite() {
	tmpdir "$1"
	start_server 300
	NOW=$(date +%s)
}
