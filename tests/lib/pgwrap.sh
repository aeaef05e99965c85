#!/bin/sh
# tests/lib/pgwrap.sh ANTENNA ARGS... | --name FILE: runs ANTENNA with its database
# (-d FILE, --db=FILE, or $ANTENNA_DB; else ./antenna.db) named as a
# database of the test's PostgreSQL server instead (PG_HOST, tests/lib/pg.sh),
# one database per file name, created at its first use.  What
# tests/lib/antenna.sh puts in $A when ANTENNA_TEST_PG is set, so that a
# suite runs unchanged against PostgreSQL.
prog=$1
shift
: "${PG_HOST:?pgwrap.sh: no PG_HOST (tests/lib/pg.sh pg_start)}"
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin | tail -n 1)}
map() {
	case $1 in postgres://* | postgresql://*) echo "$1"; return 0 ;; esac
	f=$(cd "$(dirname "$1")" 2> /dev/null && pwd)/$(basename "$1")
	name=db_$(printf '%s' "$f" | cksum | cut -d' ' -f1)
	if [ ! -e "$PG_HOST/made.$name" ]; then
		# one createdb at a time (suites run commands in parallel)
		while ! mkdir "$PG_HOST/lock.create" 2> /dev/null; do sleep 0.05; done
		[ -e "$PG_HOST/made.$name" ] ||
			{ "$PGBIN/createdb" -h "$PG_HOST" -U antenna "$name" && : > "$PG_HOST/made.$name"; }
		rmdir "$PG_HOST/lock.create"
	fi
	echo "postgresql://antenna@/$name?host=$PG_HOST"
}
# --name FILE: only the URI FILE maps to (tests/lib/antenna.sh dbname)
if [ "$prog" = --name ]; then
	map "$1"
	exit
fi
n=$# seen=0 next=0
for a in "$@"; do
	if [ $next = 1 ]; then
		a=$(map "$a"); next=0
	elif [ $seen = 0 ]; then
		case $a in
		-d | --db) next=1; got=1 ;;
		--db=*) a="--db=$(map "${a#--db=}")"; got=1 ;;
		-*) ;;
		*) seen=1 ;;
		esac
	fi
	set -- "$@" "$a"
done
shift "$n"
if [ -z "${got:-}" ]; then
	ANTENNA_DB=$(map "${ANTENNA_DB:-antenna.db}")
	export ANTENNA_DB
fi
exec $prog "$@"
