#!/bin/sh
# tests/man/run.sh: the man pages render cleanly.  groff with every
# warning on (-ww; -k: the pages hold UTF-8) prints nothing on stderr for each page (an unknown
# special character such as "\(u2026" is a warning and a missing glyph),
# and each page is headed as lirs-antenna's manual, not as "BSD General
# Commands Manual", groff mdoc's default.
# test-needs: groff:groff-base
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
for m in "$TOP"/man/*.[15]; do
	[ -f "$m" ] || continue
	n=$((n + 1))
	name=man/${m##*/}
	LC_ALL=C.UTF-8 groff -k -mandoc -ww -Tutf8 "$m" > "$T/out" 2> "$T/err"
	is "$name: groff -ww renders it with no warning" "$?:$(head -c 300 "$T/err")" "0:"
	head -n 1 "$T/out" | sed 's/\x08.//g' > "$T/head"
	check "$name: headed as lirs-antenna's manual" grep -q 'lirs-antenna .* Manual' "$T/head"
	check "$name: not headed as BSD's manual" sh -c "! grep -q BSD '$T/head'"
done
[ "$n" -ge 3 ]
is "the three man pages (antenna.1, lirs.1, lirs.5) are there" "$?" 0
A=${ANTENNA:-$TOP/build/antenna}; L=${LIRS:-$TOP/build/lirs}
check "antenna --help: add names --sitemap, not relay" sh -c "'$A' --help | grep '^  add ' | grep -- --sitemap | grep -vq relay"
check "lirs --help names HINA-DI" sh -c "'$L' --help | grep -q HINA-DI"
done_testing 12
