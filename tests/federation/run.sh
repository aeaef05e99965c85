#!/bin/sh
# tests/federation: scaling out.  Four shard antennas, each its own
# database and a quarter of the pages (the test server's generated
# /bench/N.html, seeded with bench/seed --first), each runs update and
# publish; a hub reads the four shards' lirs.gz (served by the test
# server from the shards' publish directories) as relay sources
# ('add --lirs URL --relay') and runs update and publish.  The hub's
# published list (its lirs.gz, read back with 'lirs cat --format jsonl')
# must be what ONE antenna checking every page publishes: the same URLs
# with the same update times.  Every run has the same --now, so the
# update times are the server's Last-Modified on both sides.
#
# Then one cycle (shard 0 re-checks its pages after a change on the server,
# publishes, the hub updates and publishes): the hub's list is the
# shards' lists again, and the relayed news are update events in the
# hub's Atom feed, which a hub of hubs reads with --atom --relay; the
# 8-hour rule drops relayed records as any; removing a relay source takes
# its pages off the hub's list.
#
# FED_PAGES (default 100000) sets the number of pages.  The ASan build
# (BUILD=build-asan) and valgrind runs check 8,000 pages instead, and say
# so: the checks are the same, only the size differs.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 15
N=${FED_PAGES:-}
if [ -z "$N" ]; then
	N=100000
	case "$BUILD" in *asan*) N=8000; echo "# scaled down to $N pages for the ASan build ($BUILD): the same checks, 1/12 of the size" ;; esac
	[ "${VALGRIND:-}" = 1 ] && { N=8000; echo "# scaled down to $N pages under valgrind: the same checks, 1/12 of the size"; }
fi
N=$((N / 4 * 4)) Q=$((N / 4))
echo "# $N pages, 4 shards of $Q"
SEED=$TOP/$BUILD/bench/seed
tmpdir federation-test
start_server 1800
# A Last-Modified in the second of the answer's Date is not believed
# (ant_detect.h): the pages' Last-Modified is the server's start, so wait a
# second, and every run of both sides sees the same header.
sleep 1
NOW=$(date +%s)
UPD="--now $NOW --force --jobs 64 --per-host 64"
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t() { date +%s.%N; }
# records FILE: "URL LAST_MODIFIED" of a published lirs.gz, sorted
records() { $L cat --format jsonl "$1" | $PY -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    print(o["url"], o["last_modified"])
' | LC_ALL=C sort; }

# ---- one antenna checking every page ----------------------------------------
t0=$(t)
S=$T/single.db
$A -d "$S" init > /dev/null && "$SEED" "$S" "$U/bench/" "$N" &&
	$A -d "$S" update $UPD > "$T/single.out" 2>&1 && $A -d "$S" publish --now "$NOW" "$T/single" > /dev/null
records "$T/single/lirs.gz" > "$T/single.rec"
t1=$(t)
is "one antenna checking every page publishes them all" "$(grep -c . "$T/single.rec")" "$N"

# ---- four shards, a quarter each, published where the server serves them ------------
k=0 bad=
while [ $k -lt 4 ]; do
	D=$T/shard$k.db
	$A -d "$D" init > /dev/null && "$SEED" --first $((k * Q)) "$D" "$U/bench/" "$Q" &&
		$A -d "$D" update $UPD > "$T/shard$k.out" 2>&1 && $A -d "$D" publish --now "$NOW" "$WWW/shard$k" > /dev/null ||
		bad="$bad shard$k"
	records "$WWW/shard$k/lirs.gz" > "$T/shard$k.rec"
	[ "$(grep -c . "$T/shard$k.rec")" = "$Q" ] || bad="$bad shard$k:$(grep -c . "$T/shard$k.rec")"
	k=$((k + 1))
done
t2=$(t)
is "each shard checks and publishes its quarter (failed: none)" "${bad:-none}" none

# ---- the hub: the four shards' lirs.gz as relay sources -------------------------
H=$T/hub.db
$A -d "$H" init > /dev/null
for k in 0 1 2 3; do $A -d "$H" add --lirs "$U/shard$k/lirs.gz" --relay > /dev/null; done
$A -d "$H" update --now "$NOW" > "$T/hub.out" 2>&1
$A -d "$H" publish --now "$NOW" "$T/hub" > /dev/null
records "$T/hub/lirs.gz" > "$T/hub.rec"
t3=$(t)
check "the hub relays every record of its shards" \
	grep -q "read 4 LIRS sources (0 failed): $N records, 0 merged, $N relayed, 0 not watched, 0 skipped" "$T/hub.out"
is "each relay source relayed its quarter" \
	"$($A -d "$H" list --sources | grep -c "(relay)  read $Q, merged 0, relayed $Q, skipped 0, trust unscored (0 of 5 claims judged)\$")" 4
if cmp -s "$T/hub.rec" "$T/single.rec"; then
	ok "the hub publishes what one antenna checking every page publishes: the same URLs, the same update times"
else
	notok "the hub publishes what one antenna checking every page publishes: the same URLs, the same update times" \
		"hub $(grep -c . "$T/hub.rec") records, one antenna $(grep -c . "$T/single.rec")" \
		"$(diff "$T/single.rec" "$T/hub.rec" | head -n 6)"
fi
echo "# first pass: one antenna $(secs "$t0" "$t1") s; four shards $(secs "$t1" "$t2") s; hub $(secs "$t2" "$t3") s (update: $(tail -n 1 "$T/hub.out" | sed 's/.*; //'))"
grep -c '<entry>' "$T/hub/index.atom" > "$T/n" 2>/dev/null || true
is "a relay source's first read is a baseline: no update events" "$(cat "$T/n")" 0
is "list --relayed lists the pages the hub relays" "$($A -d "$H" list --relayed --format jsonl | grep -c '"source_url":"')" "$N"

# ---- a cycle: pages change, shard 0 updates and publishes, then the hub -----------
# Every (N/100)th page changes: a quarter of them are shard 0's.
"$HTTPGET" -o /dev/null "$U/_control/bump?every=$((N / 100))"
sleep 1
NOW2=$(date +%s)
t4=$(t)
$A -d "$T/shard0.db" update --now "$NOW2" --force --jobs 64 --per-host 64 > "$T/shard0.out" 2>&1
$A -d "$T/shard0.db" publish --now "$NOW2" "$WWW/shard0" > /dev/null
t5=$(t)
$A -d "$H" update --now "$NOW2" > "$T/hub2.out" 2>&1
$A -d "$H" publish --now "$NOW2" "$T/hub" > /dev/null
t6=$(t)
check "shard 0 finds its changed pages" grep -q "^checked $Q pages: 25 updated" "$T/shard0.out"
records "$WWW/shard0/lirs.gz" > "$T/shard0.rec"
cat "$T/shard0.rec" "$T/shard1.rec" "$T/shard2.rec" "$T/shard3.rec" | LC_ALL=C sort > "$T/union.rec"
records "$T/hub/lirs.gz" > "$T/hub2.rec"
if cmp -s "$T/hub2.rec" "$T/union.rec" && ! cmp -s "$T/hub2.rec" "$T/hub.rec"; then
	ok "after the cycle the hub publishes its shards' news"
else
	notok "after the cycle the hub publishes its shards' news" "$(diff "$T/union.rec" "$T/hub2.rec" | head -n 6)"
fi
echo "# the cycle: shard 0 update+publish $(secs "$t4" "$t5") s, then hub update+publish $(secs "$t5" "$t6") s (the lag from the shard's publish)"
# The relayed news are update events: the hub's Atom feed names the 25
# pages that changed, so that a hub of hubs can read it with --atom.
$PY - "$T/hub/index.atom" "$U" "$((N / 100))" "$Q" > "$T/atom.check" <<'EOF'
import re, sys
doc = open(sys.argv[1], encoding="utf-8").read()
base, every, q = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
got = sorted(re.findall(r'<link[^>]*href="([^"]*/bench/\d+\.html)"', doc))
want = sorted("%s/bench/%d.html" % (base, i) for i in range(0, q, every))
print("ok" if got == want else "not ok: %d links, %d wanted; %s" % (len(got), len(want), got[:3]))
EOF
is "the relayed news are the hub's update events (its Atom feed)" "$(cat "$T/atom.check")" ok
# A hub of hubs over Atom: the hub's index.atom as a relay source.
H2=$T/hub2.db
$A -d "$H2" init --allow-file > /dev/null
$A -d "$H2" add --atom "file://$T/hub/index.atom" --relay > /dev/null
$A -d "$H2" update --now "$NOW2" > "$T/hub2.out" 2>&1
$A -d "$H2" publish --now "$NOW2" "$T/hub2" > /dev/null
awk -v u="$U" -v q="$Q" -v e="$((N / 100))" 'BEGIN { for (i = 0; i < q; i += e) printf "%s/bench/%d.html \n", u, i }' > "$T/bumped"
grep -F -f "$T/bumped" "$T/hub2.rec" > "$T/news.rec"
if [ "$(grep -c . "$T/news.rec")" = 25 ] && [ "$(records "$T/hub2/lirs.gz")" = "$(cat "$T/news.rec")" ]; then
	ok "a hub of hubs reading the hub's Atom feed (--atom --relay) lists the news with their times"
else
	notok "a hub of hubs reading the hub's Atom feed (--atom --relay) lists the news with their times" \
		"$(records "$T/hub2/lirs.gz" | head -n 3)" "$(head -n 3 "$T/news.rec")"
fi
# The 8-hour rule: just after 8 hours from the first pass, only shard 0's
# records, detected again in the cycle, are fresh.
$A -d "$H" publish --now "$((NOW + 28801))" "$T/late" > /dev/null
is "the 8-hour rule drops relayed records like any" "$(records "$T/late/lirs.gz" | grep -c .)" "$Q"
is "the hub credits each relayed page to its shard (Source URL)" \
	"$($L cat --format jsonl "$T/hub/lirs.gz" | grep -c "\"source_url\":\"$U/shard1/lirs.gz\"")" "$Q"
$A -d "$H" remove "$U/shard3/lirs.gz" > "$T/rm.out"
check "removing a relay source says what goes with it" grep -q "and the $Q pages it relayed" "$T/rm.out"
$A -d "$H" publish --now "$NOW2" "$T/hub3" > /dev/null
is "...and its pages leave the hub's list" "$(records "$T/hub3/lirs.gz" | grep -c .)" "$((N - Q))"
