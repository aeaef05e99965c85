#!/bin/sh
# bench/profile.sh: where `antenna update` spends its CPU, by function, so
# that the next change starts from a profile.  One command:
#
#   BUILD=build sh bench/profile.sh [N]          (make profile does this)
#
# N pages (default 10,000) of the update-floor bench (bench/floor.sh:
# static pages on nginx, loopback), seeded and primed by one untimed
# update; half of them changed, then `antenna update --force --jobs 64
# --per-host 64` runs under `perf record --call-graph dwarf`.  Written to
# bench/out/BUILD/profile/ (PROFILE_OUT=DIR elsewhere; to compare two
# builds under the same load, run it for one then the other):
#   profile.txt    the breakdown: the update's CPU against curl's
#                  (--parallel --parallel-max 64, the same URLs, half
#                  changed before each run, interleaved, PROFILE_ROUNDS
#                  rounds (3), medians), features on and off; then the
#                  shares by function, self (perf report --no-children)
#                  and inclusive (--children), of the profiled run
#   perf.data      the recording (perf report -i perf.data to look further)
# PROFILE_OFF=1 profiles the run with the diff texts and robots.txt off
# (floor_off) instead.  PROFILE_FIRST=1 profiles the first run instead
# (bench/antenna.sh's update-first row): the update of the N pages freshly
# seeded, never checked; its rounds time that first run (a fresh copy of
# the seeded database each round) against curl over the same pages, and
# the recording is of one more first run.  Needs perf (linux-perf),
# nginx, curl, sqlite3.
set -u
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
ANTENNA=$TOP/$BUILD/antenna
N_FLOOR=${1:-10000}
ROUNDS=${PROFILE_ROUNDS:-3}
W=${PROFILE_OUT:-$TOP/bench/out/$(basename "$BUILD")/profile}
UPD="--force --jobs 64 --per-host 64"
say() { printf '%s\n' "profile: $*" >&2; }
for c in perf nginx curl sqlite3; do
	command -v $c > /dev/null 2>&1 || { say "$c not installed (make profile installs it as root)"; exit 2; }
done
[ -x "$ANTENNA" ] && [ -x "$TOP/$BUILD/bench/seed" ] || { say "build first: make bench builds what it needs"; exit 2; }
. "$TOP/bench/floor.sh"
rm -rf "$W"; mkdir -p "$W/floor" "$W/res"
TM=$W/tm
${CC:-cc} -O2 -o "$TM" "$TOP/bench/tm.c" || exit 2
floor_pages "$W/floor" "$N_FLOOR" 0 1
floor_nginx || { say "nginx did not start: $(tail -n 1 "$W/ngx/start.err")"; exit 2; }
trap 'kill $NGX_PID 2> /dev/null' EXIT
trap 'exit 130' INT TERM

med() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }
V=1
# rounds TAG DB: ROUNDS interleaved runs, curl then ours, half the pages
# changed before each; "TAG: cpu A/B s = R, wall A/B s = R" on stdout
rounds() {
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		floor_pages "$W/floor" "$N_FLOOR" $V 2; V=$((V + 1))
		"$TM" "$W/res/$1.base" sh -c "curl -s --no-progress-meter --parallel --parallel-max 64 -K '$W/curl.cfg' > /dev/null 2>&1"
		floor_pages "$W/floor" "$N_FLOOR" $V 2; V=$((V + 1))
		"$TM" "$W/res/$1.ours" "$ANTENNA" -d "$2" update $UPD > "$W/$1.out" 2>&1 || say "$1: update exited $?"
		i=$((i + 1))
	done
	medians "$1"
}
# medians TAG: the line of TAG's rounds (res/TAG.ours against res/TAG.base)
medians() {
	co=$(awk '{ print $4 }' "$W/res/$1.ours" | med) cb=$(awk '{ print $4 }' "$W/res/$1.base" | med)
	wo=$(awk '{ print $1 }' "$W/res/$1.ours" | med) wb=$(awk '{ print $1 }' "$W/res/$1.base" | med)
	rss=$(awk '{ print $2 }' "$W/res/$1.ours" | med)
	printf '%-5s cpu %s/%s s = %s; wall %s/%s s = %s; peak RSS %s KiB; %s\n' "$1" "$co" "$cb" \
		"$(ratio "$co" "$cb")" "$wo" "$wb" "$(ratio "$wo" "$wb")" "$rss" "$(tail -n 1 "$W/$1.out")"
}
prime() { # prime DB: seeded, curl's list, one untimed update of each
	floor_setup profile "$1" "$FLOOR_URL" "$W/curl.cfg"
	"$ANTENNA" -d "$1" update $UPD > /dev/null 2>&1 || say "priming update exited $?"
	curl -s --no-progress-meter --parallel --parallel-max 64 -K "$W/curl.cfg" > /dev/null 2>&1
}
# first_rounds: ROUNDS interleaved runs, curl then our first update of a
# fresh copy of the seeded database (seed.db), as rounds() says them
first_rounds() {
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		"$TM" "$W/res/first.base" sh -c "curl -s --no-progress-meter --parallel --parallel-max 64 -K '$W/curl.cfg' > /dev/null 2>&1"
		rm -f "$W/first.db"*; cp "$W/seed.db" "$W/first.db"
		"$TM" "$W/res/first.ours" "$ANTENNA" -d "$W/first.db" update $UPD > "$W/first.out" 2>&1 || say "first: update exited $?"
		i=$((i + 1))
	done
	medians first
}
if [ "${PROFILE_FIRST:-0}" = 1 ]; then
	floor_setup profile "$W/seed.db" "$FLOOR_URL" "$W/curl.cfg"
	curl -s --no-progress-meter --parallel --parallel-max 64 -K "$W/curl.cfg" > /dev/null 2>&1
	say "interleaved rounds: $ROUNDS of the first run"
	{
		echo "antenna's first update against curl --parallel --parallel-max 64: $N_FLOOR pages on nginx (loopback), freshly seeded"
		echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) before the runs; medians of $ROUNDS interleaved rounds"
		first_rounds
		echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
	} > "$W/ratios.txt"
	cat "$W/ratios.txt" >&2
	rm -f "$W/first.db"*; cp "$W/seed.db" "$W/first.db"
	DB=$W/first.db
else
	prime "$W/on.db"
	prime "$W/off.db"
	floor_off "$W/off.db"
	"$ANTENNA" -d "$W/off.db" update $UPD > /dev/null 2>&1
	say "interleaved rounds: $ROUNDS each, features on, then off"
	{
		echo "antenna update against curl --parallel --parallel-max 64: $N_FLOOR pages on nginx (loopback), half changed before each run"
		echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) before the runs; medians of $ROUNDS interleaved rounds"
		rounds on "$W/on.db"
		rounds off "$W/off.db"
		echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
	} > "$W/ratios.txt"
	cat "$W/ratios.txt" >&2
	DB=$W/on.db
	[ "${PROFILE_OFF:-0}" = 1 ] && DB=$W/off.db
	floor_pages "$W/floor" "$N_FLOOR" $V 2; V=$((V + 1))
fi
say "perf record of the update ($(basename "$DB" .db))"
perf record -q -F 4000 --call-graph dwarf,16384 -o "$W/perf.data" \
	"$ANTENNA" -d "$DB" update $UPD > "$W/perf.out" 2>&1 || say "perf record: exited $?"
{
	cat "$W/ratios.txt"
	echo
	echo "profiled: $(basename "$DB" .db), $(tail -n 1 "$W/perf.out")"
	echo
	echo "== self (perf report --no-children), shares of all samples =="
	perf report -i "$W/perf.data" --no-children --stdio --sort symbol -g none --percent-limit 0.4 2> /dev/null |
		grep -v '^#' | grep -v '^$' | head -n 60
	echo
	echo "== inclusive (perf report --children) =="
	perf report -i "$W/perf.data" --children --stdio --sort symbol -g none --percent-limit 2 2> /dev/null |
		grep -v '^#' | grep -v '^$' | head -n 70
	echo
	echo "== by object (dso) =="
	perf report -i "$W/perf.data" --no-children --stdio --sort dso -g none 2> /dev/null |
		grep -v '^#' | grep -v '^$' | head -n 15
} > "$W/profile.txt"
say "written: $W/profile.txt"
