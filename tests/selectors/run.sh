#!/bin/sh
# Selectors for parts of a page, end to end against the loopback server
# (tests/tools/testserver.c): --only 'css:...', 'xpath:...', --range
# 'START...END' on hand-made pages (a shop whose price is in
# span[itemprop=price], a table row by :nth-child, a list by XPath, a
# club page's range); a change inside the part named is announced in that
# same check, numbers included (the whole page watched, having held
# still, announces the same price change at once too: stillness); a
# selector that stops matching fails the check
# naming itself, and the page recovers when it matches again; hostile
# selectors refused with the bad part named; and a page Debian's sphinx
# builds, watched as --only '.body' and as --only 'css:.body' in two
# databases, decided alike check for check.
# test-needs: python3:python3 sphinx-build:python3-sphinx
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 37
server_suite selectors-test
D=$T/s.db
$A -d "$D" init >/dev/null 2>&1
# page NAME HTML: $U/NAME/ serves HTML without validators (a CGI page)
page() {
	mkdir -p "$WWW/$1"
	printf '%s\n' "$2" > "$WWW/$1/index.html"
	printf 'No-Validators: 1\n' > "$WWW/$1/index.html.hdr"
}
upd() { $A -d "$1" update --force --now "$2" >"$T/upd" 2>&1; }
lm() { jget "${2:-$D}" "$U/$1/" last_modified; }
err() { jget "${2:-$D}" "$U/$1/" last_error; }
excerpt() { jget "${2:-$D}" "$U/$1/" excerpt; }
# has NAME TEXT PART: ok when TEXT holds PART
has() { case $2 in *"$3"*) ok "$1" ;; *) notok "$1" "got '$2'" "want '$3' in it" ;; esac; }

# shop PRICE [PRICE-ELEMENT] [NAV]: a shop page, the price in its element
shop() {
	page "$1" "<html><head><title>Tea shop</title></head><body>
<div id=\"nav\"><a href=\"/\">Home</a> <a href=\"/cart\">Cart (${4:-0})</a></div>
<div class=\"product\"><h1>Green tea, 100 g</h1><p>Fresh leaves from Shizuoka, picked in May.</p>
<p>Price: ${3:-<span itemprop=\"price\">$2</span>}円 (tax included)</p></div>
<div class=\"foot\">Tea shop Midori, since 1952.</div></body></html>"
}
table() {
	page table "<html><head><title>Rates</title></head><body><h1>Rates</h1>
<table class=\"rates\"><tr><th>Plan</th><th>Monthly</th></tr>
<tr><td>Basic</td><td>$1 yen</td></tr><tr><td>Pro</td><td>$2 yen</td></tr></table>
<p>Updated by the office.</p></body></html>"
}
news() {
	page news "<html><head><title>Club</title></head><body><div id=\"news\"><ul>
<li>$1</li><li>Meeting notes for October are online.</li></ul></div>
<div id=\"ad\"><p>$2</p></div></body></html>"
}
club() {
	page club "<html><head><title>Go club</title></head><body><p>Welcome to the go club.</p>
<p>Next meeting: $1 at $2.</p><p>Contact: the secretary. Visitors: $3</p></body></html>"
}

# ---- each kind: a change inside the part is news at once, outside none --------
shop shop 120
shop whole 120
table 3000 5000
news "The autumn tournament is on 12 November." "Buy apples"
club "3 December" "the library" 12
check "add --only 'css:span[itemprop=price]'" $A -d "$D" add "$U/shop/" --only 'css:span[itemprop=price]'
check "add (the whole page watched)" $A -d "$D" add "$U/whole/"
check "add --only 'css:table.rates tr:nth-child(3)'" $A -d "$D" add "$U/table/" --only 'css:table.rates tr:nth-child(3)'
check "add --only 'xpath://div[@id=\"news\"]/ul/li[1]'" $A -d "$D" add "$U/news/" --only 'xpath://div[@id="news"]/ul/li[1]'
check "add --range 'Next meeting:...Contact'" $A -d "$D" add "$U/club/" --range 'Next meeting:...Contact'
is "--range is stored as the --only pattern range:START...END" "$(jget "$D" "$U/club/" only)" "['range:Next meeting:...Contact']"
check "show prints it as the pattern" sh -c "$A -d '$D' show '$U/club/' | grep -q '^only: *range:Next meeting:\.\.\.Contact'"
upd "$D" "$NOW"
upd "$D" $((NOW + 600))
is "a quiet check: no update (css:)" "$(lm shop)" 0
# outside the parts: the nav's cart count, the other row, the second item, the visitors
shop shop 120 "" 3
shop whole 120
table 3100 5000
news "The autumn tournament is on 12 November." "Buy pears"
club "3 December" "the library" 15
upd "$D" $((NOW + 1200))
is "css: a change outside the part (the cart's count) is no update" "$(lm shop)" 0
is ":nth-child: a change in another row is no update" "$(lm table)" 0
is "xpath: a change outside the item is no update" "$(lm news)" 0
is "range: a change after the END marker is no update" "$(lm club)" 0
# inside: 120円 -> 150円, the Pro rate, the first item, the date
shop shop 150
shop whole 150
table 3100 5500
news "The autumn tournament moves to 19 November." "Buy pears"
club "10 December" "the library" 15
upd "$D" $((NOW + 1800))
is "css: the price 120円 -> 150円 is announced in that same check" "$(lm shop)" $((NOW + 1800))
has "... its excerpt shows the new price" "$(excerpt shop)" 150
is "... the whole page watched, still for two checks, announces it at once too (stillness)" "$(lm whole)" $((NOW + 1800))
is ":nth-child: the row's new rate is announced at once" "$(lm table)" $((NOW + 1800))
is "xpath: the first item's change is announced" "$(lm news)" $((NOW + 1800))
is "range: the next meeting's new date is announced at once" "$(lm club)" $((NOW + 1800))
shop shop 180
upd "$D" $((NOW + 2400))
is "css: the price again (180円): announced again, never learned as a counter" "$(lm shop)" $((NOW + 2400))
upd "$D" $((NOW + 3000))
is "... and a quiet check after it is no update" "$(lm shop)" $((NOW + 2400))

# ---- a selector that stops matching: a failed check naming it, then recovery ---
shop shop 180 '<span class="amount">180</span>'
club "10 December" "the library" 15
sed -i 's/Contact:/Write to:/' "$WWW/club/index.html"
upd "$D" $((NOW + 3600))
is "the price's element renamed: the check fails naming the selector" "$(err shop)" \
	"--only 'css:span[itemprop=price]' matched nothing on the page: has its layout changed?"
is "... no update from an empty part" "$(lm shop)" $((NOW + 2400))
is "a range's END marker gone: the check fails naming the range" "$(err club)" \
	"--only 'range:Next meeting:...Contact' matched nothing on the page: has its layout changed?"
check "... show says it" sh -c "$A -d '$D' show '$U/shop/' | grep -q 'matched nothing on the page'"
shop shop 180
club "10 December" "the library" 15
upd "$D" $((NOW + 4200))
is "the selector matches again: the error is gone" "$(err shop):$(err club)" "null:null"
is "... and nothing is announced for the return" "$(lm shop):$(lm club)" "$((NOW + 2400)):$((NOW + 1800))"

# ---- set --range, and patterns refused with the bad part named ----------------
check "set --range replaces the --only list" $A -d "$D" set "$U/club/" --range 'Welcome...Contact'
is "... stored as range:" "$(jget "$D" "$U/club/" only)" "['range:Welcome...Contact']"
$A -d "$D" add "$U/bad1/" --only 'css:span[itemprop=' 2>"$T/err"
is "a css: selector cut short: refused (exit 2)" "$?:$(grep -c "expected a name at '(end)'" "$T/err")" "2:1"
$A -d "$D" add "$U/bad2/" --only 'css:p:hover' 2>"$T/err"
is "an unknown pseudo-class: refused, named" "$?:$(grep -c 'unknown pseudo-class' "$T/err")" "2:1"
$A -d "$D" add "$U/bad3/" --only 'xpath://div[' 2>"$T/err"
is "an unbalanced xpath: refused" "$?:$(grep -c "bad only pattern 'xpath://div\['" "$T/err")" "2:1"
$A -d "$D" add "$U/bad4/" --only "css:$($PY -c 'print("div " * 600)')" 2>"$T/err"
is "a huge selector: refused as too long" "$?:$(grep -c 'too long' "$T/err")" "2:1"
$A -d "$D" add "$U/bad5/" --range 'no markers' 2>"$T/err"
is "--range without '...': refused" "$?:$(grep -c 'a range is START...END' "$T/err")" "2:1"
$A -d "$D" set "$U/club/" --only "xpath:$($PY -c 'print("(" * 400)')" 2>"$T/err"
is "set: a deeply nested xpath refused, no crash" "$?" 2

# ---- a page Debian's sphinx builds: --only '.body' and 'css:.body' alike -------
mkdir -p "$T/hb" "$WWW/hb"
rst() {
	printf 'Plum Handbook\n=============\n\nThe garden club'"'"'s handbook.\n\nMarket\n------\n\nThe spring market opens at 9:00 on %s.\nPlum jam costs %s yen a jar.\n\nNews\n----\n\n%s\n' \
		"$1" "$2" "$3" > "$T/hb/index.rst"
	printf "project = 'Plum Handbook'\ncopyright = '2026, Hanako'\nhtml_theme = 'classic'\n" > "$T/hb/conf.py"
	sphinx-build -q -E -b html "$T/hb" "$WWW/hb" >"$T/sphinx.log" 2>&1 || notok "sphinx-build" "$(cat "$T/sphinx.log")"
	printf 'No-Validators: 1\n' > "$WWW/hb/index.html.hdr"
}
rst "12 April" 400 "Nothing new."
D1=$T/sax.db
D2=$T/tree.db
$A -d "$D1" init >/dev/null 2>&1
$A -d "$D2" init >/dev/null 2>&1
$A -d "$D1" add "$U/hb/" --only '.body' >/dev/null
$A -d "$D2" add "$U/hb/" --only 'css:.body' >/dev/null
same=0
step=0
for edit in "12 April|400|Nothing new." "12 April|450|Nothing new." "12 April|450|Nothing new." \
	"19 April|450|Nothing new." "19 April|450|The club has a new greenhouse." "19 April|450|The club has a new greenhouse."; do
	step=$((step + 1))
	rst "${edit%%|*}" "$(echo "$edit" | cut -d'|' -f2)" "${edit##*|}"
	upd "$D1" $((NOW + step * 900))
	upd "$D2" $((NOW + step * 900))
	a="$(lm hb "$D1")|$(excerpt hb "$D1")|$(err hb "$D1")"
	b="$(lm hb "$D2")|$(excerpt hb "$D2")|$(err hb "$D2")"
	[ "$a" = "$b" ] && same=$((same + 1)) || echo "# step $step: '$a' vs '$b'"
	[ $step = 2 ] && price_lm=$(lm hb "$D2")
done
is "sphinx's page: --only '.body' and 'css:.body' decide its 6 checks alike" "$same" 6
is "... and the jam's price 400 -> 450 was announced in its check" "$price_lm" $((NOW + 2 * 900))
has "... the greenhouse too (the last announcement's excerpt)" "$(excerpt hb "$D2")" greenhouse
