#!/bin/sh
# antenna publish at any size: index.html lists the most recent updates
# (init --html-limit, publish --html-limit), the rest follow in
# index-2.html, index-3.html, ... linked newer/older; every page is
# reachable from index.html exactly once, in order; each file parses as
# HTML and stays under 1 MB even with hostile 8000-byte URLs; numbered
# pages of an earlier, bigger publish go; a small site gets one
# index.html as before.  Then relayed records (relay sources'
# source_records) in index.html, lirs.gz, sites.di.gz and current.atom.
# The pages' states are written with SQL (python3's sqlite3): no
# HTTP checks are needed to publish them.
# test-needs: python3:python3 xmllint:libxml2-utils
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
plan 23

tmpdir antenna-paging
NOW=1700000000
D=$T/a.db


# html_ok FILE: libxml2's HTML parser reads it without an error (it knows
# HTML 4 only: the HTML5 elements' "Tag X invalid" are not errors here)
html_ok() {
	xmllint --html --noout "$1" 2>&1 | grep 'parser error' | grep -qv 'Tag [a-z]* invalid' && return 1
	xmllint --html --noout "$1" > /dev/null 2>&1
}

# walk DIR: follows rel="next" from index.html; prints "FILE URL" for each
# entry of each file, in the file's order, and "LINK FILE PREV" for each
# file's rel="prev"
walk() {
	$PY - "$1" <<'EOF'
import html.parser, os, sys
d = sys.argv[1]
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.urls = []; s.next = s.prev = None; s.what = 0
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "span" and a.get("class") == "what": s.what = 1
        if tag == "a" and s.what == 1:
            s.urls.append(a["href"].split("?")[0]); s.what = 2
        if tag == "a" and a.get("rel") == "next": s.next = a["href"]
        if tag == "a" and a.get("rel") == "prev": s.prev = a["href"]
f, seen = "index.html", set()
while f and f not in seen:
    seen.add(f)
    p = P(); p.feed(open(os.path.join(d, f), encoding="utf-8").read())
    for u in p.urls: print(f, u)
    print("LINK", f, p.prev or "-")
    f = p.next
EOF
}

check "init --html-limit 5" $A -d "$D" init --base http://ant.example/ --html-limit 5
# 23 pages, newest p0; groups g1, g2 and none; p20..p22 never updated
i=0
while [ $i -lt 23 ]; do
	case $((i % 3)) in 0) g= ;; 1) g=g1 ;; 2) g=g2 ;; esac
	$A -d "$D" add ${g:+--group $g} "http://pages.example/p$i.html" > /dev/null
	i=$((i + 1))
done
sql "$D" "UPDATE pages SET last_modified = $NOW - 600 * CAST(replace(substr(url, 23), '.html', '') AS INTEGER),
	last_detected = $NOW - 30, detected_by = 2, last_check = $NOW - 30"
sql "$D" "UPDATE pages SET last_modified = 0 WHERE CAST(replace(substr(url, 23), '.html', '') AS INTEGER) >= 20"
$A -d "$D" publish --now $NOW "$T/s" > "$T/out"
check "published 23 pages into 5 files" grep -q "published 23 pages: .*index.html (and index-2.html to index-5.html)" "$T/out"
walk "$T/s" > "$T/walk"
is "23 entries reached from index.html through the links" "$(grep -vc ^LINK "$T/walk")" 23
is "each exactly once" "$(grep -v ^LINK "$T/walk" | awk '{ print $2 }' | sort -u | wc -l | tr -d ' ')" 23
is "five files of at most 5" "$(grep -v ^LINK "$T/walk" | awk '{ n[$1]++ } END { for (f in n) if (n[f] > 5) bad++; print length(n), bad + 0 }')" "5 0"
# across files: newest first (index.html the 5 newest, ...), the
# never-updated pages last
order=$(grep -v ^LINK "$T/walk" | awk '{ print $1 }' | uniq | tr '\n' ' ')
is "the files in order" "$order" "index.html index-2.html index-3.html index-4.html index-5.html "
want_front=$(printf 'http://pages.example/p%s.html\n' 0 1 2 3 4 | sort)
is "index.html: the 5 newest updates" "$(awk '$1 == "index.html" { print $2 }' "$T/walk" | sort)" "$want_front"
is "index-5.html: the never-updated pages last" \
	"$(awk '$1 == "index-5.html" { print $2 }' "$T/walk" | sort | tr '\n' ' ')" \
	"http://pages.example/p20.html http://pages.example/p21.html http://pages.example/p22.html "
is "each file links back to the one before" "$(grep ^LINK "$T/walk" | awk '{ print $3 }' | tr '\n' ' ')" \
	"- index.html index-2.html index-3.html index-4.html "
# inside a file: grouped, newest first in each group, as index.html always was
is "index.html: ungrouped first, then g1, g2, newest first" \
	"$(awk '$1 == "index.html" { sub(/.*\/p/, "", $2); sub(/\.html/, "", $2); printf "%s ", $2 }' "$T/walk")" \
	"0 3 1 4 2 "
bad=0
for f in "$T"/s/index*.html; do html_ok "$f" || bad=$((bad + 1)); done
is "every file parses as HTML (xmllint --html)" $bad 0
check "index.html has no script" sh -c "! grep -qi '<script' '$T/s/index.html'"

# a smaller publish: the numbered pages past the new last one go
$A -d "$D" publish --now $((NOW + 60)) --html-limit 10 "$T/s" > /dev/null
is "--html-limit 10: index.html, index-2.html, index-3.html" "$(cd "$T/s" && ls index*.html | tr '\n' ' ')" \
	"index-2.html index-3.html index.html "
$A -d "$D" publish --now $((NOW + 120)) --html-limit 100 "$T/s" > /dev/null
is "a limit above the pages: one index.html" "$(cd "$T/s" && ls index*.html | tr '\n' ' ')" "index.html "
check "...without newer/older links" sh -c "! grep -q 'rel=\"next\"' '$T/s/index.html'"

# hostile: 300 pages with 8000-byte URLs full of '&' (escaped five times
# the size) and 512-character titles: every file under 1 MB
H=$T/h.db
$A -d "$H" init --base http://ant.example/ > /dev/null
sql "$H" "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299)
	INSERT INTO pages(url, url_key, title, last_modified, last_detected, detected_by, created)
	SELECT u, u, t, $NOW - i, $NOW - 30, 2, 1 FROM (SELECT i,
	 'http://h.example/' || i || '?' || substr(replace(hex(zeroblob(4000)), '00', '&a'), 1, 7970) AS u,
	 substr(replace(hex(zeroblob(512)), '00', '<&'), 1, 512) AS t FROM n) AS s"
$A -d "$H" publish --now $NOW "$T/h" > /dev/null
big=$(wc -c "$T"/h/index*.html | grep -v total | sort -n | tail -n 1 | awk '{ print $1 }')
check "every HTML file under 1 MB with 8000-byte URLs (biggest: $big bytes)" test "$big" -le 1000000
is "all 300 entries reachable" "$(walk "$T/h" | grep -vc ^LINK)" 300

# relayed records: a relay source's fresh records of pages not watched
sql "$D" "INSERT INTO sources(url, url_key, kind, relay) VALUES('http://relay.example/lirs.gz', 'http://relay.example/lirs.gz', 'lirs', 1)" \
	"INSERT INTO source_records(url_key, source_id, url, last_modified, last_detected, title, author, content_length)
	 SELECT 'http://far.example/r.html', id, 'http://far.example/r.html', $NOW - 5, $NOW - 10, 'Relayed page', 'Far', 777 FROM sources" \
	"INSERT INTO source_records(url_key, source_id, url, last_modified, last_detected, title)
	 SELECT 'http://pages.example/p1.html', id, 'http://pages.example/p1.html', $NOW, $NOW, 'not ours' FROM sources"
$A -d "$D" publish --now $((NOW + 180)) "$T/r" > /dev/null
check "index.html lists the relayed page, marked L" sh -c "grep 'Relayed page' '$T/r/index.html' | grep -q '>L</abbr>'"
$L cat --format jsonl "$T/r/lirs.gz" > "$T/r.jsonl"
check "lirs.gz (lirs cat): the relayed record with its source, author and size" sh -c \
	"grep 'far.example/r.html' '$T/r.jsonl' | grep 'relay.example/lirs.gz' | grep '\"Far\"' | grep -q 777"
check "a watched page is never replaced by a relay's record" sh -c "! grep -q 'not ours' '$T/r.jsonl' '$T/r/index.html'"
check "sites.di.gz and current.atom carry it too" sh -c \
	"gzip -dc '$T/r/sites.di.gz' | grep -q far.example/r.html && grep -q far.example/r.html '$T/r/current.atom'"
# an Atom relay source: marked A; a stale record of a relay: left out
sql "$D" "INSERT INTO sources(url, url_key, kind, relay) VALUES('http://feeds.example/index.atom', 'http://feeds.example/index.atom', 'atom', 1)" \
	"INSERT INTO source_records(url_key, source_id, url, last_modified, last_detected, title)
	 SELECT 'http://atom.example/e.html', id, 'http://atom.example/e.html', $NOW - 7, $NOW - 7, 'From an Atom feed' FROM sources WHERE kind = 'atom'" \
	"INSERT INTO source_records(url_key, source_id, url, last_modified, last_detected, title)
	 SELECT 'http://far.example/stale.html', id, 'http://far.example/stale.html', $NOW - 40000, $NOW - 30000, 'Stale relayed' FROM sources WHERE kind = 'lirs'"
$A -d "$D" publish --now $((NOW + 240)) "$T/r" > /dev/null
check "an Atom relay's record is marked A" sh -c "grep 'From an Atom feed' '$T/r/index.html' | grep -q '>A</abbr>'"
check "a stale relayed record is not published" sh -c "! grep -q 'Stale relayed' '$T/r/index.html' '$T/r/current.atom'"
