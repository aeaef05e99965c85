#!/bin/sh
# What a newcomer gets wrong, and is told: a LIRS
# file, feed or sitemap added as a page (by its name at add, by its body at
# the first check), a URL's fragment, space or missing scheme, a mistyped
# command, a database the file or its directory cannot be, check-db's
# findings one a line, a notify group no page is in.
# Against build/tools/testserver on 127.0.0.1, with real SQLite files.
# test-needs: python3:python3 sqlite3:sqlite3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 11
server_suite newcomer-test
D=$T/a.db
$A -d "$D" init --base http://antenna.example/ > /dev/null 2>&1

# ---- 9. a source added as a page ------------------------------------------------
for u in "$U/lirs.gz" "$U/a/b.lirs" "$U/x.lirs.gz" "$U/sitemap.xml" "$U/sitemap-2.xml.gz" "$U/index.atom"; do
	$A -d "$D" add "$u" > /dev/null 2>> "$T/err" && echo "added $u" >> "$T/err"
done
is "add of a LIRS, sitemap or Atom URL by its name: refused, each with its command" \
	"$(grep -c "by its name, not a page: antenna add --[a-z]* $U/" "$T/err"):$(grep -c added "$T/err")" "6:0"
check "... the flag is the right one" grep -q "is a LIRS file by its name, not a page: antenna add --lirs $U/x.lirs.gz" "$T/err"
printf 'LIRS,1700000000,1700000000,32400,1234,http://example.com/,Ex,ex,,,\n' > "$WWW/antenna.txt"
printf '<?xml version="1.0"?>\n<!-- a comment -->\n<feed xmlns="http://www.w3.org/2005/Atom"><title>f</title></feed>\n' > "$WWW/feed"
printf 'Content-Type: application/atom+xml\n' > "$WWW/feed.hdr"
printf '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>\n' > "$WWW/map"
printf '<rss version="2.0"><channel><title>r</title></channel></rss>\n' > "$WWW/rss"
for p in antenna.txt feed map rss; do $A -d "$D" add "$U/$p" > /dev/null; done
$A -d "$D" update > /dev/null 2> "$T/err"
is "update: a LIRS file watched as a page says so, with its command" \
	"$(grep -c "this is a LIRS file: antenna add --lirs $U/antenna.txt" "$T/err")" 1
is "... an Atom feed, a sitemap, an RSS feed too" \
	"$(grep -c -e "this is an Atom feed: antenna add --atom $U/feed" -e "this is a sitemap: antenna add --sitemap $U/map" \
	-e "this is an RSS feed: antenna add --feed $U/rss PAGE" "$T/err")" 3
is "show says it too" "$($A -d "$D" show "$U/antenna.txt" | grep -c 'last error: *this is a LIRS file: antenna add --lirs')" 1

# ---- 9. the URL itself -------------------------------------------------------------
printf '<title>Diary</title><p>d</p>\n' > "$WWW/diary.html"
$A -d "$D" add "$U/diary.html#today" > /dev/null
$A -d "$D" add "$U/diary.html#yesterday" > /dev/null 2> "$T/err"
is "a #fragment is no other page: the second add is refused" "$?:$(grep -c 'already watched' "$T/err")" "2:1"
printf 'LIRS,1700000000,1700000000,32400,1234,%s#x,D,d,,,\n' "$U/diary.html" > "$T/in.lirs"
$A -d "$D" import "$T/in.lirs" > /dev/null 2>&1
is "... nor on import: one page for diary.html" "$($A -d "$D" list --format jsonl | grep -c 'diary.html')" 1
$A -d "$D" add "$U/my diary.html" > /dev/null 2> "$T/err"
is "a URL with a space: refused, write %20" "$?:$(grep -c 'write %20 for a space' "$T/err")" "2:1"
$A -d "$D" add example.com/diary > /dev/null 2> "$T/err"
is "a URL without a scheme: did you mean http:// or https://" "$?:$(cat "$T/err")" \
	"2:antenna add: 'example.com/diary' is not an absolute http or https URL: did you mean 'http://example.com/diary' or 'https://example.com/diary'?"
$A -d "$D" updat > /dev/null 2> "$T/err"
is "a mistyped command: did you mean" "$?:$(cat "$T/err")" "2:antenna: unknown command 'updat': did you mean 'update'?"
$A -d "$D" frobnicate > /dev/null 2> "$T/err"
is "... nothing near: the command list" "$(grep -c 'did you mean' "$T/err"):$(grep -c 'Commands:' "$T/err")" "0:1"
