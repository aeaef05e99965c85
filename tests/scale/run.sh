#!/bin/sh
# History retention: many update + publish cycles of one antenna
# database with pruning (init --keep-events) and of a twin that keeps all,
# in lockstep against the same loopback pages (--jobs 1: the same event
# order in both).  The pruned database must stay bounded (steady state),
# and every file both publish must be byte for byte the same.  Then: a new DIR after pruning gets a clear message
# and exit 1, never different archives.  Each check prints "ok - name" or
# "not ok - name".
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
plan 30

tmpdir antenna-scale
# rows DB TABLE: the row count check-db prints for TABLE
rows() { $A -d "$1" check-db | awk -v t="$2" '$1 == t { print $2 }'; }
# dbpages DB: the file's size in pages, from check-db
dbpages() { $A -d "$1" check-db | awk '$1 == "file:" { print $4 }'; }

start_server 300

NPAGES=20 PAGESIZE=5 KEEP=10 CYCLES=30
P=$T/pruned.db K=$T/all.db
check "init --keep-events 10" $A -d "$P" init --base http://ant.example/ --page-size $PAGESIZE --keep-events $KEEP
check "init --keep-events all" $A -d "$K" init --base http://ant.example/ --page-size $PAGESIZE --keep-events all
$A -d "$T/x.db" init --keep-events -1 > /dev/null 2> "$T/err"
is "init --keep-events -1 is refused with 2" $? 2
check "the refusal names the option" grep -q -- "--keep-events: '-1' is neither 'all' nor an integer" "$T/err"
check "check-db reports the retention" sh -c "$A -d '$P' check-db | grep -q 'retention: keep-events $KEEP'"
check "check-db reports keep all" sh -c "$A -d '$K' check-db | grep -q 'retention: keep-events all'"

i=0
while [ $i -lt $NPAGES ]; do
	printf 'No-Validators: 1\n' > "$WWW/p$i.html.hdr"
	printf '<title>P%d</title><p>0</p>\n' $i > "$WWW/p$i.html"
	$A -d "$P" add "$U/p$i.html" > /dev/null
	$A -d "$K" add "$U/p$i.html" > /dev/null
	i=$((i + 1))
done

NOW=1700000000
c=1 bad=0 grew=0
# the first checks: quiet baselines, no event; each cycle then is a change
for db in "$P" "$K"; do
	$A -d "$db" update --force --jobs 1 --now $NOW > /dev/null 2>&1 || bad=$((bad + 1))
done
while [ $c -le $CYCLES ]; do
	i=0
	while [ $i -lt $NPAGES ]; do
		# words, not a number: a change in numbers alone is no update
		printf '<title>P%d</title><p>version %s</p>\n' $i "$(echo $c | tr 0-9 a-j)" > "$WWW/p$i.html"
		i=$((i + 1))
	done
	NOW=$((NOW + 3600))
	for db in "$P" "$K"; do
		$A -d "$db" update --force --jobs 1 --now $NOW > /dev/null 2>&1 || bad=$((bad + 1))
		$A -d "$db" publish --now $((NOW + 60)) "$db.site" > /dev/null 2>&1 || bad=$((bad + 1))
	done
	[ $c = 15 ] && half=$(dbpages "$P")
	c=$((c + 1))
done
is "every update and publish exits 0" $bad 0
check "the twin that keeps all has every event" test "$(rows "$K" ev_events)" = $((NPAGES * CYCLES))
ev=$(rows "$P" ev_events)
# kept: the newest KEEP, rounded to whole archives, plus the newest archive and
# what is not archived yet
check "pruned: at most keep-events + 2 archives of events kept ($ev)" test "$ev" -le $((KEEP + 2 * PAGESIZE))
check "pruned: at least keep-events kept ($ev)" test "$ev" -ge $KEEP
check "pruned: only the archives still needed have rows" test "$(rows "$P" ev_archives)" -le $(( (KEEP + 2 * PAGESIZE) / PAGESIZE + 1 ))
is "the pruned file's size is steady from cycle 15 to 30 (pages)" "$(dbpages "$P")" "$half"
check "the file that keeps all is larger" test "$(dbpages "$K")" -gt "$(dbpages "$P")"
check "check-db says what was pruned" sh -c "$A -d '$P' check-db | grep -q 'pruned so far: [1-9][0-9]* events, archives 1 to [1-9]'"
check "the pruned database passes the integrity check" $A -d "$P" check-db -q
narch=$(ls "$K.site/archive" | wc -l)
# A floor: 600 events in archives of 5 are over 100 archives, not none.
is "both wrote every archive (over 100)" "$(ls "$P.site/archive" | wc -l):$([ "$narch" -gt 100 ] && echo over-100)" "$narch:over-100"
check "archives, index.atom, current.atom, index.html and lirs.gz are the same bytes" diff -r "$P.site" "$K.site"

# ---- a new DIR after pruning -------------------------------------------------------------
$A -d "$P" publish --now $((NOW + 120)) "$T/new" > /dev/null 2> "$T/err"
is "publish into a new DIR after pruning exits 1" $? 1
check "the message names the archives that cannot be written again" \
	grep -q "warning: [0-9]* archives from '$T/new/archive/1.atom' to '[0-9]*.atom' cannot be written again: their events were pruned (retention now: keep-events $KEEP)" "$T/err"
first=$(ls "$T/new/archive" | sort -n | head -n 1)
check "the pruned archives are not written at all" test ! -e "$T/new/archive/1.atom"
same=1
for f in "$T/new/archive/"*.atom; do
	cmp -s "$f" "$P.site/archive/$(basename "$f")" || same=0
done
is "the archives still in the state are written again, the same bytes ($first on)" $same 1
check "index.atom in the new DIR is the same" cmp "$T/new/index.atom" "$P.site/index.atom"
cp -r "$P.site/archive/." "$T/new/archive/"
rm -f "$T/new/index.atom"
$A -d "$P" publish --now $((NOW + 180)) "$T/new" > /dev/null 2> "$T/err"
is "with the old archives copied back, publish exits 0" $? 0
check "...and says nothing" test ! -s "$T/err"
$A -d "$K" publish --now $((NOW + 120)) "$T/newk" > /dev/null 2>&1
is "keep all: a new DIR gets every archive again, exit 0" $? 0
check "keep all: the same archives as before" diff -r "$T/newk/archive" "$K.site/archive"

# ---- --keep-events on publish overrides the database's --------------------------------
cp "$K" "$T/ov.db"
$A -d "$T/ov.db" publish --keep-events 0 --now $((NOW + 120)) "$K.site" > /dev/null 2>&1
is "publish --keep-events 0 exits 0" $? 0
ev=$(rows "$T/ov.db" ev_events)
check "publish --keep-events 0 keeps only what is due ($ev events)" test "$ev" -le $((2 * PAGESIZE))
check "the database still says keep all" sh -c "$A -d '$T/ov.db' check-db | grep -q 'retention: keep-events all'"
$A -d "$T/ov.db" publish --keep-events x "$K.site" > /dev/null 2>&1
is "publish --keep-events x is refused with 2" $? 2
