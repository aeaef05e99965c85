#!/bin/sh
# tests/lib/pgunits.sh T_NAME...: the store's unit tests (build/tests/T_NAME)
# against a PostgreSQL server of their own (tests/lib/pg.sh), for make
# check-pg: each database file a test names is a fresh database of that
# server (T_DB_PG=1, tests/unit/t_db.h); t_store gets an empty database
# of its own (T_STORE_DB, its PostgreSQL checks).  Prints, per test,
# "t_NAME on PostgreSQL: N ok, N not ok (FILE)"; exits 1 when one failed.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
. "$TOP/tests/lib/pg.sh"
trap pg_stop EXIT INT TERM
pg_start || exit 1
export PG_HOST PGBIN TOP
fail=0
for t in "$@"; do
	out=$TOP/$BUILD/pg-unit-$t.out
	if [ "$t" = t_store ]; then
		db=$(pg_newdb t_store) || exit 1
		T_STORE_DB=$db "$TOP/$BUILD/tests/$t" > "$out" 2>&1
	else
		T_DB_PG=1 "$TOP/$BUILD/tests/$t" > "$out" 2>&1
	fi
	rc=$?
	n=$(grep -c '^not ok' "$out")
	[ $rc -eq 0 ] && [ "$n" -eq 0 ] || fail=1
	echo "$t on PostgreSQL: $(grep -c '^ok' "$out") ok, $n not ok, exit $rc ($out)"
done
exit $fail
