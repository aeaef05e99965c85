#!/bin/sh
# A site-wide feed advertised on every page of a site (DokuWiki, WordPress,
# tDiary, Hatena Blog) dates only the pages it speaks of: its home (its
# channel link) and the pages its entries link to.  Six wiki pages and
# the wiki's home share one feed, served by build/tools/testserver on
# 127.0.0.1: an edit is announced in its own check, dated when first seen,
# though the (cached) feed has nothing new; the feed's refresh announces
# the home and the pages its new entries are about when their own text
# shows the change (a feed entry dates a change and makes none), nothing
# else.  And a
# newly added page's first check is a quiet baseline: no event, no Atom
# entry, not counted as updated; its next real change is news.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
plan 31

tmpdir sitefeed-test
start_server 300
NOW=$(( $(date +%s) / 60 * 60 ))

showkey() { $A -d "$1" show "$2" | sed -n "s/^$3: *//p"; }
rfc822() { $PY -c 'import sys,email.utils; print(email.utils.formatdate(int(sys.argv[1]), usegmt=True))' "$1"; }
# evcount DB [URL]: update events (of URL)
evcount() {
	sqlq "$1" "SELECT url_key FROM ev_events" |
		awk -v u="${2:-}" 'u == "" || $0 == u { n++ } END { print n + 0 }'
}
# updated OUTFILE: the "N updated" of an update's summary
updated() { sed -n 's/^checked [0-9]* pages*: \([0-9]*\) updated.*/\1/p' "$1"; }

W=$WWW/wiki
mkdir -p "$W"
# feed ENTRY...: the wiki's feed (RSS 2.0, home = the wiki's index page);
# each ENTRY is NAME:EPOCH, a recent change of NAME.html
feed() {
	{
		echo '<?xml version="1.0" encoding="utf-8"?>'
		echo "<rss version=\"2.0\"><channel><title>Wiki</title><link>$U/wiki/index.html</link>"
		for e in "$@"; do
			echo "<item><title>${e%%:*} edited</title><link>$U/wiki/${e%%:*}.html</link><pubDate>$(rfc822 "${e#*:}")</pubDate></item>"
		done
		echo '</channel></rss>'
	} > "$W/feed.rss"
}
# wpage NAME TEXT: a wiki page (no validators, like DokuWiki) with the feed link
wpage() {
	printf '<html><head><title>%s</title><link rel="alternate" type="application/rss+xml" href="feed.rss"></head><body><h1>%s</h1><div class="page"><p>%s</p></div><div class="footer">Powered by a wiki</div></body></html>\n' \
		"$1" "$1" "$2" > "$W/$1.html"
	printf 'No-Validators: 1\n' > "$W/$1.html.hdr"
}

D=$T/w.db
$A -d "$D" init --title "Site feed" --base http://example.com/ant/ >/dev/null
feed w2:$((NOW - 7200)) other:$((NOW - 3600))
for k in 1 2 3 4 5 6; do wpage w$k "Page w$k says what it says, in a sentence of its own."; done
wpage index "The wiki's start page, with a list of its pages."
for k in 1 2 3 4 5 6; do $A -d "$D" add "$U/wiki/w$k.html" >/dev/null; done
$A -d "$D" add "$U/wiki/index.html" >/dev/null

# ---- the first checks: quiet baselines -----------------------------------------
$A -d "$D" update --now $NOW > "$T/out" 2>&1
is "first checks of seven new pages: none counted as updated" "$(updated "$T/out")" "0"
is "first checks: no update event" "$(evcount "$D")" "0"
is "the feed's home is dated by the feed's newest entry" "$(jget "$D" "$U/wiki/index.html" last_modified)" "$((NOW - 3600))"
is "a page with its own entry is dated by that entry" "$(jget "$D" "$U/wiki/w2.html" last_modified)" "$((NOW - 7200))"
is "a page the feed says nothing of is not dated by it (unknown)" "$(jget "$D" "$U/wiki/w3.html" last_modified)" "0"
showkey "$D" "$U/wiki/w3.html" "feed use" | grep -q "^hint only" &&
	ok "show: the site feed only hinted for w3" || notok "show: the site feed only hinted for w3" "$(showkey "$D" "$U/wiki/w3.html" "feed use")"
showkey "$D" "$U/wiki/w2.html" "feed use" | grep -q "^dates the page" &&
	ok "show: the feed dated w2" || notok "show: the feed dated w2" "$(showkey "$D" "$U/wiki/w2.html" "feed use")"
is "show names the feed used" "$(showkey "$D" "$U/wiki/w3.html" feed)" "$U/wiki/feed.rss"
$A -d "$D" publish --now $((NOW + 30)) "$T/site" >/dev/null
grep -q -- '--/-- --:--' "$T/site/index.html" && ok "index.html shows the unknown times as --/-- --:--" ||
	notok "index.html shows the unknown times as --/-- --:--"
grep -q 'たった今' "$T/site/index.html" && notok "no page is shown as just updated" || ok "no page is shown as just updated"
is "index.atom (the update events) has no entry" "$(grep -c "<entry>" "$T/site/index.atom")" "0"

# ---- an edit of w4, the feed cached (unchanged, answers 304) ------------------------
wpage w4 "Page w4 says what it says, in a sentence of its own. A new paragraph was written today."
$A -d "$D" update --force --now $((NOW + 600)) > "$T/out" 2>&1
is "the edit: exactly one page updated" "$(updated "$T/out")" "1"
is "the edited page is announced in its own check, dated when first seen" \
	"$(jget "$D" "$U/wiki/w4.html" last_modified) $(jget "$D" "$U/wiki/w4.html" detected_by)" "$((NOW + 600)) text"
is "its excerpt is the new text" "$(showkey "$D" "$U/wiki/w4.html" excerpt)" "A new paragraph was written today."
is "one event" "$(evcount "$D")" "1"

# ---- the feed refreshes: a new entry for w4 (the edit) and for an unwatched page -------
# The home's text does not change: its feed's newer entry is no update of it.
feed w4:$((NOW + 590)) other:$((NOW + 900)) w2:$((NOW - 7200))
$A -d "$D" update --force --now $((NOW + 1200)) > "$T/out" 2>&1
is "the refresh: nothing updated (the home's text unchanged)" "$(updated "$T/out")" "0"
is "the home, its text unchanged, is not dated by the newest entry" \
	"$(jget "$D" "$U/wiki/index.html" last_modified)" "$((NOW - 3600))"
showkey "$D" "$U/wiki/index.html" "feed use" | grep -q "^newer entry .*, the page unchanged: not an update" &&
	ok "show: the home's newer entry found the page unchanged" ||
	notok "show: the home's newer entry found the page unchanged" "$(showkey "$D" "$U/wiki/index.html" "feed use")"
is "w4 is not announced again by its entry" "$(jget "$D" "$U/wiki/w4.html" last_modified)" "$((NOW + 600))"
is "pages the feed says nothing of: still unknown, no event" \
	"$(for k in 1 3 5 6; do jget "$D" "$U/wiki/w$k.html" last_modified; done | tr '\n' ' ')" "0 0 0 0 "
is "events: w4's" "$(evcount "$D")" "1"

# ---- w2 edited, with its own entry in the feed; the home lists the change ----------
wpage w2 "Page w2 says what it says, in a sentence of its own. And it was edited."
wpage index "The wiki's start page, with a list of its pages. Recently edited: the page w2, with a new sentence."
feed w2:$((NOW + 1700)) w4:$((NOW + 590)) other:$((NOW + 900))
$A -d "$D" update --force --now $((NOW + 1800)) > "$T/out" 2>&1
is "a page's own entry: it is updated, once" "$(evcount "$D" "$U/wiki/w2.html")" "1"
is "... dated by its entry, detected by the feed" \
	"$(jget "$D" "$U/wiki/w2.html" last_modified) $(jget "$D" "$U/wiki/w2.html" detected_by)" "$((NOW + 1700)) feed"
is "... and nothing else (w2 and the home's newest entry)" "$(updated "$T/out")" "2"
is "the home, its text showing the change, is dated by the newest entry" \
	"$(jget "$D" "$U/wiki/index.html" last_modified) $(jget "$D" "$U/wiki/index.html" detected_by)" "$((NOW + 1700)) feed"

# ---- a newly added page: its first check is a baseline, its next change news ------------
printf '<html><head><title>n</title></head><body><p>A new page to watch.</p></body></html>\n' > "$WWW/n.html"
printf 'No-Validators: 1\n' > "$WWW/n.html.hdr"
printf '<html><head><title>m</title></head><body><p>A page with a trustworthy date.</p></body></html>\n' > "$WWW/m.html"
printf 'Last-Modified: %s\n' "$(rfc822 $((NOW - 86400)))" > "$WWW/m.html.hdr"
$A -d "$D" add "$U/n.html" >/dev/null
$A -d "$D" add "$U/m.html" >/dev/null
$A -d "$D" update --now $((NOW + 2400)) > "$T/out" 2>&1
is "new pages' first update: 0 updated" "$(updated "$T/out")" "0"
is "... no event" "$(evcount "$D" "$U/n.html") $(evcount "$D" "$U/m.html")" "0 0"
is "... the page without a trustworthy date stays undated, never 'now'" "$(jget "$D" "$U/n.html" last_modified)" "0"
is "... the page with a trustworthy Last-Modified is dated by it" "$(jget "$D" "$U/m.html" last_modified)" "$((NOW - 86400))"
printf '<html><head><title>n</title></head><body><p>A new page to watch.</p><p>Its first real change.</p></body></html>\n' > "$WWW/n.html"
$A -d "$D" update --force --now $((NOW + 3000)) > "$T/out" 2>&1
is "a later real change: 1 updated, an event at its check" \
	"$(updated "$T/out") $(evcount "$D" "$U/n.html") $(jget "$D" "$U/n.html" last_modified)" "1 1 $((NOW + 3000))"
$A -d "$D" publish --now $((NOW + 3030)) "$T/site2" >/dev/null
grep -q "href=\"$U/n.html\"" "$T/site2/index.atom" && ok "... and an Atom entry in index.atom" || notok "... and an Atom entry"
