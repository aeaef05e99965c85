# tests/lib/pg.sh: a PostgreSQL server of the test's own, from Debian's
# postgresql package: initdb and pg_ctl in a temporary directory, the
# server listening only on a Unix socket in that directory (no TCP port,
# so two tests never clash), stopped (and the directory removed) by
# pg_stop, which the caller runs on exit.  initdb and postgres refuse to
# run as root: as root the server runs as the user postgres (the
# package's), the directory theirs; as anyone else, as that user.
# Sourced, never run:
#   . "$TOP/tests/lib/pg.sh"
#   pg_start || exit 1          PG_DIR, PG_HOST (the socket's directory)
#   pg_newdb NAME               a fresh database; its URI on stdout
#   pg_stop
# A missing program is a loud failure (test-needs installs it).
# test-needs: /usr/lib/postgresql/15/bin/initdb:postgresql
PG_DIR=
PG_HOST=
pg_bin() {
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
	done
	return 1
}
# pg_as CMD...: runs CMD as the server's user
pg_as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}
pg_start() {
	PGBIN=$(pg_bin) || { echo "Bail out! PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin; apt-get install postgresql)"; return 1; }
	PG_DIR=$(mktemp -d /tmp/antenna-pg.XXXXXX) || return 1
	if [ "$(id -u)" = 0 ]; then
		id postgres > /dev/null 2>&1 || { echo "Bail out! no user postgres to run the server as root"; return 1; }
		chown postgres "$PG_DIR"
	fi
	PG_HOST=$PG_DIR
	pg_as "$PGBIN/initdb" -D "$PG_DIR/data" -U antenna --auth=trust -E UTF8 --locale=C.UTF-8 \
		> "$PG_DIR/initdb.log" 2>&1 ||
		{ echo "Bail out! initdb failed: $(tail -n 3 "$PG_DIR/initdb.log")"; return 1; }
	pg_as "$PGBIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-k $PG_DIR -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
		start > "$PG_DIR/pg_ctl.log" 2>&1 ||
		{ echo "Bail out! PostgreSQL did not start: $(tail -n 3 "$PG_DIR/server.log")"; return 1; }
	return 0
}
# pg_newdb NAME: creates database NAME; prints its URI
pg_newdb() {
	"$PGBIN/createdb" -h "$PG_HOST" -U antenna "$1" ||
		{ echo "Bail out! createdb $1 failed" >&2; return 1; }
	echo "postgresql://antenna@/$1?host=$PG_HOST"
}
pg_stop() {
	[ -n "$PG_DIR" ] || return 0
	pg_as "$PGBIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop > /dev/null 2>&1
	# PG_LOG_KEEP=FILE: the server's log (every failed statement) kept
	[ -n "${PG_LOG_KEEP:-}" ] && cp "$PG_DIR/server.log" "$PG_LOG_KEEP"
	rm -rf "$PG_DIR"
	PG_DIR=
}
