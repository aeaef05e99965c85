#!/bin/sh
# A server's Retry-After (antenna(1) POLITENESS), end to end on loopback:
# two tenants of one hosting, a.tenant-one.example and b.tenant-two.example,
# both names of 127.0.0.1 (ANTENNA_RESOLVE), so one server for the limit on
# requests at once; tenant one answers 503 Retry-After: 86400.  The wait is
# tenant one's (its registrable domain), kept and named so: tenant two is
# asked as before.  A lowered --max-retry-after cuts a kept wait and a new
# one; 'set --server HOST --clear-wait' lifts it; 'show' says it holds.
# Against build/tools/testserver (--verbose: every request logged).
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 14
tmpdir antenna-waits
start_server 300 --verbose
P=$(cat "$T/port")
export ANTENNA_RESOLVE="a.tenant-one.example:$P:127.0.0.1 b.tenant-two.example:$P:127.0.0.1"
UA=http://a.tenant-one.example:$P
UB=http://b.tenant-two.example:$P
asked() { grep -c "GET $1 " "$T/server.log"; }
mkdir -p "$WWW/a" "$WWW/b"
for f in a/busy b/1 b/2; do
	printf '<html><head><title>%s</title></head><body><p>%s</p></body></html>\n' $f $f > "$WWW/$f.html"
done
D=$T/w.db
$A -d "$D" init --title Waits > /dev/null
$A -d "$D" add "$UA/a/busy.html" > /dev/null
# tenant one's robots.txt read first, alone: kept (a day), so the next run
# asks robots.txt of tenant two only, which is then first seen at the
# address, and tenant one joins its server
$A -d "$D" update > /dev/null 2>&1
$A -d "$D" add "$UB/b/1.html" > /dev/null
$A -d "$D" add "$UB/b/2.html" > /dev/null
printf 'Status: 503 Service Unavailable\nRetry-After: 86400\nDelay-Ms: 500\n' > "$WWW/a/busy.html.hdr"
$A -d "$D" update --force > /dev/null 2>&1
n=$(asked /a/busy.html)
$A -d "$D" update --force > /dev/null 2>&1
is "503 Retry-After from tenant one: the next run does not ask it" "$(asked /a/busy.html)" "$n"
is "... its neighbour at that address, tenant two, is asked (twice, once a run)" "$(asked /b/1.html) $(asked /b/2.html)" "2 2"
is "... tenant two's pages have no error" "$(jget "$D" "$UB/b/1.html" last_error)" null
e=$(jget "$D" "$UA/a/busy.html" last_error)
case $e in "deferred: tenant-one.example asked us to wait until "*) ok "the deferred page names the one that asked" ;;
	*) notok "the deferred page names the one that asked" "$e" ;; esac
$A -d "$D" show "$UA/a/busy.html" > "$T/show"
check "show says the wait holds and how to lift it" \
	grep -q "^server wait:    tenant-one.example asked us to wait until .*'antenna set --server tenant-one.example --clear-wait' lifts it" "$T/show"
left=$(sed -n 's/^server wait:.*Retry-After, \([0-9]*\) s to go.*/\1/p' "$T/show")
check "... for about a day ($left s)" test "${left:-0}" -gt 86000
check "show of tenant two's page names no wait" sh -c "! $A -d '$D' show '$UB/b/1.html' | grep -q '^server wait:'"

# ---- a lowered maximum applies to the wait kept ------------------------------
$A -d "$D" init --max-retry-after 60 > /dev/null
n=$(asked /a/busy.html)
$A -d "$D" update --force > /dev/null 2>&1
is "init --max-retry-after 60: still waiting within the minute" "$(asked /a/busy.html)" "$n"
left=$($A -d "$D" show "$UA/a/busy.html" | sed -n 's/^server wait:.*Retry-After, \([0-9]*\) s to go.*/\1/p')
check "... the kept day cut to at most 60 s ($left s)" test "${left:-999}" -le 60

# ---- lifted by the operator ----------------------------------------------------
is "set --server HOST --clear-wait lifts it (any name of the domain)" \
	"$($A -d "$D" set --server www.tenant-one.example --clear-wait)" "tenant-one.example: its wait lifted (Retry-After forgotten)"
check "... show names no wait" sh -c "! $A -d '$D' show '$UA/a/busy.html' | grep -q '^server wait:'"
$A -d "$D" update --force > /dev/null 2>&1
is "... the next run asks tenant one again" "$(asked /a/busy.html)" "$((n + 1))"
left=$($A -d "$D" show "$UA/a/busy.html" | sed -n 's/^server wait:.*Retry-After, \([0-9]*\) s to go.*/\1/p')
check "its new Retry-After: 86400 held to --max-retry-after 60 ($left s)" test "${left:-999}" -le 60 -a "${left:-0}" -gt 0
check "set --clear-wait without --server refused" sh -c "! $A -d '$D' set --clear-wait 2>/dev/null"
