#!/bin/sh
# What the operator means, end to end against the loopback server
# (tests/tools/testserver.c): 'add --when' (an update without the words is
# seen, not announced; one with them is, and show names the match),
# 'set --not-news' (the last update taken back: gone from the next
# publish's index.html, lirs.gz and current Atom document; what it added
# learned: the same kind of change is quiet, a real edit elsewhere is
# announced), 'set --forget-noise' (the first behaviour back), the render
# flag, export -> import -> export with every new field, and the schema
# 15 -> 16 migration.
# test-needs: python3:python3
# test-needs: sqlite3:sqlite3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 66
server_suite when-test
D=$T/w.db
$A -d "$D" init >/dev/null 2>&1
# page NAME HTML: $U/NAME/ serves HTML without validators (a CGI page)
page() {
	mkdir -p "$WWW/$1"
	printf '%s\n' "$2" > "$WWW/$1/index.html"
	printf 'No-Validators: 1\n' > "$WWW/$1/index.html.hdr"
}
upd() { $A -d "$D" update --force --refetch-pause 20 --now "$1" >"$T/upd" 2>&1; }
lm() { jget "$D" "$U/$1/" last_modified; }
# pub: publishes into $T/pub
pub() { rm -rf "$T/pub"; $A -d "$D" publish "$T/pub" >"$T/pubout" 2>&1; }
entries() { grep -c '<entry>' "$T/pub/index.atom"; }

# ---- --when: words that must appear ---------------------------------------------------
shop() {
	page shop "<html><head><title>shop</title></head><body><h1>Our shop</h1><div id=\"stock\"><p>Status: $1</p></div><div id=\"news\"><p>$2</p></div></body></html>"
}
shop "sold out" "Welcome to our little shop."
check "add --when (twice)" $A -d "$D" add "$U/shop/" --when '在庫あり' --when 'in stock'
$A -d "$D" show "$U/shop/" > "$T/show"
check "show lists the --when patterns" grep -q '^when: *在庫あり$' "$T/show"
check "... every one of them" grep -q '^in stock$' "$T/show"
is "list --format jsonl carries them" "$(jget "$D" "$U/shop/" when)" "['在庫あり', 'in stock']"
upd "$NOW"
is "--when: the first check is a quiet baseline" "$(lm shop)" 0
shop "sold out" "Our spring sale starts next week."
upd $((NOW + 600))
is "--when: a change without the words is not announced" "$(lm shop)" 0
check "... the run says so" grep -q "1 change without the --when words" "$T/upd"
pub
is "... and makes no event" "$(entries)" 0
upd $((NOW + 1200))
is "... nor is it announced later" "$(lm shop)" 0
shop "在庫あり (3 left)" "Our spring sale starts next week."
upd $((NOW + 1800))
is "--when: a change with the words is announced" "$(lm shop)" $((NOW + 1800))
$A -d "$D" show "$U/shop/" > "$T/show"
check "show names the --when that matched" grep -q '^when matched: *在庫あり (at the last update)' "$T/show"
is "... list --format jsonl too" "$(jget "$D" "$U/shop/" when_hit)" "在庫あり"
check "the excerpt is what the update added, not the change seen before" sh -c "grep '^excerpt:' '$T/show' | grep -q '在庫あり' && ! grep '^excerpt:' '$T/show' | grep -q spring"
shop "在庫あり (3 left)" "Our spring sale ends on Sunday."
upd $((NOW + 2100))
is "--when: the next change without the words is quiet" "$(lm shop)" $((NOW + 1800))
is "... show still names the match of the last update" "$(jget "$D" "$U/shop/" when_hit)" "在庫あり"
shop "in stock again" "Our spring sale ends on Sunday."
upd $((NOW + 2400))
is "--when: any of the patterns" "$(lm shop)" $((NOW + 2400))
is "... show names that one" "$(jget "$D" "$U/shop/" when_hit)" "in stock"
check "set --no-when" $A -d "$D" set "$U/shop/" --no-when
shop "sold out" "Our summer sale starts next week."
upd $((NOW + 3000))
is "without --when every update is announced again" "$(lm shop)" $((NOW + 3000))
$A -d "$D" add "$U/bad/" --when '(' 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "^antenna add: --when: bad when pattern '('" "$T/err"; then ok "add --when '(' is refused, named"; else notok "add --when '(' is refused, named" "rc $rc" "$(cat "$T/err")"; fi
$A -d "$D" add "$U/bad/" --when '((a{1,200}){1,200}){1,200}' 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "repeats too much" "$T/err"; then ok "a --when pattern that would compile too big is refused"; else notok "a --when pattern that would compile too big is refused" "rc $rc" "$(cat "$T/err")"; fi

# ---- --not-news: that was not news ---------------------------------------------------------
# a diary with a "recommended" list of four lines the site rewrites now and then
diary() {
	page diary "<html><head><title>diary</title></head><body><div id=\"main\"><h2>Diary</h2>$1</div><ul class=\"recs\"><li>Try the $2 tart.</li><li>Try the $2 jam.</li><li>Try the $2 pie.</li><li>Try the $2 cake.</li></ul></body></html>"
}
E1="<p>First entry: the garden is green.</p>"
E2="<p>Second entry: the roses are out.</p>"
E3="<p>Third entry: the tulips came up.</p>"
diary "$E1" apple
$A -d "$D" add "$U/diary/" >/dev/null
upd $((NOW + 100))
diary "$E1$E2" apple
upd $((NOW + 700))
is "not-news: a real entry is announced" "$(lm diary)" $((NOW + 700))
diary "$E1$E2" pear
upd $((NOW + 1300))
is "not-news: the list rewritten is announced" "$(lm diary)" $((NOW + 1300))
pub
ev=$(entries)
check "... its entry in the current Atom document" grep -q 'Try the pear' "$T/pub/index.atom"
check "... in index.html with its excerpt" grep -q 'pear' "$T/pub/index.html"
check "... in lirs.gz at its time" sh -c "zcat '$T/pub/lirs.gz' | grep '$U/diary/' | grep -q '$((NOW + 1300))'"
$A -d "$D" set "$U/diary/" --not-news >"$T/out" 2>&1
is "set --not-news exits 0" $? 0
check "... says what it did" grep -q "taken back: gone from the next publish; 1 part of the page learned as not news" "$T/out"
is "--not-news: the update time before it is restored" "$(lm diary)" $((NOW + 700))
$A -d "$D" show "$U/diary/" > "$T/show"
check "show lists the taught noise" grep -q '^taught noise: *1 part of the page' "$T/show"
check "... with its place and text" sh -c "grep -A2 '^taught noise' '$T/show' | grep -q 'Try the pear tart'"
check "... apart from what was learned automatically" grep -q '^auto-ignored:' "$T/show"
pub
is "--not-news: the event is gone from the current Atom document" "$(entries)" $((ev - 1))
check "... and from index.html, current.atom and feed.json" sh -c "! grep -q pear '$T/pub/index.atom' '$T/pub/index.html' '$T/pub/current.atom' '$T/pub/feed.json'"
check "... lirs.gz has the update before it" sh -c "zcat '$T/pub/lirs.gz' | grep '$U/diary/' | grep -q '$((NOW + 700))'"
$A -d "$D" set "$U/diary/" --not-news 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "has no announced update to take back" "$T/err"; then ok "a second --not-news has nothing to take back (exit 1)"; else notok "a second --not-news has nothing to take back (exit 1)" "rc $rc" "$(cat "$T/err")"; fi
diary "$E1$E2" plum
upd $((NOW + 1900))
is "after --not-news the same kind of change is quiet" "$(lm diary)" $((NOW + 700))
diary "$E1$E2$E3" fig
upd $((NOW + 2500))
is "... a real edit elsewhere is announced" "$(lm diary)" $((NOW + 2500))
check "... its excerpt is the edit" sh -c "$A -d '$D' show '$U/diary/' | grep '^excerpt:' | grep -q tulips"
is "... taught noise kept by a settings rebaseline" "$($A -d "$D" set "$U/diary/" --ignore 'nothing-here' >/dev/null; $A -d "$D" show "$U/diary/" | grep -c '^taught noise')" 1
upd $((NOW + 3100))
diary "$E1$E2$E3" kiwi
upd $((NOW + 3700))
is "... and still quiet after it" "$(lm diary)" $((NOW + 2500))
$A -d "$D" set "$U/diary/" --forget-noise >"$T/out" 2>&1
check "set --forget-noise says the next check is a baseline" grep -q "forget-noise (the next check is a new baseline)" "$T/out"
check "... show has no taught noise" sh -c "! $A -d '$D' show '$U/diary/' | grep -q '^taught noise'"
upd $((NOW + 4300))
is "... the next check is quiet" "$(lm diary)" $((NOW + 2500))
diary "$E1$E2$E3" lime
upd $((NOW + 4900))
is "--forget-noise: the same kind of change is announced again" "$(lm diary)" $((NOW + 4900))

# an update whose Atom entry an archive holds already: archives never change
AD=$T/a.db
$A -d "$AD" init --page-size 1 >/dev/null 2>&1
page arch '<html><head><title>arch</title></head><body><div id="main"><p>Hello, world of archives.</p></div></body></html>'
$A -d "$AD" add "$U/arch/" >/dev/null
$A -d "$AD" update --force --now $((NOW + 100)) >/dev/null 2>&1
page arch '<html><head><title>arch</title></head><body><div id="main"><p>Hello, world of archives.</p><p>A visitor counter moved on.</p></div></body></html>'
$A -d "$AD" update --force --refetch-pause 20 --now $((NOW + 700)) >/dev/null 2>&1
rm -rf "$T/apub"; $A -d "$AD" publish "$T/apub" >/dev/null 2>&1
check "archived: the entry is in archive 1" grep -q 'visitor counter' "$T/apub/archive/1.atom"
$A -d "$AD" set "$U/arch/" --not-news >"$T/out" 2>&1
check "--not-news of an archived update says the archive keeps it" grep -q "its Atom entry is in an archive already (archives never change)" "$T/out"
rm -rf "$T/apub"; $A -d "$AD" publish "$T/apub" >/dev/null 2>&1
check "... gone from index.html, current.atom, feed.json and lirs.gz" sh -c "! grep -q 'visitor counter' '$T/apub/index.html' '$T/apub/current.atom' '$T/apub/feed.json' && ! zcat '$T/apub/lirs.gz' | grep -q '$U/arch/'"
check "... and still in its archive" grep -q 'visitor counter' "$T/apub/archive/1.atom"

# ---- render, export -> import -> export ----------------------------------------------------
check "add --render" $A -d "$D" add "$U/app/" --render
check "show says it" sh -c "$A -d '$D' show '$U/app/' | grep -q '^render: *headless chromium'"
check "set --no-render" sh -c "$A -d '$D' set '$U/app/' --no-render | grep -q 'no-render'"
check "set --render" $A -d "$D" set "$U/app/" --render
$A -d "$D" set "$U/shop/" --when 'in stock' --when '受付開始' >/dev/null
diary "$E1$E2$E3" lemon
upd $((NOW + 5500))
$A -d "$D" set "$U/diary/" --not-news >/dev/null
$A -d "$D" export --format jsonl > "$T/e1.jsonl"
check "export carries --when" grep -q '"when":\["in stock","受付開始"\]' "$T/e1.jsonl"
check "... the taught noise" grep -q '"taught":\["[0-9a-f]\{8\} [0-9a-f]\{8\} 4\\tbody' "$T/e1.jsonl"
check "... render" grep -q '"url":"'"$U"'/app/".*"render":true' "$T/e1.jsonl"
$A -d "$T/i.db" init >/dev/null 2>&1
$A -d "$T/i.db" import "$T/e1.jsonl" >"$T/imp" 2>&1
is "import of the export exits 0" $? 0
$A -d "$T/i.db" export --format jsonl > "$T/e2.jsonl"
# the times an import takes follow the merge rules (our --now runs ahead of the clock)
notimes() { sed 's/"last_modified":[0-9]*,"last_detected":[0-9]*,//' "$1"; }
is "export -> import -> export loses nothing (times aside)" "$(notimes "$T/e2.jsonl")" "$(notimes "$T/e1.jsonl")"
check "the imported taught noise is shown" sh -c "$A -d '$T/i.db' show '$U/diary/' | grep -q '^taught noise: *1 part'"

for f in opml samidare; do
	$A -d "$D" export --format $f > "$T/e.$f"
	rm -f "$T/f.db"; $A -d "$T/f.db" init >/dev/null 2>&1
	$A -d "$T/f.db" import --from $f "$T/e.$f" >/dev/null 2>&1
	check "$f export -> import carries --when" sh -c "$A -d '$T/f.db' show '$U/shop/' | grep -A1 '^when: *in stock' | grep -q '^受付開始'"
	check "$f export -> import carries render" sh -c "$A -d '$T/f.db' show '$U/app/' | grep -q '^render:'"
done

# ---- the schema 15 -> 16 migration (a SQLite file's, under ANTENNA_TEST_PG too) -------------
M=$T/m.db
$A_LITE -d "$M" init >/dev/null 2>&1
$A_LITE -d "$M" add "$U/old/" --ignore .x >/dev/null
sqlite3 "$M" "DROP INDEX pages_server; ALTER TABLE pages DROP COLUMN server; ALTER TABLE pages DROP COLUMN lease_by; ALTER TABLE pages DROP COLUMN lease_until; DROP TABLE server_slot; DROP TABLE origin_server; ALTER TABLE pages DROP COLUMN render; ALTER TABLE pages DROP COLUMN when_pats; ALTER TABLE pages DROP COLUMN when_hit; ALTER TABLE pages DROP COLUMN taught; ALTER TABLE pages DROP COLUMN news; ALTER TABLE pages DROP COLUMN news_at; ALTER TABLE pages DROP COLUMN prev_modified; ALTER TABLE pages DROP COLUMN prev_by; PRAGMA user_version=15;"
check "a schema 15 database is read" sh -c "$A_LITE -d '$M' show '$U/old/' | grep -q '^ignore: *\.x'"
is "... and migrated to schema 18" "$(sqlite3 "$M" 'PRAGMA user_version')" 18
check "... its pages take --when after it" sh -c "$A_LITE -d '$M' set '$U/old/' --when 'news' && $A_LITE -d '$M' show '$U/old/' | grep -q '^when: *news'"
