#!/bin/sh
# Text from outside never reaches a terminal raw: a page title served by
# build/tools/testserver, a LIRS source's records and an imported file's
# titles and notes hold ESC[2J (clear the screen), OSC 0;title BEL (the
# window title), CR+LF (a fake "all pages ok" line), a C1 CSI and a bidi
# override; what update -v, list, show, import and run print (stdout and
# stderr together) holds none of those bytes.  Machine formats (list
# --format jsonl, export) stay JSON: their escapes are the JSON writer's.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 16
tmpdir terminal-test
start_server 120
NOW=$(date +%s)
D=$T/t.db
ESC=$(printf '\033')
BEL=$(printf '\007')
CR=$(printf '\r')
C1=$(printf '\302\233')        # U+009B, the C1 CSI
RLO=$(printf '\342\200\256')   # U+202E, right-to-left override
EVIL="x${ESC}[2J${ESC}]0;owned${BEL}${CR}
all pages ok ${C1}31m ${RLO}txt.exe"

# clean FILE: ok when FILE holds no ESC, BEL, CR, C1 control nor U+202E
clean() {
	$PY - "$1" <<'PYEOF'
import re, sys
b = open(sys.argv[1], "rb").read()
bad = [m for m in (b"\x1b", b"\x07", b"\r", b"\xe2\x80\xae") if m in b]
bad += re.findall(rb"\xc2[\x80-\x9f]", b)
sys.exit(1 if bad or not b else 0)
PYEOF
}
# terminal NAME FILE: the check, with the first offending line shown
terminal() {
	if clean "$2"; then ok "$1"; else notok "$1" "$(od -c "$2" | head -n 8)"; fi
}

printf '<html><head><title>%s</title></head><body><p>one</p></body></html>\n' "$EVIL" > "$WWW/evil.html"
printf 'LIRS,%s,%s,32400,10,%s/relayed.html,%s,%s,0,\n' $((NOW - 60)) $((NOW - 30)) "$U" \
	"r${ESC}[2J${ESC}]0;owned${BEL}${C1}31m${RLO}" "a${ESC}[31m" > "$WWW/src.lirs"
gzip -c "$WWW/src.lirs" > "$WWW/src.lirs.gz"

$A -d "$D" init --base http://antenna.example/ > /dev/null 2>&1
$A -d "$D" add "$U/evil.html" > /dev/null 2>&1
$A -d "$D" add --lirs --relay "$U/src.lirs.gz" > /dev/null 2>&1
# a URL may hold a bidi override (a byte string, not a control): -v quotes it
$A -d "$D" add "$U/gone${RLO}.html" > /dev/null 2>&1
$A -d "$D" update -v --now "$NOW" > "$T/update" 2>&1
check "update -v names the URL with the override (made visible)" grep -q 'gone\\u202E' "$T/update"
# (the title reader drops C0 and C1 controls itself; the bidi override stays)
check "the page's title was read with its bidi override (the hostile input is there)" \
	sh -c "$A -d '$D' list --format jsonl | grep -q '$RLO'"
terminal "update -v: no escape reaches the terminal" "$T/update"
$A -d "$D" list > "$T/list" 2>&1
terminal "list: no escape reaches the terminal" "$T/list"
$A -d "$D" list --relayed > "$T/relayed" 2>&1
terminal "list --relayed: no escape reaches the terminal" "$T/relayed"
check "... and shows the relayed title, escapes made visible" grep -q 'r\\x1B\[2J' "$T/relayed"
$A -d "$D" show "$U/evil.html" > "$T/show" 2>&1
terminal "show of the page: no escape reaches the terminal" "$T/show"
$A -d "$D" show "$U/relayed.html" > "$T/showr" 2>&1
terminal "show of a relayed page: no escape reaches the terminal" "$T/showr"
$A -d "$D" run --force --now $((NOW + 10)) "$T/pub" > "$T/run" 2>&1
terminal "run: no escape reaches the terminal" "$T/run"
# jsonl stays JSON: parsed, the title is the page's own, escapes and all
$A -d "$D" list --format jsonl > "$T/list.jsonl"
$PY - "$T/list.jsonl" "$U/evil.html" <<'PYEOF' && ok "list --format jsonl stays JSON, the title unchanged" || notok "list --format jsonl stays JSON, the title unchanged" "$(head -c 600 "$T/list.jsonl")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
t = [r["title"] for r in rows if r["url"] == sys.argv[2]][0]
assert "[2J" in t and "\u202e" in t and "\\u202E" not in t, t
PYEOF

# import: a jsonl file whose titles and a broken line hold the same bytes
printf '{"type":"page","url":"http://imp.example/a","title":"%s","author":"","group":"","last_modified":0,"last_detected":0}\n' \
	'i\u001b[2J\u001b]0;owned\u0007\r\nall ok \u009b31m \u202e' > "$T/in.jsonl"
printf '{"type":"page","url":"http://imp.example/%s b"}\n' "${ESC}[2J${RLO}" >> "$T/in.jsonl"
printf 'not json %s\n' "${ESC}]0;owned${BEL}${CR}" >> "$T/in.jsonl"
$A -d "$D" import -n "$T/in.jsonl" > "$T/import" 2>&1
terminal "import -n of a hostile file: no escape reaches the terminal" "$T/import"
$A -d "$D" import "$T/in.jsonl" > "$T/import2" 2>&1
terminal "import of a hostile file: no escape reaches the terminal" "$T/import2"
$A -d "$D" show http://imp.example/a > "$T/showi" 2>&1
terminal "show of an imported page: no escape reaches the terminal" "$T/showi"
# an error message quoting outside text (a URL operand) is made safe too
$A -d "$D" show "http://x.example/${ESC}]0;owned${BEL}" > "$T/err" 2>&1
terminal "an error quoting the operand: no escape reaches the terminal" "$T/err"
# lirs pack, as merge: no gzip bytes on a terminal (script(1) gives one)
printf '{"last_modified":1000,"last_detected":1000,"url":"http://a.example/"}\n' > "$T/p.jsonl"
script -qec "$L pack '$T/p.jsonl'; echo rc=\$?" /dev/null > "$T/tty" 2>&1
check "lirs pack to a terminal: refused, exit 2, the ways out named" \
	sh -c "grep -q 'compressed data not written to a terminal; use -o FILE, a pipe, or --no-gzip' '$T/tty' && grep -q 'rc=2' '$T/tty' && ! grep -q \"\$(printf '\\037\\213')\" '$T/tty'"
script -qec "$L pack --no-gzip '$T/p.jsonl'; echo rc=\$?" /dev/null > "$T/tty" 2>&1
check "lirs pack --no-gzip to a terminal: the text, exit 0" \
	sh -c "grep -q '^LIRS,1000,1000,' '$T/tty' && grep -q 'rc=0' '$T/tty'"
