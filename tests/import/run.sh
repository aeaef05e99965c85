#!/bin/sh
# antenna import / export: the parsers on data-driven cases (cases/*: the
# input, and FILE.out, what `antenna import -n` prints and its exit
# status), then one migration per peer end to end against the loopback
# server (tests/tools/testserver.c): the peer's configuration and its LIRS
# file, written the way samidare and tama write them (samidare/, tama/;
# @U@ is the server's base URL), imported, then one `antenna run`; the old
# update times, groups and ignore rules must survive, with no flood of
# Atom events.  Then idempotence, dry run, round trips and hostile titles.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
HERE=$TOP/tests/import
command -v xmllint >/dev/null 2>&1 || { echo "not ok - xmllint is installed (make tests installs it)"; exit 1; }
for x in gzip iconv; do
	command -v $x >/dev/null 2>&1 || { echo "not ok - $x is installed"; exit 1; }
done

tmpdir import-test
# The watch list as sorted JSON (ignore patterns as a set), for comparing.
# canon DB [user-titles]: with a second argument, titles the user did not
# set are left out (samidare's Title is only ever the user's).
canon() {
	$A -d "$1" export --format jsonl | $PY -c '
import json, sys
rows = []
for l in sys.stdin:
    o = json.loads(l)
    o.pop("last_modified", None); o.pop("last_detected", None)
    if "ignore" in o:
        o["ignore"] = sorted(o["ignore"])
    if len(sys.argv) > 1 and not o.get("title_set_by_user", True):
        o["title"] = ""
    rows.append(json.dumps(o, sort_keys=True, ensure_ascii=False))
print("\n".join(sorted(rows)))
' ${2:+user}
}

# ---- the parsers, data-driven -------------------------------------------------------
# The count follows the cases: the plan comes last (done_testing), with at
# least MIN_CHECKS checks and MIN_CASES cases.
MIN_CASES=16 MIN_CHECKS=110
D=$T/cases.db
$A -d "$D" init >/dev/null
ncases=0
for f in "$HERE"/cases/*; do
	case $f in *.out) continue ;; esac
	name=$(basename "$f")
	want=$f.out
	got=$(cd "$HERE/cases" && $A -d "$D" import -n "$name" 2>&1; echo "exit $?")
	if [ "$got" = "$(cat "$want" 2>/dev/null)" ]; then
		ok "import -n $name"
	else
		notok "import -n $name" "$(printf '%s\n' "$got" | diff "$want" - | head -n 20)"
	fi
	ncases=$((ncases + 1))
done
[ "$ncases" -ge "$MIN_CASES" ] && ok "the case loop ran $ncases cases (at least $MIN_CASES)" ||
	notok "the case loop ran $ncases cases, fewer than $MIN_CASES"
is "a dry run changes nothing (list exits 0, prints nothing)" "$($A -d "$D" list > "$T/list.out"; echo $?):$(wc -c < "$T/list.out")" "0:0"

# ---- the server -----------------------------------------------------------------------
start_server 300
NOW=$(date +%s)
fill() { sed "s|@U@|$U|g" "$1"; }
# A LIRS file as the peers write it: EUC-JP (samidare encodes, old tama
# used nkf -e), gzip.
lirsgz() { fill "$1" | iconv -f UTF-8 -t EUC-JP | gzip -c; }
page() { mkdir -p "$WWW/$1"; printf '%s\n' "$2" > "$WWW/$1/index.html"; printf '%s\n' "$3" > "$WWW/$1/index.html.hdr"; }
nevents() { grep -c '<entry>' "$1/index.atom"; }

# ---- samidare ---------------------------------------------------------------------------
page matz '<html><head><title>Matz</title></head><body><p>diary</p><div class="counter">1</div></body></html>' 'No-Validators: 1'
page akr '<title>akr</title><p>same as before</p>' 'Last-Modified: Thu, 16 Nov 2023 02:00:00 GMT'
page ltu '<title>LtU</title><p>newer than the old antenna knew</p><div id="ad">x</div>' 'Last-Modified: Fri, 17 Nov 2023 19:40:00 GMT'
page daily '<title>Daily</title><p>never seen updated</p>' 'No-Validators: 1'
page mu '<title>Mu</title><p>mu</p>' 'No-Validators: 1'
mkdir -p "$WWW/jate" "$WWW/2ch"
printf '<html><head><title>\x93\xfa\x96\x7b\x8c\xea</title></head><body><p>\x93\xfa\x96\x7b\x8c\xea \x83\x65\x83\x58\x83\x67</p></body></html>\n' > "$WWW/jate/index.html"
# The server says EUC-JP, wrongly: ForceCharset: Shift_JIS must win.
printf 'No-Validators: 1\nContent-Type: text/html; charset=EUC-JP\n' > "$WWW/jate/index.html.hdr"
printf '<p>l50</p>\n' > "$WWW/2ch/l50"; printf 'No-Validators: 1\nContent-Type: text/html\n' > "$WWW/2ch/l50.hdr"
mkdir -p "$WWW/old"; printf 'Status: 404 Not Found\n' > "$WWW/old/index.html.hdr"
printf '' | gzip -c > "$WWW/peer.lirs.gz"
fill "$HERE/samidare/config.yml.in" > "$T/config.yml"
lirsgz "$HERE/samidare/sites.lirs.in" > "$T/sites.lirs.gz"

D=$T/s.db
$A -d "$D" init >/dev/null
(cd "$T" && $A -d "$D" import config.yml sites.lirs.gz) > "$T/out" 2>&1
is "samidare: import exits 0" $? 0
check "samidare: config.yml read as samidare" grep -q '^config.yml (samidare): 7 pages added' "$T/out"
check "samidare: sites.lirs.gz read as lirs" grep -q '^sites.lirs.gz (lirs): 1 page added, 2 updated, 2 unchanged; .*5 update times taken' "$T/out"
check "samidare: unmapped settings listed with file:line" grep -q '^config.yml:5:5: unmapped: Periodical' "$T/out"
check "samidare: IgnorePath listed" grep -q '^config.yml:32:5: unmapped: IgnorePath: /html/body/div\[2\]' "$T/out"
check "samidare: UpdateInfo lirs is a source" sh -c "$A -d '$D' list --sources | grep -q '^$U/peer.lirs.gz'"
is "samidare: group from a default mapping" "$(jget "$D" "$U/matz/" group)" diary
is "samidare: LinkURI is the page" "$(jget "$D" "$U/mu/" title)" "Mu Antenna"
is "samidare: old time from sites.lirs.gz" "$(jget "$D" "$U/matz/" last_modified)" 1700000000
is "samidare: title from sites.lirs.gz (EUC-JP)" "$(jget "$D" "$U/matz/" title)" "Matzにっき"
check "samidare: ignore rules" sh -c "$A -d '$D' show '$U/matz/' | grep -q '^ignore: *.referer'"
check "samidare: ForceCharset kept" sh -c "$A -d '$D' show '$U/jate/' | grep -q '^force charset: *Shift_JIS'"
before=$(canon "$D")
(cd "$T" && $A -d "$D" import config.yml sites.lirs.gz) > "$T/out2" 2>&1
check "samidare: importing twice adds nothing" grep -q '^config.yml (samidare): 0 pages added, 0 updated, 7 unchanged; 0 sources added, 1 already there' "$T/out2"
check "samidare: importing the LIRS file twice takes no time" grep -q '^sites.lirs.gz (lirs): 0 pages added, 0 updated, 5 unchanged; .*0 update times taken' "$T/out2"
is "samidare: the watch list is the same after a second import" "$(canon "$D")" "$before"

$A -d "$D" run --now "$NOW" "$T/pub" > "$T/run" 2>&1
# 1: published, some pages or sources failed (the fixtures' missing ones)
is "samidare: antenna run publishes (exit 0, or 1 when some pages failed)" "$(test $? -le 1 && echo yes)" yes
is "samidare: first run keeps an old time (no validators)" "$(jget "$D" "$U/matz/" last_modified)" 1700000000
is "samidare: first run keeps an old time (same Last-Modified)" "$(jget "$D" "$U/akr/" last_modified)" 1700100000
is "samidare: a newer Last-Modified is a real update" "$(jget "$D" "$U/ltu/" last_modified)" 1700250000
is "samidare: a page with no old time stays unknown, not 'now'" "$(jget "$D" "$U/daily/" last_modified)" 0
is "samidare: a failing page keeps its old time" "$(jget "$D" "$U/old/" last_modified)" 1700400000
check "samidare: ForceCharset beats the header's charset" sh -c "$A -d '$D' show '$U/jate/' | grep -q '^charset: *SHIFT_JIS'"
is "samidare: one Atom event (the real update), no flood" "$(nevents "$T/pub")" 1
check "samidare: index.html shows the old time at once (JST)" grep -q '11/15 07:13' "$T/pub/index.html"
check "samidare: index.html has the group" grep -q '>diary<' "$T/pub/index.html"
# The ignored counter changes: no update; the text changes: an update.
page matz '<html><head><title>Matz</title></head><body><p>diary</p><div class="counter">2</div></body></html>' 'No-Validators: 1'
$A -d "$D" update --force --now $((NOW + 600)) >/dev/null 2>&1
is "samidare: IgnoreClass survives (counter change is no update)" "$(jget "$D" "$U/matz/" last_modified)" 1700000000
page matz '<html><head><title>Matz</title></head><body><p>diary, new entry</p><div class="counter">3</div></body></html>' 'No-Validators: 1'
$A -d "$D" update --force --now $((NOW + 1200)) >/dev/null 2>&1
is "samidare: a real text change is an update" "$(jget "$D" "$U/matz/" last_modified)" $((NOW + 1200))
is "samidare: ... by text" "$(jget "$D" "$U/matz/" detected_by)" text

# ---- tama -------------------------------------------------------------------------------
for p in ikemo get zdnn tz di; do page $p "<title>$p</title><p>$p</p>" 'No-Validators: 1'; done
page ikemo '<title>ikemo</title><p>ikemo</p>' 'Last-Modified: Tue, 14 Nov 2023 22:13:20 GMT'
fill "$HERE/tama/sites.cfg.in" > "$T/sites.cfg"
fill "$HERE/tama/remote.cfg.in" > "$T/remote.cfg"
fill "$HERE/tama/sites.lirs.in" | gzip -c > "$T/tama.lirs.gz"   # tama-mod writes UTF-8
D=$T/t.db
$A -d "$D" init >/dev/null
(cd "$T" && $A -d "$D" import --group tama sites.cfg remote.cfg tama.lirs.gz) > "$T/out" 2>&1
is "tama: import exits 0" $? 0
check "tama: sites.cfg read as tama" grep -q '^sites.cfg (tama): 5 pages added, 0 updated, 0 unchanged; 1 source added' "$T/out"
check "tama: remote.cfg gives two sources" grep -q '^remote.cfg (tama): 0 pages added.*2 sources added' "$T/out"
check "tama: Regexp is the page's --only (noted)" grep -q "^sites.cfg:18: note: Regexp .*only the text matching '(.\\*年.\\*月" "$T/out"
check "tama: Regexp's --only kept" sh -c "$A -d '$D' show '$U/zdnn/' | grep -q '^only: *(\.\*年'"
check "tama: TZ option listed as unmapped" grep -q '^sites.cfg:23: unmapped: Option TZ=GMT' "$T/out"
check "tama: Check-URL with DI is no check URL" sh -c "! $A -d '$D' show '$U/di/' | grep -q '^check url:'"
check "tama: Check-URL with DI read as a source" sh -c "$A -d '$D' list --sources | grep -q '^$U/di/hina.di'"
check "tama: Data-URL resolved against URL" sh -c "$A -d '$D' list --sources | grep -q '^$U/ant/sites.lirs.gz'"
is "tama: --group for pages" "$(jget "$D" "$U/ikemo/" group)" tama
is "tama: Title is the user's" "$(jget "$D" "$U/get/" title)" "常にGETで取得するテスト"
is "tama: old time from the LIRS file (13 fields)" "$(jget "$D" "$U/zdnn/" last_modified)" 1700200000
is "tama: an ERROR record (0 times) gives no time" "$(jget "$D" "$U/tz/" last_modified)" 0
$A -d "$D" run --now "$NOW" "$T/tpub" > "$T/run" 2>&1
rc=$?
# 1: published, with the sources the fixture does not serve failed
if [ $rc -eq 1 ] && grep -q "^published" "$T/run"; then ok "tama: antenna run publishes (exit 1: some failed)"; else notok "tama: antenna run publishes (exit 1: some failed)" "rc $rc" "$(head -c 1500 "$T/run")"; fi
is "tama: first run keeps the old time" "$(jget "$D" "$U/ikemo/" last_modified)" 1700000000
is "tama: first run keeps the old time (no validators)" "$(jget "$D" "$U/zdnn/" last_modified)" 1700200000
is "tama: no Atom events for imported pages" "$(nevents "$T/tpub")" 0
check "tama: index.html shows the old time" grep -q '11/15 07:13' "$T/tpub/index.html"
(cd "$T" && $A -d "$D" import --group tama sites.cfg remote.cfg tama.lirs.gz) > "$T/out2" 2>&1
check "tama: importing twice adds nothing" sh -c "grep -q '^sites.cfg (tama): 0 pages added, 0 updated, 5 unchanged; 0 sources added, 1 already there' '$T/out2' && grep -q '^remote.cfg (tama): 0 pages added, 0 updated, 0 unchanged; 0 sources added, 2 already there' '$T/out2'"

# tama.cfg names the files: two $site lists become two groups.
mkdir -p "$T/conf"
cp "$HERE/tama/tama.cfg" "$T/conf/tama.cfg"
fill "$HERE/tama/sites.cfg.in" > "$T/conf/sites.cfg"
fill "$HERE/tama/remote.cfg.in" > "$T/conf/remote.cfg"
fill "$HERE/tama/mozilla.cfg.in" > "$T/conf/mozilla.cfg"
D=$T/tc.db
$A -d "$D" init >/dev/null
(cd "$T" && $A -d "$D" import conf/tama.cfg) > "$T/out" 2>&1
is "tama.cfg: import exits 0" $? 0
check "tama.cfg: names two site files and the remote file" grep -q '^conf/tama.cfg (tama.cfg): 2 site files, 1 remote file' "$T/out"
is "tama.cfg: each \$site output name is a group (sites)" "$(jget "$D" "$U/ikemo/" group)" sites
is "tama.cfg: each \$site output name is a group (mozilla)" "$(jget "$D" "$U/mozilla/" group)" mozilla
is "tama.cfg: CSV escapes" "$(jget "$D" "$U/mozilla/" title)" "Mozilla Watch, daily"
is "tama.cfg: remote.cfg read (3 sources after list's header)" "$($A -d "$D" list --sources | sed 1d | wc -l | tr -d ' ')" 3

# ---- dry run ------------------------------------------------------------------------------
D=$T/n.db
$A -d "$D" init >/dev/null
(cd "$T" && $A -d "$D" import -n config.yml) > "$T/out" 2>&1
check "dry run: says what it would add" grep -q "^would add page $U/matz/" "$T/out"
is "dry run: adds nothing (list exits 0, prints nothing)" "$($A -d "$D" list > "$T/list.out"; echo $?):$(wc -c < "$T/list.out")" "0:0"
is "dry run: no sources either" "$($A -d "$D" list --sources | wc -l | tr -d ' ')" 0

# ---- existing pages: fill what is empty, keep the user's title --------------------------------
$A -d "$D" add "$U/akr/" --title "My title" >/dev/null
$A -d "$D" add "$U/matz/" >/dev/null
(cd "$T" && $A -d "$D" import config.yml) > "$T/out" 2>&1
is "existing page: the user's title is kept" "$(jget "$D" "$U/akr/" title)" "My title"
check "existing page: a note says so" grep -q "note: title of '$U/akr/' kept" "$T/out"
is "existing page: an empty group is filled" "$(jget "$D" "$U/akr/" group)" diary
check "existing page: the update is printed" grep -q "^update page $U/matz/: group ignore" "$T/out"

# ---- round trips: export, import into a new database, export: the same bytes ------------------
# From the samidare migration after its run (groups, ignore rules, a forced
# charset, titles set and fetched, update times, a LIRS source), with what
# it lacks: an author, a page's feed, --only patterns, a check URL,
# --no-auto-ignore, a page watched through its feed alone, an Atom source.
S=$T/s.db
$A -d "$S" add "$U/feedpage/" --author "Feed Author" --group "feeds" --feed "$U/feedpage/index.rdf" >/dev/null
$A -d "$S" add "$U/region/" --group "feeds" --only '#main' --only '.entry' --only 'day [0-9]+' \
	--check-url "$U/region/check.html" --no-auto-ignore >/dev/null
$A -d "$S" add "$U/onlyfeed/index.atom" --feed "$U/onlyfeed/index.atom" >/dev/null
$A -d "$S" add --atom "$U/relay/index.atom" >/dev/null
$A -d "$S" add --lirs "$U/shard/lirs.gz" --relay >/dev/null
# A floor: every setting and source kind is in the list the trips start from.
$A -d "$S" export --format jsonl > "$T/rt0.jsonl"
missing=$($PY - "$T/rt0.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pages = [o for o in rows if o["type"] == "page"]
src = [o for o in rows if o["type"] == "source"]
want = {
    "a title the user set": any(o["title_set_by_user"] and o["title"] for o in pages),
    "a fetched title": any(not o["title_set_by_user"] and o["title"] for o in pages),
    "an author": any(o["author"] for o in pages),
    "a group": any(o["group"] for o in pages),
    "ignore patterns": any(o["ignore"] for o in pages),
    "a forced charset": any(o["force_charset"] for o in pages),
    "a feed": any(o.get("feed_url") for o in pages),
    "a page that is its feed": any(o.get("feed_url") == o["url"] for o in pages),
    "only patterns": any(o.get("only") for o in pages),
    "a check URL": any(o.get("check_url") for o in pages),
    "no-auto-ignore": any(o.get("no_auto_ignore") for o in pages),
    "update times": any(o["last_modified"] > 0 and o["last_detected"] > 0 for o in pages),
    "a LIRS source": any(o.get("kind", "lirs") == "lirs" for o in src),
    "an Atom source": any(o.get("kind") == "atom" for o in src),
    "a relay source": any(o.get("relay") for o in src),
}
print(", ".join(k for k, v in want.items() if not v))
EOF
)
is "round trips start from every setting and source kind (missing: none)" "${missing:-none}" none
for f in opml samidare jsonl; do
	$A -d "$S" export --format $f > "$T/ex.$f"
	R=$T/rt-$f.db
	$A -d "$R" init >/dev/null
	$A -d "$R" import "$T/ex.$f" > "$T/out" 2>&1
	rc=$?
	$A -d "$R" export --format $f > "$T/ex2.$f"
	$A -d "$R" export --format jsonl > "$T/rt-$f.jsonl"
	if [ $rc -eq 0 ] && [ "$(grep -c . "$T/ex.$f")" -ge 10 ] && cmp -s "$T/ex.$f" "$T/ex2.$f"; then
		ok "round trip through $f: export, import, export gives the same bytes"
	else
		notok "round trip through $f: export, import, export gives the same bytes" "rc $rc" \
			"$(diff "$T/ex.$f" "$T/ex2.$f" | head -n 8)" "$(head -n 5 "$T/out")"
	fi
	# ... and the same watch list, with what the format cannot say left out:
	# samidare's Title is only ever the user's; opml and samidare carry no times
	u=; [ $f = samidare ] && u=user
	if [ "$(canon "$S" $u | grep -c .)" -ge 10 ] && [ "$(canon "$R" $u)" = "$(canon "$S" $u)" ]; then
		ok "round trip through $f: the same watch list"
	else
		canon "$R" $u > "$T/got"; canon "$S" $u > "$T/want"
		notok "round trip through $f: the same watch list" "$(diff "$T/want" "$T/got" | head -n 8)"
	fi
	# what used to be lost, by name (old exports lost both on both sides)
	is "round trip through $f: the page's feed" "$(jget "$R" "$U/feedpage/" feed_url)" "$U/feedpage/index.rdf"
	check "round trip through $f: the Atom source is an Atom source" \
		grep -q "^{\"type\":\"source\",\"url\":\"$U/relay/index.atom\",\"kind\":\"atom\",\"relay\":false}\$" "$T/rt-$f.jsonl"
	check "round trip through $f: the relay source still relays" \
		grep -q "^{\"type\":\"source\",\"url\":\"$U/shard/lirs.gz\",\"kind\":\"lirs\",\"relay\":true}\$" "$T/rt-$f.jsonl"
done
# Imported over a source that does not relay: kept as it is, with a note.
W=$T/was-plain.db
$A -d "$W" init >/dev/null
$A -d "$W" add --lirs "$U/shard/lirs.gz" >/dev/null
$A -d "$W" import "$T/ex.jsonl" > "$T/out" 2>&1
check "a source that relays in the file but not here is kept, with a note" grep -q \
	"note: '$U/shard/lirs.gz' is not a relay source here, in the file: kept" "$T/out"
is "round trip through jsonl: the update times too" "$(jget "$T/rt-jsonl.db" "$U/ltu/" last_modified)" 1700250000
# A database where an older export and import made the Atom source a LIRS one.
W=$T/was-lirs.db
$A -d "$W" init >/dev/null
$A -d "$W" add --lirs "$U/relay/index.atom" >/dev/null
$A -d "$W" import "$T/ex.jsonl" > "$T/out" 2>&1
check "a source of another kind than the file's is kept, with a note" grep -q \
	"note: '$U/relay/index.atom' is a LIRS source here, an Atom source in the file: kept" "$T/out"
check "an Atom source goes to feed readers as a feed (type=rss, xmlUrl)" \
	grep -q "<outline text=\"$U/relay/index.atom\" type=\"rss\" xmlUrl=\"$U/relay/index.atom\" antenna:source=\"atom\"/>" "$T/ex.opml"
check "exported OPML is well-formed (xmllint)" xmllint --noout "$T/ex.opml"
check "jsonl export is JSON Lines" $PY -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/ex.jsonl"

# ---- hostile titles, authors, groups and URLs through OPML and YAML ------------------------------
H=$T/h.db
$A -d "$H" init >/dev/null
# (the command as $A says it: under ANTENNA_TEST_PG, through pgwrap.sh)
$PY - "$A" "$H" "$T" > "$T/hostile.tap" 2>&1 <<'EOF'
import json, os, random, shlex, subprocess, sys, xml.etree.ElementTree as ET
ant, db, tmp = shlex.split(sys.argv[1]), sys.argv[2], sys.argv[3]
rnd = random.Random(8)
atoms = ['&', '<', '>', '"', "'", ']]>', '<!--', '&amp;', '\t', ' ', ':', '- ', '#', '{', '[', '*a', '!!str',
         '%', '\\', '/', 'é', '日本語', '\U0001F600', '\u2028', '\ufeff', 'null', '~', 'yes', '0x10', '---']
def s(n):
    return ''.join(rnd.choice(atoms) for _ in range(n)).strip() or 'x'
pages = []
for i in range(60):
    url = 'http://h%d.example/%s' % (i, rnd.choice(['', 'a?b=1&c=2', 'x"y', "q'r", '%3C%3E', 'p<q>']))
    title, author, group = s(6), s(3), s(2)
    r = subprocess.run(ant + ['-d', db, 'add', url, '--title', title, '--author', author, '--group', group],
                       capture_output=True)
    if r.returncode == 0:
        pages.append((url, title, author, group))
want = sorted(pages)
for fmt in ('opml', 'samidare', 'jsonl'):
    out = subprocess.run(ant + ['-d', db, 'export', '--format', fmt], capture_output=True, check=True).stdout
    path = os.path.join(tmp, 'h.' + fmt)
    open(path, 'wb').write(out)
    if fmt == 'opml':
        ET.fromstring(out)   # a real XML parser takes it
    db2 = os.path.join(tmp, 'h2-%s.db' % fmt)
    subprocess.run(ant + ['-d', db2, 'init'], capture_output=True, check=True)
    r = subprocess.run(ant + ['-d', db2, 'import', path], capture_output=True)
    got = []
    for l in subprocess.run(ant + ['-d', db2, 'export', '--format', 'jsonl'], capture_output=True).stdout.splitlines():
        o = json.loads(l)
        if o['type'] == 'page':
            got.append((o['url'], o['title'], o['author'], o['group']))
    if r.returncode != 0 or sorted(got) != want:
        diff = [x for x in want if x not in got][:3]
        print('not ok - hostile strings survive %s (%d pages)' % (fmt, len(want)))
        print('#   rc %d %s' % (r.returncode, r.stderr.decode(errors='replace')[:300]))
        print('#   missing %r' % diff)
    else:
        print('ok - hostile strings survive %s (%d pages)' % (fmt, len(want)))
EOF
tap_from "$T/hostile.tap" 3
check "hostile OPML is well-formed (xmllint)" xmllint --noout "$T/h.opml"

# ---- bad input ------------------------------------------------------------------------------------
D=$T/bad.db
$A -d "$D" init >/dev/null
printf 'something else entirely\n' > "$T/what.txt"
$A -d "$D" import "$T/what.txt" >/dev/null 2>"$T/err"
is "unknown format exits 1" $? 1
check "unknown format names the file" grep -q "what.txt: error: cannot tell the format" "$T/err"
$A -d "$D" import --from opml "$T/what.txt" >/dev/null 2>"$T/err"
is "not XML exits 1" $? 1
check "not XML: file and line" grep -q "what.txt:1.*: error: not well-formed XML" "$T/err"
$A -d "$D" import "$T/none.yml" 2>"$T/err"
is "a missing file exits 1" $? 1
$A -d "$D" import --from nope x 2>/dev/null
is "--from with an unknown format is a usage error" $? 2
head -c 3000 /dev/zero | tr '\0' 'a' > "$T/big.yml"
$A -d "$D" import --max-bytes 1K "$T/big.yml" 2>"$T/err"
check "--max-bytes is a limit the user sees" grep -q "larger than 1024 bytes" "$T/err"
# jsonl: an escaped NUL would cut the URL (http://a.example/\u0000.evil/ is
# not http://a.example/): the line is refused with its number
printf '{"type":"page","url":"http://ok.example/"}\n{"type":"page","url":"http://a.example/\\u0000.evil.example/"}\n' > "$T/nul.jsonl"
$A -d "$D" import "$T/nul.jsonl" >/dev/null 2>"$T/err"
is "jsonl: a NUL in a URL exits 1" $? 1
check "jsonl: a NUL in a URL: the line refused, by its number" grep -q 'nul.jsonl:2: error: "url" contains a NUL character' "$T/err"
is "jsonl: a NUL in a URL: nothing cut is watched" "$($A -d "$D" list --format jsonl | grep -c 'a.example')" 0
# the feed: feed_url as export writes it now, feed as older exports did
printf '{"type":"page","url":"http://n.example/","feed_url":"http://n.example/f.xml"}\n{"type":"page","url":"http://o.example/","feed":"http://o.example/f.xml"}\n' > "$T/feeds.jsonl"
$A -d "$D" import "$T/feeds.jsonl" >/dev/null 2>&1
is "jsonl: feed_url read" "$(jget "$D" http://n.example/ feed_url)" "http://n.example/f.xml"
is "jsonl: an older export's feed read" "$(jget "$D" http://o.example/ feed_url)" "http://o.example/f.xml"
check "export writes the feed as feed_url, as list does" sh -c "$A -d '$D' export --format jsonl | grep -q '\"url\":\"http://o.example/\".*\"feed_url\":\"http://o.example/f.xml\"'"
# times from a clock that runs ahead: the record is dropped, not clamped
# (lirs_merge_check_at(), as merge and the relay): a Last-Detected in the
# future too, which 0.4 took half of
printf '{"type":"page","url":"http://ld.example/","last_modified":1000000000,"last_detected":%s}\n' $((NOW + 86400)) > "$T/ld.jsonl"
$A -d "$D" import --now "$NOW" "$T/ld.jsonl" > "$T/out" 2>&1
check "jsonl: a Last-Detected in the future: noted" grep -q "ld.jsonl:1: note: Last-Detected of 'http://ld.example/' is in the future: not taken" "$T/out"
is "jsonl: a Last-Detected in the future: no time taken" "$(jget "$D" http://ld.example/ last_modified)" 0
check "--help" sh -c "$A import --help | grep -q usage && $A export --help | grep -q usage"
done_testing "$MIN_CHECKS"
