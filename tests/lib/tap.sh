# tests/lib/tap.sh: TAP for the shell suites, as tests/run.sh reads it.
# Sourced.  A suite declares how many checks it runs, so that a check
# that never ran (a crash, an early exit, a branch not taken) fails:
#   plan N          before the first check: exactly N checks follow;
#   done_testing M  at the end, for a suite whose count follows its data:
#                   the plan is the count of checks made through ok/notok
#                   (tap_count), printed last, and fewer than M checks is a
#                   failure of its own (M is written in the suite).
# A check that cannot run here is "ok - NAME # SKIP REASON" (skip): tests/run.sh
# counts it as skipped, never as passed.
# The one kit of checks every suite uses (no suite defines its own):
#   ok NAME                 a check that passed;
#   notok NAME [DETAIL...]  one that failed, each DETAIL on a "#" line;
#   check NAME CMD...       ok when CMD succeeds (its output discarded);
#   is NAME GOT WANT        ok when the two strings are equal;
#   skip NAME REASON        a check that cannot run here.
TAP_N=0
plan() { echo "1..$1"; }
tap_count() { TAP_N=$((TAP_N + 1)); }
ok() { tap_count; echo "ok - $1"; }
notok() { tap_count; echo "not ok - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
check() { tap_name=$1; shift; if "$@" >/dev/null 2>&1; then ok "$tap_name"; else notok "$tap_name" "$*"; fi; }
is() { if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "got '$2'" "want '$3'"; fi; }
skip() { tap_count; echo "ok - $1 # SKIP $2"; }
done_testing() {
	if [ "$TAP_N" -lt "$1" ]; then
		tap_count
		echo "not ok - ran $((TAP_N - 1)) checks, fewer than the $1 this suite runs at least"
	fi
	echo "1..$TAP_N"
}
# tap_from FILE N: the check lines another program (a Python heredoc) wrote
# to FILE, counted; exactly N of them, or that is a failure of its own
# (a program that crashed half way drops no check silently).
tap_from() {
	tf_n=0
	while IFS= read -r tf_l; do
		case $tf_l in "ok "* | ok | "not ok"*) tap_count; tf_n=$((tf_n + 1)) ;; esac
		printf '%s\n' "$tf_l"
	done < "$1"
	[ "$tf_n" -eq "$2" ] || { tap_count; echo "not ok - $2 checks expected from one program, $tf_n written"; }
}
