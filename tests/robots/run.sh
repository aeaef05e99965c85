#!/bin/sh
# robots.txt (RFC 9309) end to end, against build/tools/testserver on
# 127.0.0.1: the RFC's example groups, the longest match (allow wins a
# tie) and the '$' end anchor, a BOM and CRLF, a file past the
# 500 KiB limit, redirect chains (5 followed, 6 too many), 404 (all
# allowed), 500 (nothing fetched until it answers), an unreachable server;
# a disallowed page gets no request (the server's log says so), robots.txt
# is asked once per origin and run and kept 24 hours, and set
# --ignore-robots overrides it for one page, with a warning.  Each shape
# gets a database of its own: each fetches robots.txt afresh.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 52
tmpdir robots-test
start_server 120 --verbose
NOW=$(date +%s)

# page PATH: a small page at PATH
page() { mkdir -p "$WWW/$(dirname "$1")"; printf '<title>%s</title><p>%s</p>\n' "$1" "$1" > "$WWW/$1"; }
# fresh NAME PATH...: database NAME, with the pages at those paths added
fresh() {
	D=$T/$1.db; shift
	$A -d "$D" init --lang en > /dev/null 2>&1
	for p in "$@"; do page "$p"; $A -d "$D" add "$U/$p" > /dev/null || echo "cannot add $p"; done
}
upd() { $A -d "$D" update --now "${NOW_RUN:-$NOW}" "$@" > "$T/out" 2> "$T/err"; }
state() { jget "$D" "$U/$1" last_error; }

# ---- the RFC's groups: our token's group wins over '*' ------------------------
cat > "$WWW/robots.txt" <<'R'
User-Agent: *
Disallow: /

User-Agent: foobot
Allow: /

# our product token, in another case, with a version
User-Agent: LIRS-Antenna/2.0
Disallow: /g/private
Allow: /g/private/ok
R
fresh groups g/public.html g/private.html g/private/ok.html g/x/y.html
upd
is "groups: robots.txt asked once for the origin" "$(asked /robots.txt)" 1
is "groups: an allowed page is fetched" "$(asked /g/public.html)" 1
is "groups: a disallowed page gets no request" "$(asked /g/private.html)" 0
is "groups: the longer Allow wins" "$(asked /g/private/ok.html)" 1
is "groups: '*' does not apply to us" "$(asked /g/x/y.html)" 1
$A -d "$D" list > "$T/list"
check "groups: list says why, with the rule's line" \
	grep -q "robots.txt: disallowed by .*/robots.txt line 9 (Disallow: /g/private)" "$T/list"
check "groups: the summary counts it" grep -q "1 kept out by robots.txt" "$T/out"
is "groups: list --format jsonl's state" "$(jget "$D" "$U/g/private.html" state):$(jget "$D" "$U/g/public.html" state)" "robots-excluded:ok"
is "groups: list --format jsonl's fail_kind" "$(jget "$D" "$U/g/private.html" fail_kind):$(jget "$D" "$U/g/public.html" fail_kind)" "robots-excluded:null"
check "groups: not named as a failure on stderr" sh -c "! grep -q private '$T/err'"
check "groups: show says excluded" sh -c "$A -d '$D' show '$U/g/private.html' | grep -q '^robots.txt: *excluded'"
$A -d "$D" publish "$T/site" > /dev/null 2>&1
check "groups: index.html says it in the site's language" grep -q 'excluded by robots.txt' "$T/site/index.html"
$A -d "$D" init --lang ja > /dev/null 2>&1
$A -d "$D" publish "$T/site" > /dev/null 2>&1
check "groups: ... and in Japanese" grep -q 'robots.txt により巡回対象外' "$T/site/index.html"

# ---- the cache: 24 hours, then asked again --------------------------------------
printf 'User-agent: *\nAllow: /\n' > "$WWW/robots.txt"
upd --force
is "cache: a second run within 24 h does not ask again" "$(asked /robots.txt)" 1
is "cache: the page stays out (the cached rules)" "$(asked /g/private.html)" 0
NOW_RUN=$((NOW + 86401)) upd --force
is "cache: after 24 h robots.txt is asked again" "$(asked /robots.txt)" 2
is "cache: ... and the page, now allowed, fetched" "$(asked /g/private.html)" 1
is "cache: ... its robots error gone" "$(state g/private.html)" null

# ---- the override ------------------------------------------------------------------
printf 'User-agent: *\nDisallow: /o/\n' > "$WWW/robots.txt"
fresh override o/a.html
upd
is "override: disallowed first" "$(asked /o/a.html)" 0
$A -d "$D" set "$U/o/a.html" --ignore-robots > "$T/out" 2> "$T/err"
check "override: set --ignore-robots warns" grep -q "warning: .*robots.txt" "$T/err"
upd
is "override: the page is fetched, due at once" "$(asked /o/a.html)" 1
check "override: show says so" sh -c "$A -d '$D' show '$U/o/a.html' | grep -q '^robots.txt: *ignored'"
$A -d "$D" export --format jsonl > "$T/exp.jsonl"
check "override: export carries it" grep -q '"ignore_robots":true' "$T/exp.jsonl"
$A -d "$T/imp.db" init > /dev/null 2>&1
$A -d "$T/imp.db" import "$T/exp.jsonl" > /dev/null 2>&1
is "override: import takes it back" "$(jget "$T/imp.db" "$U/o/a.html" ignore_robots)" True
$A -d "$D" set "$U/o/a.html" --no-ignore-robots > /dev/null 2>&1
upd
is "override: --no-ignore-robots: kept out again" "$(asked /o/a.html):$(state o/a.html | cut -c1-11)" "1:robots.txt:"
$A -d "$D" set "$U/o/a.html" --ignore-robots > /dev/null 2>&1
$A -d "$D" remove "$U/o/a.html" > /dev/null
$A -d "$D" add "$U/o/a.html" > /dev/null
is "override: a page removed and added again has none" "$(jget "$D" "$U/o/a.html" ignore_robots 2>/dev/null || echo absent)" absent

# ---- BOM and CRLF ------------------------------------------------------------------
printf '\357\273\277User-agent: lirs-antenna\r\nDisallow: /b/no\r\n\r\nUser-agent: *\r\nDisallow: /\r\n' > "$WWW/robots.txt"
fresh bom b/no.html b/yes.html
upd
is "BOM, CRLF: the rule read" "$(asked /b/no.html):$(asked /b/yes.html)" "0:1"

# ---- the longest match wins, allow wins a tie (RFC 9309 §2.2.2), '$' ends a pattern ----
cat > "$WWW/robots.txt" <<'R'
User-agent: *
Disallow: /t/page
Allow: /t/page
Disallow: /t/deep/
Allow: /t/de
Disallow: /t/end.html$
Disallow: /t/*.php$
R
fresh tie t/page.html t/deep/x.html t/end.html t/end.htmlx t/x.php t/x.php5
upd
is "tie: allow and disallow of the same length: allowed" "$(asked /t/page.html)" 1
is "tie: the longer disallow beats a shorter allow" "$(asked /t/deep/x.html)" 0
is "\$: /t/end.html\$ keeps /t/end.html out, not /t/end.htmlx" "$(asked /t/end.html):$(asked /t/end.htmlx)" "0:1"
is "\$: /t/*.php\$ keeps out x.php, not x.php5" "$(asked /t/x.php):$(asked /t/x.php5)" "0:1"

# ---- past 500 KiB: the rest is not read -----------------------------------------------
$PY - "$WWW/robots.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("User-agent: *\nDisallow: /l/early\n")
    while f.tell() < 600 * 1024:
        f.write("# " + "x" * 70 + "\n")
    f.write("Disallow: /l/late\n")
PY
fresh long l/early.html l/late.html
upd
is "600 KiB: a rule at the start counts, one after 500 KiB does not" "$(asked /l/early.html):$(asked /l/late.html)" "0:1"
fresh long2 l/late.html
upd --robots-max-bytes 1M
is "600 KiB: --robots-max-bytes 1M reads it" "$(asked /l/late.html)" 1

# ---- redirects: 5 followed, 6 are too many (then allowed) --------------------------------
printf 'User-agent: *\nDisallow: /r/\n' > "$WWW/r5.txt"
printf 'Redirect: /r1.txt\n' > "$WWW/robots.txt.hdr"
for i in 1 2 3 4; do printf 'Redirect: /r%s.txt\n' $((i + 1)) > "$WWW/r$i.txt.hdr"; done
fresh redir5 r/a.html
upd
is "5 redirects: followed, the rules apply" "$(asked /r5.txt):$(asked /r/a.html)" "1:0"
printf 'Redirect: /r0.txt\n' > "$WWW/robots.txt.hdr"
printf 'Redirect: /r1.txt\n' > "$WWW/r0.txt.hdr"
fresh redir6 r/b.html
upd
is "6 redirects: robots.txt unavailable, everything allowed" "$(asked /r5.txt):$(asked /r/b.html)" "1:1"
rm -f "$WWW"/*.hdr

# ---- 404: allowed; 500: nothing until it answers ---------------------------------------
printf 'Status: 404 Not Found\n' > "$WWW/robots.txt.hdr"
fresh s404 s/a.html
upd
is "404: everything allowed" "$(asked /s/a.html)" 1
printf 'Status: 500 Internal Server Error\n' > "$WWW/robots.txt.hdr"
fresh s500 s/b.html
upd
is "500: the page gets no request" "$(asked /s/b.html)" 0
$A -d "$D" list > "$T/list"
check "500: list says robots.txt did not answer" grep -q 'robots.txt did not answer (.*500' "$T/list"
n=$(asked /robots.txt)
NOW_RUN=$((NOW + 3601)) upd
is "500: asked again at the next run (an error is not kept 24 h)" "$(asked /robots.txt)" $((n + 1))
rm -f "$WWW/robots.txt.hdr"
printf 'User-agent: *\nAllow: /\n' > "$WWW/robots.txt"
NOW_RUN=$((NOW + 7202)) upd
is "500, then an answer: the page is fetched" "$(asked /s/b.html):$(state s/b.html)" "1:null"

# ---- unreachable: the page fails as its own fetch would --------------------------------------
D=$T/unreach.db
$A -d "$D" init > /dev/null 2>&1
$A -d "$D" add "http://127.0.0.1:9/u.html" > /dev/null
upd --connect-timeout 2
e=$(jget "$D" "http://127.0.0.1:9/u.html" last_error)
case $e in *connect*) ok "unreachable: the page fails with the connection's error" ;;
*) notok "unreachable: the page fails with the connection's error" "$e" ;; esac
case $e in robots.txt*) notok "unreachable: ... not as kept out by robots.txt" "$e" ;;
*) ok "unreachable: ... not as kept out by robots.txt" ;; esac
is "unreachable: counted failed" "$(jget "$D" "http://127.0.0.1:9/u.html" error_count)" 1

# ---- once per origin and run, whatever the number of pages ------------------------------------
printf 'User-agent: *\nDisallow: /m/odd\n' > "$WWW/robots.txt"
n=$(asked /robots.txt)
fresh many m/1.html m/2.html m/3.html m/odd1.html m/odd2.html
upd
is "5 pages, one origin: robots.txt asked once" "$(asked /robots.txt)" $((n + 1))
is "... two kept out" "$(asked /m/odd1.html):$(asked /m/odd2.html)" "0:0"

# ---- a page's feed: its path judged by the robots.txt of its origin ---------------------------
printf 'User-agent: *\nDisallow: /fd/private/\n' > "$WWW/robots.txt"
mkdir -p "$WWW/fd/private" "$WWW/fd/open"
for d in private open; do
	printf '<html><head><title>fd %s</title><link rel="alternate" type="application/rss+xml" href="/fd/%s/feed.xml"></head><body><p>%s</p></body></html>\n' $d $d $d > "$WWW/fd/$d.html"
	printf '<?xml version="1.0"?><rss version="2.0"><channel><title>f</title><link>%s/fd/%s.html</link><item><title>t</title><link>%s/fd/%s.html</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item></channel></rss>\n' "$U" $d "$U" $d > "$WWW/fd/$d/feed.xml"
done
D=$T/feeds.db
$A -d "$D" init --lang en > /dev/null 2>&1
$A -d "$D" add "$U/fd/private.html" > /dev/null && $A -d "$D" add "$U/fd/open.html" > /dev/null
upd
is "feed: a page whose feed robots.txt disallows is fetched" "$(asked /fd/private.html)" 1
is "feed: ... its feed, named for the first time, gets no request" "$(asked /fd/private/feed.xml)" 0
is "feed: an allowed feed is read" "$(asked /fd/open/feed.xml)" 1
e=$(jget "$D" "$U/fd/private.html" feed_error)
case $e in *"disallowed by"*"robots.txt"*) ok "feed: feed_error says robots.txt disallows it" ;;
*) notok "feed: feed_error says robots.txt disallows it" "$e" ;; esac
is "feed: the page itself is not kept out" "$(state fd/private.html)" null
NOW_RUN=$((NOW + 10)) upd --force
is "feed: a known feed is not asked either at the next check" "$(asked /fd/private/feed.xml):$(asked /fd/private.html)" "0:2"
$A -d "$D" set "$U/fd/private.html" --ignore-robots > /dev/null 2>&1
NOW_RUN=$((NOW + 20)) upd --force
is "feed: set --ignore-robots lets its feed be read too" "$(asked /fd/private/feed.xml)" 1
