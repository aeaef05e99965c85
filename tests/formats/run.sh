#!/bin/sh
# tests/formats/run.sh: HINA-DI, hina.txt and tama's NATSU fields.
#
# Data-driven: each cases/NAME.in is a file written the way a peer's code
# writes it (mkcases.sh says which peer and which of its bugs it shows),
# with the expected results
#   NAME.jsonl  stdout of `lirs cat NAME.in`
#   NAME.diag   stdout of `lirs validate --now 1000000000 NAME.in`
#   NAME.di     stdout of `lirs cat --format di NAME.in`   (optional)
#   NAME.rc     "cat N" and "validate N"
# and every case goes through our HINA-DI writer and back: the records must
# be the same.  Then: a property test of the DI writer with hostile
# strings, gzip and EUC-JP DI, merge keeping the NATSU fields, DI and
# hina.txt as antenna sources over the loopback test server, and
# antenna publish's sites.di.gz.
# UPDATE=1 rewrites the expected files (review the diff).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
CASES=$TOP/tests/formats/cases
NOW=1000000000
for x in "$LIRS" "$ANTENNA" "$SERVER"; do
	[ -x "$x" ] || { echo "not ok - '$x' is not built"; exit 1; }
done
tmpdir formats-test

expect() {
	if [ "${UPDATE:-}" = 1 ]; then cp "$1" "$2"; ok "$3 (updated)"; return; fi
	if cmp -s "$1" "$2"; then ok "$3"; else notok "$3"; diff "$2" "$1" | head -n 10 | cut -c 1-200 | sed 's/^/#   /'; fi
}
# same A B NAME [may-be-empty]: the same bytes, and (a floor) not both
# empty unless the caller says that is what is expected.
same() {
	if [ ! -s "$1" ] && [ "${4:-}" != may-be-empty ]; then notok "$3" "both empty: '$1'"; return; fi
	if cmp -s "$1" "$2"; then ok "$3"; else notok "$3"; diff "$1" "$2" | head -n 6 | cut -c 1-200 | sed 's/^/#   /'; fi
}
# The count follows the cases: the plan comes last (done_testing), with
# at least MIN_CHECKS checks and MIN_CASES cases.
MIN_CASES=9 MIN_CHECKS=80
want_rc() { sed -n "s/^$2 //p" "$CASES/$1.rc"; }

# ---- the cases ------------------------------------------------------------
run_case() {
	name=$1
	cd "$CASES" || return
	$L cat "$name.in" > "$T/out" 2> /dev/null; crc=$?
	expect "$T/out" "$name.jsonl" "$name: cat"
	$L validate --now $NOW "$name.in" > "$T/diag" 2> /dev/null; vrc=$?
	expect "$T/diag" "$name.diag" "$name: validate"
	if [ -f "$name.di" ]; then
		$L cat --format di "$name.in" > "$T/di" 2> /dev/null
		expect "$T/di" "$name.di" "$name: cat --format di"
	fi
	[ "${UPDATE:-}" = 1 ] && printf 'cat %s\nvalidate %s\n' $crc $vrc > "$name.rc"
	is "$name: cat exit status" "$crc" "$(want_rc "$name" cat)"
	is "$name: validate exit status" "$vrc" "$(want_rc "$name" validate)"
	# Our DI output reads back as the same records (gzip, UTF-8).
	$L cat "$name.in" 2> /dev/null | $L pack --format di > "$T/rt.di.gz" 2> "$T/perr"
	$L cat "$T/rt.di.gz" > "$T/rt.jsonl" 2> "$T/rerr"
	empty=may-be-empty; [ -s "$name.jsonl" ] && empty=
	same "$T/out" "$T/rt.jsonl" "$name: cat | pack --format di | cat gives the same records" $empty
	is "$name: our DI reads back without an error" "$(cat "$T/rerr")" ""
	cd "$TOP" || return
}

ncases=0
for f in "$CASES"/*.in; do
	name=$(basename "$f" .in)
	run_case "$name"
	ncases=$((ncases + 1))
done
[ "$ncases" -ge "$MIN_CASES" ] && ok "the case loop ran $ncases cases (at least $MIN_CASES)" ||
	notok "the case loop ran $ncases cases, fewer than $MIN_CASES"

# ---- the DI writer ----------------------------------------------------------
# Property: hostile strings (line ends, colons, blanks at the ends, control
# characters, non-ASCII) through pack --format di and back through our
# reader come back as the writer's one escape says (lirs(5)): CR and LF
# become spaces, blanks (space, tab) at the ends go, a URL left blank is
# not written.  Both record layouts (tama's NATSU and ours) are drawn.
$PY - "$T" > "$T/prop.out" <<'PYEOF'
import json, random, sys
t = sys.argv[1]
rnd = random.Random(20261123)
atoms = ["a", "Z", "0", " ", "\t", "\r", "\n", "\r\n", ":", ": ", "URL: x", "\\", ",",
         "日記", "①", "～", "\u3000", "😀", "é", "\x01", "\x1b", "\x7f", "\u0085",
         "HINA/2.1", "X-LIRS-Extra: 1", "REMOTE", "GET", "/", "http://e.example/"]
def s(maxn=6):
    return "".join(rnd.choice(atoms) for _ in range(rnd.randint(0, maxn)))
def norm(v):
    return v.replace("\r", " ").replace("\n", " ").strip(" \t")
def rec(i):
    r = {"last_modified": rnd.choice([0, 1, 999999000, 253402300799, rnd.randint(1, 2**34)]),
         "last_detected": rnd.choice([0, 1000000000, rnd.randint(1, 2**34)]),
         "tz_offset": rnd.choice([0, 32400, -18000, 19800, 37, -1, rnd.randint(-99999, 99999)]),
         "content_length": rnd.choice([0, 1234, -5, rnd.randint(-2**40, 2**40)]),
         "url": "http://h.example/%d/" % i + s() if rnd.random() < 0.9 else s(3),
         "title": s(), "author": s(), "source_url": s(), "extension": s()}
    k = rnd.choice(["none", "natsu", "natsu", "extra"])
    if k == "natsu":
        r["extra"] = ["", "", "", s()]
    elif k == "extra":
        r["extra"] = [s() for _ in range(rnd.randint(1, 6))]
    return r
recs = [rec(i) for i in range(3000)]
with open(t + "/prop.jsonl", "w") as f:
    for r in recs:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
with open(t + "/prop.want", "w") as f:
    for r in recs:
        if not norm(r["url"]):
            continue
        w = dict(r)
        for k in ("url", "title", "author", "source_url", "extension"):
            w[k] = norm(r[k])
        if "extra" in r:
            w["extra"] = [norm(x) for x in r["extra"]]
        f.write(json.dumps(w, ensure_ascii=False, sort_keys=True) + "\n")
PYEOF
$L pack --format di --no-gzip < "$T/prop.jsonl" > "$T/prop.di" 2> "$T/perr"
$L cat "$T/prop.di" 2> "$T/cerr" | $PY -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    o.pop("checked_url", None); o.pop("method", None)
    print(json.dumps(o, ensure_ascii=False, sort_keys=True))
' > "$T/prop.got"
same "$T/prop.want" "$T/prop.got" "property: 3000 hostile records through the DI writer read back as documented"
is "property: the reader finds nothing wrong in our DI" "$(cat "$T/cerr")" ""
grep -q "records without a URL or with more than 64 extra fields left out" "$T/perr" && ok "property: records without a URL are counted in a warning" ||
	notok "property: records without a URL are counted in a warning" "$(cat "$T/perr")"
$PY - "$T/prop.di" <<'PYEOF' && ok "property: every DI line is CRLF-ended 'Field: value' or blank" || notok "property: every DI line is CRLF-ended 'Field: value' or blank"
import re, sys
data = open(sys.argv[1], "rb").read()
assert data.startswith(b"HINA/2.1\r\n")
lines = data.split(b"\r\n")
assert lines[-1] == b""
for l in lines[1:-1]:
    assert b"\r" not in l and b"\n" not in l
    assert l == b"" or re.match(rb"^[A-Za-z-]+: ", l) or re.match(rb"^[A-Za-z-]+: $", l), l
PYEOF

# The header and the charset options.
printf '{"url":"http://a.example/","title":"日記","last_modified":999999000}\n' > "$T/one.jsonl"
$L pack --format di < "$T/one.jsonl" > "$T/one.di.gz"
is "pack --format di gzips by default" "$(head -c 2 "$T/one.di.gz" | od -An -tx1 | tr -d ' ')" "1f8b"
gzip -dc "$T/one.di.gz" | head -n 4 > "$T/hdr"
grep -q '^Date: ..., [0-9][0-9] ... [0-9]* [0-9:]* GMT' "$T/hdr" && ok "pack --format di writes a Date" || notok "pack --format di writes a Date" "$(cat "$T/hdr")"
grep -q '^Content-Type: text/plain; charset=UTF-8' "$T/hdr" && ok "pack --format di declares UTF-8" || notok "pack --format di declares UTF-8"
$L pack --format di --euc-jp --no-gzip < "$T/one.jsonl" > "$T/euc.di"
grep -q 'charset=EUC-JP' "$T/euc.di" && ok "--euc-jp declares EUC-JP" || notok "--euc-jp declares EUC-JP"
is "--euc-jp writes EUC-JP" "$(grep -a Title "$T/euc.di" | iconv -f EUC-JP -t UTF-8 | tr -d '\r')" "Title: 日記"
is "EUC-JP DI reads back" "$($L cat "$T/euc.di" | grep -c 日記)" 1
$L pack --format xml < "$T/one.jsonl" > /dev/null 2>&1; is "pack --format xml: exit 2" $? 2
$L cat --format di --gzip "$CASES/tama-sites-di.in" | $L cat > "$T/gz.jsonl" 2> /dev/null
same "$T/gz.jsonl" "$CASES/tama-sites-di.jsonl" "cat --format di --gzip reads back"

# Chunked reads are in tests/unit/lirs/t_di.c; here the same file through a pipe.
$L cat < "$CASES/tama-sites-di-gz.in" > "$T/stdin.jsonl" 2> /dev/null
same "$T/stdin.jsonl" "$CASES/tama-sites-di.jsonl" "gzip DI on standard input"

# ---- merge keeps tama's fields, and reads DI and hina.txt ---------------------
cd "$CASES" || exit 1
$L merge --now $NOW --format jsonl tama-natsu-lirs.in > "$T/m.jsonl" 2> /dev/null
$PY - "$T/m.jsonl" <<'PYEOF' && ok "merge keeps the NATSU fields (extra, checked_url, method)" || notok "merge keeps the NATSU fields (extra, checked_url, method)" "$(cat "$T/m.jsonl")"
import json, sys
rows = {o["url"]: o for o in map(json.loads, open(sys.argv[1]))}
c = rows["http://c.example/"]
assert c["extra"] == ["", "", "", "LENGTH"], c
assert c["checked_url"] == "http://c.example/diary/latest.html" and c["method"] == "LENGTH", c
d = rows["http://d.example/"]
assert d["method"] == "http://amano.example/antenna/", d
PYEOF
$L merge --now $NOW --format jsonl tama-sites-di.in tama-hina-txt.in samidare-lirs.in > "$T/m2.jsonl" 2> "$T/m2err"
is "merge reads DI, hina.txt and LIRS together" "$?" 0
$PY - "$T/m2.jsonl" <<'PYEOF' && ok "merge of DI + hina.txt + LIRS: one record per URL, NATSU fields kept" || notok "merge of DI + hina.txt + LIRS: one record per URL, NATSU fields kept" "$(cat "$T/m2.jsonl")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
urls = [o["url"] for o in rows]
assert len(urls) == len(set(urls)), urls
c = [o for o in rows if o["url"] == "http://c.example/"][0]
assert c["method"] == "LENGTH" and c["checked_url"] == "http://c.example/diary/latest.html", c
assert len(rows) == 6, len(rows)   # e.example has no time: unusable
PYEOF
cd "$TOP" || exit 1

# ---- the antenna: DI and hina.txt sources, sites.di.gz ----------------------
start_server 120
RNOW=$(date +%s)
LM=$((RNOW - 600)); LD=$((RNOW - 300))
httpdate() { $PY -c 'import sys, email.utils; print(email.utils.formatdate(int(sys.argv[1]), usegmt=True))' "$1"; }
{
	printf 'HINA/2.1\nUser-Agent: TAMATEBAKO/1.1.66-mod1 (2010-06-13)\nContent-Type: text/plain; charset=UTF-8\n\n'
	printf 'URL: %s/di-page.html\nTitle: DI page\nLast-Modified: %s\nLast-Modified-Detected: %s\nX-TAMA-Timezone: JST\nMethod: HEAD/200\n\n' "$U" "$(httpdate $LM)" "$(httpdate $LD)"
} | sed 's/$/\r/' | gzip -n > "$WWW/sites.di.gz"
JST=$($PY -c 'import sys, time; print(time.strftime("%Y/%m/%d %H:%M", time.gmtime(int(sys.argv[1]) + 32400)))' "$LM")
printf '<!--HINA_OK %s [0]--><A HREF="%s/hina-page.html">Hina page</A> me<br>\n' "$JST" "$U" > "$WWW/hina.txt"
printf '<html><title>x</title><body>x</body></html>\n' > "$WWW/di-page.html"
cp "$WWW/di-page.html" "$WWW/hina-page.html"
# The pages' own Last-Modified is older than what the sources relay.
printf 'Last-Modified: Sun, 09 Sep 2001 01:30:00 GMT\n' > "$WWW/di-page.html.hdr"
cp "$WWW/di-page.html.hdr" "$WWW/hina-page.html.hdr"
D=$T/a.db
$A -d "$D" init --title "Formats" --base http://example.com/ant/ > /dev/null
$A -d "$D" add "$U/di-page.html" > /dev/null
$A -d "$D" add "$U/hina-page.html" > /dev/null
# A source dates only a page we cannot check (antenna(1), TRUST): these
# pages' checks fail, so the sources' times are theirs.
printf 'Status: 503 Service Unavailable\n' >> "$WWW/di-page.html.hdr"
printf 'Status: 503 Service Unavailable\n' >> "$WWW/hina-page.html.hdr"
$A -d "$D" update --now $((RNOW - 3600)) > /dev/null 2>&1
out=$($A -d "$D" add --lirs "$U/sites.di.gz" 2>&1); is "add --lirs takes a HINA-DI URL" "$?" 0
$A -d "$D" add --lirs "$U/hina.txt" > /dev/null 2>&1; is "add --lirs takes a hina.txt URL" "$?" 0
$A -d "$D" update --now "$RNOW" > "$T/up.out" 2> "$T/up.err"
is "update with DI and hina.txt sources" "$?" 0
grep -q "read 2 LIRS sources (0 failed): 2 records, 2 merged" "$T/up.out" && ok "both sources read, both records merged" || notok "both sources read, both records merged" "$(cat "$T/up.out")"
$A -d "$D" list --format jsonl > "$T/list.jsonl"
$PY - "$T/list.jsonl" "$U" "$LM" <<'PYEOF' && ok "DI and hina.txt sources relay their update times" || notok "DI and hina.txt sources relay their update times" "$(cat "$T/list.jsonl")" "$(cat "$T/up.out" "$T/up.err")"
import json, sys
rows = {o["url"]: o for o in map(json.loads, open(sys.argv[1]))}
u, lm = sys.argv[2], int(sys.argv[3])
d = rows[u + "/di-page.html"]
assert d["source_url"] == u + "/sites.di.gz", d
assert d["detected_by"] == "lirs" and d["last_modified"] == lm, d
h = rows[u + "/hina-page.html"]
assert h["source_url"] == u + "/hina.txt", h
assert h["detected_by"] == "lirs" and h["last_modified"] == lm - lm % 60, h
PYEOF
$A -d "$D" publish --now "$RNOW" "$T/pub" > /dev/null 2>&1
is "publish" "$?" 0
[ -s "$T/pub/sites.di.gz" ] && ok "publish writes sites.di.gz" || notok "publish writes sites.di.gz"
is "sites.di.gz is gzip" "$(head -c 2 "$T/pub/sites.di.gz" | od -An -tx1 | tr -d ' ')" "1f8b"
$L cat "$T/pub/lirs.gz" > "$T/pub-lirs.jsonl" 2> /dev/null
$L cat "$T/pub/sites.di.gz" > "$T/pub-di.jsonl" 2> "$T/pub-di.err"
same "$T/pub-lirs.jsonl" "$T/pub-di.jsonl" "sites.di.gz reads back as the records of lirs.gz"
is "sites.di.gz has both relayed pages" "$(wc -l < "$T/pub-di.jsonl" | tr -d ' ')" 2
is "sites.di.gz reads without an error" "$(cat "$T/pub-di.err")" ""
ls -a "$T/pub" > "$T/pub.ls"
is "no temporary file left beside sites.di.gz (which is there)" \
	"$(grep -c '^\.*sites\.di\.gz\.' "$T/pub.ls"):$(grep -cx 'sites\.di\.gz' "$T/pub.ls")" "0:1"
done_testing "$MIN_CHECKS"
