#!/bin/sh
# The test runner: every unit test binary in $BUILD/tests/ and every
# tests/*/run.sh script.  Each suite speaks TAP: a plan line "1..N" (first
# or last) with the number of checks it runs, then "ok - ..." / "not ok -
# ..." lines; "ok - ... # SKIP reason" is a check that could not run here.
# A suite whose count differs from its plan, that prints no plan, or that
# exits non-zero without a "not ok" is a failure of its own.  The last
# line is "N passed, N failed, N skipped" (skips are never passes).
# VALGRIND=1 runs the unit tests (and, via $LIRS_WRAP, the commands) under valgrind.
BUILD=${BUILD:-build}
export BUILD
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
export LIRS="$TOP/$BUILD/lirs" ANTENNA="$TOP/$BUILD/antenna"
WRAP=""
if [ "${VALGRIND:-}" = 1 ]; then
	WRAP="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --suppressions=$TOP/tests/valgrind.supp"
	export LIRS_WRAP="$WRAP"
fi
log=$(mktemp)
out=$(mktemp -d)
trap 'rm -rf "$log" "$log.one" "$log.fail" "$out"' EXIT
: > "$log.fail"
TAP_RE='^(not )?ok( |$)'
# The suites run TEST_JOBS at a time (default: the processors), the
# longest first; each writes its own output file, judged afterwards in a
# fixed order, so the log reads the same whatever finished first.  The
# suites share nothing: each starts its servers on free ports in its own
# temporary directory.
JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
LONG="realdyn realheld realstatic realsoft realredmine scale federation noise hub polite demo"
judge() {
	name=$1
	cp "$out/$name.out" "$log.one"
	rc=$(cat "$out/$name.rc" 2>/dev/null || echo 127)
	cat "$log.one" >> "$log"
	grep -E '^not ok( |$)' "$log.one" | sed "s|^|[$name] |" >> "$log.fail"
	grep -E '^#' "$log.one" | head -n 40
	ran=$(grep -cE "$TAP_RE" "$log.one")
	plans=$(grep -cE '^1\.\.[0-9]+$' "$log.one")
	planned=$(grep -E '^1\.\.[0-9]+$' "$log.one" | head -n 1 | cut -d . -f 3)
	# The plan comes first or last among the TAP lines, once.
	first=$(grep -nE "$TAP_RE|^1\\.\\.[0-9]+\$" "$log.one" | head -n 1 | cut -d : -f 2-)
	last=$(grep -nE "$TAP_RE|^1\\.\\.[0-9]+\$" "$log.one" | tail -n 1 | cut -d : -f 2-)
	if [ "$plans" -ne 1 ]; then
		echo "not ok - $name printed $plans plans (1..N), not one" | tee -a "$log" "$log.fail"
	elif [ "$first" != "1..$planned" ] && [ "$last" != "1..$planned" ]; then
		echo "not ok - $name: its plan 1..$planned is neither first nor last" | tee -a "$log" "$log.fail"
	elif [ "$ran" -ne "$planned" ]; then
		echo "not ok - $name planned $planned, ran $ran" | tee -a "$log" "$log.fail"
	fi
	# A test program that crashed, or printed no result, is a failure of its own.
	if [ "$ran" -eq 0 ] || { [ $rc -ne 0 ] && ! grep -q '^not ok' "$log.one"; }; then
		echo "not ok - $name exited $rc" | tee -a "$log" "$log.fail"
		tail -n 20 "$log.one" | sed 's/^/#   /'
	fi
	rm -f "$log.one"
}
# one line a job: NAME, then the command (no spaces in paths: $TOP's are
# checked below)
jobs=$out/jobs
: > "$jobs"
for n in $LONG; do
	[ -f "$TOP/tests/$n/run.sh" ] && echo "$n sh $TOP/tests/$n/run.sh" >> "$jobs"
done
for s in "$TOP"/tests/*/run.sh; do
	[ -f "$s" ] || continue
	n=$(basename "$(dirname "$s")")
	case " $LONG " in *" $n "*) continue ;; esac
	echo "$n sh $s" >> "$jobs"
done
for t in "$TOP/$BUILD"/tests/t_*; do
	[ -x "$t" ] || continue
	echo "$(basename "$t") $WRAP $t" >> "$jobs"
done
case $TOP in *[[:space:]]*) echo "not ok - the tree's path has a space: $TOP"; exit 1 ;; esac
# each job: its output and exit status in $out; its TAP lines shown as it ends
export out
xargs -P "$JOBS" -L 1 sh -c 'n=$1; shift; "$@" > "$out/$n.out" 2>&1; echo $? > "$out/$n.rc"
	grep -E "^(not )?ok( |\$)" "$out/$n.out" | sed "s|^|[$n] |"' job < "$jobs"
echo "# judged in order:"
while read -r n _; do
	judge "$n"
done < "$jobs"
skip=$(grep -E '^ok( |$)' "$log" | grep -ciE '# skip( |$)')
pass=$(( $(grep -cE '^ok( |$)' "$log") - skip ))
fail=$(grep -cE '^not ok( |$)' "$log")
# The failures again, just above the summary, so a log read from its tail
# (a CI page) names them.
if [ "$fail" -gt 0 ]; then
	echo "# the $fail failure(s):"
	head -n 50 "$log.fail" | sed 's/^/#   /'
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
