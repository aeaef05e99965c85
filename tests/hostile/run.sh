#!/bin/sh
# Hostile input, end to end against the loopback test server:
# a giant <title> is clipped to ANT_MAX_TITLE and every published file stays
# small and readable; a Last-Modified or Date from the future is not
# believed; a response header over the limits is named as such, not
# as libcurl's "Out of memory"; SQLite's failures are said in our words.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 33
server_suite antenna-hostile
D=$T/h.db
$A -d "$D" init --title "Hostile" --base http://example.com/ant/ > /dev/null || { notok "init"; exit 1; }

# ---- an 8 MB <title> ---------------------------------------------------------
$PY - "$WWW/big.html" <<'EOF'
import sys
t = ("長いタイトル, \\ " + "x" * 40) * 125000          # ~7.9 MB, multi-byte and escapes
open(sys.argv[1], "w", encoding="utf-8").write(
    "<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title></head>"
    "<body><p>hello</p></body></html>" % t)
EOF
is "the page is over 7 MB" "$(( $(wc -c < "$WWW/big.html") > 7000000 ))" 1
# a trusted date: the first check (a quiet baseline) dates the page, so
# that lirs.gz and sites.di.gz carry its record
printf 'Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT\n' > "$WWW/big.html.hdr"
check "add the page with an 8 MB <title>" $A -d "$D" add "$U/big.html"
check "update reads it" $A -d "$D" update
title=$(jget "$D" "$U/big.html" title)
n=$($PY -c 'import sys; print(len(sys.argv[1]))' "$title")
is "the stored title is clipped to 512 characters, '…' included" "$n" 512
case $title in 長いタイトル,*…) ok "... on a character boundary, with its start kept" ;; *) notok "... on a character boundary, with its start kept" "${title%%x*}" ;; esac
check "publish" $A -d "$D" publish "$T/pub"
big=0; for f in "$T"/pub/*; do [ -f "$f" ] && [ "$(wc -c < "$f")" -gt 100000 ] && big="$big $(basename "$f")"; done
is "every published file is under 100 KB" "$big" 0
[ -s "$T/pub/index.html" ] && ok "index.html written" || notok "index.html written"
$L cat "$T/pub/lirs.gz" > "$T/cat.jsonl" 2> "$T/cat.err"
is "lirs cat reads lirs.gz without a diagnostic" "$?:$(wc -c < "$T/cat.err")" "0:0"
$PY - "$T/cat.jsonl" "$U/big.html" "$title" <<'EOF' && ok "lirs.gz holds the page's record with its clipped title" || notok "lirs.gz holds the page's record with its clipped title" "$(head -c 300 "$T/cat.jsonl")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
r = [o for o in rows if o["url"] == sys.argv[2]]
assert len(r) == 1, rows
assert r[0]["title"] == sys.argv[3], r[0]["title"][:80]
EOF
$L cat "$T/pub/sites.di.gz" > "$T/di.jsonl" 2> "$T/di.err"
is "lirs cat reads sites.di.gz: one record, no diagnostic" "$?:$(wc -l < "$T/di.jsonl"):$(wc -c < "$T/di.err")" "0:1:0"
long=$($PY -c 'print("題" * 2000)')
check "add --title of 2000 characters" $A -d "$D" add "$U/t.html" --title "$long"
n=$($PY -c 'import sys; print(len(sys.argv[1]))' "$(jget "$D" "$U/t.html" title)")
is "... is kept as 512 characters" "$n" 512
longurl="$U/$($PY -c 'print("a" * 8100)')"
$A -d "$D" add "$longurl" > /dev/null 2> "$T/err"
is "a URL over 8000 bytes is refused at add: exit 2, named" "$?:$(grep -c "URL longer than 8000 bytes" "$T/err")" "2:1"
$A -d "$D" remove "$U/big.html" > /dev/null
$A -d "$D" remove "$U/t.html" > /dev/null

# ---- dates from the future -------------------------------------------------
echo "<html><head><title>F1</title></head><body><p>one</p></body></html>" > "$WWW/f1.html"
printf 'Last-Modified: Fri, 31 Dec 9999 23:59:59 GMT\nDate: none\n' > "$WWW/f1.html.hdr"
echo "<html><head><title>F2</title></head><body><p>two</p></body></html>" > "$WWW/f2.html"
printf 'Last-Modified: Fri, 01 Jan 2100 00:00:00 GMT\nDate: Sat, 01 Jan 2101 00:00:00 GMT\n' > "$WWW/f2.html.hdr"
$PY - "$(cat "$T/port")" > "$T/f1.head" <<'EOF'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
c.request("GET", "/f1.html")
for k, v in c.getresponse().getheaders():
    print("%s: %s" % (k, v))
EOF
is "the server sends Last-Modified 9999 and no Date" \
	"$(grep -ci '^last-modified: fri, 31 dec 9999' "$T/f1.head"):$(grep -ci '^date:' "$T/f1.head")" "1:0"
check "add the two pages" sh -c "$A -d '$D' add '$U/f1.html' && $A -d '$D' add '$U/f2.html'"
check "update" $A -d "$D" update
for p in f1 f2; do
	lm=$(jget "$D" "$U/$p.html" last_modified); by=$(jget "$D" "$U/$p.html" detected_by)
	# a new page's first check is a quiet baseline: an untrusted header
	# leaves its time unknown (0), never 9999
	if [ "$lm" -eq 0 ] && [ "$by" != header ]; then
		ok "$p: the future Last-Modified is not believed (time unknown, not by header)"
	else
		notok "$p: the future Last-Modified is not believed (time unknown, not by header)" "last_modified $lm, detected_by $by"
	fi
done
check "publish" $A -d "$D" publish "$T/pub2"
$L validate "$T/pub2/lirs.gz" > "$T/val.out" 2>&1
is "lirs validate finds nothing from the future in lirs.gz" "$(grep -ci 'future' "$T/val.out")" 0
$A -d "$D" remove "$U/f1.html" > /dev/null
$A -d "$D" remove "$U/f2.html" > /dev/null

# ---- response headers over the limits ------------------------------------------
for p in h1 h2 h3; do echo "<html><head><title>$p</title></head><body>$p</body></html>" > "$WWW/$p.html"; done
echo "Big-Header: X-Huge 1048576" > "$WWW/h1.html.hdr"
echo "Big-Header: ETag 512000" > "$WWW/h2.html.hdr"
printf 'Big-Header: X-A 40000\nBig-Header: X-B 40000\n' > "$WWW/h3.html.hdr"
for p in h1 h2 h3; do $A -d "$D" add "$U/$p.html" > /dev/null; done
check "update" $A -d "$D" update
for p in h1 h2; do
	e=$(jget "$D" "$U/$p.html" last_error)
	case $e in
	"response header too large: a header line over 102400 bytes"*) ok "$p: named a response header too large (libcurl's line limit)" ;;
	*) notok "$p: named a response header too large (libcurl's line limit)" "$e" ;;
	esac
done
e=$(jget "$D" "$U/h3.html" last_error)
is "h3: two 40 KB headers: over our 64 KiB limit" "$e" "response header too large: over 65536 bytes (--max-header)"
check "update --max-header 1M --force" $A -d "$D" update --max-header 1M --force
is "h3: read with --max-header 1M" "$(jget "$D" "$U/h3.html" last_error)" null
e=$(jget "$D" "$U/h1.html" last_error)
case $e in *"Out of memory"*"Out of memory"*|"transfer failed"*) notok "no bare 'Out of memory'" "$e" ;; *) ok "no bare 'Out of memory'" ;; esac
$A -d "$D" add "http://127.0.0.1:1/refused.html" > /dev/null
$A -d "$D" update > /dev/null 2>&1
e=$(jget "$D" "http://127.0.0.1:1/refused.html" last_error)
case $e in "connection refused: "*) ok "a refused connection says so" ;; *) notok "a refused connection says so" "$e" ;; esac

# ---- SQLite's messages in our words ------------------------------------------------
C=$T/c.db
$A -d "$C" init > /dev/null
for i in 1 2 3 4 5 6 7 8; do $A -d "$C" add "http://example.com/$i.html" --title "$(printf '%0500d' 0)" > /dev/null; done
$PY - "$C" <<'EOF'
import os, sqlite3, sys
# the pages table's own pages, not the schema's (which would make the file
# "not an antenna database", another message)
db = sqlite3.connect(sys.argv[1])
root = db.execute("SELECT rootpage FROM sqlite_master WHERE name='pages'").fetchone()[0]
size = db.execute("PRAGMA page_size").fetchone()[0]
db.close()
f = open(sys.argv[1], "r+b")
f.seek((root - 1) * size); f.write(b"\x0d\x00\x01\xff\xff" + b"\xee" * (size - 5))
EOF
$A -d "$C" list > /dev/null 2> "$T/err"
is "a damaged database: exit 2" $? 2
check "... named as damaged, with what to do and SQLite's words as detail" \
	grep -q "database '$C' is damaged: restore a backup; 'antenna check-db' tells more (.*sqlite: database disk image is malformed)" "$T/err"
L2=$T/l.db
$A -d "$L2" init > /dev/null
$PY - "$L2" "$T/locked" <<'EOF' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(8)
EOF
HOLDER=$!
i=0; while [ ! -f "$T/locked" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
$A -d "$L2" add "$U/x.html" > /dev/null 2> "$T/err"
is "a locked database: exit 2" $? 2
check "... named as locked by another process" grep -q "database '$L2' is locked by another process" "$T/err"
wait "$HOLDER"
