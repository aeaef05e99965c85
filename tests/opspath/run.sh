#!/bin/sh
# The operator's path after the first days: a --base or --page-size
# changed after the feeds were published (refused with the way out;
# --new-feeds writes them anew, the same ids); the public page's short
# reasons, the details kept for list and show; ...
# Against build/tools/testserver on 127.0.0.1, with real SQLite files.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 19
server_suite opspath-test

# ids FILE: the entries' ids of an Atom document, one a line
ids() { grep -o '<id>[^<]*</id>' "$1" | sed 1d; }

# ---- 5. --base changed after the first publish ------------------------------
D=$T/base.db
$A -d "$D" init --base http://wrong.example/ant/ --page-size 2 > /dev/null 2>&1
$A -d "$D" publish "$T/s5" > /dev/null 2>&1
for i in 1 2 3 4 5; do
	sql "$D" "INSERT INTO ev_events(url, url_key, last_modified, last_detected, title)
		VALUES('http://a.example/$i', 'http://a.example/$i', $((1700000000 + i)), $((1700000000 + i)), 'p$i')"
done
$A -d "$D" publish "$T/s5" > /dev/null 2>&1
ids "$T/s5/archive/1.atom" > "$T/ids.before"
$A -d "$D" init --base http://right.example/ > "$T/out" 2> "$T/err"
is "init --base NEW after the feeds were published: refused (exit 2), nothing on stdout" \
	"$?:$(wc -c < "$T/out")" "2:0"
check "... the old base and the way out said" \
	grep -q "published under --base 'http://wrong.example/ant/'.*'antenna init --base http://right.example/ --new-feeds'" "$T/err"
is "... and the base is unchanged" "$($A -d "$D" show 2>/dev/null | grep -c 'wrong.example')" 1
$A -d "$D" init --page-size 3 > /dev/null 2> "$T/err"
check "init --page-size N after the feeds were published: refused, the way out said" \
	grep -q "published with --page-size 2.*'antenna init --page-size 3 --new-feeds'" "$T/err"
$A -d "$D" init --base http://right.example/ --new-feeds > "$T/out" 2> "$T/err"
is "init --base NEW --new-feeds: exit 0, the change and the feeds anew said" \
	"$?:$(grep -c "right.example\|written anew" "$T/out")" "0:2"
$A -d "$D" publish "$T/s5" > "$T/out" 2> "$T/err"
is "... the next publish writes the feeds (exit 0)" $? 0
check "... the archive under the new base" grep -q 'href="http://right.example/archive/1.atom"' "$T/s5/archive/1.atom"
ids "$T/s5/archive/1.atom" > "$T/ids.after"
check "... its entries keep their ids (tag of the first host)" cmp -s "$T/ids.before" "$T/ids.after"
check "... index.atom links the new base" grep -q 'href="http://right.example/archive/2.atom"' "$T/s5/index.atom"
# a database changed before the refusal existed: the run says the way out
sql "$D" "UPDATE config SET value = 'http://third.example/' WHERE key = 'base'"
$A -d "$D" publish "$T/s5" > /dev/null 2> "$T/err"
check "a publish under a base the feeds were not made with names the way out" \
	grep -q "'antenna init --base http://right.example/' keeps them" "$T/err"

# ---- 6. the public page: a short reason, the details in list and show ------
D=$T/err.db
$A -d "$D" init --base http://antenna.example/ > /dev/null 2>&1
printf 'Redirect: http://127.0.0.2:%s/x.html\n' "${U##*:}" > "$WWW/intra.html.hdr"
printf '<title>Only</title><p>text</p>\n' > "$WWW/only.html"
$A -d "$D" add "$U/intra.html" > /dev/null
$A -d "$D" add --only '#nosuch' "$U/only.html" > /dev/null
$A -d "$D" run -q "$T/s6" > /dev/null 2>&1
check "an internal address refused: 接続できません on the page" \
	grep -q '\[接続できません\]' "$T/s6/index.html"
is "... neither the address nor the operator's option there" \
	"$(grep -c '127\.0\.0\.2\|allow-private\|--only\|not on the page' "$T/s6/index.html")" 0
check "a page that could not be checked: its phrase on the page" \
	grep -q '\[ページを確かめられませんでした\]' "$T/s6/index.html"
check "... the details stay in show" sh -c "$A -d '$D' show '$U/intra.html' | grep -q 'allow-private'"

# ---- 7. cron: a page gone is said once; deferred is not failed --------------
D=$T/cron.db
$A -d "$D" init --base http://antenna.example/ --gone-days 1 > /dev/null 2>&1
printf 'Status: 404 Not Found\n' > "$WWW/gone.html.hdr"
$A -d "$D" add "$U/gone.html" > /dev/null
$A -d "$D" run -q --now "$NOW" "$T/s7" > /dev/null 2>&1
$A -d "$D" run -q --now $((NOW + 86400 + 60)) "$T/s7" > /dev/null 2> "$T/err"
is "run -q, the day a page is found gone: exit 1, said" "$?:$(grep -c "failed: $U/gone.html: gone" "$T/err")" "1:1"
$A -d "$D" run -q --now $((NOW + 2 * 86400 + 120)) "$T/s7" > "$T/out" 2> "$T/err"
is "run -q, the next day, still gone: exit 0, silent" "$?:$(wc -c < "$T/out"):$(wc -c < "$T/err")" "0:0:0"
$A -d "$D" update --now $((NOW + 3 * 86400 + 180)) > "$T/out" 2> /dev/null
check "... update's summary counts it apart" grep -q "0 failed.*0 deferred (Retry-After), 1 still gone" "$T/out"
D=$T/wait.db
$A -d "$D" init --base http://antenna.example/ > /dev/null 2>&1
printf 'Status: 429 Too Many Requests\nRetry-After: 7200\n' > "$WWW/busy.html.hdr"
printf '<title>Sib</title><p>sibling</p>\n' > "$WWW/sib.html"
$A -d "$D" add "$U/busy.html" > /dev/null
$A -d "$D" run -q "$T/s7b" > /dev/null 2>&1
$A -d "$D" add "$U/sib.html" > /dev/null
$A -d "$D" run -q "$T/s7b" > "$T/out" 2> "$T/err"
is "run -q, a page deferred by its server's Retry-After: exit 0, silent" \
	"$?:$(wc -c < "$T/out"):$(wc -c < "$T/err")" "0:0:0"
is "... it is waiting (deferred), not failed" "$(jget "$D" "$U/sib.html" fail_kind)" deferred
