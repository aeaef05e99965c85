#!/bin/sh
# What a newcomer gets wrong, and is told: a LIRS
# file, feed or sitemap added as a page (by its name at add, by its body at
# the first check), a URL's fragment, space or missing scheme, a mistyped
# command, a database the file or its directory cannot be, check-db's
# findings one a line, a notify group no page is in.
# Against build/tools/testserver on 127.0.0.1, with real SQLite files.
# test-needs: python3:python3 sqlite3:sqlite3 setpriv:util-linux
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 21
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

# ---- 10. messages that point to the right thing ------------------------------------
# (a) a database in a read-only directory: the directory is named
RO=$T/ro
mkdir "$RO"
$A -d "$RO/a.db" init > /dev/null 2>&1
$A -d "$RO/a.db" add "$U/diary.html" > /dev/null
chmod 555 "$RO"
if [ "$(id -u)" -ne 0 ]; then
	$ANTENNA -d "$RO/a.db" list > /dev/null 2> "$T/err"
	rc=$?
elif command -v setpriv > /dev/null 2>&1; then
	chmod 755 "$T"
	chown -R 65534 "$RO"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ANTENNA" -d "$RO/a.db" list > /dev/null 2> "$T/err"
	rc=$?
else
	rc=none
fi
if [ "$rc" = none ]; then
	notok "a database in a read-only directory: setpriv runs it as nobody (root ignores permissions; the build installs util-linux)"
else
	is "a database in a read-only directory: the directory named, and why" \
		"$rc:$(grep -c "its directory '$RO' is not writable.*SQLite creates its journal" "$T/err")" "2:1"
fi
chmod 755 "$RO"
# (b) check-db: every problem of a damaged database, one a line
B=$T/b.db
$A -d "$B" init > /dev/null 2>&1
for i in 1 2 3 4 5 6; do $A -d "$B" add "http://example.com/p$i" > /dev/null; done
sqlite3 "$B" 'PRAGMA wal_checkpoint(TRUNCATE)' > /dev/null
ps=$(sqlite3 "$B" 'PRAGMA page_size')
root=$(sqlite3 "$B" "SELECT rootpage FROM sqlite_master WHERE name = 'pages_key'")
printf 'garbage garbage garbage garbage' | dd of="$B" bs=1 seek=$(( (root - 1) * ps + 8 )) conv=notrunc 2> /dev/null
$A -d "$B" check-db > /dev/null 2> "$T/err"
is "check-db of a damaged database: exit 2, no literal backslash-n" "$?:$(grep -c '\\n' "$T/err")" "2:0"
is "... one problem a line, then their count" \
	"$(grep -c "^antenna check-db: row [0-9]* missing from index pages_key$" "$T/err"):$(tail -n 1 "$T/err")" \
	"6:antenna check-db: database '$B' is damaged: $(($(wc -l < "$T/err") - 1)) problems: restore a backup"
# (c) a file that is no antenna database: what it is, and what to do
printf 'hello\n' > "$T/notes.txt"
$A -d "$T/notes.txt" list > /dev/null 2> "$T/err"
$A -d "$T/notes.txt" init > /dev/null 2>> "$T/err"
is "list and init of a file that is not SQLite: say so, send nowhere" \
	"$(grep -c "'$T/notes.txt' is not an antenna database (it is not SQLite)" "$T/err"):$(grep -c 'damaged\|run .antenna init. first' "$T/err")" "2:0"
check "... init leaves it as it was" grep -qx hello "$T/notes.txt"
sqlite3 "$T/other.db" 'CREATE TABLE mine(x)'
$A -d "$T/other.db" list > /dev/null 2> "$T/err"
$A -d "$T/other.db" init > /dev/null 2>> "$T/err"
is "list and init of another program's SQLite file: no antenna tables; init leaves it" \
	"$(grep -c "'$T/other.db' is not an antenna database (it .*no antenna tables" "$T/err"):$(sqlite3 "$T/other.db" 'SELECT count(*) FROM sqlite_master')" "2:1"
# (d) the backup of a live database
check "README: the backup recipe of a live database" grep -q 'sqlite3 antenna.db ".backup antenna-backup.db"' "$TOP/README"
check "antenna(1): the backup recipe" grep -q 'backup antenna-backup.db' "$TOP/man/antenna.1"

# ---- 8. init --notify-group with a group no page is in ------------------------------
G=$T/g.db
$A -d "$G" init > /dev/null 2>&1
$A -d "$G" add --group b "http://example.com/1" > /dev/null
$A -d "$G" add --group a "http://example.com/2" > /dev/null
$A -d "$G" init --notify mailto:op@example.com --notify-group G > /dev/null 2> "$T/err"
is "init --notify-group of no page's group: accepted, warned with the groups there are" \
	"$?:$(cat "$T/err")" "0:antenna init: warning: no page is in group 'G' (groups: a, b)"
$A -d "$G" init --notify mailto:op2@example.com --notify-group a > /dev/null 2> "$T/err"
is "... a group pages are in: no warning" "$?:$(wc -c < "$T/err")" "0:0"
