#!/bin/sh
# Hub scale: `antenna update`, `list` and `export` in memory that does not
# grow with the number of pages watched.  The same commands over N and 4N
# pages (the test server's generated /bench/I.html, added with antenna
# import): the peak RSS at 4N may exceed that at N by less than
# GROWTH_KIB.  The code that loaded every page (about 1.1 KiB each) grew
# by about 16 MiB from 5,000 to 20,000 pages; reading the pages in
# batches and streaming them, it grows by 2 MiB at most: SQLite's page
# cache (2 MiB), not yet full with a small file at N.  A ratio of
# two runs on the same machine, not an absolute figure, so that another
# libc or SQLite does not move it.  Under AddressSanitizer or valgrind
# the RSS says nothing about our memory: those checks are skipped, said
# so, never passed.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
plan 9

N=5000 GROWTH_KIB=4096
server_suite antenna-hub

# rss CMD...: "EXIT PEAK_RSS_KIB" of CMD (its output dropped): wait4's
# ru_maxrss of the child alone, as bench/tm.c measures it.
rss() {
	$PY -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
' "$@"
}
# db N: a database of N pages, $T/hN.db
db() {
	$A -d "$T/h$1.db" init --title hub --base http://ant.example/ > /dev/null &&
		awk -v n="$1" -v u="$U" 'BEGIN { for (i = 0; i < n; i++)
			printf "{\"type\":\"page\",\"url\":\"%s/bench/%d.html\"}\n", u, i }' > "$T/h$1.jsonl" &&
		$A -d "$T/h$1.db" import "$T/h$1.jsonl" > /dev/null
}
check "$N pages added" db $N
check "$((4 * N)) pages added" db $((4 * N))

sanitized=
grep -qa __asan_init "$ANTENNA" 2> /dev/null && sanitized="AddressSanitizer build"
[ -n "${LIRS_WRAP:-}" ] && sanitized="run under $LIRS_WRAP"

# grows NAME ARGS...: the command at N and 4N pages; its RSS growth checked
grows() {
	name=$1; shift
	set -- $(rss $ANTENNA -d "$T/h$N.db" "$@") $(rss $ANTENNA -d "$T/h$((4 * N)).db" "$@")
	is "$name: exits 0 at $N and $((4 * N)) pages" "$1 $3" "0 0"
	if [ -n "$sanitized" ]; then
		skip "$name: peak RSS at $((4 * N)) pages within $GROWTH_KIB KiB of that at $N" \
			"peak RSS means nothing here ($sanitized)"
	elif [ $(($4 - $2)) -lt $GROWTH_KIB ]; then
		ok "$name: peak RSS at $((4 * N)) pages within $GROWTH_KIB KiB of that at $N ($2 -> $4 KiB)"
	else
		notok "$name: peak RSS at $((4 * N)) pages within $GROWTH_KIB KiB of that at $N" \
			"$2 KiB at $N pages, $4 KiB at $((4 * N))"
	fi
}
grows "update --force" update --force --jobs 64 --per-host 64
grows "list --format jsonl" list --format jsonl
grows "export --format opml" export --format opml
is "update checked every page, batch after batch" \
	"$($A -d "$T/h$((4 * N)).db" list --format jsonl | grep -c '"last_check":0,')" 0
