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
plan 52

server_suite sitemap-test
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
# summary OUT: "checked N pages: N updated, N unchanged"
summ() { sed -n 's/^\(checked [0-9]* pages*: [0-9]* updated, [0-9]* unchanged\).*/\1/p' "$1"; }
# (its trust score, which tests/trust checks, taken off the line)
srcline() { $A -d "$1" list --sources | grep -F "$2" | sed -E 's/, trust [^[]*$//; s/, trust .*  \[/  [/'; }
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

# ---- Hugo, a multilingual site: a sitemap index of one sitemap per language ----
M=$T/multi
mkdir -p "$M/content/posts" "$M/layouts/_default"
cp "$H/layouts/_default/"*.html "$M/layouts/_default/"
printf 'title = "M"\ndisableKinds = ["taxonomy", "term"]\ndefaultContentLanguage = "en"\ndefaultContentLanguageInSubdir = true\n[languages.en]\nweight = 1\n[languages.ja]\nweight = 2\n' \
	> "$M/hugo.toml"
printf -- '---\ntitle: "X"\nlastmod: %s\n---\nx\n' "$(iso $((NOW - 3600)))" > "$M/content/posts/x.md"
printf -- '---\ntitle: "X ja"\nlastmod: %s\n---\nx\n' "$(iso $((NOW - 3600)))" > "$M/content/posts/x.ja.md"
hugo --quiet -s "$M" -d "$WWW/multi" --baseURL "$U/multi/" >"$T/hugo.log" 2>&1
check "hugo writes a sitemap index for two languages" grep -q '<sitemapindex' "$WWW/multi/sitemap.xml"
D2=$T/m.db
$A -d "$D2" init --title M --base http://example.com/m/ >/dev/null
$A -d "$D2" add "$U/multi/ja/posts/x/" >/dev/null
$A -d "$D2" add --sitemap "$U/multi/sitemap.xml" >/dev/null
$A -d "$D2" update --now "$NOW" > "$T/out" 2>"$T/err"
# en: home, posts, x; ja: the same three; the xhtml:link alternates are no entries
check "the index's two sitemaps read: 6 URLs, 1 watched" grep -q 'read 6, hinted 0, not watched 5, skipped 0' \
	"$(srcline "$D2" sitemap.xml > "$T/l"; echo "$T/l")"
is "... no warning, no error" "$(cat "$T/err")" ""

# ---- MkDocs: sitemap.xml.gz, every lastmod the build's date ----
K=$T/mkdocs
mkdir -p "$K/docs"
printf 'site_name: Docs\nsite_url: %s/docs/\n' "$U" > "$K/mkdocs.yml"
printf '# Home\n\nThe manual.\n' > "$K/docs/index.md"
printf '# Install\n\nHow to install it.\n' > "$K/docs/install.md"
(cd "$K" && mkdocs build -q -d "$WWW/docs") >"$T/mkdocs.log" 2>&1
check "mkdocs writes sitemap.xml.gz offline" test -s "$WWW/docs/sitemap.xml.gz"
$A -d "$D2" add "$U/docs/install/" >/dev/null
$A -d "$D2" add --sitemap "$U/docs/sitemap.xml.gz" >/dev/null
$A -d "$D2" update --now $((NOW + 60)) > "$T/out" 2>"$T/err"
check "the gzip sitemap read: 2 URLs, 1 watched" grep -q 'read 2, hinted 0, not watched 1, skipped 0' \
	"$(srcline "$D2" sitemap.xml.gz > "$T/l"; echo "$T/l")"
# the build's date (00:00 UTC today) is older than our check of today: no hint
$A -d "$D2" update --now $((NOW + 120)) --force > /dev/null 2>&1
rm -f "$WWW/docs/sitemap.xml.gz.hdr"; touch "$WWW/docs/sitemap.xml.gz"
$A -d "$D2" update --now $((NOW + 180)) > "$T/out" 2>"$T/err"
is "a date-only lastmod before our last check is no hint" "$(summ "$T/out")" "checked 0 pages: 0 updated, 0 unchanged"

# ---- hand-written edge cases ----
E=$WWW/e
mkdir -p "$E"
urlset() {   # urlset FILE LOC:LASTMOD...
	f=$1; shift
	{ echo '<?xml version="1.0" encoding="UTF-8"?>'
	  echo '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
	  for x in "$@"; do
		echo "<url><loc>$U/e/${x%%@*}</loc><lastmod>${x#*@}</lastmod><image:image><image:loc>$U/e/img.png</image:loc></image:image></url>"
	  done
	  echo '</urlset>'; } > "$E/$f"
}
index() {   # index FILE CHILD...
	f=$1; shift
	{ echo '<?xml version="1.0" encoding="UTF-8"?>'
	  echo '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
	  for x in "$@"; do echo "<sitemap><loc>$U/e/$x</loc></sitemap>"; done
	  echo '</sitemapindex>'; } > "$E/$f"
}
for p in a b c; do printf '<html><head><title>%s</title></head><body><p>Page %s.</p></body></html>\n' $p $p > "$E/$p.html"; done
D3=$T/e.db
$A -d "$D3" init --title E --base http://example.com/e/ >/dev/null
for p in a b c; do $A -d "$D3" add "$U/e/$p.html" >/dev/null; done
$A -d "$D3" update --now "$NOW" >/dev/null 2>&1
LM=$(iso $((NOW + 30)))
# an index of indexes: top -> mid -> leaf1, leaf2 (gzip)
urlset leaf1.xml "a.html@$LM" "x.html@$LM"
urlset leaf2.xml "b.html@$LM"
gzip -c "$E/leaf2.xml" > "$E/leaf2.xml.gz"
index mid.xml leaf1.xml leaf2.xml.gz
index top.xml mid.xml
$A -d "$D3" add --sitemap "$U/e/top.xml" >/dev/null
$A -d "$D3" update --now $((NOW + 60)) > "$T/out" 2>"$T/err"
is "index of indexes: both watched pages hinted and checked" "$(summ "$T/out")" "checked 2 pages: 0 updated, 2 unchanged"
check "... 3 URLs read through 2 levels, gzip among them" grep -q 'read 3, hinted 2, not watched 1, skipped 0' \
	"$(srcline "$D3" top.xml > "$T/l"; echo "$T/l")"
# one level more: refused at the default depth (2), read with depth=3
index top2.xml top.xml
$A -d "$D3" add --sitemap "$U/e/top2.xml" >/dev/null
$A -d "$D3" update --now $((NOW + 120)) > "$T/out" 2>"$T/err"
check "an index 3 levels deep is refused, naming the limit" grep -qF "['$U/e/mid.xml': a sitemap index 2 levels below the source: its 2 sitemaps are not read (limit depth=2)]" \
	"$(srcline "$D3" top2.xml > "$T/l"; echo "$T/l")"
check "... and told on standard error" grep -qF "antenna update: failed: $U/e/top2.xml: '$U/e/mid.xml': a sitemap index 2 levels below" "$T/err"
$A -d "$D3" update --now $((NOW + 180)) --sitemap-limit depth=3 > "$T/out" 2>"$T/err"
check "... read with --sitemap-limit depth=3" grep -q 'top2.xml  (sitemap)  read 3, hinted 0, not watched 1, skipped 0$' \
	"$(srcline "$D3" top2.xml > "$T/l"; echo "$T/l")"
# children: top -> mid -> leaf1, leaf2 is 3 child sitemaps; 2 are read
$A -d "$D3" update --now $((NOW + 190)) --sitemap-limit children=2 > "$T/out" 2>"$T/err"
check "--sitemap-limit children=2: the third child refused, named" grep -qF "read 2, hinted 0, not watched 1, skipped 0  ['$U/e/top.xml': more than 2 child sitemaps: the rest is not read (limit children=2)]" \
	"$(srcline "$D3" /top.xml > "$T/l"; echo "$T/l")"
# seconds: a child that answers after 1.5 s uses up a 1 s budget
printf 'Delay-Ms: 1500\n' > "$E/leaf1.xml.hdr"
$A -d "$D3" update --now $((NOW + 195)) --sitemap-limit seconds=1 > "$T/out" 2>"$T/err"
check "--sitemap-limit seconds=1: out of time after a slow sitemap, named" grep -qF "['$U/e/top.xml': out of time after 1 s: the rest is not read (limit seconds=1)]" \
	"$(srcline "$D3" /top.xml > "$T/l"; echo "$T/l")"
rm -f "$E/leaf1.xml.hdr"
$A -d "$D3" update --sitemap-limit depth=x > "$T/out" 2>&1
check "a bad --sitemap-limit is refused" grep -q "sitemap limit 'depth=x': depth is a number from 0 to 16" "$T/out"
$A -d "$D3" remove "$U/e/top2.xml" > /dev/null 2>&1
check "a sitemap source is removed like any source" sh -c "! $A -d '$D3' list --sources | grep -q top2.xml"

# Content-Encoding: gzip (the server compresses the plain file)
urlset ce.xml "c.html@$(iso $((NOW + 200)))"
printf 'Gzip: 1\n' > "$E/ce.xml.hdr"
$A -d "$D3" add --sitemap "$U/e/ce.xml" >/dev/null
$A -d "$D3" update --now $((NOW + 240)) > "$T/out" 2>"$T/err"
check "Content-Encoding gzip: read and hinted" grep -q 'ce.xml  (sitemap)  read 1, hinted 1, not watched 0, skipped 0$' \
	"$(srcline "$D3" ce.xml > "$T/l"; echo "$T/l")"
$A -d "$D3" remove "$U/e/ce.xml" > /dev/null 2>&1

# bad dates: told with the file and line, skipped; the rest still read
{ echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
  echo "<url><loc>$U/e/a.html</loc><lastmod>2026-13-01</lastmod></url>"
  echo "<url><loc>$U/e/b.html</loc><lastmod>yesterday</lastmod></url>"
  echo "<url><loc>$U/e/c.html</loc><lastmod>2026-11-20T10:00:00</lastmod></url>"
  echo "<url><loc>$U/e/x.html</loc><lastmod>2026-11-20T10:00+09:00</lastmod></url>"
  echo "<url><loc>$U/e/a.html</loc><lastmod>2099-01-01</lastmod></url>"
  echo "<url><loc>javascript:alert(1)</loc></url>"
  echo "<url><lastmod>2026-11-20</lastmod></url>"
  echo '</urlset>'; } > "$E/bad.xml"
$A -d "$D3" add --sitemap "$U/e/bad.xml" >/dev/null
$A -d "$D3" update --now $((NOW + 300)) > "$T/out" 2>"$T/err"
check "a bad month: file:line" grep -qF "warning: $U/e/bad.xml:3: <lastmod> '2026-13-01' is not a W3C datetime: date left out" "$T/err"
check "a word: file:line" grep -qF "bad.xml:4: <lastmod> 'yesterday' is not a W3C datetime" "$T/err"
check "a time without a zone: file:line" grep -qF "bad.xml:5: <lastmod> '2026-11-20T10:00:00' is not a W3C datetime" "$T/err"
check "a date in the future: file:line" grep -qF "bad.xml:7: <lastmod> '2099-01-01' is in the future: date left out" "$T/err"
check "a loc that is no http URL: file:line" grep -qF "bad.xml:8: <loc> 'javascript:alert(1)' is no http(s) URL: entry skipped" "$T/err"
check "no loc: file:line" grep -qF "bad.xml:9: no <loc>: entry skipped" "$T/err"
check "counted: 6 read (one without a loc is no URL), 5 skipped, minutes without seconds are fine" \
	grep -q 'bad.xml  (sitemap)  read 6, hinted 0, not watched 1, skipped 5$' \
	"$(srcline "$D3" bad.xml > "$T/l"; echo "$T/l")"
$A -d "$D3" remove "$U/e/bad.xml" > /dev/null 2>&1
# at most 10 told per file (ANT_SITEMAP_MAX_DIAGS), then how many more
{ echo '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
  for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "<url><loc>$U/e/n$i.html</loc><lastmod>bad$i</lastmod></url>"; done
  echo '</urlset>'; } > "$E/bad12.xml"
$A -d "$D3" add --sitemap "$U/e/bad12.xml" >/dev/null
$A -d "$D3" update --now $((NOW + 310)) > "$T/out" 2>"$T/err"
is "12 bad dates: 10 told, then the count of the rest" \
	"$(grep -c "bad12.xml:[0-9]*: <lastmod> 'bad[0-9]*' is not a W3C datetime" "$T/err") $(grep -c "warning: $U/e/bad12.xml: 2 more bad entries (not told)" "$T/err")" "10 1"
$A -d "$D3" remove "$U/e/bad12.xml" > /dev/null 2>&1

# 50,000 URLs (the protocol's limit) are read; one more is refused, named
$PY - "$U" "$E" "$(iso $((NOW + 330)))" <<'PYEOF'
import sys
u, d, lm = sys.argv[1:4]
for name, n in (("big.xml", 50000), ("over.xml", 50001)):
    with open(d + "/" + name, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
        for i in range(n - 1):
            f.write("<url><loc>%s/e/n%d.html</loc><lastmod>2026-11-01</lastmod></url>\n" % (u, i))
        f.write("<url><loc>%s/e/a.html</loc><lastmod>%s</lastmod></url>\n</urlset>\n" % (u, lm))
PYEOF
$A -d "$D3" add --sitemap "$U/e/big.xml" >/dev/null
t0=$(date +%s)
$A -d "$D3" update --now $((NOW + 360)) > "$T/out" 2>"$T/err"
t1=$(date +%s)
check "50,000 URLs read, the last one hinted" grep -q 'big.xml  (sitemap)  read 50000, hinted 1, not watched 49999, skipped 0$' \
	"$(srcline "$D3" big.xml > "$T/l"; echo "$T/l")"
check "... in under 10 s (took $((t1 - t0)) s)" test $((t1 - t0)) -lt 10
$A -d "$D3" remove "$U/e/big.xml" > /dev/null 2>&1
$A -d "$D3" add --sitemap "$U/e/over.xml" >/dev/null
$A -d "$D3" update --now $((NOW + 420)) > "$T/out" 2>"$T/err"
check "50,001 URLs: the first 50,000 read, the rest refused with the line and the limit" \
	grep -qF "read 50000, hinted 0, not watched 50000, skipped 0  ['$U/e/over.xml': line 50003: more than 50000 entries (a sitemap's limit): the rest is not read]" \
	"$(srcline "$D3" over.xml > "$T/l"; echo "$T/l")"
$A -d "$D3" update --now $((NOW + 480)) --sitemap-limit urls=60000 > "$T/out" 2>"$T/err"
# (no hint: a.html was checked after that lastmod, on big.xml's hint)
check "... read whole with --sitemap-limit urls=60000" grep -q 'over.xml  (sitemap)  read 50001, hinted 0, not watched 50000, skipped 0$' \
	"$(srcline "$D3" over.xml > "$T/l"; echo "$T/l")"
$A -d "$D3" remove "$U/e/over.xml" > /dev/null 2>&1

# bombs: gzip as a file (60 MB of comments in 60 KB), gzip as Content-Encoding
# (1 GiB of zeros), entities (a billion laughs); each refused, said why
$PY - "$E" <<'PYEOF'
import gzip, sys
d = sys.argv[1]
with open(d + "/bomb.xml.gz", "wb") as f:
    f.write(gzip.compress(b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                          + (b"<!--" + b" " * 1000 + b"-->") * 60000 + b"</urlset>", 9))
lol = ['<!ENTITY lol "lol">'] + ['<!ENTITY lol%d "%s">' % (i, ("&lol%s;" % ("" if i == 1 else i - 1)) * 10) for i in range(1, 10)]
with open(d + "/laughs.xml", "w") as f:
    f.write('<?xml version="1.0"?>\n<!DOCTYPE urlset [\n' + "\n".join(lol) + ']>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://x/&lol9;</loc></url></urlset>\n')
PYEOF
printf 'Gzip-Bomb: 1\n' > "$E/cebomb.xml.hdr"
for f in bomb.xml.gz cebomb.xml laughs.xml; do $A -d "$D3" add --sitemap "$U/e/$f" >/dev/null; done
t0=$(date +%s)
$A -d "$D3" update --now $((NOW + 540)) > "$T/out" 2>"$T/err"
t1=$(date +%s)
check "a gzip bomb file: refused at 50 MB decompressed" grep -qF "['$U/e/bomb.xml.gz': over 52428800 bytes decompressed (a sitemap's limit: a bomb?)]" \
	"$(srcline "$D3" bomb.xml.gz > "$T/l"; echo "$T/l")"
check "a gzip bomb as Content-Encoding: refused by the fetcher" grep -qF "cebomb.xml  (sitemap)  read 0, hinted 0, not watched 0, skipped 0  ['$U/e/cebomb.xml': body too big: over 52428800 bytes" \
	"$(srcline "$D3" cebomb.xml > "$T/l"; echo "$T/l")"
check "an entity bomb: refused unread" grep -qF "['$U/e/laughs.xml': a <!DOCTYPE> in a sitemap: refused (entities are not expanded; an entity bomb?)]" \
	"$(srcline "$D3" laughs.xml > "$T/l"; echo "$T/l")"
check "the three bombs cost under 10 s (took $((t1 - t0)) s)" test $((t1 - t0)) -lt 10
for f in bomb.xml.gz cebomb.xml laughs.xml; do $A -d "$D3" remove "$U/e/$f" >/dev/null 2>&1; done

# a page that is no sitemap
printf '<html><head><title>x</title></head><body><p>x</p></body></html>\n' > "$E/page.html"
$A -d "$D3" add --sitemap "$U/e/page.html" >/dev/null
$A -d "$D3" update --now $((NOW + 600)) > "$T/out" 2>"$T/err"
check "an HTML page is no sitemap, said so with its line" grep -qF "['$U/e/page.html': line 1: the root element is <html>, not <urlset> or <sitemapindex>: not a sitemap]" \
	"$(srcline "$D3" page.html > "$T/l"; echo "$T/l")"
$A -d "$D3" add --sitemap --relay "$U/e/x.xml" > "$T/out" 2>&1
check "add --sitemap --relay is refused" grep -q "relay does not go with --sitemap" "$T/out"

# ---- the kind carried by export and import ----
for fmt in jsonl opml samidare; do
	$A -d "$D3" export --format $fmt > "$T/export.$fmt"
	rm -f "$T/i.db"
	$A -d "$T/i.db" init --title I --base http://example.com/i/ >/dev/null
	$A -d "$T/i.db" import --from $fmt "$T/export.$fmt" > "$T/out" 2>&1
	check "export and import ($fmt): the sitemap source stays a sitemap source" grep -q "top.xml  (sitemap)" \
		"$(srcline "$T/i.db" top.xml > "$T/l"; echo "$T/l")"
done
check "the OPML outline: a link with antenna:source=\"sitemap\"" grep -q "type=\"link\" url=\"$U/e/top.xml\" antenna:source=\"sitemap\"" "$T/export.opml"
