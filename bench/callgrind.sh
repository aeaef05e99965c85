#!/bin/sh
# bench/callgrind.sh: the instruction count of one `antenna update`, the
# figure that stays put on a loaded machine (CPU seconds swing by 20% on a
# shared 2-core box; callgrind counts user-space instructions, the same
# for the same work).  One command:
#
#   sh bench/callgrind.sh [ANTENNA] [N]          (make callgrind does this)
#
# ANTENNA is the binary to measure (default BUILD's, build/antenna), so that
# two builds (another worktree's) run the same setup; N pages (default
# 2,000) of the update-floor bench (bench/floor.sh: static pages on nginx,
# loopback), seeded and primed by one untimed update, then half of them
# changed and `antenna update --force --jobs 64 --per-host 64` run under
# valgrind --tool=callgrind.  Prints the total instructions (Ir) and the
# top functions, inclusive and self; written to
# bench/out/callgrind/NAME/ (CALLGRIND_OUT=DIR elsewhere), with
# callgrind.out for callgrind_annotate or kcachegrind.  The scenario:
# CALLGRIND_OFF=1 turns the diff texts and robots.txt off first
# (floor_off, the update-floor-off row); CALLGRIND_FIRST=1 measures the
# first update of the N pages freshly seeded instead (the update-first
# row: no priming, nothing changed); the directory's name ends in -off or
# -first then.  Needs valgrind, nginx, curl and the seed and httpget of
# the BUILD (sqlite3 with CALLGRIND_OFF).
set -u
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
ANTENNA=$(cd "$(dirname "${1:-$TOP/$BUILD/antenna}")" && pwd)/$(basename "${1:-antenna}")
N_FLOOR=${2:-2000}
NAME=$(echo "$ANTENNA" | sed 's|^/||; s|/|_|g')
SCEN=
[ "${CALLGRIND_OFF:-0}" = 1 ] && SCEN=$SCEN-off
[ "${CALLGRIND_FIRST:-0}" = 1 ] && SCEN=$SCEN-first
W=${CALLGRIND_OUT:-$TOP/bench/out/callgrind/$NAME$SCEN}
UPD="--force --jobs 64 --per-host 64"
say() { printf '%s\n' "callgrind: $*" >&2; }
for c in valgrind callgrind_annotate nginx; do
	command -v $c > /dev/null 2>&1 || { say "$c not installed"; exit 2; }
done
[ -x "$ANTENNA" ] && [ -x "$TOP/$BUILD/bench/seed" ] && [ -x "$TOP/$BUILD/tools/httpget" ] ||
	{ say "build first: make callgrind builds what it needs"; exit 2; }
. "$TOP/bench/floor.sh"
rm -rf "$W"; mkdir -p "$W/floor"
floor_pages "$W/floor" "$N_FLOOR" 0 1
floor_nginx || { say "nginx did not start: $(tail -n 1 "$W/ngx/start.err")"; exit 2; }
trap 'kill $NGX_PID 2> /dev/null' EXIT
trap 'exit 130' INT TERM
floor_setup callgrind "$W/on.db" "$FLOOR_URL" "$W/curl.cfg"
[ "${CALLGRIND_OFF:-0}" = 1 ] && floor_off "$W/on.db"
if [ "${CALLGRIND_FIRST:-0}" != 1 ]; then
	"$ANTENNA" -d "$W/on.db" update $UPD > /dev/null 2>&1 || say "priming update exited $?"
	sleep 1.1   # nginx's ETag and Last-Modified are in seconds: a new one for each changed page
	floor_pages "$W/floor" "$N_FLOOR" 1 2
fi
valgrind --tool=callgrind --callgrind-out-file="$W/callgrind.out" \
	"$ANTENNA" -d "$W/on.db" update $UPD > "$W/update.out" 2> "$W/valgrind.err" ||
	say "update exited $? (see $W/valgrind.err)"
{
	what="half changed"
	[ "${CALLGRIND_FIRST:-0}" = 1 ] && what="the first update"
	[ "${CALLGRIND_OFF:-0}" = 1 ] && what="$what, diff texts and robots.txt off"
	echo "antenna update $UPD under callgrind: $N_FLOOR pages, $what; $ANTENNA"
	echo "update said: $(tail -n 1 "$W/update.out")"
	echo "total Ir: $(awk '/^(summary|totals):/ { print $2; exit }' "$W/callgrind.out")"
	echo
	echo "== inclusive =="
	callgrind_annotate --inclusive=yes --threshold=100 "$W/callgrind.out" 2> /dev/null |
		awk '/^-+$/ { d++ } d >= 4' | grep -v '^-' | grep -v '^$' | head -n "${CALLGRIND_TOP:-45}"
	echo
	echo "== self =="
	callgrind_annotate --threshold=100 "$W/callgrind.out" 2> /dev/null |
		awk '/^-+$/ { d++ } d >= 4' | grep -v '^-' | grep -v '^$' | head -n "${CALLGRIND_TOP:-45}"
} > "$W/report.txt"
cat "$W/report.txt"
