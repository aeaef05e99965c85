#!/bin/sh
# bench/pgmulti.sh: several checkers over one PostgreSQL.
# N pages (default 30000) over S loopback servers (default 100:
# 127.0.0.1 .. 127.0.0.S, tests/tools/manyserver.c), each answer delayed
# D ms (default 200: a real network's latency), --jobs J (default 64) for
# every checker.  Reports: one checker's wall time against three's (and
# each one's share), one checker's CPU on PostgreSQL against the same on
# SQLite (the checker's process; the server's apart), from a cycle each
# where every page is due (--now moved on an hour).
#   BUILD=build sh bench/pgmulti.sh [N [S [D [J]]]]
# Not in make bench (minutes at 200 ms an answer).  The three checkers'
# cycle and a cycle with one of them killed by SIGKILL after
# PGMULTI_KILL_AFTER s (20) under a 60 s lease are verified at size: every
# page asked once, at most --per-host requests at once to one server,
# every page checked in the cycle, no lease left running, check-db clean;
# the script exits 1 when one is not.  Measured 2026-11-29 (schema 18) on
# the 2-core machine, 30000 pages, 100 servers, 200 ms, --jobs 64: one
# checker on SQLite 364.1 s wall, 12.47 s CPU; on PostgreSQL 253.2 s,
# 10.25 s CPU; three checkers 94.7 s (0.37x one), shares 9974, 9850,
# 10176; one killed after 20 s: 133.9 s, every page checked (1000 of them
# by the killed one before it could release them).
# test-needs: /usr/bin/time:time bc:bc /usr/bin/psql:postgresql-client
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
A=$TOP/$BUILD/antenna
N=${1:-30000} S=${2:-100} D=${3:-200} J=${4:-64}
NOW=1795000000
. "$TOP/tests/lib/pg.sh"
T=$(mktemp -d /tmp/pgmulti-bench.XXXXXX)
MS= C1= C2= C3=
# on exit, whatever the cause: the checkers and the server stopped before
# the directory they write in goes; a signal ends the script (a trap that
# returned would let it run on without its directory)
cleanup() {
	for p in $C1 $C2 $C3 $MS; do kill "$p" 2>/dev/null || :; done
	wait 2>/dev/null || :
	pg_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
pg_start || exit 1
"$TOP/$BUILD/tools/manyserver" --addrs "$S" --delay-ms "$D" --log "$T/log" --port-file "$T/port" --max-seconds 7200 & MS=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
P=$(cat "$T/port")
PG=$(pg_newdb bench) LITE=$T/bench.db
PER=$((N / S))
# PGMULTI_PG_ONLY=1: PostgreSQL's runs only (no SQLite checker to compare)
ONLY=${PGMULTI_PG_ONLY:-0}
DBS="$PG $LITE"; [ "$ONLY" = 1 ] && DBS=$PG
for d in $DBS; do
	$A -d "$d" init --title Bench --base http://bench.example/ > /dev/null 2>&1
	for s in $(seq "$S"); do
		"$TOP/$BUILD/bench/seed" --first $(((s - 1) * PER)) "$d" "http://127.0.0.$s:$P/" "$PER" > /dev/null 2>&1
	done
done
# one checker: its wall and CPU (user + system) time, /usr/bin/time's
run1() {   # run1 DB NOW LABEL [--lease S]
	# in the background, waited for: a signal ends the wait at once (a
	# foreground child would hold the trap until it ends)
	/usr/bin/time -f "%e %U %S" -o "$T/time" $A -d "$1" update --now "$2" --jobs "$J" --refetch-pause -1 ${4:-} ${5:-} > "$T/out" 2>&1 &
	C1=$!
	wait "$C1" || { echo "pgmulti: $3: update failed:" >&2; cat "$T/out" >&2; exit 1; }
	C1=
	read -r w u s < "$T/time"
	echo "$3: wall $w s, cpu $(echo "$u + $s" | bc) s: $(sed -n 's/^\(checked [0-9]* pages\).*claim.*/\1/p; s/^\(checked [0-9]* pages\)[^;]*;.*/\1/p' "$T/out" | head -1)"
}
run3() {   # run3 DB NOW [LEASE [KILL_AFTER_S [LABEL]]]
	: > "$T/log"
	t0=$(date +%s.%N)
	for c in 1 2 3; do
		/usr/bin/time -f "%e %U %S" -o "$T/time$c" $A -d "$1" update --now "$2" --jobs "$J" --refetch-pause -1 --lease "${3:-300}" > "$T/out$c" 2>&1 &
		eval "C$c=\$!"
	done
	if [ -n "${4:-}" ]; then
		sleep "$4"
		pkill -9 -P "$C1" antenna || :   # the checker itself, not time(1)
		wait "$C1" 2>/dev/null || :
		C1=
	fi
	for c in $C1 $C2 $C3; do
		wait "$c" || { echo "pgmulti: a checker failed:" >&2; cat "$T"/out? >&2; exit 1; }
	done
	C1= C2= C3=
	t1=$(date +%s.%N)
	echo "${5:-three checkers on PostgreSQL}: wall $(echo "$t1 - $t0" | bc | cut -c1-6) s; shares: $(for c in 1 2 3; do sed -n 's/^checked \([0-9]*\) pages.*/\1/p' "$T/out$c"; done | tr '\n' ' ')"
}
# verify NOW LABEL [killed]: what the cycle at NOW did, from the server's log of
# requests ("start end address path") and the database: every page asked
# once, at most --per-host (2) requests at once to one server across the
# checkers, every page checked at NOW and none leased, check-db clean
verify() {
	asked=$(awk '$4 != "/robots.txt"' "$T/log" | wc -l)
	uniq=$(awk '$4 != "/robots.txt" { print $3 $4 }' "$T/log" | sort -u | wc -l)
	most=$(awk '$4 != "/robots.txt" { print $3, $1, 1; print $3, $2, -1 }' "$T/log" | sort -k1,1 -k2,2n -k3,3n |
		awk '{ if ($1 != s) { s = $1; n = 0 } n += $3; if (n > m) m = n } END { print m + 0 }')
	checked=$(psql -qAt -h "$PG_HOST" -U antenna bench -c "SELECT count(*) FROM pages WHERE last_check = $1")
	# a lease still running; a killed checker's saved pages keep theirs,
	# run out, until a claim passes them (they are not due)
	leased=$(psql -qAt -h "$PG_HOST" -U antenna bench -c "SELECT count(*) FROM pages WHERE lease_until > extract(epoch FROM now()) * 1000")
	kept=$(psql -qAt -h "$PG_HOST" -U antenna bench -c "SELECT count(*) FROM pages WHERE last_check = $1 AND lease_until > 0")
	db=ok; $A -d "$PG" check-db > "$T/checkdb" 2>&1 || db="NOT CLEAN: $(head -n 3 "$T/checkdb" | tr '\n' ' ')"
	# a killed checker's pages in flight are asked again by the others
	v=ok; { [ "$asked" = "$N" ] || { [ -n "${3:-}" ] && [ "$asked" -ge "$N" ]; }; } && [ "$uniq" = "$N" ] && [ "$most" -le 2 ] && [ "$checked" = "$N" ] && [ "$leased" = 0 ] && [ "$db" = ok ] || v=FAILED
	echo "$2: $v: $uniq of $N pages asked, $asked requests; at most $most at once to one server; $checked checked at this cycle ($kept of them with a lease run out, not released), $leased leased; check-db $db"
	[ $v = ok ]
}
echo "# $N pages, $S servers, answers after $D ms, --jobs $J, $(nproc) cores"
[ "$ONLY" = 1 ] || run1 "$LITE" $NOW "first checks, SQLite (not timed against)" > /dev/null
run1 "$PG" $NOW "first checks, PostgreSQL (fills the servers)" --lease 300 > /dev/null
[ "$ONLY" = 1 ] || run1 "$LITE" $((NOW + 3600)) "one checker on SQLite"
run1 "$PG" $((NOW + 3600)) "one checker on PostgreSQL, sharing" --lease 300
run3 "$PG" $((NOW + 7200))
verify $((NOW + 7200)) "three checkers" || R=1
# one of three killed with SIGKILL mid-cycle (a lease of 60 s): the others
# take its pages once its lease runs out
K=${PGMULTI_KILL_AFTER:-20}
run3 "$PG" $((NOW + 10800)) 60 "$K" "three checkers, one killed after $K s (lease 60 s)"
verify $((NOW + 10800)) "one of three killed" killed || R=1
exit "${R:-0}"
