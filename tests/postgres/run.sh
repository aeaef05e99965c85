#!/bin/sh
# The store on PostgreSQL (store_pg.c, store_pgsql.c), against a server of
# the test's own (tests/lib/pg.sh: initdb and pg_ctl in a temporary
# directory, a Unix socket there, no TCP port): the store's unit checks
# (build/tests/t_store with T_STORE_DB), then one antenna kept twice, in a
# SQLite file and in PostgreSQL, fed the same pages, updates and settings:
# what each publishes is the same, byte for byte (one fetch at a time:
# the events of one update are numbered in the order their pages answer);
# check-db is clean on both; two updates at once on one PostgreSQL
# database both run (claims and leases, update_lease.c), a killed run's
# lease runs out; 2,500 pages listed, exported and published the same
# from both (the walks fetched from a cursor in batches).
# The suites of the commands run against PostgreSQL too, unchanged:
# ANTENNA_TEST_PG=1 (make check-pg).
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ANTENNA_TEST_PG=   # the twin needs a real SQLite file beside the server
. "$TOP/tests/lib/antenna.sh"
. "$TOP/tests/lib/pg.sh"

plan 21
tmpdir postgres-test
pg_start || exit 1
trap 'pg_stop; cleanup' EXIT INT TERM
start_server 120

# ---- the store's unit checks ---------------------------------------------------
UT=$(pg_newdb unit) || exit 1
T_STORE_DB=$UT "$TOP/$BUILD/tests/t_store" > "$T/unit.out" 2>&1
is "t_store on PostgreSQL passes" "$?:$(grep -c '^not ok' "$T/unit.out")" "0:0"
check "t_store on PostgreSQL ran its 90 checks" grep -qx '1..90' "$T/unit.out"

# ---- one antenna, two stores ---------------------------------------------------------
PG=$(pg_newdb twin) || exit 1
LITE=$T/twin.db
NOW=1795000000
page() { printf '<html><head><title>%s</title></head><body><p>%s</p></body></html>\n' "$1" "$2" > "$WWW/$3"; }
page 'First page' 'hello world' a.html
page 'Second' 'some text that stays' b.html
page 'Third' 'a diary, day one' c.html
printf 'Status: 404 Not Found\n' > "$WWW/gone.html.hdr"; : > "$WWW/gone.html"
for d in "$LITE" "$PG"; do
	$A -d "$d" init --title Twin --base http://twin.example/ > /dev/null 2>&1
	for f in a b c gone; do $A -d "$d" add "$U/$f.html" > /dev/null 2>&1; done
	$A -d "$d" set "$U/b.html" --group friends --title 'Second, named' > /dev/null 2>&1
	$A -d "$d" update --force --jobs 1 --now $NOW -q > /dev/null 2>&1
done
page 'Third' 'a diary, day two: something new happened today' c.html
page 'First page' 'hello world, again and more' a.html
for d in "$LITE" "$PG"; do
	$A -d "$d" update --force --jobs 1 --now $((NOW + 3600)) -q > /dev/null 2>&1
	$A -d "$d" update --force --jobs 1 --now $((NOW + 7200)) -q > /dev/null 2>&1
done
$A -d "$LITE" publish --now $((NOW + 7300)) "$T/pub-lite" > /dev/null 2>&1
is "publish from SQLite exits 0" $? 0
$A -d "$PG" publish --now $((NOW + 7300)) "$T/pub-pg" > /dev/null 2>&1
is "publish from PostgreSQL exits 0" $? 0
check "something was published" grep -q 'Third' "$T/pub-lite/index.html"
if diff -r "$T/pub-lite" "$T/pub-pg" > "$T/pub.diff" 2>&1; then
	ok "the same files, byte for byte (index.html, lirs.gz, the feeds)"
else
	notok "the same files, byte for byte (index.html, lirs.gz, the feeds)" "$(head -n 12 "$T/pub.diff")"
fi
$A -d "$LITE" list --format jsonl > "$T/list-lite" 2>&1
$A -d "$PG" list --format jsonl > "$T/list-pg" 2>&1
check "list --format jsonl the same from both" cmp -s "$T/list-lite" "$T/list-pg"
check "check-db clean on PostgreSQL" $A -d "$PG" check-db

# ---- antenna copy: SQLite -> PostgreSQL -> SQLite ------------------------------------------
CP=$(pg_newdb copied) || exit 1
$A copy "$LITE" "$CP" > "$T/out" 2>&1
check "copy SQLite -> PostgreSQL" grep -q "^copied '$LITE' to '.*': [1-9][0-9]* rows$" "$T/out"
$A copy "$CP" "$T/back.db" > "$T/out" 2>&1
check "copy PostgreSQL -> SQLite" grep -q "^copied '.*' to '$T/back.db': [1-9][0-9]* rows$" "$T/out"
$A -d "$CP" publish --now $((NOW + 7300)) "$T/pub-cp" > /dev/null 2>&1
$A -d "$T/back.db" publish --now $((NOW + 7300)) "$T/pub-back" > /dev/null 2>&1
check "the copy in PostgreSQL publishes the same files" diff -r "$T/pub-lite" "$T/pub-cp"
check "the copy back in SQLite publishes the same files" diff -r "$T/pub-lite" "$T/pub-back"
$A -d "$CP" add "$U/new.html" > /dev/null 2>&1
is "a page added to the copy gets a new id (the sequence moved past the copied ones)" $? 0
$A copy "$LITE" "$CP" > /dev/null 2> "$T/err"
is "copy into a database with pages is refused" "$?:$(grep -c 'already holds' "$T/err")" "2:1"

# ---- walks in batches: 2,500 pages, three cursor batches (store_pg.c PG_BATCH) ----------------
BL=$T/batch.db
BP=$(pg_newdb batch) || exit 1
for d in "$BL" "$BP"; do
	$A -d "$d" init --base http://batch.example/ > /dev/null 2>&1
	"$TOP/$BUILD/bench/seed" "$d" http://b.example/p 2500 7 1795000000 > /dev/null 2>&1
done
$A -d "$BL" list --format jsonl > "$T/bl-list" 2>&1
$A -d "$BP" list --format jsonl > "$T/bp-list" 2>&1
is "2,500 pages listed from PostgreSQL, the same as from SQLite" \
	"$(wc -l < "$T/bp-list" | tr -d ' '):$(cmp -s "$T/bl-list" "$T/bp-list" && echo same)" "2500:same"
$A -d "$BL" export --format jsonl > "$T/bl-exp" 2>&1
$A -d "$BP" export --format jsonl > "$T/bp-exp" 2>&1
check "export --format jsonl (grouped) the same from both" cmp -s "$T/bl-exp" "$T/bp-exp"
$A -d "$BL" publish --now 1795000100 "$T/bl-pub" > /dev/null 2>&1
$A -d "$BP" publish --now 1795000100 "$T/bp-pub" > /dev/null 2>&1
check "publish of 2,500 pages: the same files from both" diff -r "$T/bl-pub" "$T/bp-pub"

# ---- several updates at once (update_lease.c, tests/pgmulti) ------------------------------
page 'Slow' 'slow page' slow.html
printf 'Delay-Ms: 6000\n' > "$WWW/slow.html.hdr"
$A -d "$PG" add "$U/slow.html" > /dev/null 2>&1
$A -d "$PG" update --force --timeout 20 --lease 30 > /dev/null 2>&1 &
UP=$!
sleep 1.5   # it holds the server's slot, the slow page keeps it 6 s
$A -d "$PG" update --force --lease 30 > "$T/out" 2> "$T/err"
is "a second update at once runs too (no run lock on PostgreSQL: claims and leases)" $? 0
check "... having waited for the first's server (the run ended after the slow page)" \
	grep -q "^checked .*claim" "$T/out"
wait $UP
$A -d "$PG" update --force --timeout 20 --lease 2 > /dev/null 2>&1 &
UP=$!
sleep 1.5
kill -9 $UP
wait $UP 2> /dev/null
$A -d "$PG" update --force --timeout 20 --lease 2 > /dev/null 2>&1
is "after kill -9 the next update runs once the killed one's lease ran out" $? 0
check "check-db clean after the kill" $A -d "$PG" check-db
