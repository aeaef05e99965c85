#!/bin/sh
# Sources you can trust (antenna(1), TRUST): a lying relay
# source that claims, at every read, updates of a watched page our checks
# find unchanged (dated ahead of our clock, within --max-future), and an
# honest one whose claims our checks confirm.  Against the loopback test
# server, the clock driven by --now (a run every 10 minutes): the liar's
# hints cause early checks until 5 claims are judged, then its score is 0,
# its hints cause none and it is held back (its relayed page leaves
# lirs.gz, `update` says so on stderr, list and show say so); the honest
# one scores 100% and its hints still cause early checks; a source never
# dates a page we check, and a page whose checks fail takes a believed
# source's date clamped to our clock.  No page is ever dated after our
# clock.
# test-needs: python3:python3 gzip:gzip touch:coreutils
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
plan 32

command -v gzip > /dev/null || { notok "gzip is installed (mk/deps.sh)"; exit 1; }
server_suite antenna-trust
DB=$T/a.db
T0=$NOW
OLD=$((T0 - 864000))   # the pages last changed 10 days ago: due again in 24 h
at() { echo $((T0 + 600 * $1)); }

# page NAME WORDS: a page whose Last-Modified is OLD (trusted: dates its
# first check), so that it is not due again within these runs
page() {
	printf '<html><head><title>%s</title></head><body><p>%s</p></body></html>\n' "$1" "$2" \
		> "$WWW/$1.html"
	touch -d "@$OLD" "$WWW/$1.html"
}
# change NAME K WORDS: the page's text changes before run K; its
# Last-Modified (later than the server's Date) is not believed: the text rule dates it
change() {
	printf '<html><head><title>%s</title></head><body><p>%s</p><p>%s</p></body></html>\n' \
		"$1" "words of old" "$3" > "$WWW/$1.html"
	touch -d "@$(($(at $2) - 120))" "$WWW/$1.html"
}
# lirs NAME LINES: a gzip LIRS source file from "LM LD URL" lines
lirs() {
	n=$1; shift
	printf '%s\n' "$@" | awk '{ printf "LIRS,%s,%s,32400,100,%s,Title,Peer,0,\n", $1, $2, $3 }' |
		gzip -c > "$WWW/$n.lirs.gz"
}
up() { $A -d "$DB" update --now "$1" --refetch-pause -1 > "$T/up.out" 2> "$T/up.err"; }
field() { jget "$DB" "$U/$1.html" "$2"; }
src_field() {
	$A -d "$DB" list --sources --format jsonl | $PY -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o["url"].endswith(sys.argv[1]):
        v = o[sys.argv[2]]
        print("null" if v is None else str(v).lower())' "$1" "$2"
}
# no page dated after our clock (NOW): how many are
ahead() {
	$A -d "$DB" list --format jsonl | $PY -c '
import json, sys
print(sum(1 for l in sys.stdin if json.loads(l)["last_modified"] > int(sys.argv[1])))' "$1"
}
words="alpha bravo charlie delta echo foxtrot golf"

$A -d "$DB" init --title trust --base http://ant.example/ > /dev/null
page w "the liar says this page changes at every read"
page f "a page whose checks fail"
printf 'Status: 500 Internal Server Error\n' > "$WWW/f.html.hdr"
for k in 1 2 3 4 5 6; do page h$k "honest page $k words of old"; done
page g "a page whose checks start failing at run 6"
for p in w f g h1 h2 h3 h4 h5 h6; do $A -d "$DB" add "$U/$p.html" > /dev/null; done
check "first checks: the baseline" up "$T0"
is "the liar's page is dated by its own Last-Modified" "$(field w last_modified)" "$OLD"
$A -d "$DB" add --lirs "$U/liar.lirs.gz" --relay > /dev/null
$A -d "$DB" add --lirs "$U/honest.lirs.gz" > /dev/null

# runs 1-5: the liar claims w changed (30 min ahead of our clock) and
# relays a page not watched here; the honest source tells of h1..h5, each
# changed before that run, and of f, ahead of our clock, at run 1
early=0 confirmed=0 dated=0 clock=0
for k in 1 2 3 4 5; do
	t=$(at $k)
	lirs liar "$((t + 1800)) $t $U/w.html" "$((t - 60)) $t http://unwatched.example/r.html"
	change h$k $k "news $(echo $words | cut -d' ' -f$k)"
	if [ $k = 1 ]; then
		lirs honest "$((t - 120)) $((t - 100)) $U/h$k.html" "$((t + 1800)) $t $U/f.html"
	else
		lirs honest "$((t - 120)) $((t - 100)) $U/h$k.html"
	fi
	up "$t"
	[ "$(field w last_check)" = "$t" ] && early=$((early + 1))
	[ "$(field h$k last_check)" = "$t" ] && [ "$(field h$k last_modified)" = "$t" ] &&
		confirmed=$((confirmed + 1))
	[ "$(field w last_modified)" = "$OLD" ] && dated=$((dated + 1))
	[ "$(ahead "$t")" = 0 ] && clock=$((clock + 1))
	[ $k = 1 ] && { $A -d "$DB" publish --now "$t" "$T/site1" > /dev/null 2>&1
		$A -d "$DB" show "$U/f.html" > "$T/f.show"; }
done
is "runs 1-5: each liar's hint caused an early check of its page" "$early" 5
is "runs 1-5: each honest hint caused an early check that found the change" "$confirmed" 5
is "runs 1-5: the liar never dated the page we check" "$dated" 5
is "runs 1-5: no page dated after our clock" "$clock" 5
is "the failing page took the honest source's date, clamped to our clock" \
	"$(field f detected_by) $(field f source_url) $(field f last_modified)" "lirs $U/honest.lirs.gz $(at 1)"
check "show says that date is the source's, not ours" grep -q "detected by: *lirs (the date is a LIRS source's, not ours" "$T/f.show"
check "while believed, the liar's relayed page is published" \
	sh -c "gzip -dc '$T/site1/lirs.gz' | grep -q unwatched.example/r.html"
check "after run 5, no source held back yet" sh -c "! grep -q 'held back' '$T/up.err'"
is "the liar's score: 0 (5 of 5 claims refuted)" "$(src_field liar.lirs.gz trust) $(src_field liar.lirs.gz trust_refuted)" "0 5"
is "the honest source's score: 100 (5 confirmed)" "$(src_field honest.lirs.gz trust) $(src_field honest.lirs.gz trust_confirmed)" "100 5"
is "the honest source's skew: -120 s (it knew 2 minutes before our check)" "$(src_field honest.lirs.gz trust_skew)" "-120"
is "the liar's claims ahead of our clock are counted" "$(src_field liar.lirs.gz trust_ahead)" 5

# run 6: the liar lies again (of f too); the honest source tells of h6
t=$(at 6)
lirs liar "$((t + 1800)) $t $U/w.html" "$((t - 60)) $t http://unwatched.example/r.html" "$((t + 1800)) $t $U/f.html"
change h6 6 "news $(echo $words | cut -d' ' -f6)"
lirs honest "$((t - 120)) $((t - 100)) $U/h6.html" "$((t - 90)) $((t - 80)) $U/g.html"
printf 'Status: 503 Service Unavailable\n' > "$WWW/g.html.hdr"
up "$t"
is "run 6: a page whose check fails in the run that read the source's record takes its date at once" \
	"$(field g detected_by) $(field g source_url) $(field g last_modified)" "lirs $U/honest.lirs.gz $((t - 90))"
is "run 6: the liar's hint causes no early check (its page waits for its schedule)" \
	"$(field w last_check)" "$(at 5)"
is "run 6: the honest hint still causes an early check that finds the change" \
	"$(field h6 last_check) $(field h6 last_modified)" "$t $t"
is "run 6: the liar does not date the page whose checks fail" "$(field f last_modified)" "$(at 1)"
is "run 6: the liar's page is still dated by us" "$(field w last_modified)" "$OLD"
is "run 6: no page dated after our clock" "$(ahead "$t")" 0
check "update tells on stderr that the liar is held back" grep -q "held back: $U/liar.lirs.gz: trust 0%" "$T/up.err"
is "list --sources (jsonl): the liar held, its hints off" \
	"$(src_field liar.lirs.gz held) $(src_field liar.lirs.gz hints)" "true false"
is "list --sources (jsonl): the honest source neither" \
	"$(src_field honest.lirs.gz held) $(src_field honest.lirs.gz hints)" "false true"
$A -d "$DB" list --sources > "$T/sources.txt"
check "list --sources (text): the liar's line says HELD BACK" grep -q "liar.lirs.gz.*trust 0% of 5 claims confirmed.*HELD BACK" "$T/sources.txt"
check "list --sources (text): the honest line says 100%" grep -q "honest.lirs.gz.*trust 100% of 6 claims confirmed, skew -120 s" "$T/sources.txt"
$A -d "$DB" show "$U/liar.lirs.gz" > "$T/liar.show"
check "show SOURCE: the liar's score" grep -q "^trust: *0% of 5 claims confirmed" "$T/liar.show"
check "show SOURCE: held back since run 6" grep -q "^held back: *[0-9]" "$T/liar.show"
$A -d "$DB" publish --now "$t" "$T/site6" > /dev/null 2>&1
check "held back: its relayed page is no longer published" \
	sh -c "! gzip -dc '$T/site6/lirs.gz' | grep -q unwatched.example"
check "the pages we check are still published" sh -c "gzip -dc '$T/site6/lirs.gz' | grep -q '$U/h6.html'"

$A -d "$DB" add http://unwatched.example/r.html > /dev/null
is "a page added later takes no date from a source whose hints are ignored" \
	"$(jget "$DB" http://unwatched.example/r.html last_modified)" 0

# the thresholds are the operator's: --trust-hint 0 believes every source again
$A -d "$DB" init --trust-hint 0 --trust-relay 0 > /dev/null
t=$(at 7)
lirs liar "$((t + 1800)) $t $U/w.html"
up "$t"
is "init --trust-hint 0: the liar's hint causes an early check again" "$(field w last_check)" "$t"
is "init --trust-relay 0: the liar is no longer held" "$(src_field liar.lirs.gz held)" "false"
