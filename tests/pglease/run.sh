#!/bin/sh
# The edges of several checkers over one PostgreSQL (store_lease.c,
# update_lease.c, store.c's run lock, shared.c's publish lock), against a
# real server (tests/lib/pg.sh) and slow loopback servers
# (tests/tools/manyserver.c: 127.0.0.1 .. 127.0.0.3, each answer after
# 500 ms, every request logged):
#  - a claim worked on longer than its --lease (2 s; 10 pages at 500 ms,
#    one at a time) keeps its pages: renewed, a second checker takes none
#    of them and every page is asked once;
#  - an answer for a page another checker took once the lease ran out
#    (made so by hand: the lease given to "thief") is not saved, and the
#    summary says how many;
#  - an update without --lease beside checkers with --lease is refused
#    naming --lease, and a checker with --lease beside one without;
#  - publish --wait: 0 stops at once, S after S seconds, both naming the
#    other publisher; the lock free, it publishes;
#  - --force with --lease: a page another checker checked at this run's
#    time is not asked again;
#  - two names for one address are one server: two checkers never ask it
#    at once (ANTENNA_RESOLVE maps the names, as curl's --resolve); an
#    origin keeps its key when its name later resolves elsewhere.
# test-needs: /usr/bin/psql:postgresql-client bc:bc
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ANTENNA_TEST_PG=
. "$TOP/tests/lib/antenna.sh"
. "$TOP/tests/lib/pg.sh"

plan 29
tmpdir pglease-test
pg_start || exit 1
MS= HOLD=
trap '[ -n "$MS" ] && kill $MS 2>/dev/null; [ -n "$HOLD" ] && kill $HOLD 2>/dev/null; pg_stop; cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
NOW=1795000000
"$TOP/$BUILD/tools/manyserver" --addrs 3 --delay-ms 500 --log "$T/log" --port-file "$T/port" \
	--max-seconds 170 & MS=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
P=$(cat "$T/port")
# newdb NAME N ADDR: a database of N pages on 127.0.0.ADDR; its URI in $DB
newdb() {
	DB=$(pg_newdb "$1") || exit 1
	$A -d "$DB" init --title "$1" --base http://lease.example/ --min-delay 10 > /dev/null 2>&1
	"$TOP/$BUILD/bench/seed" "$DB" "http://127.0.0.$3:$P/$1-" "$2" > /dev/null 2>&1
}
q() { psql -qAt -h "$PG_HOST" -U antenna "$1" -c "$2"; }
# asked NAME: the page requests of database NAME in the log
asked() { awk -v n="/$1-" '$4 != "/robots.txt" && index($4, n) == 1' "$T/log"; }
UPD="update --jobs 4 --per-host 1 --refetch-pause -1"
# started NAME N: waits (10 s at most) for N page requests of NAME in the
# log: the checker started before it holds its claim and its lock, however
# loaded the machine
started() {
	for _ in $(seq 100); do [ "$(asked "$1" | wc -l)" -ge "$2" ] && return 0; sleep 0.1; done
	return 1
}

# ---- a claim longer than its lease: renewed ------------------------------------------------
newdb renew 10 1
$A -d "$DB" $UPD --now $NOW --lease 2 > "$T/r1" 2> "$T/re1" & C1=$!
started renew 1
$A -d "$DB" $UPD --now $NOW --lease 2 > "$T/r2" 2> "$T/re2"; R2=$?
wait $C1; R1=$?
is "renew: both checkers exit 0" "$R1$R2" 00
is "renew: each of the 10 pages asked once (5 s of work on a 2 s lease)" \
	"$(asked renew | awk '{ print $4 }' | sort -u | wc -l):$(asked renew | wc -l)" 10:10
check "renew: the first checker checked them all" grep -q '^checked 10 pages' "$T/r1"
check "renew: the second took none (it waited for the renewed claim)" grep -q '^checked 0 pages' "$T/r2"
is "renew: every page checked, none leased" \
	"$(q renew "SELECT count(*) FROM pages WHERE last_check = $NOW AND lease_until = 0")" 10

# ---- an answer for a page another checker took: not saved ------------------------------------
newdb lost 8 2
$A -d "$DB" $UPD --now $NOW --lease 60 > "$T/l1" 2> "$T/le1" & C1=$!
started lost 1
# the pages not answered yet: another checker's, as if this lease had run
# out and another had claimed them (for ten minutes)
STOLEN=$(q lost "UPDATE pages SET lease_by = 'thief',
	lease_until = CAST(extract(epoch FROM now()) * 1000 AS bigint) + 600000 WHERE id IN (SELECT id FROM pages
	WHERE last_check < $NOW AND lease_by IS NOT NULL AND lease_by <> 'thief' FOR UPDATE SKIP LOCKED) RETURNING id" | wc -l)
wait $C1; R1=$?
echo "# taken from the checker: $STOLEN of 8"
is "lost: the checker exits 0" "$R1" 0
check "lost: pages were taken from it mid-batch ($STOLEN)" test "$STOLEN" -ge 3
check "lost: the summary says their answers were not saved" \
	grep -q "$STOLEN answers not saved (the pages were another checker's once the lease ran out)" "$T/l1"
is "lost: the taken pages unchanged (never checked), still the thief's" \
	"$(q lost "SELECT count(*) FROM pages WHERE lease_by = 'thief' AND last_check = 0")" "$STOLEN"
is "lost: the others saved" "$(q lost "SELECT count(*) FROM pages WHERE last_check = $NOW")" $((8 - STOLEN))
check "lost: check-db clean" $A -d "$DB" check-db

# ---- a checker without --lease beside checkers with it, and the other way ----------------------
newdb mixed 16 3
$A -d "$DB" $UPD --now $NOW --lease 60 > "$T/m1" 2> "$T/me1" & C1=$!
started mixed 1
$A -d "$DB" $UPD --now $NOW > "$T/m2" 2> "$T/me2"; R2=$?
wait $C1; R1=$?
is "mixed: beside a checker with --lease, an update without it is refused; the first ends well" "$R1:$R2" 0:2
check "mixed: ... saying to give it --lease" \
	grep -q "1 checker with --lease is sharing '$DB' now: an update there needs --lease too" "$T/me2"
$A -d "$DB" $UPD --now $((NOW + 3600)) --force > "$T/m3" 2> "$T/me3" & C1=$!
started mixed 17
$A -d "$DB" $UPD --now $((NOW + 3600)) --lease 60 > "$T/m4" 2> "$T/me4"; R2=$?
wait $C1; R1=$?
is "mixed: beside an update without --lease, a checker with it is refused" "$R1:$R2" 0:2
check "mixed: ... naming the run that holds the lock and --lease" \
	grep -q "an antenna run without --lease holds the lock on '$DB' (antenna on .* pid $C1, connected .*): this checker with --lease stops" "$T/me4"
is "mixed: each page checked once a cycle" "$(asked mixed | wc -l)" 32

# ---- --force with --lease: a page checked at this run's time is not asked again --------------------
: > "$T/log"
$A -d "$DB" $UPD --now $((NOW + 3600)) --force --lease 60 > "$T/f1" 2> "$T/fe1"; R1=$?
is "force: a forced checker at the time of the last check asks nothing" "$R1:$(asked mixed | wc -l)" 0:0
$A -d "$DB" $UPD --now $((NOW + 3601)) --force --lease 60 --jobs 2 > "$T/f1" 2> "$T/fe1" & C1=$!
started mixed 1
$A -d "$DB" $UPD --now $((NOW + 3601)) --force --lease 60 --jobs 2 > "$T/f2" 2> "$T/fe2"; R2=$?
wait $C1; R1=$?
is "force: two forced checkers at once ask each page once" \
	"$R1$R2:$(asked mixed | awk '{ print $4 }' | sort -u | wc -l):$(asked mixed | wc -l)" 00:16:16

# ---- publish --wait ---------------------------------------------------------------------------------
PGAPPNAME=the-other-publisher psql -qAt -h "$PG_HOST" -U antenna mixed \
	-c 'SELECT pg_advisory_lock(4242000005)' -c 'SELECT pg_sleep(30)' > /dev/null 2>&1 & HOLD=$!
for _ in $(seq 50); do
	[ "$(q mixed "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")" = 1 ] && break
	sleep 0.1
done
t0=$(date +%s.%N)
$A -d "$DB" publish --wait 0 "$T/pub" > /dev/null 2> "$T/pe0"; R0=$?
t1=$(date +%s.%N)
$A -d "$DB" publish --wait 2 "$T/pub" > /dev/null 2> "$T/pe2"; R2=$?
t2=$(date +%s.%N)
is "publish: --wait 0 and --wait 2 stop, the lock held" "$R0:$R2" 2:2
check "publish: --wait 0 at once ($(echo "$t1 - $t0" | bc) s)" test "$(echo "$t1 - $t0 < 1.5" | bc)" = 1
check "publish: ... naming the other publisher" \
	grep -q "another 'antenna publish' of '$DB' is running (the-other-publisher, connected .*): this one stops at once (--wait 0)" "$T/pe0"
check "publish: --wait 2 after 2 s ($(echo "$t2 - $t1" | bc) s)" test "$(echo "$t2 - $t1 >= 2 && $t2 - $t1 < 6" | bc)" = 1
check "publish: ... saying so" grep -q "is running (the-other-publisher, .*) and still was after 2 s (--wait)" "$T/pe2"
q mixed "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'the-other-publisher'" > /dev/null
wait $HOLD 2>/dev/null; HOLD=
check "publish: the lock let go of, publish --wait 5 publishes" $A -d "$DB" publish --wait 5 "$T/pub"

# ---- two names for one address: one server -----------------------------------------------------------
: > "$T/log"
DB=$(pg_newdb names) || exit 1
$A -d "$DB" init --title names --base http://lease.example/ --min-delay 10 > /dev/null 2>&1
"$TOP/$BUILD/bench/seed" "$DB" "http://one.example:$P/names-" 4 > /dev/null 2>&1
"$TOP/$BUILD/bench/seed" --first 4 "$DB" "http://two.example:$P/names-" 4 > /dev/null 2>&1
export ANTENNA_RESOLVE="one.example:$P:127.0.0.1 two.example:$P:127.0.0.1"
$A -d "$DB" $UPD --now $NOW --lease 60 --jobs 1 > "$T/n1" 2> "$T/ne1" & C1=$!
started names 1
$A -d "$DB" $UPD --now $NOW --lease 60 --jobs 1 > "$T/n2" 2> "$T/ne2"; R2=$?
wait $C1; R1=$?
unset ANTENNA_RESOLVE
is "names: both exit 0, the 8 pages asked once" "$R1$R2:$(asked names | wc -l)" 00:8
is "names: one server key for both names (the address)" "$(q names 'SELECT DISTINCT server FROM pages')" 127.0.0.1
M=$(asked names | awk '{ print $3, $1, 1; print $3, $2, -1 }' | sort -k1,1 -k2,2n -k3,3n |
	awk '{ n += $3; if (n > m) m = n } END { print m + 0 }')
is "names: never two requests at once to the address (one checker at a time holds it)" "$M" 1
is "names: each origin keyed once" "$(q names 'SELECT origin, server FROM origin_server ORDER BY 1' | tr '\n' ' ')" \
	"http://one.example:$P|127.0.0.1 http://two.example:$P|127.0.0.1 "
# a page added later on a known origin takes its key, whatever the DNS says now
"$TOP/$BUILD/bench/seed" --first 8 "$DB" "http://one.example:$P/names-" 1 > /dev/null 2>&1
ANTENNA_RESOLVE="one.example:$P:127.0.0.2" $A -d "$DB" $UPD --now $NOW --lease 60 > "$T/n3" 2> "$T/ne3"
is "names: a page added later, its name now at another address, keeps its origin's key" \
	"$(q names "SELECT server FROM pages WHERE url LIKE '%/names-8.html'")" 127.0.0.1
