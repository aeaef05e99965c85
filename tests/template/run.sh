#!/bin/sh
# The site's template end to end (ant_furniture.h), against build/tools/
# testserver on loopback, three sites by name (ANTENNA_RESOLVE):
#   blog.test  a small blog whose sidebar has no name the rules know
#              (div.col-b: recent posts, tags with counts); its index and
#              two posts watched.  A new post changes only the sidebars of
#              the posts: no update on them; the index lists the post: an
#              update, its excerpt the post's title; a post's own edit is
#              an update.
#   solo.test  one watched page: its first link's page (/other/about.html)
#              is fetched once as its sibling (the server's log says so),
#              not again at the next check; a new link in the shared
#              sidebar is no update, an edit of its text is; 'show' names
#              the sibling.
#   robo.test  one watched page whose sibling robots.txt disallows: never
#              asked.
#   self.test  one watched page whose first link is itself under another
#              URL (/self/ for /self/index.html): asked, but not kept as
#              its template (the page is not "shared" with itself).
# Prints "ok - ..." / "not ok - ...".
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 20
tmpdir template-test
start_server 170 --verbose
NOW=$(date +%s)
P=$(cat "$T/port")
export ANTENNA_RESOLVE="blog.test:$P:127.0.0.1 solo.test:$P:127.0.0.1 robo.test:$P:127.0.0.1 self.test:$P:127.0.0.1"
B=http://blog.test:$P S=http://solo.test:$P R=http://robo.test:$P

# page FILE TITLE MAIN SIDE: a page of the blog's template: a top bar,
# the main column, the sidebar column (no name a rule knows), a bottom
# line; MAIN and SIDE are HTML
page() {
	mkdir -p "$WWW/$(dirname "$1")"
	cat > "$WWW/$1" <<P
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>$2 - Garden notes</title></head>
<body><div class="container">
<div class="top"><a href="$TOPLINK">Garden notes</a></div>
<div class="row">
<div class="col-a">$3</div>
<div class="col-b"><h4>Recent posts</h4><ul>$4</ul>
<h4>Tags</h4><p><a href="/t/bread">bread</a> ($TAGS)</p><p><a href="/t/garden">garden</a> (2)</p></div>
</div>
<div class="bottom"><p>Written by Kim since 2019.</p></div>
</div></body></html>
P
}
post() { printf '<h1>%s</h1><p>%s</p><p>%s</p>' "$1" "$2" "$3"; }
li() { printf '<li><a href="/blog/%s.html">%s</a></li>' "$1" "$2"; }

RECENT0="$(li p2 'Kale in November')$(li p1 'Sourdough again')$(li p0 'Rye, first try')"
RECENT1="$(li p3 'Tomatoes in a pot')$RECENT0"
LIST0="<ul class=\"posts\"><li><a href=\"/blog/p2.html\">Kale in November</a> <span>Nov 20</span></li><li><a href=\"/blog/p1.html\">Sourdough again</a> <span>Nov 12</span></li></ul>"
LIST1="<ul class=\"posts\"><li><a href=\"/blog/p3.html\">Tomatoes in a pot</a> <span>Nov 28</span></li>${LIST0#<ul class=\"posts\">}"
P1="$(post 'Sourdough again' 'The starter woke up after three days in the fridge.' 'This time the crumb was open and the crust dark.')"
P2="$(post 'Kale in November' 'The kale survived the first frost.' 'We ate it with beans and too much garlic.')"
SOLO="$(post 'About this garden' 'A small plot behind the station, shared by four families.' 'We meet on Sundays at ten.')"
ABOUT="$(post 'Who we are' 'Four families and a cat.' 'Write to us at the station kiosk.')"

blog0() {
	TOPLINK=/blog/ TAGS=3
	page blog/index.html 'Garden notes' "<h1>Garden notes</h1>$LIST0" "$RECENT0"
	page blog/p1.html 'Sourdough again' "$P1" "$RECENT0"
	page blog/p2.html 'Kale in November' "$P2" "$RECENT0"
	TOPLINK=/other/about.html
	page solo/index.html 'About this garden' "$SOLO" "$RECENT0"
	page other/about.html 'Who we are' "$ABOUT" "$RECENT0"
	TOPLINK=/nosib/about.html
	page robo/index.html 'About this garden' "$SOLO" "$RECENT0"
	page nosib/about.html 'Who we are' "$ABOUT" "$RECENT0"
	TOPLINK=/self/
	page self/index.html 'About this garden' "$SOLO" "$RECENT0"
}
printf 'User-agent: *\nDisallow: /nosib/\n' > "$WWW/robots.txt"
blog0

D=$T/t.db
$A -d "$D" init --title template --base http://example.com/ant/ > /dev/null
for u in "$B/blog/" "$B/blog/p1.html" "$B/blog/p2.html" "$S/solo/index.html" "$R/robo/index.html" \
	"http://self.test:$P/self/index.html"; do
	$A -d "$D" add "$u" > /dev/null || notok "add $u"
done
# upd HOURS: a check of every page that many hours after the start
upd() { $A -d "$D" update --force --now $((NOW + 3600 * $1)) -v > "$T/out" 2> "$T/log"; }
updated() { grep -q "^$1: updated" "$T/log"; }
excerpt() { $A -d "$D" show "$1" | sed -n 's/^excerpt: *//p'; }

# ---- the first check: baselines, one sibling -----------------------------------
upd 0
is "baseline: no update" "$(grep -c ': updated' "$T/log")" 0
is "solo.test: its sibling (the page's first link) fetched once" "$(asked /other/about.html)" 1
is "robo.test: a sibling robots.txt disallows is never asked" "$(asked /nosib/about.html)" 0
sqlq "$D" "SELECT url, sibling, length(keys) FROM site_pages WHERE site LIKE 'http://solo.test:%' ORDER BY url DESC" |
	$PY -c '
import sys
rows = [l.rstrip("\n").split("|") for l in sys.stdin]
print(" ".join("%s/%d/%s" % (r[0].split("/")[-1], int(r[1]), "keys" if r[2] and int(r[2]) % 4 == 0 else "none") for r in rows))
' > "$T/rows"
is "the solo site's template: the page's keys and its sibling's, hashes only" "$(cat "$T/rows")" \
	"index.html/0/keys about.html/1/keys"

is "self.test: the page under another URL asked as its sibling" "$(asked /self/)" 1
sqlq "$D" "SELECT url, sibling, length(keys) FROM site_pages WHERE site LIKE 'http://self.test:%' ORDER BY url DESC" |
	$PY -c '
import sys
rows = [l.rstrip("\n").split("|") for l in sys.stdin]
print(" ".join("%s/%d/%s" % (r[0].split("/", 3)[-1], int(r[1]), "keys" if r[2] and int(r[2]) else "none") for r in rows))
' > "$T/rows"
is "... but not kept as its template: itself is no sibling" "$(cat "$T/rows")" "self/index.html/0/keys self//1/none"

# ---- a new post: only the sidebars of the other posts change ------------------
RECENT0=$RECENT1
TOPLINK=/blog/ TAGS=4
page blog/p3.html 'Tomatoes in a pot' "$(post 'Tomatoes in a pot' 'Four plants on the balcony gave eleven kilos.' 'Next year, two more pots.')" "$RECENT1"
page blog/index.html 'Garden notes' "<h1>Garden notes</h1>$LIST1" "$RECENT1"
page blog/p1.html 'Sourdough again' "$P1" "$RECENT1"
page blog/p2.html 'Kale in November' "$P2" "$RECENT1"
TOPLINK=/other/about.html
page solo/index.html 'About this garden' "$SOLO" "$RECENT1"
upd 1
updated "$B/blog/" && ok "a new post: the index that lists it is updated" ||
	notok "a new post: the index that lists it is updated" "$(cat "$T/log")"
x=$(excerpt "$B/blog/")
case $x in *"Tomatoes in a pot"*) ok "... its excerpt is the new entry ($x)" ;; *) notok "... its excerpt is the new entry" "$x" ;; esac
for p in p1 p2; do
	updated "$B/blog/$p.html" && notok "a new post: $p, whose sidebar only changed, is not updated" \
		"$($A -d "$D" show "$B/blog/$p.html")" || ok "a new post: $p, whose sidebar only changed, is not updated"
done
updated "$S/solo/index.html" && notok "solo.test: a new link in the sidebar it shares with its sibling is no update" \
	"$($A -d "$D" show "$S/solo/index.html")" ||
	ok "solo.test: a new link in the sidebar it shares with its sibling is no update"
is "solo.test: the sibling not fetched again at the next check" "$(asked /other/about.html)" 1
$A -d "$D" show "$S/solo/index.html" > "$T/show"
grep -q "^furniture: .*sibling page $S/other/about.html checked at " "$T/show" &&
	ok "show: the sibling page named, and when it was read" || notok "show: the sibling page named" "$(cat "$T/show")"
$A -d "$D" show "$B/blog/p1.html" > "$T/show"
grep -q "^furniture: .*shared with [0-9]* pages\{0,1\} of the site" "$T/show" &&
	ok "show: the shared part said" || notok "show: the shared part said" "$(cat "$T/show")"

# ---- the pages' own edits ---------------------------------------------------------
TOPLINK=/blog/
page blog/p1.html 'Sourdough again' "$(post 'Sourdough again' 'The starter woke up after three days in the fridge.' 'This time the crumb was open, the crust dark and the loaf gone by noon.')" "$RECENT1"
TOPLINK=/other/about.html
page solo/index.html 'About this garden' "$(post 'About this garden' 'A small plot behind the station, shared by five families.' 'We meet on Sundays at ten.')" "$RECENT1"
upd 2
updated "$B/blog/p1.html" && ok "an edit of a post is an update" || notok "an edit of a post is an update" "$(cat "$T/log")"
x=$(excerpt "$B/blog/p1.html")
case $x in *"gone by noon"*) ok "... its excerpt is the edit ($x)" ;; *) notok "... its excerpt is the edit" "$x" ;; esac
updated "$S/solo/index.html" && ok "solo.test: an edit of its own text is an update" ||
	notok "solo.test: an edit of its own text is an update" "$(cat "$T/log")"
is "no other page updated" "$(grep -c ': updated' "$T/log")" 2

# ---- quiet: nothing changed, a day later ------------------------------------------
upd 26
is "a day later, nothing changed: no update" "$(grep -c ': updated' "$T/log")" 0
is "... and the sibling, read a day ago and kept a week, not asked again" "$(asked /other/about.html)" 1
