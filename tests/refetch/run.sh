#!/bin/sh
# The second fetch (antenna(1) --refetch-pause), end to end on loopback:
# when a page's news is all in small parts, it is fetched again after the
# pause, so that a word made per request (a form token, a random id) is
# told from its author's edit -- unless the page held still at its last
# two checks (found as the check before, clocks aside; a 304 counts): then
# no such word is there to find, and the change is decided on its one
# answer.
#   still.html   held still two checks, then one word edited: asked once in
#                that run, announced at once; show says why the second
#                fetch was skipped; the summary counts it
#   once.html    held still one check only, then one word edited: fetched
#                again (a word drawn per request from a few repeats by
#                chance at one check in a few)
#   token.html   a per-request token in its text (the server's Token:
#                directive): never still, so fetched again at every check
#                its text seemed changed; never announced for the token;
#                an edit of its words announced
#   moving.html  edited at two checks running: not still at the second,
#                fetched again there
#   later.html   held still, then a per-request token appears in a sentence
#                of it: announced at most once (not fetched again, the
#                page had held still), then fetched again at the next check
#                (it is not still any more) and the token's words learned
# Against build/tools/testserver (--verbose: every request logged); the
# antenna's clock by --now, an hour between checks.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 18
tmpdir antenna-refetch
start_server 300 --verbose
NOW=1700000000
D=$T/r.db

# page FILE WORD [EXTRA]: a club's diary page (each page its own club and
# words: nothing shared, so no furniture) whose third sentence holds WORD;
# EXTRA: one more paragraph in the entry
page() {
	club=${1%.html}
	cat > "$WWW/$1" <<EOF
<html><head><title>The $club club's diary</title></head><body>
<div class="entry"><h2>This week at the $club club</h2>
<p>The $club club met on Tuesday evening and talked about its plans for $club season.</p>
<p>Everyone in the $club club agreed that $club practice is the nicest in April.</p>
<p>The next $club meeting is in the $2 room of the $club hall, as usual.</p>
${3:-}
</div></body></html>
EOF
}
# check N: the antenna's check N (an hour apart), its summary in $T/out
# and its verbose log in $T/log
TOK_UP=0 LATER_UP=0
check_n() {
	$A -d "$D" update --force --now $((NOW + 3600 * $1)) --refetch-pause 50 -v >"$T/out" 2>"$T/log"
	[ -n "${DEBUG:-}" ] && { echo "# check $1: $(cat "$T/out")"; grep updated "$T/log" | sed 's/^/#   /'; }
	TOK_UP=$((TOK_UP + $(announced token.html)))
	LATER_UP=$((LATER_UP + $(announced later.html)))
}
announced() { grep -c "^$U/$1: updated" "$T/log"; }

TOKEN='<p>Your form key is XTOKENX for this visit only, please keep it.</p>'
page still.html blue
page once.html blue
page token.html blue "$TOKEN"
printf 'Token: XTOKENX\n' > "$WWW/token.html.hdr"
page moving.html blue
page later.html blue '<p>Your later club visit key is none, as on every day of the week.</p>'
$A -d "$D" init --title Refetch --base http://example.com/ant/ > /dev/null
for f in still once token moving later; do $A -d "$D" add "$U/$f.html" > /dev/null; done

# baseline; then moving.html edited at once: it has no still check to
# show (its first check was the baseline)
check_n 0
page moving.html green
check_n 1
is "moving.html edited right after its baseline (not still yet): fetched again" "$(asked /moving.html)" 3
n_moving=$(asked /moving.html)

# ---- edited at two checks running; held still one check only ----------------
page moving.html yellow
page once.html green
n_once=$(asked /once.html)
check_n 2
is "moving.html edited again at the next check (not still): fetched again" \
	"$(asked /moving.html)" $((n_moving + 2))
is "once.html held still one check, then one word edited: fetched again" "$(asked /once.html)" $((n_once + 2))
check "... the summary counts no change decided without a second fetch" \
	sh -c "! grep -q 'without a second fetch' '$T/out'"
check "... show says nothing of a skipped second fetch" \
	sh -c "! $A -d '$D' show '$U/once.html' | grep -q '^  second fetch:'"

# ---- a page still two checks, edited: one request, announced at once ---------
page still.html green
n_still=$(asked /still.html)
check_n 3
is "still.html held still two checks, one word edited: asked once in that run" "$(asked /still.html)" $((n_still + 1))
is "... announced in that check" "$(announced still.html)" 1
check "... the summary counts it: 1 decided without a second fetch (held still)" \
	grep -q "; 1 decided without a second fetch (held still)" "$T/out"
$A -d "$D" show "$U/still.html" > "$T/show"
check "... show says the second fetch was skipped and why" \
	grep -q "^  second fetch: skipped .*: the page held still" "$T/show"
is "... its excerpt is the edit" "$(jget "$D" "$U/still.html" excerpt)" \
	"The next still meeting is in the green room of the still hall, as usual."

# ---- a per-request token: never still, always fetched again ------------------
check "token.html: a token at every request, fetched again (a word made per request found)" \
	test "$(asked /token.html)" -gt 4
page later.html blue '<p>Your later club visit key is XTOKENX, as on every day of the week.</p>'
printf 'Token: XTOKENX\n' > "$WWW/later.html.hdr"
LATER_UP=0
check_n 4
check "later.html: still, then a token appeared: not fetched again in that check" \
	grep -q "; 1 decided without a second fetch (held still)" "$T/out"
check_n 5
is "token.html: never announced for its token (checks 1-5)" "$TOK_UP" 0
page token.html green "$TOKEN"
check_n 6
check_n 7
is "... its words edited: announced once (in that check or the next)" "$TOK_UP" 1
$A -d "$D" show "$U/token.html" > "$T/show"
check "... its show names no skipped second fetch" sh -c "! grep -q '^  second fetch:' '$T/show'"
check "... and the token is learned as ignored words" grep -q "^  ignored words:" "$T/show"
check "later.html: the token that appeared announced once at most (checks 4-7: $LATER_UP)" \
	test "$LATER_UP" -le 1
$A -d "$D" show "$U/later.html" > "$T/show"
check "... then fetched again, its words learned as ignored words" grep -q "^  ignored words:" "$T/show"
