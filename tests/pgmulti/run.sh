#!/bin/sh
# Several checkers over one PostgreSQL (store_lease.c, update_lease.c):
# three 'antenna update' at once over 2,000 pages on 20 loopback servers
# (tests/tools/manyserver.c: 127.0.0.1 .. 127.0.0.20, each answer after
# 20 ms, every request logged with its start and end).  Each cycle: every
# due page asked exactly once (the server's log), the updates neither
# lost nor doubled (the summaries' and the events' counts), each server
# never asked by more than --per-host requests at once nor two starts
# closer than --min-delay, across the checkers (the log's times); then a
# checker killed with SIGKILL mid-batch: its pages checked by the others
# once its lease (--lease 3) expires; check-db clean.
# test-needs: /usr/bin/psql:postgresql-client
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ANTENNA_TEST_PG=
. "$TOP/tests/lib/antenna.sh"
. "$TOP/tests/lib/pg.sh"

plan 23
tmpdir pgmulti-test
pg_start || exit 1
MS=
trap '[ -n "$MS" ] && kill $MS 2>/dev/null; [ -n "${KEEP:-}" ] && cp -r "$T" /tmp/pgmulti-keep; pg_stop; cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
NS=20 PER=100 NOW=1795000000
"$TOP/$BUILD/tools/manyserver" --addrs $NS --delay-ms 20 --log "$T/log" --bump-file "$T/bump" \
	--port-file "$T/port" --max-seconds 300 & MS=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
P=$(cat "$T/port")
DB=$(pg_newdb multi) || exit 1
q() { psql -qAt -h "$PG_HOST" -U antenna multi -c "$1"; }
$A -d "$DB" init --title Multi --base http://multi.example/ --min-delay 30 > /dev/null 2>&1
for s in $(seq $NS); do
	"$TOP/$BUILD/bench/seed" --first $(((s - 1) * PER)) "$DB" "http://127.0.0.$s:$P/" $PER > /dev/null 2>&1
done
is "$((NS * PER)) pages on $NS servers" "$(q 'SELECT count(*) FROM pages')" $((NS * PER))

# three checkers at once; their summaries in $T/c1..c3
cycle() {   # cycle NOW [kill]
	: > "$T/log"
	for c in 1 2 3; do
		$A -d "$DB" update --now "$1" --jobs 8 --page-batch 200 --refetch-pause -1 --lease 3 > "$T/c$c" 2> "$T/e$c" &
		eval "P$c=\$!"
	done
	if [ -n "${2:-}" ]; then
		sleep 1.5
		kill -9 $P1
	fi
	wait $P1; R1=$?; wait $P2; R2=$?; wait $P3; R3=$?
}
# the page requests of the log, by server and path (robots.txt apart)
pages_asked() { awk '$4 != "/robots.txt" { print $3 $4 }' "$T/log"; }
sum() { sed -n "s/^checked \([0-9]*\) pages*: \([0-9]*\) updated.*/\\$1/p" "$T/c1" "$T/c2" "$T/c3" | awk '{ s += $1 } END { print s + 0 }'; }
# the most requests at once to one server, and the closest two starts
per_server() {
	awk '$4 != "/robots.txt" { print $3, $1, 1; print $3, $2, -1 }' "$T/log" | sort -k1,1 -k2,2n -k3,3n |
		awk '{ if ($1 != s) { s = $1; n = 0 } n += $3; if (n > m) m = n } END { print m + 0 }'
}
min_gap() {
	awk '$4 != "/robots.txt" { print $3, $1 }' "$T/log" | sort -k1,1 -k2,2n |
		awk 'BEGIN { g = 1e18 } { if ($1 == s && $2 - t < g) g = $2 - t; s = $1; t = $2 } END { print g }'
}

# ---- cycle 1: the first checks ----------------------------------------------------------
cycle $NOW
is "cycle 1: the three checkers exit 0" "$R1$R2$R3" 000
is "cycle 1: every page asked once" "$(pages_asked | sort | uniq | wc -l):$(pages_asked | wc -l)" \
	"$((NS * PER)):$((NS * PER))"
is "cycle 1: the summaries count every page once" "$(sum 1)" $((NS * PER))
N1=$(sed -n 's/^checked \([0-9]*\).*/\1/p' "$T/c1") N2=$(sed -n 's/^checked \([0-9]*\).*/\1/p' "$T/c2")
N3=$(sed -n 's/^checked \([0-9]*\).*/\1/p' "$T/c3")
echo "# cycle 1 shares: $N1 $N2 $N3"
check "cycle 1: each checker did a share" test "${N1:-0}" -gt 0 -a "${N2:-0}" -gt 0 -a "${N3:-0}" -gt 0
M=$(per_server)
check "cycle 1: at most 2 requests at once to a server (--per-host), across checkers ($M)" test "$M" -le 2
G=$(min_gap)
check "cycle 1: starts to one server --min-delay (30 ms) apart, across checkers ($G ms; a request's headers reach the server a few ms after its start)" test "$G" -ge 15
is "cycle 1: every page checked at this run's time, none leased" \
	"$(q "SELECT count(*) FROM pages WHERE last_check = $NOW AND lease_until = 0")" $((NS * PER))
check "cycle 1: check-db clean" $A -d "$DB" check-db

# ---- cycle 2: updates neither lost nor doubled ------------------------------------------------
E0=$(q 'SELECT count(*) FROM ev_events')
echo 10 > "$T/bump"   # pages 0, 10, 20, ...: a second version
cycle $((NOW + 3600))
is "cycle 2: the three checkers exit 0" "$R1$R2$R3" 000
is "cycle 2: every page asked once" "$(pages_asked | sort | uniq | wc -l):$(pages_asked | wc -l)" \
	"$((NS * PER)):$((NS * PER))"
is "cycle 2: $((NS * PER / 10)) updates found in all" "$(sum 2)" $((NS * PER / 10))
is "cycle 2: one update event each" "$(($(q 'SELECT count(*) FROM ev_events') - E0))" $((NS * PER / 10))
is "cycle 2: the updated pages are the changed ones" \
	"$(q "SELECT count(*) FROM pages WHERE last_detected = $((NOW + 3600)) AND CAST(substr(url, length(url) - position('/' IN reverse(url)) + 2) AS TEXT) SIMILAR TO '%0.html'")" \
	$((NS * PER / 10))
M=$(per_server)
check "cycle 2: at most 2 requests at once to a server ($M)" test "$M" -le 2
G=$(min_gap)
check "cycle 2: starts to one server --min-delay apart ($G ms)" test "$G" -ge 15

# ---- cycle 3: a checker killed mid-batch ------------------------------------------------------
cycle $((NOW + 7200)) kill
is "cycle 3: the killed checker died of SIGKILL, the others exit 0" "$R1:$R2$R3" 137:00
check "cycle 3: it was killed mid-batch (it had not ended)" test ! -s "$T/c1"
is "cycle 3: every page checked, the killed checker's too" \
	"$(q "SELECT count(*) FROM pages WHERE last_check = $((NOW + 7200))")" $((NS * PER))
check "cycle 3: the others waited for its lease (3 s) and took its pages" \
	test "$(pages_asked | sort -u | wc -l)" -eq $((NS * PER))
is "cycle 3: no lease left running (the killed checker's ran out)" \
	"$(q "SELECT count(*) FROM server_slot WHERE until > extract(epoch FROM now()) * 1000")" 0
check "cycle 3: check-db clean" $A -d "$DB" check-db

# ---- publish: one at a time (an advisory lock), the second waits ---------------------------------
$A -d "$DB" publish --now $((NOW + 7300)) "$T/pub1" > /dev/null 2> "$T/pe1" & PP=$!
$A -d "$DB" publish --now $((NOW + 7300)) "$T/pub2" > /dev/null 2> "$T/pe2"; R2=$?
wait $PP; R1=$?
check "two publishes at once: both run, one after the other, the same files" \
	sh -c "[ $R1$R2 = 00 ] && diff -r '$T/pub1' '$T/pub2'"
