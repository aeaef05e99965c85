#!/bin/sh
# bench/ident.sh: are two builds' outputs byte-identical?  For a
# performance change that must not change what the antenna records or
# publishes:
#
#   sh bench/ident.sh REF_ANTENNA NEW_ANTENNA [N]
#
# N pages (default 2,000) of the update-floor bench (bench/floor.sh:
# static pages on nginx, loopback) go through the same 4 update + publish
# cycles with each build (--now fixed, one job so that the checks come in
# the same order; half the pages changed in a word before each later
# cycle, so the text rule, its re-fetches and the diff texts all run),
# each into its own database and site.  Prints whether the published
# files and the databases' dumps (the server's port masked) are the same;
# exit 1 when not.  Work in bench/out/ident (IDENT_OUT=DIR elsewhere).
# UPDOPTS adds update options.  Needs nginx and sqlite3.
set -u
[ $# -ge 2 ] || { echo "usage: sh bench/ident.sh REF_ANTENNA NEW_ANTENNA [N]" >&2; exit 2; }
REF=$1 NEW=$2 N_FLOOR=${3:-2000}
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build} ANTENNA=$REF
W=${IDENT_OUT:-$TOP/bench/out/ident}
say() { printf '%s\n' "ident: $*" >&2; }
. "$TOP/bench/floor.sh"
rm -rf "$W"; mkdir -p "$W/floor"
floor_pages "$W/floor" "$N_FLOOR" 0 1
floor_nginx || { say "nginx did not start"; exit 2; }
trap 'kill $NGX_PID 2> /dev/null' EXIT
floor_setup ident "$W/a.db" "$FLOOR_URL" "$W/curl.cfg"
cp "$W/a.db" "$W/b.db"
NOW=1790000000
for k in 1 2 3 4; do
	[ $k -gt 1 ] && floor_pages "$W/floor" "$N_FLOOR" $k 2
	t=$((NOW + k * 3600))
	"$REF" -d "$W/a.db" update --now $t --force --jobs 1 --per-host 1 ${UPDOPTS:-} > "$W/a.out.$k" 2>&1
	"$NEW" -d "$W/b.db" update --now $t --force --jobs 1 --per-host 1 ${UPDOPTS:-} > "$W/b.out.$k" 2>&1
	say "cycle $k: $(tail -n 1 "$W/a.out.$k") | $(tail -n 1 "$W/b.out.$k")"
	"$REF" -d "$W/a.db" publish --now $t "$W/pa" > /dev/null 2>&1
	"$NEW" -d "$W/b.db" publish --now $t "$W/pb" > /dev/null 2>&1
done
for d in a b; do
	sqlite3 "$W/$d.db" .dump | sed 's/127\.0\.0\.1:[0-9]*/HOST/g' > "$W/$d.dump"
done
rc=0
if diff -r "$W/pa" "$W/pb" > "$W/pub.diff"; then
	echo "published: identical ($(find "$W/pa" -type f | wc -l) files)"
else
	echo "published: DIFFER ($W/pub.diff)"; rc=1
fi
if diff "$W/a.dump" "$W/b.dump" > "$W/db.diff"; then
	echo "database dump: identical ($(wc -l < "$W/a.dump") lines)"
else
	echo "database dump: DIFFER ($W/db.diff)"; rc=1
fi
exit $rc
