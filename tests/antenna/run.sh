#!/bin/sh
# End-to-end tests of the antenna command against build/tools/testserver on
# 127.0.0.1, with pages written into a temporary directory.  Each check
# prints "ok - name" or "not ok - name".  Needs $ANTENNA and $TOP
# (tests/run.sh exports them); /usr/bin/python3 reads the JSON Lines;
# build/tools/httpget (ours, not curl) talks to the server's /_control.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 142
tmpdir antenna-test
start_server 300
for x in "$HTTPGET" "$PY"; do
	[ -x "$x" ] || command -v "$x" >/dev/null || { notok "'$x' is installed (make check builds or installs it)"; exit 1; }
done
NOW=$(date +%s)

# ---- init, add, list, show, remove ------------------------------------------
D=$T/a.db
check "init creates the database" $A -d "$D" init --title "Test antenna" --base http://example.com/ant/
check "add a page" $A -d "$D" add "$U/p.html" --title "P" --author "Au" --group "G1"
$A -d "$D" add "$U/p.html" 2>/dev/null
is "adding a page twice fails with 2" $? 2
# A negative check names the failure it expects: exit status and message,
# so that a crash or a missing program is not taken for a refusal.
$A -d "$D" add "HTTP://127.0.0.1:$(cat "$T/port")/p.html" > /dev/null 2> "$T/err"
is "add with the same key (case of host, default port) is refused: exit 2, already watched" \
	"$?:$(grep -c "is already watched" "$T/err")" "2:1"
for bad in "ftp://example.com/" "example.com/x" "/relative" "file:///etc/passwd" "http://"; do
	$A -d "$D" add "$bad" 2>"$T/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "is not an absolute http or https URL" "$T/err"; then ok "refused '$bad'"; else notok "refused '$bad'" "rc $rc" "$(cat "$T/err")"; fi
done
$A -d "$D" add "$U/q.html" --ignore '(' 2>"$T/err"
is "a bad ignore pattern is refused" $? 2
check "add a LIRS source" $A -d "$D" add --lirs "$U/peer.lirs"
$A -d "$D" list --format jsonl > "$T/list.jsonl"
$PY - "$T/list.jsonl" <<'EOF' && ok "list --format jsonl has the documented keys and types" || notok "list --format jsonl has the documented keys and types" "$(cat "$T/list.jsonl")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 1, rows
o = rows[0]
for k in ("url", "title", "author", "group", "source_url"):
    assert isinstance(o[k], str), k
for k in ("last_modified", "last_detected"):
    assert isinstance(o[k], int) and o[k] == 0, k
assert o["detected_by"] is None and o["last_error"] is None
assert o["title"] == "P" and o["author"] == "Au" and o["group"] == "G1"
EOF
check "show a page" sh -c "$A -d '$D' show '$U/p.html' | grep -q 'title: *P (set by user)'"
check "show a source" sh -c "$A -d '$D' show '$U/peer.lirs' | grep -q 'lirs source:'"
$A -d "$D" show "$U/nothing.html" 2>/dev/null
is "show of an unknown URL exits 1" $? 1
check "remove a page" $A -d "$D" remove "$U/p.html"
check "remove a source" $A -d "$D" remove "$U/peer.lirs"
is "list is empty after remove (list exits 0, prints nothing)" "$($A -d "$D" list > "$T/list.out"; echo $?):$(wc -c < "$T/list.out")" "0:0"
check "--help everywhere" sh -c "for c in add check-db init list publish remove run show update; do $A \$c --help | grep -q usage || exit 1; done"
check "--version" sh -c "$A --version | grep -q antenna"
check "help COMMAND = COMMAND --help" sh -c "$A help show > '$T/h1' && $A show --help > '$T/h2' && cmp -s '$T/h1' '$T/h2'"
# The kit's strict numbers (cmd/cli.c): no sign on a byte count, no blanks.
$A -d "$D" update --max-body +8M > /dev/null 2> "$T/err"
is "update --max-body +8M exits 2" $? 2
check "update --max-body +8M is named" grep -qx "antenna update: --max-body: '+8M' is not a byte count" "$T/err"
$A -d "$D" import --max-bytes " 1K" /dev/null > /dev/null 2> "$T/err"
is "import --max-bytes ' 1K' exits 2" $? 2
check "import --max-bytes ' 1K' is named" grep -qx "antenna import: --max-bytes: ' 1K' is not a byte count" "$T/err"
$A -d "$D" update --jobs " 2" > /dev/null 2> "$T/err"
is "update --jobs ' 2' exits 2" $? 2
check "update --jobs ' 2' is named" grep -qx "antenna update: --jobs: ' 2' is not an integer" "$T/err"
$A -d "$D" frobnicate > /dev/null 2> "$T/err"
is "unknown command exits 2" $? 2
check "unknown command is named" grep -qx "antenna: unknown command 'frobnicate'" "$T/err"
$A -d "$T/none.db" list > "$T/out" 2> "$T/err"
rc=$?
if [ -n "${ANTENNA_TEST_PG:-}" ]; then   # a PostgreSQL database exists, without tables
	is "-d is needed for an existing database: exit 2, run 'antenna init' first" \
		"$rc:$(grep -c "'$(dbname "$T/none.db")' is not an antenna database (it has no antenna tables): create them with 'antenna -d .* init'" "$T/err"):$(wc -c < "$T/out")" "2:1:0"
else
	is "-d is needed for an existing database: exit 2, run 'antenna init' first" \
		"$rc:$(grep -c "cannot open database '$T/none.db': No such file or directory (run 'antenna init' first)" "$T/err"):$(wc -c < "$T/out")" "2:1:0"
fi
check "ANTENNA_DB names the database" sh -c "ANTENNA_DB='$D' $A list"

# ---- detection rules ------------------------------------------------------------
D=$T/b.db
$A -d "$D" init >/dev/null
# header: a fixed Last-Modified well before Date
printf '<title>Head</title><p>one</p>\n' > "$WWW/head.html"
printf 'Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT\n' > "$WWW/head.html.hdr"
# dynamic: Last-Modified == Date
printf '<title>Dyn</title><p>one</p>\n' > "$WWW/dyn.html"
printf 'Date: now\nLast-Modified: now\n' > "$WWW/dyn.html.hdr"
# ignored parts: no validators, so only the text can tell
printf '<html><head><title>Ign</title></head><body><p>stay</p><div id="ad">ad one</div><span class="clock">10:00</span></body></html>\n' > "$WWW/ign.html"
printf 'No-Validators: 1\n' > "$WWW/ign.html.hdr"
# size: not HTML, no validators
printf 'abc\n' > "$WWW/plain.txt"
printf 'No-Validators: 1\nContent-Type: text/plain\n' > "$WWW/plain.txt.hdr"
# 304 and validators
printf '<title>Cond</title><p>same</p>\n' > "$WWW/cond.html"
printf 'Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT\n' > "$WWW/cond.html.hdr"
# 412 to conditional requests
printf '<title>Pre</title><p>same</p>\n' > "$WWW/pre.html"
printf 'Precondition-Failed: 1\n' > "$WWW/pre.html.hdr"
# errors
printf 'Status: 404 Not Found\n' > "$WWW/e404.html.hdr"
printf 'Status: 410 Gone\n' > "$WWW/e410.html.hdr"
printf 'Status: 429 Too Many Requests\nRetry-After: 7200\n' > "$WWW/e429.html.hdr"
printf 'Redirect: /loop.html\n' > "$WWW/loop.html.hdr"
printf '<p>slow</p>\n' > "$WWW/slow.html"
printf 'Delay-Ms: 4000\n' > "$WWW/slow.html.hdr"
for p in head.html dyn.html ign.html plain.txt cond.html pre.html e404.html e410.html loop.html slow.html; do
	$A -d "$D" add "$U/$p" >/dev/null
done
$A -d "$D" remove "$U/ign.html" >/dev/null
$A -d "$D" add "$U/ign.html" --ignore '#ad' --ignore '.clock' >/dev/null

$A -d "$D" update --now "$NOW" --timeout 2 > "$T/out" 2>"$T/err"
is "update exits 0 while some pages fail" $? 0
# a new page's first check is a quiet baseline: none is counted as updated
check "update prints a one-line summary" grep -q "checked 10 pages: 0 updated, 6 unchanged, 4 failed" "$T/out"
is "first check takes a trusted Last-Modified" "$(jget "$D" "$U/head.html" last_modified)" 1704067200
is "first check with a trusted header is detected by header" "$(jget "$D" "$U/head.html" detected_by)" header
is "first check, Last-Modified == Date: the time is unknown, not the check's" "$(jget "$D" "$U/dyn.html" last_modified)" 0
is "first check, Last-Modified == Date: no rule" "$(jget "$D" "$U/dyn.html" detected_by)" null
is "last_detected is the check time (--now)" "$(jget "$D" "$U/dyn.html" last_detected)" "$NOW"
is "title from <title>" "$(jget "$D" "$U/dyn.html" title)" Dyn
is "404 recorded" "$(jget "$D" "$U/e404.html" last_error)" "404 Not Found"
is "410 recorded" "$(jget "$D" "$U/e410.html" last_error)" "410 Gone"
# a 429 with Retry-After keeps the whole server waiting (antenna(1)
# SCHEDULING, tests/polite): in a database of its own
$A -d "$T/e429.db" init --allow-private --base http://antenna.example.jp/ >/dev/null
$A -d "$T/e429.db" add "$U/e429.html" >/dev/null
$A -d "$T/e429.db" update --now "$NOW" >/dev/null 2>&1
is "429 recorded" "$(jget "$T/e429.db" "$U/e429.html" last_status)" 429
is "429 Retry-After honoured" "$(jget "$T/e429.db" "$U/e429.html" next_check)" $((NOW + 7200))
e=$(jget "$D" "$U/loop.html" last_error)
if [ "$e" != null ] && [ -n "$e" ]; then ok "redirect loop recorded ($e)"; else notok "redirect loop recorded" "$e"; fi
e=$(jget "$D" "$U/slow.html" last_error)
if [ "$e" != null ] && [ -n "$e" ]; then ok "timeout recorded ($e)"; else notok "timeout recorded" "$e"; fi
is "an error keeps last_modified at 0" "$(jget "$D" "$U/e404.html" last_modified)" 0
check "show tells the last error" sh -c "$A -d '$D' show '$U/e410.html' | grep -q 'last error: *410 Gone'"
check "show has the stored ETag" sh -c "$A -d '$D' show '$U/cond.html' | grep -q 'etag: *\"'"
check "show has the stored Last-Modified" sh -c "$A -d '$D' show '$U/cond.html' | grep -q 'last-modified: *[A-Z][a-z][a-z], '"

# Second run, nothing changed: 304 for the pages with validators.
N2=$((NOW + 3600))
$A -d "$D" update --now "$N2" --force --timeout 2 > "$T/out" 2>&1
is "304 answered to the echoed validators" "$(jget "$D" "$U/cond.html" last_status)" 304
is "304 leaves last_modified alone" "$(jget "$D" "$U/cond.html" last_modified)" 1704067200
is "304 refreshes last_detected" "$(jget "$D" "$U/cond.html" last_detected)" "$N2"
is "412 retried unconditionally" "$(jget "$D" "$U/pre.html" last_status)" 200
is "412 retry is no error" "$(jget "$D" "$U/pre.html" last_error)" null
is "404 counted twice" "$(jget "$D" "$U/e404.html" error_count)" 2

# Changes.
printf '<title>Head</title><p>two</p>\n' > "$WWW/head.html"
printf 'Last-Modified: Tue, 02 Jan 2024 00:00:00 GMT\n' > "$WWW/head.html.hdr"
printf '<title>Dyn</title><p>two</p>\n' > "$WWW/dyn.html"
printf '<html><head><title>Ign</title></head><body><p>stay</p><div id="ad">ad two, longer</div><span class="clock">11:00</span></body></html>\n' > "$WWW/ign.html"
printf 'abcdef\n' > "$WWW/plain.txt"
N3=$((NOW + 7200))
$A -d "$D" update --now "$N3" --force --timeout 2 > "$T/out" 2>&1
is "newer Last-Modified: header" "$(jget "$D" "$U/head.html" detected_by)" header
is "header rule takes the header's time" "$(jget "$D" "$U/head.html" last_modified)" 1704153600
is "Last-Modified == Date not trusted: text" "$(jget "$D" "$U/dyn.html" detected_by)" text
is "text rule: update time is the detection time" "$(jget "$D" "$U/dyn.html" last_modified)" "$N3"
is "only ignored parts changed: no update" "$(jget "$D" "$U/ign.html" last_modified)" 0
is "not HTML, other length: size" "$(jget "$D" "$U/plain.txt" detected_by)" size
is "size rule: update time is the detection time" "$(jget "$D" "$U/plain.txt" last_modified)" "$N3"
check "show says how it was detected" sh -c "$A -d '$D' show '$U/dyn.html' | grep -q 'detected by: *text'"

# Not due: nothing is checked before its interval.
$A -d "$D" update --now $((N3 + 10)) > "$T/out" 2>&1
check "pages are not checked before they are due" grep -q "checked 0 pages" "$T/out"
# ... and it says so: how many are due, when the next is (in the antenna's
# time zone, and in how long), and that --force exists.
check "nothing due: says 0 of 10 pages due, when the next is and how far, and --force" \
	grep -Eq "^0 of 10 pages due; the next at [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} JST, in ([0-9]+ (s|min|h|d) ?)+ \(--force checks every page now\)$" "$T/out"

# ---- LIRS source with bad records ------------------------------------------------
LM=$((NOW - 600)); LD=$((NOW - 300))
cat > "$WWW/peer.lirs" <<EOF
# a peer antenna's file
LIRS,$LM,$LD,32400,1000,$U/cond.html,Cond relayed,Peer,0,
LIRS,notanumber,$LD,32400,1000,$U/head.html,Bad,Peer,0,
LIRS,$LM,$LD,32400,1000,http://unwatched.example/,Other,Peer,0,
LIRS,$LM,$((NOW - 90000)),32400,1000,$U/pre.html,Stale,Peer,0,
not a record at all
LIRS,$((LM - 999999)),$LD,32400,1000,$U/dyn.html,Older,Peer,0,
EOF
$A -d "$D" add --lirs "$U/peer.lirs" >/dev/null
$A -d "$D" add --lirs "$U/missing.lirs" >/dev/null
printf 'Status: 404 Not Found\n' > "$WWW/missing.lirs.hdr"
$A -d "$D" update --now "$NOW" -v > "$T/out" 2>"$T/err"
is "a bad source never breaks the run" $? 0
# a source never dates a page we check (antenna(1), TRUST); this record is
# older than our last check of the page (at N2): no news, not even a hint
is "a source's record of a page we check: not its date" "$(jget "$D" "$U/cond.html" detected_by)" header
is "the page keeps its own update time" "$(jget "$D" "$U/cond.html" last_modified)" 1704067200
is "the page keeps itself as Source URL" "$(jget "$D" "$U/cond.html" source_url)" "$U/cond.html"
is "an older relayed record loses" "$(jget "$D" "$U/dyn.html" detected_by)" text
check "summary counts the source's records" grep -q "read 2 LIRS sources (1 failed): 6 records, 0 merged, 1 not watched, 3 skipped" "$T/out"
check "no re-check: our own check came after the record's time" sh -c "! grep -q '$U/cond.html' '$T/err'"
check "list --sources" sh -c "$A -d '$D' list --sources | grep -q 'missing.lirs.*404'"

# ---- a relay source: every record it gives is ours to publish -----------------------------
H=$T/hub.db
$A -d "$H" init >/dev/null
$A -d "$H" add "$U/x.html" --relay > /dev/null 2> "$T/err"
is "--relay without --lirs or --atom is refused: exit 2, said why" \
	"$?:$(grep -c -- '--relay goes with --lirs or --atom' "$T/err")" "2:1"
check "add --lirs URL --relay" sh -c "$A -d '$H' add --lirs '$U/peer.lirs' --relay | grep -q 'relaying every page it lists'"
$A -d "$H" update --now "$NOW" > "$T/out" 2>&1
check "summary counts the relayed records" grep -q "read 1 LIRS source (0 failed): 6 records, 0 merged, 3 relayed, 0 not watched, 3 skipped" "$T/out"
check "list --sources marks the relay source and its relayed count" \
	sh -c "$A -d '$H' list --sources | grep -q '^$U/peer.lirs  (relay)  read 6, merged 0, relayed 3, skipped 3, trust unscored (0 of 5 claims judged)$'"
check "list --sources --format jsonl: relay and records_relayed" \
	sh -c "$A -d '$H' list --sources --format jsonl | grep -q '\"relay\":true,\"records_relayed\":3,\"trust\":null,.*\"held\":false}'"
check "show SOURCE says it relays" sh -c "$A -d '$H' show '$U/peer.lirs' | grep -q '^relay: *yes'"
is "list --relayed: the pages it relays, each with its source" \
	"$($A -d "$H" list --relayed | grep -c "  via $U/peer.lirs\$")" 3
check "show URL of a relayed page names its source" \
	sh -c "$A -d '$H' show http://unwatched.example/ | grep -q '^relayed by: *$U/peer.lirs\$'"
check "remove of a relay source says what goes with it" \
	sh -c "$A -d '$H' remove '$U/peer.lirs' | grep -q \"removed '$U/peer.lirs' and the 3 pages it relayed\""

# ---- a record from the future: one rule with lirs merge (lirs_merge.h) --------------
# lirs merge --now 1700000000 drops a Last-Modified of 1700086400 (a day
# ahead, past LIRS_DEFAULT_MAX_FUTURE); the antenna's relay must do the same,
# and take it once --max-future tolerates a day.
FD=$T/future.db
printf '<title>Fut</title><p>x</p>\n' > "$WWW/fut.html"
printf 'Last-Modified: Tue, 14 Nov 2023 00:00:00 GMT\n' > "$WWW/fut.html.hdr"
printf 'LIRS,1700086400,1700086400,32400,1000,%s/fut.html,A day ahead,Peer,0,\n' "$U" > "$WWW/future.lirs"
$A -d "$FD" init > /dev/null
$A -d "$FD" add "$U/fut.html" > /dev/null
$A -d "$FD" add --lirs "$U/future.lirs" > /dev/null
$A -d "$FD" update --now 1700000000 --timeout 2 > "$T/out" 2>&1
is "future: the relay drops a record a day ahead" "$(jget "$FD" "$U/fut.html" last_modified)" 1699920000
check "future: counted as skipped" grep -q "1 records, 0 merged, 0 not watched, 1 skipped" "$T/out"
printf 'LIRS,1699990000,1699999000,32400,1000,http://example.jp/a,valid,,0,,\n' > "$T/f1"
printf 'LIRS,1700086400,1700086400,32400,1000,http://example.jp/a,a day ahead,,0,,\n' > "$T/f2"
is "future: lirs merge drops the same record" \
	"$(${LIRS_WRAP:-} "$TOP/$BUILD/lirs" merge --now 1700000000 -f jsonl "$T/f1" "$T/f2" 2>/dev/null | grep -c 'a day ahead')" 0
$A -d "$FD" init --max-future 86400 > /dev/null
# the source changes (a comment), so it is fetched again, not answered 304
printf '# again\nLIRS,1700086400,1700086400,32400,1000,%s/fut.html,A day ahead,Peer,0,\n' "$U" > "$WWW/future.lirs"
$A -d "$FD" update --now 1700000000 --timeout 2 > "$T/out" 2>&1
# taken then, as a hint: the page is checked at once and keeps its own date
# (a source never dates a page we check, nor any page after our clock)
is "future: --max-future 86400 lets the record through, as a hint: not the page's date" \
	"$(jget "$FD" "$U/fut.html" last_modified)" 1699920000
is "future: the hint's early check ran" "$(jget "$FD" "$U/fut.html" detected_by) $(jget "$FD" "$U/fut.html" last_check)" "header 1700000000"

# ---- publish -------------------------------------------------------------------------
$A -d "$D" publish --now "$NOW" "$T/pub" > "$T/out" 2>&1
is "publish exits 0" $? 0
for f in index.html lirs.gz index.atom current.atom; do
	check "publish writes $f" test -s "$T/pub/$f"
done
check "index.html names a page" grep -q "Head" "$T/pub/index.html"
# Published files are readable by the web server: 0644 under umask 022
# (lb_afile_open(): 0644 less the umask), never mkstemp's 0600.
(umask 022 && $A -d "$D" publish --now "$NOW" "$T/pubm" > /dev/null 2>&1)
is "publish under umask 022 exits 0" $? 0
for f in index.html lirs.gz index.atom current.atom; do
	is "publish: $f has mode 644" "$(stat -c %a "$T/pubm/$f" 2>&1)" 644
done
modes=$(cd "$T/pubm" && find . -type f -name '*.atom' -exec stat -c '%a %n' {} + | sort)
is "publish: every Atom document has mode 644 (at least the two)" \
	"$(printf '%s\n' "$modes" | awk '$1 != "644" { bad++ } END { print ((NR >= 2 && !bad) ? 1 : 0) }')" 1
$A -d "$D" run "$T/pub2" --now $((NOW + 100000)) > /dev/null 2> "$T/err"
is "run = update + publish: exit 1, some pages or sources failed (said on stderr)" \
	"$?:$(grep -c 'failed: see above' "$T/err")" "1:1"
check "run wrote index.html" test -s "$T/pub2/index.html"
$A -d "$D" run --excerpt-chars 20 --max-archives 3 "$T/pub3" --now $((NOW + 100000)) > /dev/null 2>&1
is "run passes every update option that takes a value (--excerpt-chars N, --max-archives N)" \
	"$?:$(test -s "$T/pub3/index.html" && echo written)" "1:written"

# ---- lirs.gz: strict EUC-JP unless lirs_charset is euc-jp-ms (LIRS 2.1 §7) ----------
# gzip(1) and iconv(1) (glibc's own strict EUC-JP reader) are in every Debian.
D=$T/v.db
$A -d "$D" init >/dev/null
printf '<title>V</title><p>v</p>\n' > "$WWW/vendor.html"
printf 'Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT\n' > "$WWW/vendor.html.hdr"
$A -d "$D" add "$U/vendor.html" --title "①髙㈱" >/dev/null
$A -d "$D" update --now "$NOW" >/dev/null 2>&1
$A -d "$D" publish --now "$NOW" "$T/vpub" > /dev/null 2> "$T/err"
check "publish: lirs.gz decodes with strict EUC-JP (iconv -f EUC-JP)" \
	sh -c "gzip -dc '$T/vpub/lirs.gz' | iconv -f EUC-JP -t UTF-8 > '$T/v.txt'"
check "publish: vendor characters as their readable forms" grep -q ',(1)高(株),' "$T/v.txt"
check "publish: they are counted in a warning" grep -q "warning: lirs.gz: 3 vendor characters" "$T/err"
check "init --charset euc-jp-ms" $A -d "$D" init --charset euc-jp-ms
$A -d "$D" run --now "$NOW" "$T/vpub" > /dev/null 2> "$T/err"
check "run with lirs_charset euc-jp-ms writes the vendor codes" \
	sh -c "gzip -dc '$T/vpub/lirs.gz' | iconv -f EUC-JP-MS -t UTF-8 | grep -q ',①髙㈱,'"
gzip -dc "$T/vpub/lirs.gz" > "$T/vpub.lirs"
iconv -f EUC-JP -t UTF-8 < "$T/vpub.lirs" > /dev/null 2> "$T/iconv.err"
is "... which strict EUC-JP refuses (iconv: exit 1, illegal input)" \
	"$?:$(grep -c 'illegal input sequence' "$T/iconv.err"):$(test -s "$T/vpub.lirs" && echo data)" "1:1:data"
is "... and no warning" "$(grep -c warning "$T/err")" 0
$A -d "$D" init --charset latin1 2>/dev/null
is "init --charset refuses other charsets" $? 2

# ---- "new" marks what was found since the previous publish --------------------
# The update happened (Last-Modified) before the previous publish but was
# found after it: it is new on this publish.
D=$T/new4.db
$A -d "$D" init --new-hours 0 > /dev/null 2>&1
printf '<title>Late</title><p>one</p>\n' > "$WWW/late.html"
touch -d @$((NOW - 86400)) "$WWW/late.html"
$A -d "$D" add "$U/late.html" > /dev/null
$A -d "$D" run "$T/pub4" > /dev/null 2>&1
printf '<title>Late</title><p>two</p>\n' > "$WWW/late.html"
touch -d @$(( $(date +%s) - 120 )) "$WWW/late.html"
$A -d "$D" publish "$T/pub4" > /dev/null 2>&1
sleep 1
$A -d "$D" run --force "$T/pub4" > "$T/out" 2>&1
check "the late-found update is counted as updated" grep -q "1 updated" "$T/out"
is "an update found after the previous publish is marked new (row and badge)" \
	"$(grep -c '<li class="h-entry new">' "$T/pub4/index.html"):$(grep -c 'class="badge"' "$T/pub4/index.html")" "1:1"
$A -d "$D" publish "$T/pub4" > /dev/null 2>&1
is "... and not on the publish after that" "$(grep -c 'class="badge"' "$T/pub4/index.html")" 0

# ---- the page's language, and what init/list/check-db/--help say ---------------
D=$T/lang.db
$A -d "$D" init > "$T/out" 2>/dev/null
is "init of a new database says initialised" "$(cat "$T/out")" "initialised '$(dbname "$D")'"
$A -d "$D" init > "$T/out" 2>&1
is "init again with nothing new says nothing changed" "$(cat "$T/out")" "'$(dbname "$D")': nothing changed"
$A -d "$D" init --title "Lang" --tz-offset 32400 > "$T/out" 2>&1
is "init says what changed, only that" "$(cat "$T/out")" "title: 'antenna' -> 'Lang'"
printf 'one\n' > "$WWW/late.txt"
$A -d "$D" add "$U/late.txt" > /dev/null
$A -d "$D" add --lirs "$U/peer.lirs" > /dev/null
$A -d "$D" add --atom "$U/feed.atom" > /dev/null
# the first check is a quiet baseline; a newer Last-Modified on a page that
# is not HTML (no text to compare, so no excerpt) makes the event whose
# summary index.atom words.  (On an HTML page whose text was only cut, a
# newer Last-Modified is no update: it dates a change the body shows.)
$A -d "$D" update --timeout 2 > /dev/null 2>&1
printf 'one, two\n' > "$WWW/late.txt"
touch -d @$(( $(date +%s) - 60 )) "$WWW/late.txt"
$A -d "$D" run --force --timeout 2 "$T/publ" > /dev/null 2>&1
check "index.html is Japanese by default" grep -q '<html lang="ja">' "$T/publ/index.html"
check "... its header too" grep -q '<p class="meta">更新時刻 .* JST · 1 ページ · 新着 [0-9]*</p>' "$T/publ/index.html"
check "Atom summaries are Japanese by default" grep -q '<summary>検出 .*、サイトの時間帯 UTC+9、' "$T/publ/index.atom"
$A -d "$D" init --lang en > "$T/out" 2>&1
is "init --lang en on an existing database changes it" "$(cat "$T/out")" "lang: 'ja' -> 'en'"
$A -d "$D" publish "$T/publ" > /dev/null 2>&1
check "index.html in English after init --lang en" grep -q '<html lang="en">' "$T/publ/index.html"
check "... 1 page, not 1 pages" grep -q '<p class="meta">Updated .* JST · 1 page · [0-9]* new</p>' "$T/publ/index.html"
check "the Atom summaries in English too (index.atom)" grep -q '<summary>Detected .*; site time zone UTC+9; ' "$T/publ/index.atom"
$A -d "$D" init --lang fr > /dev/null 2> "$T/err"
is "init --lang fr is refused (exit 2)" "$?:$(grep -c "'fr' is not ja or en" "$T/err")" "2:1"
$A -d "$D" list > "$T/out"
check "list names its time zone" grep -q '^[0-9-]* [0-9:]* JST  ' "$T/out"
$A -d "$D" init --tz-offset 19800 > /dev/null
$A -d "$D" list > "$T/out"
check "list names another time zone" grep -q '^[0-9-]* [0-9:]* UTC+05:30  ' "$T/out"
$A -d "$D" check-db > "$T/out" 2>&1
check "check-db counts the sources by kind" grep -q '^sources  *2 .*sources: 1 LIRS, 1 Atom$' "$T/out"
check "check-db does not call an Atom source a LIRS source" sh -c "! grep -q 'LIRS sources' '$T/out'"
check "add --help: --atom takes an archived feed's index.atom" sh -c "$A add --help | tr -s ' \n' ' ' | grep -q 'archived Atom feed.s subscription document (RFC 5005; another antenna.s index.atom)'"
check "add --help no longer says current.atom" sh -c "! $A add --help | grep -q current.atom"
check "antenna --help mentions --atom" sh -c "$A --help | grep -q -- '--atom'"

# ---- schema from a newer antenna ------------------------------------------------------
if [ -n "${ANTENNA_TEST_PG:-}" ]; then   # PRAGMA user_version is atom_db_meta's row there
	$A -d "$T/new.db" init > /dev/null 2>&1
	"$PGBIN/psql" -q "$(dbname "$T/new.db")" -c "UPDATE atom_db_meta SET v = 99 WHERE k = 'user_version'"
else
	cp "$D" "$T/new.db"
	$PY -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version=99"); c.commit()' "$T/new.db"
fi
$A -d "$T/new.db" list 2>"$T/err"
is "newer schema refused with 2" $? 2
check "newer schema message" grep -q "has schema version 99; this antenna knows up to" "$T/err"

# ---- two updates at once ------------------------------------------------------------
D=$T/c.db
$A -d "$D" init >/dev/null
printf 'Delay-Ms: 6000\n' > "$WWW/lock.html.hdr"
printf '<p>x</p>\n' > "$WWW/lock.html"
$A -d "$D" add "$U/lock.html" >/dev/null
is "the server's counters reset" "$("$HTTPGET" --max-time 5 "$U/_control/reset" >/dev/null; echo $?)" 0
$A -d "$D" update --timeout 20 >/dev/null 2>&1 &
UP=$!
# The first run holds the lock once its request reached the server.
i=0
until "$HTTPGET" --max-time 5 "$U/_control/stats" | grep -q ' [1-9][0-9]*$' || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
is "the first update's request reached the server" "$([ $i -lt 100 ] && echo yes)" yes
$A -d "$D" update 2>"$T/err"
rc=$?
# (PostgreSQL too: a checker that does not ask to share, --lease, holds the
# run lock; tests/pgmulti runs several that do)
is "a second update fails with 2" $rc 2
check "a second update says another run holds the lock" grep -q "another antenna run holds the lock on '$(dbname "$D")'" "$T/err"
wait $UP
is "the first update completes" $? 0

# ---- kill -9 during an update ----------------------------------------------------------
D=$T/k.db
$A -d "$D" init >/dev/null
i=0
while [ $i -lt 60 ]; do
	printf '<title>K%d</title><p>%d</p>\n' $i $i > "$WWW/k$i.html"
	printf 'Delay-Ms: 150\nNo-Validators: 1\n' > "$WWW/k$i.html.hdr"
	$A -d "$D" add "$U/k$i.html" >/dev/null
	i=$((i + 1))
done
bad=0
for delay in 0.3 0.5 0.7 0.9 1.1; do
	$ANTENNA -d "$D" update --force --jobs 8 --per-host 8 >/dev/null 2>&1 &
	KP=$!
	sleep $delay
	kill -9 $KP 2>/dev/null
	wait $KP 2>/dev/null
	$A -d "$D" check-db >/dev/null 2>&1 || bad=$((bad + 1))
	i=0
	while [ $i -lt 60 ]; do printf '<title>K%d</title><p>%d %s</p>\n' $i $i $delay > "$WWW/k$i.html"; i=$((i + 1)); done
done
is "integrity check passes after each kill -9" $bad 0
$A -d "$D" update --force --jobs 16 --per-host 16 > "$T/out" 2>&1
is "the next update after kill -9 completes" $? 0
check "the next update checked every page" grep -q "checked 60 pages" "$T/out"
check "integrity check after the last run" $A -d "$D" check-db
