#!/bin/sh
# JSON pages (ant_page.h "JSON pages", antenna(1) JSON PAGES): an API
# answered as JSON is compared by its data -- keys re-ordered, items
# re-ordered and whitespace re-indented are quiet, a value changed is
# announced with the value in the excerpt and the diff; `--only
# 'json:$.items[*].price'` watches the prices only, and a path that stops
# matching fails the check naming it; a broken or hostile answer is a
# failed check, never a crash nor an update.  Against build/tools/testserver
# on 127.0.0.1, then against real software that serves JSON: Mercurial's
# hgweb (`hg serve`, its /json-log).
# test-needs: python3:python3 hg:mercurial
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 42
server_suite json-test
D=$T/j.db
$A -d "$D" init --base http://antenna.example/ > /dev/null 2>&1

# upd DB: one forced check of every page; prints "UPDATED FAILED"
upd() {
	$A -d "$1" update --force --refetch-pause 100 2> "$T/upd.err" | tee "$T/upd.out" |
		sed -n 's/^checked [0-9]* pages\{0,1\}: \([0-9]*\) updated, [0-9]* unchanged, \([0-9]*\) failed.*/\1 \2/p'
}
# upd2 DB: two forced checks: "UPDATED FAILED" summed.  A small part
# replaced (a value or two of a page) is held for one check, as in HTML
# (README, "What the antenna treats as an update"): announced at the
# first or the second
upd2() {
	u2a=$(upd "$1")
	u2b=$(upd "$1")
	echo "$(( ${u2a% *} + ${u2b% *} )) $(( ${u2a#* } + ${u2b#* } ))"
}
# api FILE INDENT ORDER PRICE_A STOCK_B [KEY]: a shop's JSON, written by
# python3 with the indent and key order asked (ORDER: "sorted", "reversed"),
# its items in that order too
api() {
	$PY - "$@" <<'PY'
import json, sys
f, indent, order, pa, sb = sys.argv[1:6]
key = sys.argv[6] if len(sys.argv) > 6 else "items"
items = [{"name": "Widget", "price": int(pa), "stock": 5, "sku": "W-1"},
         {"name": "Gadget", "price": 80, "stock": int(sb), "sku": "G-2"}]
doc = {"shop": "Example", "updated": "2026-11-28", key: items, "note": "prices include tax"}
def ordered(o, rev):
    if isinstance(o, dict):
        ks = sorted(o, reverse=rev)
        return {k: ordered(o[k], rev) for k in ks}
    if isinstance(o, list):
        return [ordered(x, rev) for x in (reversed(o) if rev else o)]
    return o
doc = ordered(doc, order == "reversed")
with open(f, "w") as out:
    out.write(json.dumps(doc, indent=int(indent) if indent != "0" else None, ensure_ascii=False))
PY
}

# ---- a JSON API: keys, items and whitespace re-ordered are quiet ----------------
api "$WWW/shop.json" 0 sorted 120 2
printf 'No-Validators: 1\n' > "$WWW/shop.json.hdr"   # a 200 at every check: an API
$A -d "$D" add "$U/shop.json" > /dev/null
is "the first check is a quiet baseline" "$(upd "$D")" "0 0"
api "$WWW/shop.json" 4 reversed 120 2
is "keys and items re-ordered, re-indented: quiet" "$(upd "$D")" "0 0"
check "... the page is read as JSON: its charset UTF-8" sh -c "$A -d '$D' show '$U/shop.json' | grep -q 'charset: *UTF-8'"
api "$WWW/shop.json" 2 sorted 150 2
before=$(date +%s)
is "a price changed (120 -> 150): announced" "$(upd2 "$D")" "1 0"
lm=$(jget "$D" "$U/shop.json" last_modified)
check "... dated when first seen" test "$lm" -ge "$before" -a "$lm" -le "$((before + 2))"
is "... by the text rule" "$(jget "$D" "$U/shop.json" detected_by)" "text"
is "... the excerpt is the changed value, with its path" "$(jget "$D" "$U/shop.json" excerpt)" '$.items[*].price: 150'
$A -d "$D" diff "$U/shop.json" > "$T/diff" 2>&1
check "... the diff shows the old value removed" grep -qx -- '-$.items\[\*\].price: 120' "$T/diff"
check "... and the new one added" grep -qx -- '+$.items\[\*\].price: 150' "$T/diff"
check "... with the item's other values as context" grep -qx -- ' $.items\[\*\].name: Widget' "$T/diff"
$A -d "$D" publish "$T/site" > /dev/null 2>&1
check "... index.html shows the excerpt" grep -q '\$.items\[\*\].price: 150' "$T/site/index.html"
check "... the diff page shows the value changed" grep -q '<p class="add">$.items\[\*\].price: <ins>150</ins></p>' "$T"/site/diff/*.html
api "$WWW/shop.json" 2 sorted 150 2
is "the same data again: quiet" "$(upd "$D")" "0 0"
sed 's/prices include tax/prices exclude tax/' "$WWW/shop.json" > "$T/x" && mv "$T/x" "$WWW/shop.json"
is "a word of a string changed: announced" "$(upd2 "$D")" "1 0"
is "... its excerpt" "$(jget "$D" "$U/shop.json" excerpt)" '$.note: prices exclude tax'

# ---- --only json:PATH ---------------------------------------------------------------
api "$WWW/only.json" 0 sorted 120 2
$A -d "$D" add "$U/only.json" --only 'json:$.items[*].price' > /dev/null
upd "$D" > /dev/null
api "$WWW/only.json" 0 sorted 120 9
is "--only 'json:\$.items[*].price': a stock changed, quiet" "$(upd "$D")" "0 0"
api "$WWW/only.json" 0 sorted 99 9
is "... a price changed: announced" "$(upd2 "$D")" "1 0"
is "... the excerpt is the price" "$(jget "$D" "$U/only.json" excerpt)" '$.items[*].price: 99'
api "$WWW/only.json" 0 sorted 99 9 products
is "... the path stops matching (items renamed): the check fails" "$(upd "$D")" "0 1"
is "... the error names the path" "$(jget "$D" "$U/only.json" last_error)" "only pattern 'json:\$.items[*].price' matches nothing on this page"
is "... the page is failing, not compared as empty" "$(jget "$D" "$U/only.json" state)" "failing"
api "$WWW/only.json" 0 sorted 99 9
is "... back: the check succeeds, no update (nothing changed in the prices)" "$(upd "$D")" "0 0"

# ---- --ignore json:PATH; the patterns carried by export and import --------------------
printf '{"meta": {"request_id": "r1"}, "news": "first"}' > "$WWW/ign.json"
printf 'No-Validators: 1\n' > "$WWW/ign.json.hdr"
$A -d "$D" add "$U/ign.json" --ignore 'json:$..request_id' > /dev/null
upd "$D" > /dev/null
printf '{"meta": {"request_id": "r2"}, "news": "first"}' > "$WWW/ign.json"
is "--ignore 'json:\$..request_id': the id changed, quiet (no re-fetch needed)" "$(upd "$D")" "0 0"
check "... nothing fetched again" sh -c "! grep -q 'fetched again' '$T/upd.out'"
for fmt in opml jsonl; do
	$A -d "$D" export --format $fmt > "$T/export.$fmt"
	rm -f "$T/imp.db"
	$A -d "$T/imp.db" init --base http://antenna.example/ > /dev/null 2>&1
	$A -d "$T/imp.db" import "$T/export.$fmt" > /dev/null 2>&1
	is "export --format $fmt, import: the json: patterns carried" \
		"$(jget "$T/imp.db" "$U/only.json" only)|$(jget "$T/imp.db" "$U/ign.json" ignore)" \
		"['json:\$.items[*].price']|['json:\$..request_id']"
done

# ---- patterns checked when given ------------------------------------------------------
$A -d "$D" add "$U/x.json" --only 'json:$.items[?(@.price>1)]' > /dev/null 2> "$T/err"
is "add --only with a JSONPath filter: refused, exit 2" "$?" 2
check "... the message names the pattern and what is supported" \
	grep -q "bad only pattern 'json:\$.items\[?(@.price>1)\]': filters are not supported.*\$ .key \['key'\] \[n\] \[\*\] ..key" "$T/err"
$A -d "$D" set "$U/shop.json" --ignore 'json:items' > /dev/null 2> "$T/err"
is "set --ignore with a path not starting at \$: refused" "$?:$(grep -c "starts with '\\$'" "$T/err")" "2:1"
printf '<title>t</title><p>an HTML page</p>\n' > "$WWW/page.html"
$A -d "$D" add "$U/page.html" --ignore 'json:$.x' > /dev/null
upd "$D" > /dev/null
is "a json: pattern on an HTML page: the check fails naming it" "$(jget "$D" "$U/page.html" last_error)" \
	"ignore pattern 'json:\$.x' needs a JSON page; this answer is text/html"
$A -d "$D" remove "$U/page.html" > /dev/null

# ---- sniffed, broken, hostile ---------------------------------------------------------------
printf '{"b": [1, 2], "a": "x"}' > "$WWW/plain.txt"
$A -d "$D" add "$U/plain.txt" > /dev/null
upd "$D" > /dev/null
printf '{\n "a": "x",\n "b": [2, 1]\n}\n' > "$WWW/plain.txt"
is "text/plain holding a JSON object: compared by its data (re-ordered: quiet)" "$(upd "$D")" "0 0"
printf '{"b": [2, 1, 3], "a": "x"}' > "$WWW/plain.txt"
is "... a value added: announced" "$(upd "$D")" "1 0"
printf '{"a": 1, "b": ' > "$WWW/shop.json"
is "a JSON answer cut short: a failed check, no update" "$(upd "$D" | cut -d' ' -f1)" "0"
is "... said" "$(jget "$D" "$U/shop.json" last_error)" "cannot read JSON: it ends early"
api "$WWW/shop.json" 2 sorted 150 2
sed 's/prices include tax/prices exclude tax/' "$WWW/shop.json" > "$T/x" && mv "$T/x" "$WWW/shop.json"
is "... whole again, as before the break: quiet (the break left the state alone)" "$(upd "$D" | cut -d' ' -f1)" "0"
$PY -c 'import sys; sys.stdout.write("[" * 100000 + "]" * 100000)' > "$WWW/shop.json"
is "100,000 levels deep: a failed check, bounded" "$(upd "$D" | cut -d' ' -f1):$(jget "$D" "$U/shop.json" fail_kind)" "0:check"
$PY -c 'import sys; sys.stdout.write("[" + ",".join(["0"] * 300000) + "]")' > "$WWW/shop.json"
upd "$D" > /dev/null
check "300,000 values: refused with the limit named" sh -c "$A -d '$D' show '$U/shop.json' | grep -q ANT_PAGE_JSON_MAX_VALUES"

# ---- real software: Mercurial's hgweb serves its log as JSON ---------------------------------
HG=$T/repo
HGPORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
hg init "$HG"
echo one > "$HG/a"
hg -R "$HG" addremove -q && hg -R "$HG" commit -q -u 'alice <a@example.jp>' -d '1795000000 0' -m 'first entry'
(cd "$HG" && exec hg serve -a 127.0.0.1 -p "$HGPORT" -R "$HG" > "$T/hg.log" 2>&1) &
HGPID=$!
trap 'kill $HGPID 2>/dev/null; cleanup' EXIT INT TERM
i=0
until "$HTTPGET" "http://127.0.0.1:$HGPORT/json-log" > /dev/null 2>&1 || [ $i -ge 200 ]; do sleep 0.1; i=$((i + 1)); done
H=http://127.0.0.1:$HGPORT/json-log
HD=$T/hg.db
$A -d "$HD" init --base http://antenna.example/ > /dev/null 2>&1
$A -d "$HD" add "$H" > /dev/null
$A -d "$HD" add "http://127.0.0.1:$HGPORT/json-shortlog" --only 'json:$.changesets[*].desc' > /dev/null
is "hgweb's /json-log (application/json): a quiet baseline" "$(upd "$HD")" "0 0"
is "... checked again, nothing committed: quiet" "$(upd "$HD")" "0 0"
echo two >> "$HG/a"
hg -R "$HG" commit -q -u 'bob <b@example.jp>' -d '1795003600 0' -m 'second entry: the price is now 150'
is "... a commit: both pages announced" "$(upd "$HD")" "2 0"
check "... /json-log's excerpt has the new commit's message" \
	sh -c "$A -d '$HD' list --format jsonl | grep '\"url\":\"$H\"' | grep -q 'second entry'"
is "... --only 'json:\$.changesets[*].desc': the message alone" \
	"$(jget "$HD" "http://127.0.0.1:$HGPORT/json-shortlog" excerpt)" '$.changesets[*].desc: second entry: the price is now 150'
kill $HGPID 2>/dev/null
