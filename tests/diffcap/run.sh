#!/bin/sh
# The diff pages are bounded by what the site lists: one per update still
# listed in index.html's files or in current.atom, never one per watched
# page.  Four diary pages on the loopback test server, each changed and
# checked again; published with the listing capped (--html-limit 1
# --html-pages 1 --current-entries 1): one diff page, the newest update's,
# linked; without the caps: four; capped again: back to one, the three
# no longer listed removed, the one kept not written again (its name
# says which update).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 8
tmpdir diffcap-test
start_server 120
NOW=1700000000
DB=$T/db
SITE=$T/site
CAPS="--html-limit 1 --html-pages 1 --current-entries 1"

page() {  # page N WORD: diary page N
	printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>diary %s</title></head><body>\n<main><h1>diary %s</h1>\n<p>Today I %s.</p>\n<p>The evening was quiet.</p>\n</main></body></html>\n' \
		"$1" "$1" "$2" > "$WWW/d$1.html"
}
ndiff() { ls "$SITE/diff" 2>/dev/null | grep -c '\.html$'; }
$A -d "$DB" init --title diffcap --base http://example.com/ant/ > /dev/null
for i in 1 2 3 4; do
	page $i "read a book"
	$A -d "$DB" add "$U/d$i.html" > /dev/null
done
$A -d "$DB" update --now $NOW --refetch-pause -1 > /dev/null
# changed one at a time, an hour apart: page 4's update is the newest
for i in 1 2 3 4; do
	page $i "met a friend number $i"
	$A -d "$DB" update --force --now $((NOW + 3600 * i)) --refetch-pause -1 > /dev/null
done
$A -d "$DB" publish --now $((NOW + 20000)) $CAPS "$SITE" > "$T/pub1.out"
is "listing capped to one update: one diff page" "$(ndiff)" 1
D=$(ls "$SITE/diff" | grep '\.html$')
check "... linked from index.html's one row" grep -qF "href=\"diff/$D\"" "$SITE/index.html"
check "... the newest update's (page 4)" grep -q "friend number 4" "$SITE/diff/$D"
$A -d "$DB" publish --now $((NOW + 20100)) "$SITE" > /dev/null
is "without the caps: one per listed update" "$(ndiff)" 4
check "each linked from index.html" sh -c "for f in \$(ls '$SITE/diff'); do grep -qF \"href=\\\"diff/\$f\\\"\" '$SITE/index.html' || exit 1; done"
touch -d @1000000000 "$SITE/diff/$D"
$A -d "$DB" publish --now $((NOW + 20200)) $CAPS "$SITE" > /dev/null
is "capped again: the three no longer listed removed" "$(ndiff)" 1
check "... the one kept is the same file" test -e "$SITE/diff/$D"
is "... not written again" "$(stat -c %Y "$SITE/diff/$D")" 1000000000
