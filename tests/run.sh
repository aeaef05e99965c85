#!/bin/sh
# The test runner: every unit test binary in $BUILD/tests/ and every
# tests/*/run.sh script.  Each prints "ok - ..." / "not ok - ..." lines;
# this counts them and ends with the line "N passed, N failed".
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
trap 'rm -f "$log"' EXIT
run() {
	name=$1; shift
	"$@" > "$log.one" 2>&1
	rc=$?
	cat "$log.one" >> "$log"
	grep -E '^(not )?ok( |$)' "$log.one" | sed "s|^|[$name] |"
	grep -E '^#' "$log.one" | head -n 40
	# A test program that crashed, or printed no result, is a failure of its own.
	if ! grep -qE '^(not )?ok( |$)' "$log.one" || { [ $rc -ne 0 ] && ! grep -q '^not ok' "$log.one"; }; then
		echo "not ok - $name exited $rc" | tee -a "$log"
		tail -n 20 "$log.one" | sed 's/^/#   /'
	fi
	rm -f "$log.one"
}
for t in "$TOP/$BUILD"/tests/t_*; do
	[ -x "$t" ] || continue
	run "$(basename "$t")" $WRAP "$t"
done
for s in "$TOP"/tests/*/run.sh; do
	[ -f "$s" ] || continue
	run "$(basename "$(dirname "$s")")" sh "$s"
done
pass=$(grep -cE '^ok( |$)' "$log")
fail=$(grep -cE '^not ok( |$)' "$log")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
