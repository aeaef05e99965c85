#!/bin/sh
# bench/pgcpu.sh [N [ROUNDS]]: the CPU of one checker on PostgreSQL against
# the same checker on SQLite (the bound: within 1.3x).  N pages (3,000)
# served by nginx on loopback (bench/floor.sh), half of them changed
# before each round; each round runs `antenna update --force --jobs 64
# --per-host 64` on the SQLite file, then on a PostgreSQL database of a
# server of its own (tests/lib/pg.sh: a Unix socket), the two interleaved,
# ROUNDS (3) rounds; prints each run's user+sys of the antenna process and
# the server's CPU (its processes' user+sys, the backend included) during
# that run, then the medians and their ratio.  Peak RSS of list, export
# and publish at N pages on both follow (/usr/bin/time's maximum RSS).
# Needs nginx (nginx-light) and postgresql; run from the top directory
# after make tests:  sh bench/pgcpu.sh 3000 3
# test-needs: nginx:nginx-light
TOP=${TOP:-$(pwd)}
BUILD=${BUILD:-build}
ANTENNA=${ANTENNA:-$TOP/$BUILD/antenna}
N_FLOOR=${1:-3000}
ROUNDS=${2:-3}
W=$(mktemp -d /tmp/pgcpu.XXXXXX) && chmod 755 "$W" || exit 1  # nginx reads it as www-data
say() { echo "$*" >&2; }
. "$TOP/bench/floor.sh"
. "$TOP/tests/lib/pg.sh"
NGX_PID=
trap '[ -n "$NGX_PID" ] && kill "$NGX_PID" 2>/dev/null; pg_stop; rm -rf "$W"' EXIT INT TERM
mkdir -p "$W/floor"
floor_pages "$W/floor" "$N_FLOOR" 0 1
floor_nginx || { say "nginx did not start: $(tail -n 3 "$W/ngx/start.err")"; exit 1; }
pg_start || exit 1
PGDB=$(pg_newdb bench) || exit 1
floor_setup sqlite "$W/a.db" "$FLOOR_URL" "$W/curl.cfg"
floor_setup postgresql "$PGDB" "$FLOOR_URL" "$W/curl.cfg"

# pg_ticks: the server's CPU so far, in clock ticks: its processes'
# user+sys and that of the children it reaped (the backends gone)
pg_ticks() {
	pm=$(head -n 1 "$PG_DIR/data/postmaster.pid")
	{
		awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pm/stat"
		for c in $(cat "/proc/$pm/task/$pm/children" 2> /dev/null); do
			awk '{ print $14 + $15 }' "/proc/$c/stat" 2> /dev/null
		done
	} | awk '{ s += $1 } END { print s }'
}
HZ=$(getconf CLK_TCK)
# run NAME DB: one update; appends "cpu server" (seconds) to $W/NAME
run() {
	t0=$(pg_ticks)
	/usr/bin/time -f '%U %S' -o "$W/time" "$ANTENNA" -d "$2" update --force --jobs 64 --per-host 64 -q \
		> "$W/$1.out" 2>&1 || say "$1: update failed: $(tail -n 3 "$W/$1.out")"
	t1=$(pg_ticks)
	awk -v s=$((t1 - t0)) -v hz="$HZ" '{ printf "%.2f %.2f\n", $1 + $2, s / hz }' "$W/time" >> "$W/$1"
}
v=1
r=0
while [ $r -lt "$ROUNDS" ]; do
	floor_pages "$W/floor" "$N_FLOOR" $v 2; v=$((v + 1))
	run sqlite "$W/a.db"
	run postgresql "$PGDB"
	r=$((r + 1))
done
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for b in sqlite postgresql; do
	echo "$b: antenna user+sys $(cut -d' ' -f1 "$W/$b" | tr '\n' ' ')(median $(cut -d' ' -f1 "$W/$b" | med) s);" \
		"server $(cut -d' ' -f2 "$W/$b" | tr '\n' ' ')(median $(cut -d' ' -f2 "$W/$b" | med) s)"
done
awk -v a="$(cut -d' ' -f1 "$W/sqlite" | med)" -v b="$(cut -d' ' -f1 "$W/postgresql" | med)" \
	'BEGIN { printf "ratio PostgreSQL/SQLite (antenna process): %.2f (the bound: <= 1.3)\n", b / a }'
for c in list "export --format jsonl" "publish --now 2000000000 $W/site"; do
	for d in "$W/a.db" "$PGDB"; do
		rm -rf "$W/site"
		/usr/bin/time -f '%M' -o "$W/rss" "$ANTENNA" -d "$d" $c > /dev/null 2>&1
		case $d in postgres*) b=postgresql ;; *) b=sqlite ;; esac
		echo "peak RSS $b ${c%% *}: $(cat "$W/rss") KB"
	done
done
