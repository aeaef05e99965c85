#!/bin/sh
# Sitemaps as sources ('antenna add --sitemap'), on 127.0.0.1
# (build/tools/testserver): sitemaps written by real generators from
# Debian that run offline (Hugo: a sitemap.xml, and a multilingual site's
# sitemap index; MkDocs: sitemap.xml.gz), and hand-written edge cases: an
# index of indexes, one too deep, gzip as a file and as Content-Encoding,
# 50,000 URLs and one more, bad dates with their lines, a gzip bomb both
# ways, an entity bomb, a page that is no sitemap.  A <lastmod> newer than
# what we know of a watched page makes us check it in this run: our own
# check decides (an unchanged page stays undated, a changed one is dated
# by our check, never by the sitemap).  The kind is kept, listed, shown,
# exported and imported (JSON Lines, OPML), and removed like any source.
# A missing generator is a failure, never a skip.
# test-needs: hugo:hugo mkdocs:mkdocs gzip:gzip python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

missing=
for c in hugo mkdocs gzip; do
	command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
done
if [ -n "$missing" ]; then
	echo "1..1"
	echo "not ok - the sitemap generators are installed (missing:$missing; make tests installs them)"
	exit 1
fi
plan 47

server_suite sitemap-test
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
# summary OUT: "checked N pages: N updated, N unchanged"
summ() { sed -n 's/^\(checked [0-9]* pages*: [0-9]* updated, [0-9]* unchanged\).*/\1/p' "$1"; }
srcline() { $A -d "$1" list --sources | grep -F "$2"; }
showkey() { $A -d "$1" show "$2" | sed -n "s/^$3: *//p"; }

# ---- Hugo: a blog's sitemap.xml; the lastmod of a watched page is a hint ----
H=$T/hugo
mkdir -p "$H/content/posts" "$H/layouts/_default"
echo '<html><head><title>{{ .Title }}</title></head><body><main><h1>{{ .Title }}</h1>{{ .Content }}</main></body></html>' \
	> "$H/layouts/_default/single.html"
echo '<html><head><title>{{ .Title }}</title></head><body><main><h1>{{ .Title }}</h1><ul>{{ range .Pages }}<li>{{ .Title }}</li>{{ end }}</ul></main></body></html>' \
	> "$H/layouts/_default/list.html"
printf 'title = "Blog"\ndisableKinds = ["taxonomy", "term"]\n' > "$H/hugo.toml"
# post N LASTMOD TEXT
post() {
	printf -- '---\ntitle: "Post %s"\ndate: %s\nlastmod: %s\n---\n%s\n' "$1" "$(iso $((NOW - 86400)))" "$2" "$3" \
		> "$H/content/posts/p$1.md"
}
# the files' times (Last-Modified) two hours back, whenever they were written
hugo_build() {
	hugo --quiet -s "$H" -d "$WWW/blog" --baseURL "$U/blog/" >"$T/hugo.log" 2>&1 &&
		find "$WWW/blog" -type f -exec touch -d "@$((NOW - 7200))" {} +
}
for i in 1 2 3; do post $i "$(iso $((NOW - 3600)))" "The text of post $i, as first written."; done
hugo_build
check "hugo writes the blog and its sitemap.xml offline" test -s "$WWW/blog/sitemap.xml"

D=$T/a.db
$A -d "$D" init --title Sitemaps --base http://example.com/ant/ >/dev/null
$A -d "$D" add "$U/blog/posts/p1/" >/dev/null
$A -d "$D" add "$U/blog/posts/p2/" >/dev/null
$A -d "$D" add --sitemap "$U/blog/sitemap.xml" > "$T/out" 2>&1
is "add --sitemap says what it reads" "$(cat "$T/out")" "reading sitemap source '$U/blog/sitemap.xml'"
$A -d "$D" update --now "$NOW" > "$T/out" 2>"$T/err"
is "first run: both pages' quiet baselines" "$(summ "$T/out")" "checked 2 pages: 0 updated, 2 unchanged"
check "first run: the sitemap read, 5 URLs, 3 not watched" grep -q 'read 5, hinted 0, not watched 3, skipped 0' \
	"$(srcline "$D" sitemap.xml > "$T/l"; echo "$T/l")"
is "no warning from Hugo's sitemap" "$(cat "$T/err")" ""

# p2 edited (lastmod moves on), p1 only re-stamped (a generator's build time):
# both are hints, checked in this run though not due; our check decides.
post 2 "$(iso $((NOW + 30)))" "The text of post 2, now with a new paragraph about sitemaps."
post 1 "$(iso $((NOW + 30)))" "The text of post 1, as first written."
hugo_build
$A -d "$D" update --now $((NOW + 60)) > "$T/out" 2>"$T/err"
is "the hints: both pages checked at once, one changed" "$(summ "$T/out")" "checked 2 pages: 1 updated, 1 unchanged"
check "the sitemap source counts 2 hinted" grep -q 'read 5, hinted 2, not watched 3' \
	"$(srcline "$D" sitemap.xml > "$T/l"; echo "$T/l")"
is "the changed page is dated by our own check, not the sitemap" "$(jget "$D" "$U/blog/posts/p2/" last_modified)" $((NOW + 60))
is "... found by its text" "$(jget "$D" "$U/blog/posts/p2/" detected_by)" "text"
is "the re-stamped, unchanged page keeps its date" "$(jget "$D" "$U/blog/posts/p1/" last_modified)" $((NOW - 7200))
$A -d "$D" update --now $((NOW + 120)) > "$T/out" 2>"$T/err"
is "unchanged sitemap (304), no due page: nothing checked" "$(summ "$T/out")" "checked 0 pages: 0 updated, 0 unchanged"
$A -d "$D" show "$U/blog/sitemap.xml" > "$T/show"
check "show: the kind" grep -q "^sitemap source: $U/blog/sitemap.xml" "$T/show"
check "show: hinted" grep -q '^hinted: *2$' "$T/show"
$A -d "$D" list --sources --format jsonl > "$T/j"
check "list --sources --format jsonl: kind sitemap" grep -q '"kind":"sitemap"' "$T/j"
