#!/bin/sh
# tests/atom/run.sh: `lirs merge` (merge.sh) and `lirs atom`: RFC 5005
# archives that never change, reconstruction by a small consumer
# (consume.py), validation with jing against RFC 4287's RELAX NG schema
# (atom.rnc) and parsing with python3-feedparser where installed, the
# state's schema and lock handling.  One "ok - ..." line per check.
# The programs these checks run are installed by make check (Makefile
# .testdeps reads the next line); a missing one is a failure, never a skip.
# test-needs: python3:python3 xmllint:libxml2-utils jing:jing sqlite3:sqlite3 import:feedparser:python3-feedparser
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
LIRS=${LIRS:-$TOP/${BUILD:-build}/lirs}
L="${LIRS_WRAP:-} $LIRS"
D=$TOP/tests/atom
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

PY=/usr/bin/python3
. "$TOP/tests/lib/tap.sh"
# 83 checks, and 2 per merge case (at least 3: merge.sh checks that too).
plan $((83 + 2 * $(ls -d "$D"/merge-cases/*/ | wc -l)))

. "$D/merge.sh"

# ---- lirs atom --------------------------------------------------------------
BASE=http://feeds.example.org/lirs
S=$T/state.db
O=$T/out
# gen FIRST LAST LM0 LD: records for URLs FIRST..LAST, LM = LM0 + i
gen() { awk -v a="$1" -v b="$2" -v lm="$3" -v ld="$4" 'BEGIN {
	for (i = a; i <= b; i++)
		printf "LIRS,%d,%d,32400,%d,http://site%d.example/page/%d,Page %d,Author %d,http://peer.example/lirs.gz,,\n",
			lm + i, ld, 100 * i, i % 7, i, i, i % 3 }'; }
atom() { $L atom --state "$S" --base "$BASE" --out "$O" --page-size 4 --title 'Test <feed> & "co"' "$@"; }
sums() { (cd "$O" && sha256sum archive/*.atom); }

# Run 1: 10 events -> archives 1, 2 (4 each), 2 in index.atom
gen 1 10 1700000000 1700001000 > "$T/in1"
atom --now 1700002000 "$T/in1" 2> "$T/err"
is "atom: first run exits 0" "$?" 0
is "atom: two full archives written" "$(ls "$O/archive" | sort | tr '\n' ' ')" "1.atom 2.atom "
is "atom: index.atom holds the 2 events not archived" "$(grep -c '<entry>' "$O/index.atom")" 2
is "atom: an archive holds exactly page-size events" "$(grep -c '<entry>' "$O/archive/1.atom")" 4
is "atom: archive 1 links to archive 2" "$(grep -c 'rel="next-archive"' "$O/archive/1.atom")" 1
is "atom: the newest archive has no next-archive yet" "$(grep -c 'rel="next-archive"' "$O/archive/2.atom")" 0
grep -q 'rel="prev-archive" href="http://feeds.example.org/lirs/archive/2.atom"' "$O/index.atom" \
	&& ok "atom: index.atom links prev-archive to the newest archive" || notok "atom: index.atom links prev-archive to the newest archive"
grep -q '<fh:archive/>' "$O/archive/1.atom" && ok "atom: fh:archive in archives" || notok "atom: fh:archive in archives"
grep -q '<fh:complete/>' "$O/current.atom" && ok "atom: fh:complete in current.atom" || notok "atom: fh:complete in current.atom"
is "atom: current.atom has one entry per URL" "$(grep -c '<entry>' "$O/current.atom")" 10
grep -q '<title>Test &lt;feed&gt; &amp; &quot;co&quot;</title>' "$O/index.atom" \
	&& ok "atom: feed title escaped" || notok "atom: feed title escaped"
sums > "$T/sum1"
fid1=$(grep -m1 '<id>' "$O/index.atom")
cp "$O/archive/2.atom" "$T/a2.before"
cp "$O/index.atom" "$T/index1"

# Run 2: 3 known events again (one with a newer LD), 1 new event with an OLDER
# Last-Modified, 5 new ones -> 16 events: archive 3 and 4 sealed, 0 left
gen 8 10 1700000000 1700009000 > "$T/in2"
gen 11 15 1700000000 1700009000 >> "$T/in2"
echo 'LIRS,1600000000,1700009000,0,0,http://late.example/,Late,,0,,' >> "$T/in2"
atom --now 1700009500 "$T/in2" 2> "$T/err"
is "atom: second run exits 0" "$?" 0
is "atom: archives 3 and 4 sealed" "$(ls "$O/archive" | sort | tr '\n' ' ')" "1.atom 2.atom 3.atom 4.atom "
sums > "$T/sum2"
# A floor: the sum is there (sha256sum of no file would agree with itself).
is "atom: archive 1 unchanged byte for byte" \
	"$(grep -c '^[0-9a-f]\{64\}  archive/1.atom$' "$T/sum1"):$(grep archive/1.atom "$T/sum2")" "1:$(grep archive/1.atom "$T/sum1")"
diff "$T/a2.before" "$O/archive/2.atom" > "$T/d2"
is "atom: archive 2 changed by exactly one line" "$(grep -c '^[<>]' "$T/d2")" 1
grep -q '^> *<link rel="next-archive" href="http://feeds.example.org/lirs/archive/3.atom"/>$' "$T/d2" \
	&& ok "atom: ...the added next-archive link" || notok "atom: ...the added next-archive link"
is "atom: index.atom empty when every event is archived" "$(grep -c '<entry>' "$O/index.atom")" 0
is "atom: feed id stable across runs" "$(grep -m1 '<id>' "$O/index.atom")" "$fid1"

# Run 3: 2 new events; a different --title must not touch old archives
gen 16 17 1700000000 1700009000 > "$T/in3"
$L atom --state "$S" --base "$BASE" --out "$O" --page-size 4 --title 'Another title' --now 1700009500 "$T/in3" 2> "$T/err"
is "atom: third run exits 0" "$?" 0
sums > "$T/sum3"
[ "$(grep -c '^[0-9a-f]\{64\}  archive/' "$T/sum2")" -eq 4 ] && cmp -s "$T/sum2" "$T/sum3" && ok "atom: no archive rewritten when none fills" || { notok "atom: no archive rewritten when none fills"; diff "$T/sum2" "$T/sum3" | sed 's/^/#   /'; }
is "atom: index.atom has the 2 new events" "$(grep -c '<entry>' "$O/index.atom")" 2

# Golden documents written by 0.1.0 (tests/atom/golden/README): the same
# events give the same bytes, archives, index.atom and current.atom alike
G=$D/golden
golden() { $L atom --state "$T/golden.db" --base http://feeds.example.org/lirs --out "$T/golden" --page-size 4 "$@"; }
golden --now 1700000000 "$G/in1.lirs" 2>/dev/null
diff -r "$G/run1" "$T/golden" > "$T/gdiff" 2>&1
is "atom: first run's documents byte-identical to 0.1.0's (golden run1)" "$?" 0
head -n 5 "$T/gdiff" | sed 's/^/#   /'
golden --now 1700000600 "$G/in2.lirs" 2>/dev/null
diff -r "$G/run2" "$T/golden" > "$T/gdiff" 2>&1
is "atom: second run's documents byte-identical to 0.1.0's (golden run2)" "$?" 0
head -n 5 "$T/gdiff" | sed 's/^/#   /'

# A CGI URL: "&" in a URL gives well-formed documents, the id's
# value unchanged ("&" escaped only as XML), a space percent-encoded
printf 'LIRS,1700000100,1700009000,0,0,http://example.jp/cgi-bin/diary.cgi?a=1&b=2,Diary,,0,,\nLIRS,1700000200,1700009000,0,0,http://example.jp/a b/,Space,,0,,\n' > "$T/amp"
$L atom --state "$T/amp.db" --base "$BASE" --out "$T/amp.out" --page-size 1 --now 1700009500 "$T/amp" 2>/dev/null
is "atom: a URL with & is published" "$?" 0
bad=0; for f in "$T/amp.out"/*.atom "$T/amp.out"/archive/*.atom; do xmllint --noout "$f" 2>/dev/null || bad=$((bad + 1)); done
is "atom: ...every document well-formed (xmllint)" "$bad" 0
is "atom: ...its id the URL as written" \
	"$(xmllint --xpath 'string(//*[local-name()="entry"]/*[local-name()="id"])' "$T/amp.out/archive/1.atom" 2>/dev/null)" "tag:feeds.example.org,$(date -u -d @1700009500 +%Y-%m-%d):event:1700000100:http://example.jp/cgi-bin/diary.cgi?a=1&b=2"
grep -q '<id>tag:[^<]*:event:1700000200:http://example.jp/a%20b/</id>' "$T/amp.out"/archive/2.atom \
	&& ok "atom: a space in a URL is percent-encoded in the id" || notok "atom: a space in a URL is percent-encoded in the id"

# Reconstruction (RFC 5005 4.2): every event exactly once
if [ -x "$PY" ]; then
	$PY "$D/consume.py" "$BASE" "$O" > "$T/walk" 2> "$T/err"
	is "consumer: walk from index.atom through prev-archive links" "$?" 0
	is "consumer: 18 events (17 URLs + 1 late)" "$(wc -l < "$T/walk" | tr -d ' ')" 18
	is "consumer: every event exactly once, ids unique" "$(cut -f1 "$T/walk" | sort | uniq -d | wc -l | tr -d ' ')" 0
	grep -q 'event:1600000000:http://late.example/' "$T/walk" && ok "consumer: the late event is in the feed" || notok "consumer: the late event is in the feed"
	# the id an event had in index.atom in run 1 is the id it has in its archive now
	id=$(grep -o 'tag:[^<]*event:1700000010:http://site3.example/page/10' "$T/walk" | head -n1)
	[ -n "$id" ] && grep -qF "<id>$id</id>" "$T/index1" && ok "consumer: event ids stable" || notok "consumer: event ids stable"
else
	notok "consumer: /usr/bin/python3 is not installed (make is mk/deps.sh installs it: --tools)"
fi

# A new output dir: every archive rewritten from the state, the same bytes
mv "$O" "$T/out.old"
atom --now 1700009500 "$T/in3" 2>/dev/null
sums > "$T/sum4"
cmp -s "$T/sum3" "$T/sum4" && ok "atom: archives rebuilt in a new dir are byte-identical" || notok "atom: archives rebuilt in a new dir are byte-identical"

# Escaping and forbidden characters; relative links resolved against --base
printf 'LIRS,1700000100,1700009000,0,0,/relative/page,<b> & "q" \047x\047 \001\013 \357\277\276end,A&B,0,,\n' > "$T/esc"
atom --now 1700009500 "$T/esc" 2>/dev/null
grep -q '<title>&lt;b&gt; &amp; &quot;q&quot; &apos;x&apos;  end</title>' "$O/index.atom" \
	&& ok "atom: < & \" ' escaped, C0 and U+FFFE removed" || { notok "atom: < & \" ' escaped, C0 and U+FFFE removed"; grep '&lt;b' "$O/index.atom" | sed 's/^/#   /'; }
grep -q 'href="http://feeds.example.org/relative/page"' "$O/index.atom" \
	&& ok "atom: relative link resolved against --base" || notok "atom: relative link resolved against --base"
is "atom: every link absolute" "$(grep -ho 'href="[^"]*"' "$O"/*.atom "$O"/archive/*.atom | grep -vc '^href="https\?://')" 0
if command -v xmllint > /dev/null; then
	bad=0; for f in "$O"/*.atom "$O"/archive/*.atom; do xmllint --noout "$f" 2>/dev/null || bad=$((bad + 1)); done
	is "atom: every document well-formed (xmllint)" "$bad" 0
else
	notok "atom: well-formed: xmllint is not installed (make is mk/deps.sh installs it: --tools)"
fi

# The summaries' language: --lang ja, the antenna's default;
# an archive keeps the language it was sealed with when it is written
# again for its next-archive link (its entries never change).
LS=$T/lang.db
LO=$T/lang
lat() { $L atom --state "$LS" --base "$BASE" --out "$LO" --page-size 2 "$@"; }
gen 1 3 1700000000 1700001000 > "$T/lang1"
lat --lang ja --now 1700002000 "$T/lang1" 2>/dev/null
is "atom --lang ja: Japanese summaries in the archive sealed" \
	"$?:$(grep -c '<summary>検出 2023-11-14T22:30:00Z、サイトの時間帯 UTC+9、' "$LO/archive/1.atom")" "0:2"
gen 4 5 1700000000 1700001000 > "$T/lang2"
cp "$LO/archive/1.atom" "$T/lang-a1.before"
lat --lang en --now 1700002100 "$T/lang2" 2>/dev/null
is "atom --lang en later: archive 1 gets its next-archive link, its entries stay Japanese" \
	"$?:$(grep -c 'rel="next-archive"' "$LO/archive/1.atom"):$(grep -c '<summary>検出 ' "$LO/archive/1.atom"):$(grep -c 'Detected' "$LO/archive/1.atom")" "0:1:2:0"
is "atom: ...the link is the only line added" \
	"$(diff "$T/lang-a1.before" "$LO/archive/1.atom" | grep -c '^[<>]')" 1
is "atom --lang en: the archive sealed then is English" \
	"$(grep -c '<summary>Detected ' "$LO/archive/2.atom"):$(grep -c '検出' "$LO/archive/2.atom")" "2:0"
bad=0; for f in "$LO"/*.atom "$LO"/archive/*.atom; do xmllint --noout "$f" 2>/dev/null || bad=$((bad + 1)); done
is "atom --lang: every document well-formed (xmllint)" "$bad:$(ls "$LO"/archive/*.atom | wc -l)" 0:2
if command -v jing > /dev/null; then
	jing -c "$D/atom.rnc" "$LO"/*.atom "$LO"/archive/*.atom > "$T/jing" 2>&1
	is "jing: the Japanese and English documents valid against RFC 4287 Appendix B" "$?" 0
else
	notok "jing: jing is not installed (make is mk/deps.sh installs it: --tools)"
fi
$L atom --state "$LS" --base "$BASE" --out "$LO" --page-size 2 --lang fr "$T/lang2" 2> "$T/err"
is "atom --lang fr is a usage error" "$?:$(grep -c "lang: 'fr' is not en or ja" "$T/err")" "2:1"

# jing against the RFC 4287 RELAX NG schema
if command -v jing > /dev/null; then
	# one JVM for all documents: jing prints one line per problem
	jing -c "$D/atom.rnc" "$O"/*.atom "$O"/archive/*.atom > "$T/jing" 2>&1
	rc=$?
	grep -v '^\[warning\]' "$T/jing" | head -n 5 | sed 's/^/#   /'
	is "jing: every document valid against RFC 4287 Appendix B" "$rc" 0
	sed 's|<id>[^<]*</id>||' "$O/current.atom" > "$T/noid.atom"
	jing -c "$D/atom.rnc" "$T/noid.atom" > "$T/jing" 2>&1
	is "jing: a feed without atom:id is refused, for the missing id" "$?:$(grep -q 'missing required element "id"' "$T/jing" && echo id)" "1:id"
else
	notok "jing: jing is not installed (make is mk/deps.sh installs it: --tools)"
fi

# python3-feedparser: every document parses with bozo == 0
if [ -x "$PY" ] && $PY -c 'import feedparser' 2>/dev/null; then
	$PY - "$O"/*.atom "$O"/archive/*.atom > "$T/fp" 2>&1 <<'EOF'
import sys, feedparser
for f in sys.argv[1:]:
    d = feedparser.parse(f)
    if d.bozo or not d.feed.get("id") or any(not e.get("id") or not e.get("link", "").startswith("http") for e in d.entries):
        print("bad", f, d.get("bozo_exception"))
EOF
	is "feedparser: every document bozo 0, ids and links present" "$(cat "$T/fp")" ""
else
	notok "feedparser: python3-feedparser is not installed (make is mk/deps.sh installs it: --tools)"
fi

# Settings fixed for the life of a state
$L atom --state "$S" --base http://other.example/ --out "$O" --page-size 4 --now 1700009500 "$T/in3" 2> "$T/err"
is "atom: another --base refused" "$?" 2
grep -q "base 'http://other.example/' differs" "$T/err" && ok "atom: ...with a clear message" || { notok "atom: ...with a clear message"; sed 's/^/#   /' "$T/err"; }
$L atom --state "$S" --base "$BASE" --out "$O" --page-size 5 --now 1700009500 "$T/in3" 2> /dev/null
is "atom: another --page-size refused" "$?" 2

# Unreadable input: nothing written, not even the state
$L atom --state "$T/new.db" --base "$BASE" --out "$T/new" --now 1700009500 "$T/in1" "$T/missing" 2> "$T/err"
is "atom: unreadable input exits 2" "$?" 2
[ ! -e "$T/new" ] && [ ! -e "$T/new.db" ] && ok "atom: unreadable input writes nothing" || notok "atom: unreadable input writes nothing"

# A state from a newer schema is refused
if command -v sqlite3 > /dev/null; then
	cp "$S" "$T/newer.db"
	sqlite3 "$T/newer.db" "PRAGMA user_version = 99" 2>/dev/null
	$L atom --state "$T/newer.db" --base "$BASE" --out "$O" --page-size 4 --now 1700009500 "$T/in3" 2> "$T/err"
	is "atom: newer schema refused" "$?" 2
	grep -q "has schema 99, newer than this program's" "$T/err" && ok "atom: ...with a clear message" || { notok "atom: newer schema message"; sed 's/^/#   /' "$T/err"; }

	# A state locked by another run: wait (--busy-timeout), then fail clearly
	# The holder: sqlite3 reading a fifo keeps its transaction until EOF.
	mkfifo "$T/fifo"
	sqlite3 "$S" < "$T/fifo" &
	holder=$!
	exec 3> "$T/fifo"
	echo "BEGIN IMMEDIATE; INSERT INTO ev_meta VALUES('x', 'y');" >&3
	sleep 1
	start=$(date +%s.%N)
	$L atom --state "$S" --base "$BASE" --out "$O" --page-size 4 --busy-timeout 1000 --now 1700009500 "$T/in3" 2> "$T/err"
	rc=$?
	took=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.3f", a - b }')
	is "atom: locked state fails" "$rc" 2
	grep -q "state file '$S' is locked by another run" "$T/err" && ok "atom: ...saying it is locked" || { notok "atom: locked message"; sed 's/^/#   /' "$T/err"; }
	awk -v t="$took" 'BEGIN { exit !(t >= 0.9) }' && ok "atom: ...after waiting the busy timeout" || notok "atom: waited only $took s"
	exec 3>&-
	wait $holder
	atom --now 1700009500 "$T/in3" 2>/dev/null
	is "atom: runs again once the lock is gone" "$?" 0
else
	notok "atom: newer schema, locked state: sqlite3 is not installed (make is mk/deps.sh installs it: --tools)"
fi
