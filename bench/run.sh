#!/bin/sh
# bench/run.sh: the benchmarks of `make bench` (not part of `make check`).
#
# Every benchmark is timed against its baseline IN THE SAME RUN, runs
# interleaved (baseline, ours, baseline, ours...) so load from other work on
# the machine hits both alike, and reports medians.  The verdict is on wall
# time; the notes add CPU time (user + system, all processes), which a
# loaded machine disturbs less, and the min-max of the wall times.  Wall time and peak RSS
# come from bench/tm.c (wait4 rusage: what /usr/bin/time -f "%e %M" reports,
# with millisecond resolution).  Generated data lives in bench/out/
# (gitignored); it is regenerated only when the generator or sizes change.
#
#   BUILD=build sh bench/run.sh          (make bench does this)
#   BENCH_QUICK=1   smaller data, 3 repetitions: a fast smoke run
#   BENCH_REPS=N    repetitions per measurement (default 5, quick 3)
#   BENCH_ONLY="cat merge"  run only these (cat validate pack merge atom update update-floor (with update-floor-off, update-first) update-h2 update-feeds update-100k validate-growth validate-rss publish growth merge-mem growth-pages publish-big publish-diffs publish-relay noise realsoft db-size federation; BENCH_BIG=1 adds publish-1m, publish-relay-1m, db-size-1m and update-1m)
#   BENCH_OUT=DIR   where data and results go (default bench/out/$(basename $BUILD))
set -u
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
LIRS=$TOP/$BUILD/lirs
ANTENNA=$TOP/$BUILD/antenna
GEN=$TOP/$BUILD/tools/lirsgen
SERVER=$TOP/$BUILD/tools/testserver
# One directory per build tree: two people benchmarking their own builds at
# once must not share data, results or the server's files.
OUT=${BENCH_OUT:-$TOP/bench/out/$(basename "$BUILD")}
QUICK=${BENCH_QUICK:-0}
ONLY=${BENCH_ONLY:-}
NOW=1700000000

if [ "$QUICK" = 1 ]; then
	REPS=${BENCH_REPS:-3}
	N_BIG=100000 N_MERGE=10000 N_ATOM=10000 N_PAGES=200 N_PUBLISH=10000 N_FLOOR=2000
else
	REPS=${BENCH_REPS:-5}
	N_BIG=1000000 N_MERGE=100000 N_ATOM=100000 N_PAGES=1000 N_PUBLISH=10000 N_FLOOR=10000
fi
N_ATOM_SMALL=$((N_ATOM / 10)) N_ATOM_NEW=1000

mkdir -p "$OUT/data" "$OUT/data-quick" "$OUT/res"
if ! mkdir "$OUT/.lock" 2> /dev/null; then
	echo "bench: '$OUT' is in use by another run (remove '$OUT/.lock' if none is)" >&2
	exit 2
fi
trap 'rm -rf "$OUT/.lock"' EXIT
trap 'exit 130' INT TERM
R=$OUT/res
rm -f "$R"/*
TABLE=$OUT/results.txt
: > "$TABLE"
TM=$OUT/tm
${CC:-cc} -O2 -o "$TM" "$TOP/bench/tm.c" || { echo "bench: cannot build bench/tm.c" >&2; exit 2; }

say() { printf '%s\n' "bench: $*" >&2; }
want() { [ -z "$ONLY" ] && return 0; case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

# median FILE COLUMN: the median of one column of a tm result file.
median() {
	sort -n -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
		if (NR == 0) { print "-"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# spread FILE: "min-max" of the wall times, to show the noise.
spread() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }
# mib FILE: median peak RSS in MiB.
mib() { median "$1" 2 | awk '{ printf "%.1f", $1 / 1024 }'; }
# rcs FILE: the exit statuses seen, e.g. "0" or "0,1".
rcs() { awk '{ print $3 }' "$1" | sort -u | paste -sd, -; }

# row NAME OURS BASE RATIO TARGET VERDICT RSS NOTE
row() { printf '%-26s %8s %8s %7s %10s %-5s %8s  %s\n' "$@" >> "$TABLE"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }
# The verdict uses 3 decimals so that 1.502 is not rounded to a pass.
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.3f", a / b; else print "-" }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
verdict() { if le "$1" "$2"; then echo PASS; else echo FAIL; fi; }

# pair NAME OURS_CMD BASE_CMD: REPS interleaved runs of two shell commands.
# OURS_CMD is exec'd so its peak RSS is that of our command alone.
pair() {
	i=0
	while [ $i -lt "$REPS" ]; do
		"$TM" "$R/$1.base" sh -c "$3" || say "$1: baseline exited $?"
		"$TM" "$R/$1.ours" sh -c "exec $2" || say "$1: ours exited $?"
		i=$((i + 1))
	done
}

# report NAME TARGET_RATIO [MAX_RSS_MIB]: one table row from a pair.
report() {
	o=$(median "$R/$1.ours" 1) b=$(median "$R/$1.base" 1)
	r=$(ratio "$o" "$b") m=$(mib "$R/$1.ours")
	v=$(verdict "$(ratio3 "$o" "$b")" "$2")
	co=$(median "$R/$1.ours" 4) cb=$(median "$R/$1.base" 4)
	note="cpu $co/$cb s = $(ratio "$co" "$cb"); wall ours $(spread "$R/$1.ours"), base $(spread "$R/$1.base"); exit $(rcs "$R/$1.ours")"
	if [ -n "${3:-}" ]; then
		le "$m" "$3" || v=FAIL
		note="$note; rss < $3 MiB"
	fi
	[ "$(rcs "$R/$1.ours")" = 0 ] || v=FAIL
	row "$1" "$o" "$b" "$r" "<= $2" "$v" "$m" "$note"
}
skip() { row "$1" - - - - SKIP - "$2"; say "$1: skipped: $2"; }
# sizes FULL QUICK: the page counts a hub-scale row runs: FULL, or QUICK
# with BENCH_QUICK, and 1,000,000 besides with BENCH_BIG=1
sizes() {
	if [ "$QUICK" = 1 ]; then set -- "$2"; else set -- "$1"; fi
	[ "${BENCH_BIG:-0}" = 1 ] && set -- "$1" 1000000
	echo "$@"
}
# stale_db DB: 0 (and DB's files gone) when DB is to be made afresh, 1
# when a previous run's is there to reuse
stale_db() {
	[ -s "$1" ] && return 1
	rm -f "$1" "$1-wal" "$1-shm"
}
# start_server DIR SECONDS: the loopback test server on DIR/www (created),
# its log in DIR/server.log; sets SRV_PID and SRV_URL, and the EXIT trap
# kills every server started so far (a later script's trap must not
# forget an earlier one's server).
SRV_PIDS=
start_server() {
	mkdir -p "$1/www"
	"$SERVER" --root "$1/www" --port-file "$1/port" --max-seconds "$2" 2> "$1/server.log" &
	SRV_PID=$!
	SRV_PIDS="$SRV_PIDS $SRV_PID"
	trap 'kill $SRV_PIDS ${NGX_PID:-} 2>/dev/null; rm -rf "$OUT/.lock"' EXIT
	_n=0
	while [ ! -s "$1/port" ] && [ $_n -lt 100 ]; do sleep 0.05; _n=$((_n + 1)); done
	SRV_URL=http://127.0.0.1:$(cat "$1/port")
}

# gen FILE ARGS...: generate once; the stamp holds the generator and args.
gen() {
	f=$1; shift
	stamp="$(cksum < "$GEN") $*"
	if [ -f "$f" ] && [ "$(cat "$f.stamp" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	say "generating $(basename "$f")"
	"$GEN" "$@" -o "$f.tmp" && mv "$f.tmp" "$f" && printf '%s\n' "$stamp" > "$f.stamp"
}

D=$OUT/data; [ "$QUICK" = 1 ] && D=$OUT/data-quick
[ -x "$GEN" ] || { echo "bench: '$GEN' not built (make BUILD=$BUILD tests)" >&2; exit 2; }
[ -x "$LIRS" ] || { echo "bench: '$LIRS' not built" >&2; exit 2; }
started=$(date +%s)
say "quick=$QUICK reps=$REPS out=$OUT"

# ---- 1-3: the codec ------------------------------------------------------
BIG=$D/big.lirs.gz
gen "$BIG" -n "$N_BIG" --now $NOW -z
BIGSZ=$(wc -c < "$BIG")

if want cat; then
	pair cat "'$LIRS' cat --format jsonl '$BIG' > /dev/null" \
		"zcat '$BIG' | iconv -f EUC-JP -t UTF-8 > /dev/null"
	report cat 1.5 16
fi

if want validate; then
	pair validate "'$LIRS' validate --now $NOW '$BIG' > /dev/null 2>&1" \
		"zcat '$BIG' | iconv -f EUC-JP -t UTF-8 > /dev/null"
	report validate 2.0
fi

# validate-growth: time per record at 100k and 3M records (the
# ratio shows superlinear growth as a number; ~1 is linear), and the peak
# RSS at 1M records against 48 MiB.  Quick: 10k, 100k and 300k, no target.
if want validate-growth; then
	if [ "$QUICK" = 1 ]; then VG_S=10000 VG_M=100000 VG_L=300000; else VG_S=100000 VG_M=1000000 VG_L=3000000; fi
	for n in $VG_S $VG_M $VG_L; do gen "$D/v$n.lirs.gz" -n $n --now $NOW -z; done
	i=0
	while [ $i -lt "$REPS" ]; do
		for n in $VG_S $VG_L $VG_M; do
			"$TM" "$R/vg$n" "$LIRS" validate -q --now $NOW "$D/v$n.lirs.gz" > /dev/null 2>&1 ||
				[ $? = 1 ] || say "validate-growth: $n records: exit $?"
		done
		i=$((i + 1))
	done
	ts=$(median "$R/vg$VG_S" 1) tl=$(median "$R/vg$VG_L" 1) tm=$(median "$R/vg$VG_M" 1)
	cs=$(median "$R/vg$VG_S" 4) cl=$(median "$R/vg$VG_L" 4)
	# The baseline: the small file's time scaled to the large one's size.
	k=$((VG_L / VG_S))
	lin=$(awk -v t="$ts" -v k="$k" 'BEGIN { printf "%.3f", t * k }')
	us() { awk -v t="$1" -v n="$2" 'BEGIN { printf "%.2f", t * 1e6 / n }'; }
	r=$(ratio3 "$tl" "$lin")
	row validate-growth "$tl" "$lin" "$(ratio "$tl" "$lin")" "<= 1.25" "$(verdict "$r" 1.25)" "$(mib "$R/vg$VG_L")" \
		"us/record: $(us "$tl" $VG_L) at $VG_L, $(us "$ts" $VG_S) at $VG_S; cpu ratio $(ratio "$cl" "$(awk -v c="$cs" -v k="$k" 'BEGIN { print c * k }')"); wall $VG_L $(spread "$R/vg$VG_L"), $VG_S $(spread "$R/vg$VG_S")"
	m=$(mib "$R/vg$VG_M")
	if [ "$QUICK" = 1 ]; then
		row validate-rss "$tm" - - - INFO "$m" "peak RSS at $VG_M records (the 48 MiB target is for 1,000,000)"
	else
		v=PASS; le "$m" 48 || v=FAIL
		row validate-rss "$tm" - - "<= 48 MiB" "$v" "$m" "peak RSS at $VG_M records; wall $(spread "$R/vg$VG_M")"
	fi
fi

if want pack; then
	# Same records: the JSON Lines `lirs cat` writes, and the UTF-8 text of the LIRS file.
	if [ ! -f "$D/big.jsonl" ] || [ "$D/big.jsonl" -ot "$BIG" ]; then
		say "decoding big.jsonl and big.utf8"
		"$LIRS" cat --format jsonl "$BIG" > "$D/big.jsonl"
		zcat "$BIG" | iconv -f EUC-JP -t UTF-8 > "$D/big.utf8"
	fi
	pair pack "'$LIRS' pack '$D/big.jsonl' > /dev/null" \
		"iconv -f UTF-8 -t EUC-JP '$D/big.utf8' | gzip -6 > /dev/null"
	report pack 1.5
fi

# ---- 4-5: merge and atom ---------------------------------------------------
if want merge; then
	k=0 MERGE_IN=""
	while [ $k -lt 10 ]; do
		gen "$D/m$k.lirs.gz" -n "$N_MERGE" --now $NOW --seed 2 --file $k --overlap 50 -z
		MERGE_IN="$MERGE_IN '$D/m$k.lirs.gz'"
		k=$((k + 1))
	done
	if "$LIRS" merge --help > /dev/null 2>&1; then
		# merge's output (gzip, EUC-JP) against cat's output
		# (JSON Lines) of the same 10 inputs, both to /dev/null: neither
		# pays for a file system (merge -o would add an fsync).
		pair merge "'$LIRS' merge --now $NOW $MERGE_IN > /dev/null" \
			"'$LIRS' cat $MERGE_IN > /dev/null"
		report merge 1.5
		# The same without the gzip + EUC-JP encoding of the output: what
		# the merging itself costs over decoding.
		pair merge-jsonl "'$LIRS' merge --now $NOW --format jsonl $MERGE_IN > /dev/null" \
			"'$LIRS' cat $MERGE_IN > /dev/null"
		report merge-jsonl 1.5
		"$LIRS" merge -v --now $NOW -o "$OUT/merged.lirs.gz" $(echo "$MERGE_IN" | tr -d "'") 2>&1 |
			tail -n 3 | sed 's/^/bench: merge -v: /' >&2
	else
		skip merge "lirs merge not built"
	fi
fi

. "$TOP/bench/atom.sh"
. "$TOP/bench/antenna.sh"
. "$TOP/bench/growth.sh"
. "$TOP/bench/growth-pages.sh"
. "$TOP/bench/publish-big.sh"
. "$TOP/bench/noise.sh"
. "$TOP/bench/realsoft.sh"
. "$TOP/bench/db-size.sh"
. "$TOP/bench/federation.sh"

# ---- the table -----------------------------------------------------------
{
	echo "lirs-antenna benchmarks ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), quick=$QUICK, medians of $REPS)"
	echo "big.lirs.gz: $N_BIG records, $BIGSZ bytes gzip, $(zcat "$BIG" | wc -c) bytes decoded"
	printf '%-26s %8s %8s %7s %10s %-5s %8s  %s\n' name ours_s base_s ratio target result rss_MiB notes
	cat "$TABLE"
	echo "total bench time: $(( $(date +%s) - started )) s"
} | tee "$OUT/report.txt"
! grep -q ' FAIL ' "$TABLE"
