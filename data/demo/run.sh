#!/bin/sh
# make demo: an antenna over the bundled pages, served for real over HTTP.
#
# 1. The LIRS codec on data/samples/*.lirs* (lirs validate, lirs cat).
# 2. A copy of data/demo/site/ is served by the test suite's loopback
#    server (tests/tools/testserver.c) on 127.0.0.1 and a free port.
# 3. Two peer LIRS files are made with `lirs pack` from the templates
#    data/demo/peer*.jsonl.in with the current time (LIRS 2.1 §4: records
#    older than 8 hours are dropped, so a file made in advance would not
#    do): peer.lirs.gz (EUC-JP, gzip, plus a bad record in a second gzip
#    member) and peer2.lirs (plain UTF-8, as tDiary writes).
# 4. A fresh antenna database (./demo.db) imports three diaries from a
#    samidare config.yml (data/demo/config.yml.in: `antenna import -n`
#    shows what it would do, then `antenna import`), watches the other
#    pages and the two sources; `antenna update`, `antenna publish ./public` (dated an hour
#    ago with --now); then two pages
#    change (one by its Last-Modified, one by its text only), the news
#    page's ignored #clock changes (no update), and `antenna run ./public`
#    publishes again.  The published lirs.gz is checked by `lirs validate`.
#    The antenna is made with `init --page-size 3` (the default is 50), so
#    that the demo's updates fill an Atom archive: archive/1.atom, whose
#    entries never change (it gets its next-archive link once, when
#    archive/2.atom comes).
#
# BUILD gives the build tree (default build); DEMO_DB and DEMO_OUT
# override ./demo.db and ./public.  The server stops when this script ends.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
ANTENNA=$B/antenna
LIRS=$B/lirs
SERVER=$B/tools/testserver
DEMO=$TOP/data/demo
DB=${DEMO_DB:-$PWD/demo.db}
OUT=${DEMO_OUT:-$PWD/public}

die() { echo "demo: $*" >&2; exit 1; }
for x in "$ANTENNA" "$LIRS" "$SERVER"; do
	[ -x "$x" ] || die "'$x' is not built: run 'make BUILD=$BUILD all tests' first"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/antenna-demo.XXXXXX") || die "cannot make a temporary directory"
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

step() { printf '\n== %s\n' "$*"; }
# Prints a command as one could type it (paths shortened, quoted when needed).
show() {
	line='$'
	for a in "$@"; do
		case $a in
		$B/*) a=${a#$B/} ;;
		$work/*) a=\$WORK/${a#$work/} ;;
		$PWD/*) a=${a#$PWD/} ;;
		esac
		case $a in
		*[!A-Za-z0-9_./:=@%+,-]*) a="'$a'" ;;
		esac
		line="$line $a"
	done
	printf '%s\n' "$line"
}
# Shows a command, runs it; the demo stops when it fails.
must() {
	show "$@"
	"$@" || die "failed (exit $?): $*"
}
# Shows a command, runs it; a failure is shown but expected.
may() {
	show "$@"
	"$@"
	rc=$?
	[ $rc -eq 0 ] || echo "(exit $rc)"
	return 0
}

# Like may, but shows only the first N lines of the output, and the last.
may_head() {
	n=$1; shift
	show "$@"
	"$@" > "$work/out" 2>&1
	rc=$?
	lines=$(wc -l < "$work/out")
	if [ "$lines" -gt $((n + 1)) ]; then
		head -n "$n" "$work/out"
		echo "... ($((lines - n - 1)) more lines)"
		tail -n 1 "$work/out"
	else
		cat "$work/out"
	fi
	[ $rc -eq 0 ] || echo "(exit $rc)"
	return 0
}

# ---- 1. the codec on the sample files -------------------------------------
step "the LIRS codec on data/samples"
found=0
for f in "$TOP"/data/samples/*.lirs*; do
	[ -f "$f" ] || continue
	found=1
	may_head 6 "$LIRS" validate "$f"
	show "$LIRS" cat "$f"
	"$LIRS" cat "$f" 2>/dev/null | head -n 2
done
[ $found = 1 ] || echo "(no data/samples/*.lirs* files)"

# ---- 2. the pages, served over HTTP ---------------------------------------
step "serving data/demo/site on 127.0.0.1"
now=$(date +%s)
cp -R "$DEMO/site" "$work/site" || die "cannot copy the demo site"
site=$work/site
clock() { sed "s|@CLOCK@|$1|" "$DEMO/site/news/index.html" > "$site/news/index.html"; }
clock "$(date -u -d @"$now" '+%Y-%m-%d %H:%M:%S') UTC"
# File times become Last-Modified headers: pages updated some time ago.
touch -d @$((now - 3 * 3600)) "$site/yamada/diary.html"
touch -d @$((now - 2 * 86400)) "$site/sato/index.html"
touch -d @$((now - 86400)) "$site/tanaka/blog.html"
# Tanaka's blog is down: we cannot check it, so the peer antenna's word
# dates it (L), and 'show' says the date is the peer's (antenna(1) TRUST).
printf 'Status: 503 Service Unavailable\n' > "$site/tanaka/blog.html.hdr"
touch -d @$((now - 5 * 86400)) "$site/jane/index.html"

"$SERVER" --root "$site" --port-file "$work/port" --max-seconds 600 2> "$work/server.log" &
server_pid=$!
i=0
while [ ! -s "$work/port" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$work/port" ] || { cat "$work/server.log" >&2; die "the test server did not start"; }
BASE=http://127.0.0.1:$(cat "$work/port")
echo "pages at $BASE/"

# ---- 3. peer LIRS files with fresh times ----------------------------------
step "peer LIRS files, made now with 'lirs pack'"
# Fills a template: @BASE@ is the server, @T-N@ is now - N seconds.
fill() {
	sed "s|@BASE@|$BASE|g" "$1" | awk -v now="$now" '{
		out = ""
		while (match($0, /@T(-[0-9]+)?@/)) {
			n = substr($0, RSTART + 2, RLENGTH - 3)
			out = out substr($0, 1, RSTART - 1) (now + n)
			$0 = substr($0, RSTART + RLENGTH)
		}
		print out $0
	}'
}
fill "$DEMO/peer.jsonl.in" > "$work/peer.jsonl"
fill "$DEMO/peer2.jsonl.in" > "$work/peer2.jsonl"
must "$LIRS" pack -o "$site/peer.lirs.gz" "$work/peer.jsonl"
# A bad record (a time that is not a number) in a second gzip member:
# concatenated members are legal gzip, and a reader skips just that line.
printf 'LIRS,yesterday,%s,32400,0,%s/bad.html,A bad record,0,0,,\n' "$now" "$BASE" |
	gzip -n >> "$site/peer.lirs.gz"
must "$LIRS" pack --utf8 --no-gzip -o "$site/peer2.lirs" "$work/peer2.jsonl"
may "$LIRS" validate "$site/peer.lirs.gz"
may "$LIRS" validate "$site/peer2.lirs"

# ---- 4. the antenna -----------------------------------------------------------
step "a fresh antenna in ${DB#$PWD/}"
rm -f "$DB" "$DB-wal" "$DB-shm" "$DB-journal"
A() { must "$ANTENNA" -d "$DB" "$@"; }
# --page-size 3: Atom archives of 3 entries (default 50), so that the demo's
# few updates fill one (archive/1.atom).
A init --title "デモ・アンテナ (lirs-antenna demo)" --author "demo" --base "http://localhost:8000/" \
	--page-size 3
# The diaries come from a samidare config.yml, as an operator moving over
# from samidare would bring them (antenna(1) "IMPORT AND EXPORT").
fill "$DEMO/config.yml.in" > "$work/config.yml"
A import -n "$work/config.yml"
A import "$work/config.yml"
A add --ignore '#clock' "$BASE/news/index.html"
A add --group Friends --author 田中 "$BASE/tanaka/blog.html"
A add --group Friends "$BASE/jane/index.html"
A add "$BASE/gone.html"

# The first run is dated an hour ago (--now), so that what changes next is
# "new since the previous publish" on the page, as it would be from cron.
step "first check and publish (dated an hour ago with --now)"
A update --force --now $((now - 3600))
A publish --now $((now - 3600)) "$OUT"
A list

# The peer antennas' LIRS files, read from the next run on: a newer time
# they give for a page we watch is a hint to check it now; only for a page
# we cannot check (Tanaka's blog is down) is it the page's date.
A add --lirs "$BASE/peer.lirs.gz"
A add --lirs "$BASE/peer2.lirs"

step "the pages change"
# Yamada writes a new entry: a newer Last-Modified (the header rule); a
# minute old, since a Last-Modified equal to the Date is not trusted.
sed 's|<h2>5月5日（日）</h2>|<h2>5月6日（月）</h2>\n<p>連休最後の日。アンテナを作り直した。</p>\n&|' \
	"$DEMO/site/yamada/diary.html" > "$site/yamada/diary.html"
touch -d @$((now - 60)) "$site/yamada/diary.html"
echo "yamada/diary.html: a new entry (newer Last-Modified)"
# Suzuki's page has no validators: only its text tells (the text rule).
iconv -f SHIFT_JIS -t UTF-8 "$DEMO/site/suzuki/index.html" |
	sed 's|「春の京都」|「初夏の奈良」|' | iconv -f UTF-8 -t SHIFT_JIS > "$site/suzuki/index.html"
echo "suzuki/index.html: new text, still Shift_JIS, no validators"
# The news page only changes in its ignored #clock: not an update.
clock "$(date -u '+%Y-%m-%d %H:%M:%S') UTC (regenerated)"
echo "news/index.html: only the ignored #clock changed"

step "second run: update, then publish"
# exit 1: published, but gone.html failed (its 404 is on the page)
show "$ANTENNA" -d "$DB" run --force "$OUT"
"$ANTENNA" -d "$DB" run --force "$OUT"
rc=$?
[ $rc -le 1 ] || die "failed (exit $rc): antenna run"
[ $rc -eq 0 ] || echo "(exit $rc: published; a page failed, as set up)"
A list
A show "$BASE/yamada/diary.html"

step "the published LIRS file"
must "$LIRS" validate "$OUT/lirs.gz"
must "$LIRS" cat "$OUT/lirs.gz"

step "done"
for f in index.html lirs.gz index.atom; do
	[ -f "$OUT/$f" ] && echo "wrote $OUT/$f"
done
for f in "$OUT"/archive/*.atom; do
	[ -f "$f" ] && echo "wrote $f (an Atom archive of 5 entries: they never change)"
done
echo
echo "Open file://$OUT/index.html in a browser."
