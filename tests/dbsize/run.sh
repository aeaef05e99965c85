#!/bin/sh
# Database size per watched page (hub scale: a million pages on one
# machine must fit in ~500 MB).  3,000 pages checked for real, against
# the test server's generated /bench/N.html pages (half of them change
# before each run), through update + publish cycles with the retention at
# a tenth of the pages (as keep-events 10000 is for 100,000): then
# check-db's bytes per watched page, detection state included, must be at
# most 550 (0.3.0's schema took ~890 at 100,000 pages: three copies of the
# URL and the key index, validators as text, the pages the pruned history
# left free), and its report must say what takes the room.  The diff
# pages' texts (table page_texts) have a budget of their own, reported
# apart by check-db and left out of the 550.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
plan 9

server_suite antenna-dbsize
N=3000 KEEP=300 D=$T/size.db
check "init --keep-events $KEEP" $A -d "$D" init --title size --base http://ant.example/ --keep-events $KEEP
awk -v u="$U" -v n=$N 'BEGIN { for (i = 0; i < n; i++)
	printf "{\"type\":\"page\",\"url\":\"%s/bench/%d.html\",\"title\":\"日記ページ %d\",\"title_set_by_user\":true,\"author\":\"山田太郎\",\"group\":\"グループ %d\"}\n", u, i, i, i % 20 }' > "$T/pages.jsonl"
check "$N pages imported" $A -d "$D" import --from jsonl "$T/pages.jsonl"
bad=0 c=0
while [ $c -lt 4 ]; do
	# a second later: a Last-Modified of the second the page is fetched
	# in is "now" from a dynamic page, not trusted (the version line's
	# word changes too: a number alone is held a check, and changed at
	# every run it is a counter)
	[ $c -gt 0 ] && { "$HTTPGET" -o /dev/null "$U/_control/bump?every=2" || bad=$((bad + 1)); sleep 1; }
	$A -d "$D" update --force --jobs 32 --per-host 32 > "$T/update.out" 2>&1 || bad=$((bad + 1))
	$A -d "$D" publish "$T/site" > /dev/null 2>&1 || bad=$((bad + 1))
	c=$((c + 1))
done
is "every update and publish exits 0" $bad 0
is "the last run found half of the pages changed" \
	"$(sed -n 's/.*checked \([0-9]*\) pages: \([0-9]*\) updated.*/\1 \2/p' "$T/update.out")" "$N $((N / 2))"
$A -d "$D" check-db > "$T/db.txt" 2>&1
cat "$T/db.txt" | sed 's/^/# /'
# the diff pages' texts have their own budget (antenna(1) Diff pages):
# the 550 bytes are the rest of the file (500 until schema 16: the page's
# row keeps what its last update added, at most 8 runs, for 'set
# --not-news', and the operator's --when, render and taught noise: about
# 25 bytes a changed page here, 498-505 in all; 520 until schema 17: its
# lease columns, 3 bytes a row on SQLite where they stay empty, its
# server_slot table and partial index, 12 KiB a file, 4 bytes a page at
# 3,000 pages and nothing at a hub's, and the text state's still checks
# and last change announced at once, about 6 bytes: 527-538 in all)
page=$(awk '$1 == "without" && $2 == "the" { print $5 }' "$T/db.txt")
event=$(awk '$1 == "per" && $2 == "update" { print $4 }' "$T/db.txt")
check "check-db: bytes per watched page ($page)" test -n "$page"
check "at most 550 bytes of file per watched page besides the diff texts ($page)" test "${page:-9999}" -le 550
check "check-db: bytes per update event ($event), at most 400" test "${event:-9999}" -le 400
check "check-db names the biggest tables" grep -q '^biggest: pages [0-9]*%' "$T/db.txt"
check "check-db names the pages table's biggest columns" grep -q '^pages columns, bytes per page: [a-z_]* [0-9]' "$T/db.txt"
