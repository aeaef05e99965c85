#!/bin/sh
# Feeds as detection sources, change excerpts and RFC 5005 archives as
# sources, end to end against build/tools/testserver on
# 127.0.0.1: pages that advertise RSS 1.0 / 2.0 and Atom feeds, hostile
# feeds (entity bombs, external entities, absurd dates, 10,000 entries),
# text excerpts, and a second antenna catching up from the first one's
# archives after missing many of them.  Prints "ok - ..." / "not ok - ...".
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
plan 76

tmpdir feeds-test
[ -n "$KEEP" ] && trap "kill \$SPID" EXIT
# showkey DB URL KEY: a line of 'antenna show'
showkey() { $A -d "$1" show "$2" | sed -n "s/^$3: *//p"; }
# rfc822 EPOCH / rfc3339 EPOCH
rfc822() { $PY -c 'import sys,email.utils; print(email.utils.formatdate(int(sys.argv[1]), usegmt=True))' "$1"; }
rfc3339() { $PY -c 'import sys,time; print(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(sys.argv[1]))))' "$1"; }

start_server 600 --verbose
NOW=$(( $(date +%s) / 60 * 60 ))

rss2() {  # rss2 FILE TITLE EPOCH [TITLE EPOCH]...: the feed of $U/NAME.html (its home)
	f=$1; shift
	{
		echo '<?xml version="1.0" encoding="utf-8"?>'
		echo "<rss version=\"2.0\"><channel><title>c</title><link>$U/$(basename "$f" .rss).html</link>"
		while [ $# -ge 2 ]; do
			echo "<item><title>$1</title><link>http://example.com/$2</link><pubDate>$(rfc822 "$2")</pubDate></item>"
			shift 2
		done
		echo '</channel></rss>'
	} > "$f"
}
page_with_feed() {  # FILE FEEDHREF TYPE BODY
	printf '<html><head><title>%s</title><link rel="alternate" type="%s" href="%s"></head><body>%s</body></html>\n' \
		"$(basename "$1")" "$3" "$2" "$4" > "$1"
}

D=$T/a.db
$A -d "$D" init --title "Feeds" --base http://example.com/ant/ >/dev/null

# ---- feed detection: an RSS 2.0 feed advertised by the page ------------------
T1=$((NOW - 5 * 3600)); T2=$((NOW - 600))
rss2 "$WWW/f1.rss" "Entry &amp; one" $T1 "Older" $((T1 - 86400))
page_with_feed "$WWW/f1.html" "f1.rss" application/rss+xml "<p>Hello</p>"
# RSS 1.0 (RDF, dc:date), advertised with an absolute URL
cat > "$WWW/r1.rdf" <<RDF
<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="$U/r1.html"><title>r</title></channel>
<item rdf:about="$U/r1.html#a"><title>日記の更新</title><link>$U/r1.html#a</link><dc:date>$(rfc3339 $((NOW - 7200)) | sed 's/Z$/+00:00/')</dc:date></item>
</rdf:RDF>
RDF
printf 'Content-Type: application/rss+xml\n' > "$WWW/r1.rdf.hdr"
page_with_feed "$WWW/r1.html" "$U/r1.rdf" application/rss+xml "<p>r1</p>"
# Atom given by the user; the page advertises nothing
cat > "$WWW/g.atom" <<ATOM
<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>g</title><id>urn:g</id><updated>$(rfc3339 $((NOW - 3000)))</updated>
<entry><id>urn:g1</id><title>Atom entry</title><link href="$U/g.html"/><updated>$(rfc3339 $((NOW - 3000)))</updated></entry>
</feed>
ATOM
printf '<html><head><title>g</title></head><body><p>g</p></body></html>\n' > "$WWW/g.html"

$A -d "$D" add "$U/f1.html" >/dev/null
$A -d "$D" add "$U/r1.html" >/dev/null
$A -d "$D" add --feed "$U/g.atom" "$U/g.html" >/dev/null
$A -d "$D" update --now $NOW > "$T/out" 2>&1
is "first update: an advertised RSS 2.0 feed dates the page" "$(jget "$D" "$U/f1.html" last_modified)" "$T1"
is "first update: detected by the feed" "$(jget "$D" "$U/f1.html" detected_by)" "feed"
is "the excerpt is the newest entry's title" "$(showkey "$D" "$U/f1.html" excerpt)" "Entry & one"
is "RSS 1.0 dc:date dates its page" "$(jget "$D" "$U/r1.html" last_modified)" "$((NOW - 7200))"
is "RSS 1.0 entry title as the excerpt (UTF-8)" "$(showkey "$D" "$U/r1.html" excerpt)" "日記の更新"
is "a feed given with add --feed dates its page" "$(jget "$D" "$U/g.html" last_modified)" "$((NOW - 3000))"
is "show names the feed" "$(showkey "$D" "$U/g.html" feed)" "$U/g.atom (set by user)"
grep -q "3 feeds checked (0 failed)" "$T/out" && ok "the summary counts the feeds" || notok "the summary counts the feeds" "$(cat "$T/out")"

# A newer entry while the page's body is byte for byte the same: no
# update (a feed only dates a change the body shows, as a Last-Modified
# does); its date is kept as the feed's newest, and 'show' says why.
rss2 "$WWW/f1.rss" "Entry two" $T2 "Entry &amp; one" $T1
$A -d "$D" update --force --now $((NOW + 60)) >/dev/null 2>&1
is "a newer feed entry on an unchanged page (a 304 to our conditional request) is no update" \
	"$(jget "$D" "$U/f1.html" last_status) $(jget "$D" "$U/f1.html" last_modified) $(jget "$D" "$U/f1.html" detected_by)" "304 $T1 feed"
is "... the excerpt stays the last update's" "$(showkey "$D" "$U/f1.html" excerpt)" "Entry & one"
is "... the entry's date kept as the feed's newest" "$(showkey "$D" "$U/f1.html" "feed newest" | sed 's/.*(\(.*\))$/\1/')" "$T2"
is "... show says why" "$(showkey "$D" "$U/f1.html" "feed use")" \
	"newer entry $($A -d "$D" show "$U/f1.html" | sed -n 's/^feed newest: *//p'), the page unchanged: not an update (a feed only dates a change the page shows)"
# The page changes at the next check, the feed saying nothing newer: the
# text rule dates it, at this check (the entry predates the check that
# found the page unchanged: it is not this change's date).
page_with_feed "$WWW/f1.html" "f1.rss" application/rss+xml "<p>Hello, and a changing counter 42</p>"
$A -d "$D" update --force --now $((NOW + 120)) >/dev/null 2>&1
is "the page changed at the next check: announced, dated at that check by the text rule, not by the older entry" \
	"$(jget "$D" "$U/f1.html" last_modified) $(jget "$D" "$U/f1.html" detected_by)" "$((NOW + 120)) text"
is "... its excerpt the page's new words" "$(showkey "$D" "$U/f1.html" excerpt)" "Hello, and a changing counter 42"
$A -d "$D" update --force --now $((NOW + 180)) >/dev/null 2>&1
is "a feed answering 304 and the same text keep the page unchanged" "$(jget "$D" "$U/f1.html" last_modified)" "$((NOW + 120))"

# A feed only dates a change: when the page's own text shows what changed
# (a new paragraph; an entry's line changed in its number, held until
# something dates it), those words are the excerpt, not the entry's title
# (a diary's feed names the day, "New day", while the page shows the
# words written); the title is the excerpt when the page shows no change
# of its own (here a rebuild moved only its stamp, a clock).
D2=$T/own.db
$A -d "$D2" init --title "Own words" --base http://example.com/ant/ >/dev/null
OWN="<h2>Garden diary</h2><p>Yesterday was an ordinary day in the garden, nothing new to report.</p>"
# own EPOCH BODY: the diary page as its generator writes it at EPOCH
own() {
	page_with_feed "$WWW/ow.html" "ow.rss" application/rss+xml \
		"$OWN$2<p class=\"footer\">Generated on $(date -u -d "@$1" '+%Y-%m-%d %H:%M:%S') UTC</p>"
}
rss2 "$WWW/ow.rss" "Old day" $((NOW - 7200))
own $((NOW - 7200)) "<p>Weight 60.2kg</p>"
$A -d "$D2" add "$U/ow.html" >/dev/null
$A -d "$D2" update --force --now $((NOW + 400)) >/dev/null 2>&1
$A -d "$D2" update --force --now $((NOW + 460)) >/dev/null 2>&1
rss2 "$WWW/ow.rss" "New day" $((NOW + 500)) "Old day" $((NOW - 7200))
own $((NOW + 500)) "<p>Today I planted tomatoes behind the house and wrote about it.</p><p>Weight 60.2kg</p>"
$A -d "$D2" update --force --now $((NOW + 520)) >/dev/null 2>&1
is "feed-dated change: dated by the feed's entry" \
	"$(jget "$D2" "$U/ow.html" last_modified) $(jget "$D2" "$U/ow.html" detected_by)" "$((NOW + 500)) feed"
is "feed-dated change: the excerpt is the page's own new words, not the entry's title" \
	"$(showkey "$D2" "$U/ow.html" excerpt)" "Today I planted tomatoes behind the house and wrote about it."
$A -d "$D2" update --force --now $((NOW + 580)) >/dev/null 2>&1
rss2 "$WWW/ow.rss" "Weight again" $((NOW + 600)) "New day" $((NOW + 500)) "Old day" $((NOW - 7200))
own $((NOW + 600)) "<p>Today I planted tomatoes behind the house and wrote about it.</p><p>Weight 59.8kg</p>"
$A -d "$D2" update --force --now $((NOW + 640)) >/dev/null 2>&1
is "feed-dated held change (a line changed in its number): announced in its check, dated by the feed" \
	"$(jget "$D2" "$U/ow.html" last_modified) $(jget "$D2" "$U/ow.html" detected_by)" "$((NOW + 600)) feed"
is "... its excerpt the changed line" "$(showkey "$D2" "$U/ow.html" excerpt)" "Weight 59.8kg"
# A rebuild that moved only the page's stamp (a clock) beside a newer
# entry: the page's words did not change, so the entry makes no update.
rss2 "$WWW/ow.rss" "Only in the feed" $((NOW + 700)) "Weight again" $((NOW + 600)) "New day" $((NOW + 500))
own $((NOW + 700)) "<p>Today I planted tomatoes behind the house and wrote about it.</p><p>Weight 59.8kg</p>"
$A -d "$D2" update --force --now $((NOW + 760)) >/dev/null 2>&1
is "a newer entry while the page shows no change of its own (only its stamp moved): no update" \
	"$(jget "$D2" "$U/ow.html" last_modified) $(showkey "$D2" "$U/ow.html" excerpt)" "$((NOW + 600)) Weight 59.8kg"
case $(showkey "$D2" "$U/ow.html" "feed use") in
"newer entry "*", the page unchanged: not an update"*) ok "... show says the newer entry found the page unchanged" ;;
*) notok "... show says the newer entry found the page unchanged" "$($A -d "$D2" show "$U/ow.html")" ;;
esac
# The next check finds the page's words changed, the feed unchanged: the
# text rule dates the change at this check, its words the excerpt.
own $((NOW + 800)) "<p>Today I planted tomatoes behind the house and wrote about it.</p><p>In the evening the first seedlings of beans came up along the fence.</p><p>Weight 59.8kg</p>"
$A -d "$D2" update --force --now $((NOW + 820)) >/dev/null 2>&1
is "... then the page changes: announced at that check by the text rule" \
	"$(jget "$D2" "$U/ow.html" last_modified) $(jget "$D2" "$U/ow.html" detected_by)" "$((NOW + 820)) text"
is "... its excerpt the page's new words" "$(showkey "$D2" "$U/ow.html" excerpt)" \
	"In the evening the first seedlings of beans came up along the fence."
# A page without validators answering the same body (a 200, byte for
# byte the last one) beside a newer entry: no update.
printf 'No-Validators: 1\n' > "$WWW/nm.html.hdr"
page_with_feed "$WWW/nm.html" "nm.rss" application/rss+xml "<p>A page that never changes, always answering in full.</p>"
rss2 "$WWW/nm.rss" "First" $((NOW - 7200))
$A -d "$D2" add "$U/nm.html" >/dev/null
$A -d "$D2" update --force --now $((NOW + 400)) >/dev/null 2>&1
rss2 "$WWW/nm.rss" "Second" $((NOW + 700)) "First" $((NOW - 7200))
$A -d "$D2" update --force --now $((NOW + 820)) >/dev/null 2>&1
is "the same body in full (200) beside a newer feed entry: no update" \
	"$(jget "$D2" "$U/nm.html" last_status) $(jget "$D2" "$U/nm.html" last_modified) $(showkey "$D2" "$U/nm.html" "feed newest" | sed 's/.*(\(.*\))$/\1/')" \
	"200 $((NOW - 7200)) $((NOW + 700))"

# A page that is its own feed (watched through its feed alone: add --feed
# F F): a new entry changes its body, so the entry dates the update.
selfeed() {  # selfeed EPOCH...: the feed, one entry per date
	{
		echo '<?xml version="1.0" encoding="utf-8"?>'
		echo "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>s</title><id>urn:s</id><updated>$(rfc3339 "$1")</updated>"
		for e in "$@"; do
			echo "<entry><id>urn:s$e</id><title>Entry $e</title><link href=\"$U/s$e.html\"/><updated>$(rfc3339 "$e")</updated></entry>"
		done
		echo '</feed>'
	} > "$WWW/self.atom"
}
selfeed $((NOW - 7200))
$A -d "$D2" add --feed "$U/self.atom" "$U/self.atom" >/dev/null
$A -d "$D2" update --force --now $((NOW + 880)) >/dev/null 2>&1
selfeed $((NOW + 900)) $((NOW - 7200))
$A -d "$D2" update --force --now $((NOW + 940)) >/dev/null 2>&1
is "a page that is its own feed: a new entry (its body changed) is an update at the entry's date" \
	"$(jget "$D2" "$U/self.atom" last_modified) $(jget "$D2" "$U/self.atom" detected_by)" "$((NOW + 900)) feed"

# A page that stops advertising its feed is back to its own rules.
# (No-Validators: no Last-Modified, so the header rule cannot race the text rule.)
printf 'No-Validators: 1\n' > "$WWW/r1.html.hdr"
printf '<html><head><title>r1</title></head><body><p>r1</p><p>No feed any more.</p></body></html>\n' > "$WWW/r1.html"
$A -d "$D" update --force --now $((NOW + 190)) >/dev/null 2>&1
is "a page that drops its feed link forgets the feed" "$(jget "$D" "$U/r1.html" feed_url)" "null"
is "... and its text change is an update by the text rule" "$(jget "$D" "$U/r1.html" detected_by) $(showkey "$D" "$U/r1.html" excerpt)" "text No feed any more."

# ---- publish: the F mark, the excerpt on index.html and in Atom; not in LIRS --
# (the page shows the change its feed dates: a feed alone makes no update)
rss2 "$WWW/f1.rss" "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" $((NOW + 200)) "Entry two" $T2
page_with_feed "$WWW/f1.html" "f1.rss" application/rss+xml "<p>Hello, and a changing counter 42</p><p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; more</p>"
$A -d "$D" update --force --now $((NOW + 240)) >/dev/null 2>&1
$A -d "$D" publish --now $((NOW + 300)) "$T/site" >/dev/null
grep -q '<abbr class="by">F</abbr></span>' "$T/site/index.html" && ok "index.html marks the page F" || notok "index.html marks the page F"
grep -q '<dt><abbr class="by">F</abbr></dt>' "$T/site/index.html" && ok "index.html legend has F" || notok "index.html legend has F"
grep -q '<span class="ex p-summary">&lt;script&gt;alert(1)&lt;/script&gt; &amp; more</span>' "$T/site/index.html" &&
	ok "index.html shows the excerpt, escaped" || notok "index.html shows the excerpt, escaped" "$(grep -o '<span class="ex p-summary">[^/]*' "$T/site/index.html")"
xmllint --noout "$T/site/current.atom" 2>/dev/null && ok "current.atom is well-formed" || notok "current.atom is well-formed"
$PY - "$T/site/current.atom" "$U/f1.html" <<'PYEOF' && ok "the Atom entry's summary is the excerpt" || notok "the Atom entry's summary is the excerpt"
import sys, xml.etree.ElementTree as ET
ns = {"a": "http://www.w3.org/2005/Atom"}
for e in ET.parse(sys.argv[1]).getroot().findall("a:entry", ns):
    link = e.find("a:link", ns)
    if link is not None and link.get("href") == sys.argv[2]:
        assert e.find("a:summary", ns).text == "<script>alert(1)</script> & more", e.find("a:summary", ns).text
        break
else:
    raise SystemExit("no entry")
PYEOF
$L cat "$T/site/lirs.gz" > "$T/site.jsonl" 2>/dev/null
is "lirs.gz does not carry the excerpt (but reads, with records)" \
	"$?:$(grep -c "alert" "$T/site.jsonl"):$([ -s "$T/site.jsonl" ] && echo records)" "0:0:records"

# ---- hostile feeds --------------------------------------------------------------
# a billion-laughs bomb: nothing expanded, the dates still count
{
	echo '<?xml version="1.0"?>'
	echo '<!DOCTYPE rss [<!ENTITY lol "lol">'
	prev=lol
	for k in 1 2 3 4 5 6 7 8 9; do
		printf '<!ENTITY lol%s "' $k
		for j in 1 2 3 4 5 6 7 8 9 10; do printf '&%s;' $prev; done
		echo '">'
		prev=lol$k
	done
	echo ']>'
	echo "<rss version=\"2.0\"><channel><link>$U/bomb.html</link><item><title>bomb&lol9;</title><pubDate>$(rfc822 $((NOW - 4000)))</pubDate></item></channel></rss>"
} > "$WWW/bomb.rss"
page_with_feed "$WWW/bomb.html" bomb.rss application/rss+xml "<p>bomb</p>"
# an external entity: never read
printf '<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<rss version="2.0"><channel><link>%s</link><item><title>x&xxe;y</title><pubDate>%s</pubDate></item></channel></rss>\n' \
	"$U/xxe.html" "$(rfc822 $((NOW - 5000)))" > "$WWW/xxe.rss"
page_with_feed "$WWW/xxe.html" xxe.rss application/rss+xml "<p>xxe</p>"
# only absurd or malformed dates: the page's own rules decide
cat > "$WWW/absurd.atom" <<'ATOM'
<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title><id>urn:x</id><updated>2100-01-01T00:00:00Z</updated>
<entry><id>1</id><title>future</title><updated>2100-01-01T00:00:00Z</updated></entry>
<entry><id>2</id><title>epoch</title><updated>1970-01-01T00:00:00Z</updated></entry>
<entry><id>3</id><title>garbage</title><updated>last tuesday</updated></entry>
<entry><id>4</id><title>none</title></entry>
</feed>
ATOM
page_with_feed "$WWW/absurd.html" absurd.atom application/atom+xml "<p>absurd</p>"
# not even XML
printf 'this is <not xml' > "$WWW/broken.rss"
page_with_feed "$WWW/broken.html" broken.rss application/rss+xml "<p>broken</p>"
# 10,000 entries
$PY - "$WWW/many.rss" "$NOW" "$U/many.html" <<'PYEOF'
import sys, email.utils
now = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    f.write('<?xml version="1.0"?>\n<rss version="2.0"><channel><title>many</title><link>%s</link>\n' % sys.argv[3])
    for i in range(10000):
        t = now - 86400 - i * 60 if i != 7777 else now - 1234
        f.write("<item><title>item %d</title><link>http://example.com/%d</link><pubDate>%s</pubDate></item>\n"
                % (i, i, email.utils.formatdate(t, usegmt=True)))
    f.write("</channel></rss>\n")
PYEOF
page_with_feed "$WWW/many.html" many.rss application/rss+xml "<p>many</p>"
for p in bomb xxe absurd broken many; do $A -d "$D" add "$U/$p.html" >/dev/null; done
$A -d "$D" update --now $((NOW + 400)) >/dev/null 2>&1
is "billion laughs: the feed still dates the page" "$(jget "$D" "$U/bomb.html" last_modified)" "$((NOW - 4000))"
is "billion laughs: no entity expanded in the excerpt" "$(showkey "$D" "$U/bomb.html" excerpt)" "bomb"
is "external entity: never read" "$(showkey "$D" "$U/xxe.html" excerpt)" "xy"
is "absurd dates fall back to the page's rules (header, or first check)" "$(jget "$D" "$U/absurd.html" detected_by | sed 's/^null$/header/')" "header"
showkey "$D" "$U/absurd.html" "feed error" | grep -q "no believable entry date (4 entries, 3 bad dates)" &&
	ok "absurd dates: the feed error says why" || notok "absurd dates: the feed error says why" "$(showkey "$D" "$U/absurd.html" "feed error")"
is "a broken feed falls back to the page's rules" "$(jget "$D" "$U/broken.html" detected_by | sed 's/^null$/header/')" "header"
showkey "$D" "$U/broken.html" "feed error" | grep -q "^bad feed: malformed XML" &&
	ok "a broken feed's error is recorded" || notok "a broken feed's error is recorded" "$(showkey "$D" "$U/broken.html" "feed error")"
is "10,000 entries: the newest is found" "$(jget "$D" "$U/many.html" last_modified)" "$((NOW - 1234))"
is "10,000 entries: its title is the excerpt" "$(showkey "$D" "$U/many.html" excerpt)" "item 7777"
# the fallback keeps working: a text change on a page whose feed is absurd
printf 'No-Validators: 1\n' > "$WWW/absurd.html.hdr"
page_with_feed "$WWW/absurd.html" absurd.atom application/atom+xml "<p>absurd</p><p>Something new was added today.</p>"
$A -d "$D" update --force --now $((NOW + 500)) >/dev/null 2>&1
is "absurd feed: a text change is an update by the text rule" "$(jget "$D" "$U/absurd.html" detected_by)" "text"
is "... whose excerpt is the new text" "$(showkey "$D" "$U/absurd.html" excerpt)" "Something new was added today."

# ---- change excerpts from the text --------------------------------------------------
printf '<html><head><title>t</title></head><body><h1>Diary</h1><p>First paragraph. It has two sentences.</p><ul><li>old item</li></ul></body></html>\n' > "$WWW/t.html"
printf 'No-Validators: 1\n' > "$WWW/t.html.hdr"
$A -d "$D" add "$U/t.html" >/dev/null
$A -d "$D" update --now $((NOW + 600)) >/dev/null 2>&1
is "first check: no excerpt" "$(showkey "$D" "$U/t.html" excerpt)" ""
printf '<html><head><title>t</title></head><body><h1>Diary</h1><p>First paragraph. A sentence added in the middle! It has two sentences.</p><ul><li>new &lt;b&gt; item</li><li>old item</li></ul></body></html>\n' > "$WWW/t.html"
$A -d "$D" update --force --now $((NOW + 700)) >/dev/null 2>&1
is "text rule: the excerpt is the first added sentence" "$(showkey "$D" "$U/t.html" excerpt)" "A sentence added in the middle!"
printf '<html><head><title>t</title></head><body><h1>Diary</h1><p>A very long new paragraph that goes on and on well past the limit.</p><p>First paragraph. A sentence added in the middle! It has two sentences.</p></body></html>\n' > "$WWW/t.html"
$A -d "$D" update --force --now $((NOW + 800)) --excerpt-chars 20 >/dev/null 2>&1
is "--excerpt-chars clips the excerpt" "$(showkey "$D" "$U/t.html" excerpt)" "A very long new para…"
printf '<html><head><title>t</title></head><body><h1>Diary</h1><p>A very long new paragraph that goes on and on well past the limit.</p></body></html>\n' > "$WWW/t.html"
$A -d "$D" update --force --now $((NOW + 900)) >/dev/null 2>&1
# a page whose only change is that text disappeared has nothing
# new to read: no update (0.2 announced it, with an empty excerpt)
is "a removal alone is no update" "$(jget "$D" "$U/t.html" last_modified) $(showkey "$D" "$U/t.html" excerpt)" "$((NOW + 800)) A very long new para…"

# ---- RFC 5005 archives as sources: a second antenna catches up -------------------
# Antenna "A" is `lirs atom` over a LIRS file per run (3 events per archive);
# antenna "B" reads A's index.atom with 'add --atom', misses most runs, and
# must end with exactly A's events for the pages it watches.
S=$T/a.state
mkdir -p "$WWW/a"
latom() { $L atom --state "$S" --base "$U/a/" --out "$WWW/a" --page-size 3 --now "$1" "$2" >/dev/null 2>&1; }
# lirs_run R: records of run R: two watched pages and one that B does not watch
lirs_run() {
	r=$1; ld=$((NOW + r * 1000))
	for k in $((r % 5 + 1)) $(((r + 2) % 5 + 1)); do
		printf 'LIRS,%d,%d,32400,100,%s/p%d.html,Page %d,,%s/p%d.html,\n' $((ld - 100 + k)) $ld "$U" $k $k "$U" $k
	done
	printf 'LIRS,%d,%d,32400,100,%s/unwatched.html,Other,,%s/unwatched.html,\n' $((ld - 50)) $ld "$U" "$U"
}
B=$T/b.db
$A -d "$B" init --title B >/dev/null
for k in 1 2 3 4 5; do $A -d "$B" add "$U/p$k.html" >/dev/null; done   # 404s: B's own checks add nothing
check "add --atom subscribes to an Atom source" $A -d "$B" add --atom "$U/a/index.atom"
bupd() { $A -d "$B" update --now "$1" "$@" > "$T/bout" 2>&1; }
events() {  # events DB: "url_key last_modified" of the watched pages, sorted
	sqlq "$1" "SELECT url_key, last_modified FROM ev_events" | grep -v unwatched |
		tr '|' ' ' | LC_ALL=C sort -k1,1 -k2,2n
}
# same_events NAME: B's events equal A's, and A has some (a floor: two
# empty lists from a failed query are not equal events).
same_events() {
	se_b=$(events "$B"); se_a=$(events "$S")
	if [ -n "$se_a" ] && [ "$se_b" = "$se_a" ]; then ok "$1"; else
		notok "$1" "B: $(printf '%s' "$se_b" | head -n 3 | tr '\n' ' ')" "A: $(printf '%s' "$se_a" | head -n 3 | tr '\n' ' ')"; fi
}
# archive_gets: the archives fetched once and more than once, and a floor:
# at least as many fetched as A sealed.
archive_gets() {
	grep -o 'GET /a/archive/[0-9]*\.atom' "$T/server.log" | sort > "$T/gets"
	echo "twice:$(uniq -d "$T/gets" | tr '\n' ' ') all-fetched:$([ "$(uniq "$T/gets" | wc -l)" -ge "$(ls "$WWW/a/archive" | wc -l)" ] && echo yes)"
}
r=1
while [ $r -le 2 ]; do lirs_run $r > "$T/in$r"; latom $((NOW + r * 1000)) "$T/in$r"; r=$((r + 1)); done
$A -d "$B" update --now $((NOW + 2500)) > "$T/bout" 2>&1
same_events "B after run 2 has A's events"
# B is offline for runs 3..14: A seals many archives meanwhile
while [ $r -le 14 ]; do lirs_run $r > "$T/in$r"; latom $((NOW + r * 1000)) "$T/in$r"; r=$((r + 1)); done
narch=$(ls "$WWW/a/archive" | wc -l)
[ "$narch" -ge 10 ] && ok "A sealed many archives ($narch)" || notok "A sealed many archives" "$narch"
$A -d "$B" update --now $((NOW + 14500)) --max-archives 3 > "$T/bout" 2>&1
grep -q "3 Atom archives read" "$T/bout" && ok "--max-archives bounds the archives read in a run" || notok "--max-archives bounds the archives read in a run" "$(cat "$T/bout")"
[ "$(events "$B")" != "$(events "$S")" ] && ok "... so B is not caught up yet" || notok "... so B is not caught up yet"
$A -d "$B" update --now $((NOW + 14600)) > "$T/bout" 2>&1
same_events "B caught up after missing many archives: its events equal A's"
is "B has as many events as A for the watched pages (nothing doubled)" "$(events "$B" | wc -l)" "$(events "$S" | wc -l)"
$A -d "$B" update --now $((NOW + 14700)) > "$T/bout" 2>&1
is "each archive was fetched once, every one of them" "$(archive_gets)" "twice: all-fetched:yes"
grep -q "records, 0 merged" "$T/bout" && ok "a run with nothing new merges nothing" || notok "a run with nothing new merges nothing" "$(cat "$T/bout")"
is "a relayed page is marked A" "$(jget "$B" "$U/p3.html" detected_by)" "atom"
is "a relayed page keeps the Atom source" "$(jget "$B" "$U/p3.html" source_url)" "$U/a/index.atom"
lm_a=$($PY -c '
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(last_modified) FROM ev_events WHERE url LIKE ?", ("%/p3.html",)).fetchone()[0])' "$S")
is "the relayed update time is the newest entry's updated" "$(jget "$B" "$U/p3.html" last_modified)" "$lm_a"
$A -d "$B" show "$U/a/index.atom" > "$T/show" 2>&1
grep -q "not watched" "$T/show" && ok "show describes the Atom source" || notok "show describes the Atom source" "$(cat "$T/show")"
# two more runs of A, B reads again: only the new archives are fetched
while [ $r -le 16 ]; do lirs_run $r > "$T/in$r"; latom $((NOW + r * 1000)) "$T/in$r"; r=$((r + 1)); done
$A -d "$B" update --now $((NOW + 16500)) > "$T/bout" 2>&1
same_events "later runs: still A's events"
is "later runs: no archive fetched twice, the new ones fetched" "$(archive_gets)" "twice: all-fetched:yes"
$A -d "$B" publish --now $((NOW + 16600)) "$T/bsite" >/dev/null
grep -q '<dt><abbr class="by">A</abbr></dt>' "$T/bsite/index.html" && ok "index.html legend has A" || notok "index.html legend has A"

# ---- sources remember: pages added after the source was read ----------------
# The Atom source is read first (its archives once), ten pages are added
# afterwards: each gets the update its entry carried, summary included.
S2=$T/q.state
mkdir -p "$WWW/q"
QNOW=$(( $(date +%s) - 4000 ))
r=0; k=0
for n in 3 3 2 2; do
	: > "$T/q$r"
	i=0
	while [ $i -lt $n ]; do
		printf 'LIRS,%d,%d,32400,100,%s/q%d.html,Q %d,,%s/q%d.html,\n' $((QNOW + r * 100 + i)) $((QNOW + r * 100 + 50)) "$U" $k $k "$U" $k >> "$T/q$r"
		i=$((i + 1)); k=$((k + 1))
	done
	$L atom --state "$S2" --base "$U/q/" --out "$WWW/q" --page-size 3 --now $((QNOW + r * 100 + 60)) "$T/q$r" >/dev/null 2>&1
	r=$((r + 1))
done
C=$T/c.db
$A -d "$C" init --title C >/dev/null
$A -d "$C" add --atom "$U/q/index.atom" >/dev/null
$A -d "$C" update > "$T/cout" 2>&1
grep -q "Atom archives read" "$T/cout" && ok "remember: the Atom source's archives were read, no page watched" || notok "remember: the Atom source's archives were read, no page watched" "$(cat "$T/cout")"
k=0; got=0; marks=""
while [ $k -lt 10 ]; do
	$A -d "$C" add "$U/q$k.html" >> "$T/cadd" 2>&1
	[ "$(jget "$C" "$U/q$k.html" detected_by)" = atom ] && got=$((got + 1))
	k=$((k + 1))
done
is "remember: add --atom, then ten pages: all ten get their update" "$got" 10
lm_q=$($PY -c '
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT last_modified FROM ev_events WHERE url LIKE ?", ("%/q0.html",)).fetchone()[0])' "$S2")
is "remember: at the entry's date (an archived one)" "$(jget "$C" "$U/q0.html" last_modified)" "$lm_q"
grep -q "updated .*, as source '$U/q/index.atom' said" "$T/cadd" && ok "remember: add says so" || notok "remember: add says so" "$(head -n 3 "$T/cadd")"
is "remember: one event per page added" "$(sqlq "$C" "SELECT count(*) FROM ev_events")" 10
# A LIRS source read before the page is added, and an imported page
cat > "$WWW/later.lirs" <<LIRS
LIRS,$((QNOW + 100)),$((QNOW + 200)),32400,100,$U/later1.html,Later,,$U/later1.html,
LIRS,$((QNOW + 110)),$((QNOW + 210)),32400,100,$U/later2.html,Later 2,,$U/later2.html,
LIRS
$A -d "$C" add --lirs "$U/later.lirs" >/dev/null
$A -d "$C" update > "$T/cout" 2>&1
$A -d "$C" add "$U/later1.html" >/dev/null 2>&1
is "remember: a LIRS source read first, the page added later gets the update" \
	"$(jget "$C" "$U/later1.html" detected_by) $(jget "$C" "$U/later1.html" last_modified)" "lirs $((QNOW + 100))"
printf '<?xml version="1.0"?><opml version="2.0"><head/><body><outline text="L2" type="link" url="%s/later2.html"/></body></opml>\n' "$U" > "$T/later.opml"
$A -d "$C" import "$T/later.opml" >/dev/null 2>&1
is "remember: an imported page gets the update too" \
	"$(jget "$C" "$U/later2.html" detected_by) $(jget "$C" "$U/later2.html" last_modified)" "lirs $((QNOW + 110))"

# A feed or a page added with --lirs: said so, and counted as a failed source
printf '<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title>\n<entry><id>1</id></entry>\n</feed>\n' > "$WWW/wrong.atom"
printf '<!DOCTYPE html>\n<html><body>hi</body></html>\n' > "$WWW/wrong.html"
W=$T/wrong.db
$A -d "$W" init >/dev/null
$A -d "$W" add --lirs "$U/wrong.atom" >/dev/null
$A -d "$W" add --lirs "$U/wrong.html" >/dev/null
$A -d "$W" update > "$T/wout" 2>&1
check "an Atom feed added with --lirs: counted as a failed source" grep -q "(2 failed)" "$T/wout"
check "... and list --sources says to add it with --atom" \
	sh -c "$A -d '$W' list --sources | grep -F '$U/wrong.atom' | grep -q 'add it with --atom'"
check "an HTML page added with --lirs: said to be markup, not LIRS" \
	sh -c "$A -d '$W' list --sources | grep -F '$U/wrong.html' | grep -q 'not a LIRS file but markup'"

# A relay source's records that no page could have (not http(s), longer than
# ANT_MAX_URL): skipped, never published
RNOW=$(date +%s)
{
	printf 'LIRS,%d,%d,32400,10,javascript:alert(1),J,,http://x.example/,\n' $((RNOW - 100)) $((RNOW - 50))
	printf 'LIRS,%d,%d,32400,10,http://x.example/%s,Long,,http://x.example/,\n' $((RNOW - 100)) $((RNOW - 50)) "$(head -c 8100 /dev/zero | tr '\0' a)"
	printf 'LIRS,%d,%d,32400,10,http://x.example/ok,Fine,,http://x.example/ok,\n' $((RNOW - 100)) $((RNOW - 50))
} > "$WWW/odd.lirs"
R=$T/odd.db
$A -d "$R" init >/dev/null
$A -d "$R" add --lirs "$U/odd.lirs" --relay >/dev/null
$A -d "$R" update > "$T/rout" 2>&1
check "relay: a javascript: URL and one over 8000 bytes are skipped" grep -q "1 relayed, 0 not watched, 2 skipped" "$T/rout"
is "relay: only the usable record is a relayed page" "$($A -d "$R" list --relayed | grep -c 'x.example')" 1
