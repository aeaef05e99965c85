# bench/growth.sh: the records growth test, sourced by
# bench/run.sh (BENCH_ONLY=growth); uses its gen, TM, R, D, row, say.
#
# For lirs cat, validate, merge and atom, one input per step (100k, 1M, 3M
# records; atom 100k, 300k, 1M events, as one 3M run takes minutes), each
# timed GROWTH_REPS times (default 3, quick 1).  One row per step: median wall
# time, median peak RSS, CPU time per record, and the growth ratio: CPU time
# per record of this step over the step before.  Linear time gives about
# 1.0; superlinear growth shows as a larger number (1.3 from 1M to 3M is
# 30% more time per record).  The verdict is INFO: the number is the point.
#
# merge-mem (the target: <= 100 B per distinct URL at 1M distinct URLs):
# peak RSS of `lirs merge` over 1,000,000 distinct, fresh records minus the
# peak RSS of a 10-record merge, divided by the distinct URLs it kept
# (`merge -v`).  PASS or FAIL.
#
# Data: lirsgen's records (tests/tools/lirsgen.c), 20% stale for
# cat/validate/merge (so merge keeps 80%), none for atom and merge-mem.
# Everything lives under the bench output directory ($D, $OUT/growth).
if want growth; then
	G=$OUT/growth
	mkdir -p "$G"
	GREPS=${GROWTH_REPS:-3}
	if [ "$QUICK" = 1 ]; then
		GREPS=${GROWTH_REPS:-1}
		GSTEPS="10000 100000 300000" GASTEPS="10000 30000 100000" GMEM=100000
	else
		GSTEPS="100000 1000000 3000000" GASTEPS="100000 300000 1000000" GMEM=1000000
	fi
	# gname N: 100k, 1M, 3M
	gname() { awk -v n="$1" 'BEGIN { if (n >= 1e6 && n % 1e6 == 0) printf "%dM", n / 1e6;
		else if (n >= 1000 && n % 1000 == 0) printf "%dk", n / 1000; else print n }'; }
	# gstep CMD N NAME PREV_US_PER_RECORD: time one step, print its per-record CPU us.
	gstep() {
		cmd=$1 n=$2 name=$3 prev=$4 f=$R/growth-$3
		rm -f "$f"
		k=0
		while [ $k -lt "$GREPS" ]; do
			[ -n "${GSETUP:-}" ] && sh -c "$GSETUP"
			"$TM" "$f" sh -c "exec $cmd" || say "growth $name: exited $?"
			k=$((k + 1))
		done
		w=$(median "$f" 1) c=$(median "$f" 4)
		us=$(awk -v c="$c" -v n="$n" 'BEGIN { printf "%.3f", c / n * 1e6 }')
		g=-; [ -n "$prev" ] && g=$(ratio "$us" "$prev")
		v=INFO; [ "$(rcs "$f")" = 0 ] || [ "$(rcs "$f")" = 1 ] || v=FAIL
		row "growth $name" "$w" - "$g" "per-record" "$v" "$(mib "$f")" \
			"$n records: cpu $c s = $us us/record (x$g of the step before); wall $(spread "$f"); exit $(rcs "$f")"
		echo "$us"
	}
	for n in $GSTEPS; do
		gen "$D/growth-$n.lirs.gz" -n "$n" --now $NOW --seed 5 -z
	done
	for n in $GASTEPS; do
		gen "$D/growth-atom-$n.lirs.gz" -n "$n" --now $NOW --seed 6 --stale 0 -z
	done
	for c in cat validate merge; do
		prev=
		for n in $GSTEPS; do
			in=$D/growth-$n.lirs.gz
			case $c in
			cat) cmd="'$LIRS' cat '$in' > /dev/null" ;;
			validate) cmd="'$LIRS' validate --now $NOW '$in' > /dev/null 2>&1" ;;
			merge) cmd="'$LIRS' merge --now $NOW '$in' > /dev/null" ;;
			esac
			prev=$(GSETUP= gstep "$cmd" "$n" "$c $(gname "$n")" "$prev")
		done
	done
	prev=
	for n in $GASTEPS; do
		in=$D/growth-atom-$n.lirs.gz
		cmd="'$LIRS' atom --state '$G/atom/state.db' --base http://antenna.example.jp/ --out '$G/atom/feeds' --now $NOW '$in' > /dev/null"
		prev=$(GSETUP="rm -rf '$G/atom'; mkdir -p '$G/atom'" gstep "$cmd" "$n" "atom $(gname "$n")" "$prev")
	done
	rm -rf "$G/atom"

	# merge-mem: bytes per distinct URL
	gen "$D/growth-mem.lirs.gz" -n "$GMEM" --now $NOW --seed 7 --stale 0 -z
	gen "$D/growth-tiny.lirs.gz" -n 10 --now $NOW --seed 7 --stale 0 -z
	rm -f "$R/merge-mem" "$R/merge-tiny"
	k=0
	while [ $k -lt "$GREPS" ]; do
		"$TM" "$R/merge-tiny" "$LIRS" merge --now $NOW -o "$G/tiny.lirs.gz" "$D/growth-tiny.lirs.gz"
		"$TM" "$R/merge-mem" "$LIRS" merge --now $NOW -o "$G/mem.lirs.gz" "$D/growth-mem.lirs.gz"
		k=$((k + 1))
	done
	kept=$("$LIRS" merge -v --now $NOW -o "$G/mem.lirs.gz" "$D/growth-mem.lirs.gz" 2>&1 |
		sed -n 's/.*kept \([0-9]*\) .*/\1/p')
	rm -f "$G/mem.lirs.gz" "$G/tiny.lirs.gz"
	big=$(median "$R/merge-mem" 2) tiny=$(median "$R/merge-tiny" 2)
	bpu=$(awk -v b="$big" -v t="$tiny" -v k="${kept:-0}" 'BEGIN { if (k > 0) printf "%.1f", (b - t) * 1024 / k; else print "-" }')
	v=FAIL; [ "$bpu" != - ] && le "$bpu" 100 && v=PASS
	row "merge-mem" "$(median "$R/merge-mem" 1)" - "$bpu" "<= 100 B" "$v" "$(mib "$R/merge-mem")" \
		"bytes per distinct URL: (peak RSS $big KiB - $tiny KiB of a 10-record merge) / $kept URLs kept"
fi
