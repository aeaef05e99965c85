#!/bin/sh
# Moved and gone pages (ant_pagestate.h): a page answering through
# permanent redirects (301, 308) on --move-after checks in a row moves to
# its new URL with its history and settings; a temporary redirect never
# moves it; a move onto a watched page merges them; a page answering 404
# or 410, or whose host does not resolve, for --gone-days is gone: checked
# once a day, listed apart, said on the public page, back at its first
# success; list --format jsonl's state; export and import carry the move.
# Against build/tools/testserver on 127.0.0.1.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 31
tmpdir moved-test
start_server 120
NOW=$(date +%s)
D=$T/a.db
$A -d "$D" init --move-after 3 --gone-days 2 > /dev/null 2>&1
page() { printf '<title>%s</title><p>%s</p>\n' "$1" "$2" > "$WWW/$3"; }
redirect() { printf 'Status: %s\nRedirect: %s\n' "$1" "$2" > "$WWW/$3.hdr"; }
up() { $A -d "$D" update --force --now "$1" -q 2>/dev/null; }
state() { jget "$D" "$U/$1" state; }

page Old 'the old home' old.html
page New 'the new home' new.html
page Temp 'a page behind a temporary redirect' temp.html
page Mix 'permanent, then temporary' mix.html
page Dup 'a second name' dup.html
page Target 'the page it names' target.html
page Gone 'here today' gone.html
$A -d "$D" add --group diaries --title 'My old diary' "$U/old.html" > /dev/null
for f in temp mix dup target gone; do $A -d "$D" add "$U/$f.html" > /dev/null; done
$A -d "$D" set "$U/target.html" --group friends > /dev/null
up "$NOW"
is "first check: every page ok" "$(state old.html) $(state temp.html) $(state gone.html)" "ok ok ok"

# ---- moved -------------------------------------------------------------------
redirect '301 Moved Permanently' /new.html old.html
redirect '302 Found' /new.html temp.html
redirect '308 Permanent Redirect' /new.html mix.html
redirect '301 Moved Permanently' /target.html dup.html
up $((NOW + 100))
is "one 301: state moved, counted 1, to the new URL" \
	"$(state old.html) $(jget "$D" "$U/old.html" redirect_count) $(jget "$D" "$U/old.html" redirect_to)" \
	"moved 1 $U/new.html"
is "a 302: ok, never counted" "$(state temp.html) $(jget "$D" "$U/temp.html" redirect_count)" "ok 0"
up $((NOW + 200))
is "two in a row: still watched at the old URL" "$(state old.html) $(jget "$D" "$U/old.html" redirect_count)" "moved 2"
$A -d "$D" show "$U/old.html" > "$T/show"
check "show says where it is redirected and how many times" grep -q "^redirected to:  $U/new.html (permanently, 2 checks in a row" "$T/show"
redirect '302 Found' /new.html mix.html
$A -d "$D" update --force --now $((NOW + 300)) > "$T/out" 2>&1
redirect '308 Permanent Redirect' /new.html mix.html
up $((NOW + 400))
check "the third: the run says the page moved" grep -qF "moved: $U/old.html -> $U/new.html" "$T/out"
check "... and counts it in its summary" grep -q "; 2 moved, 0 found gone" "$T/out"
$A -d "$D" list --format jsonl > "$T/list"
check "the old URL is no longer watched" sh -c "! grep -q '\"url\":\"$U/old.html\"' '$T/list'"
is "the page is watched at its new URL, with its title and group" \
	"$(jget "$D" "$U/new.html" title)|$(jget "$D" "$U/new.html" group)|$(jget "$D" "$U/new.html" moved_from)" \
	"My old diary|diaries|$U/old.html"
is "... its state ok, its history kept (the first check's date)" \
	"$(state new.html) $(test "$(jget "$D" "$U/new.html" last_detected)" -ge "$NOW" && echo dated)" "ok dated"
$A -d "$D" show "$U/new.html" > "$T/show"
check "show says where it moved from and when" sh -c "grep -q '^moved from:     $U/old.html' '$T/show' && grep -q '^moved at:       20' '$T/show'"
is "a temporary redirect never moves a page, after 4 checks" "$(state temp.html) $(jget "$D" "$U/temp.html" url)" "ok $U/temp.html"
is "a 302 between permanent ones starts the count again" "$(state mix.html) $(jget "$D" "$U/mix.html" redirect_count)" "moved 1"
check "a move onto a watched page is said as a merge" grep -qF "moved: $U/dup.html -> $U/target.html (already watched: merged into it)" "$T/out"
is "... the second name is no longer watched" "$(grep -c "\"url\":\"$U/dup.html\"" "$T/list")" "0"
is "... the page already watched keeps its settings and records the other name" \
	"$(jget "$D" "$U/target.html" group)|$(jget "$D" "$U/target.html" moved_from)" "friends|$U/dup.html"

# ---- export, import -------------------------------------------------------------
$A -d "$D" export --format jsonl > "$T/export.jsonl"
check "export carries where the page moved from" grep -q "\"url\":\"$U/new.html\".*\"moved_from\":\"$U/old.html\"" "$T/export.jsonl"
$A -d "$T/b.db" init > /dev/null 2>&1
$A -d "$T/b.db" import "$T/export.jsonl" > /dev/null 2>&1
is "import reads it back" "$(jget "$T/b.db" "$U/new.html" moved_from)" "$U/old.html"

# ---- gone ------------------------------------------------------------------------
printf 'Status: 404 Not Found\n' > "$WWW/gone.html.hdr"
up $((NOW + 1000))
is "a 404: failing, not gone yet" "$(state gone.html)" "failing"
since=$(jget "$D" "$U/gone.html" failing_since)
is "... failing since that check" "$since" "$((NOW + 1000))"
up $((NOW + 1000 + 86400))
is "a day of 404s: still failing (--gone-days 2)" "$(state gone.html)" "failing"
T2=$((NOW + 1000 + 2 * 86400))
up $T2
is "two days of them: gone" "$(state gone.html)" "gone"
is "... checked once a day from then" "$(jget "$D" "$U/gone.html" next_check)" "$((T2 + 86400))"
check "... its error says so, and since when" sh -c "$A -d '$D' show '$U/gone.html' | grep -q '^last error:     gone (failing since 20.*): 404 Not Found'"
$A -d "$D" list > "$T/text"
is "list shows it apart, after the others" "$(tail -2 "$T/text" | head -1)" "gone (no answer for days; checked once a day):"
check "... and the page there" sh -c "tail -1 '$T/text' | grep -qF '$U/gone.html'"
$A -d "$D" publish --now $T2 "$T/site" > /dev/null 2>&1
check "the public page says it is gone, in its language" sh -c "grep -F 'gone.html' '$T/site/index.html' | grep -qF 'ページがなくなりました'"
rm -f "$WWW/gone.html.hdr"
up $((T2 + 86400))
is "its first success: ok again, the run forgotten" \
	"$(state gone.html) $(jget "$D" "$U/gone.html" failing_since) $(jget "$D" "$U/gone.html" gone_at)" "ok 0 0"

# a host that does not resolve counts as gone's too
$A -d "$D" add http://no-such-host.invalid/page.html > /dev/null 2>&1
up $((NOW + 5000))
is "no such host: failing, its run started" \
	"$(jget "$D" http://no-such-host.invalid/page.html state) $(jget "$D" http://no-such-host.invalid/page.html failing_since)" \
	"failing $((NOW + 5000))"
printf 'Status: 500 Internal Server Error\n' > "$WWW/new.html.hdr"
up $((NOW + 6000))
is "a 500 is failing, but starts no gone run" "$(state new.html) $(jget "$D" "$U/new.html" failing_since)" "failing 0"
is "every state is one of the five words" \
	"$($A -d "$D" list --format jsonl | $PY -c '
import json, sys
print(sorted({json.loads(l)["state"] for l in sys.stdin} - {"ok", "failing", "moved", "gone", "robots-excluded"}))')" "[]"
