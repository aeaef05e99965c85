#!/bin/sh
# tests/install/run.sh: `make install` into a scratch DESTDIR with
# PREFIX=/usr (from the build at hand: nothing is rebuilt), then what a
# user of the library does with it, from outside the tree and with only
# what was installed: each public header compiles alone; lirscount.c, a
# small validator on the codec API, builds with `pkg-config lirs-codec`
# and prints what `lirs validate` prints; every function the four
# libraries export links with `pkg-config lirs-antenna` (and those of the
# codec's two with lirs-codec alone).  antenna.service and antenna.timer
# under lib/systemd/system, installed again with PREFIX=DIR (no DESTDIR: the
# ExecStart path then exists) pass `systemd-analyze verify` without a word.  Then `make
# uninstall` leaves no file.
# test-needs: pkg-config:pkg-config cc:gcc nm:binutils systemd-analyze:systemd
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
LIRS=${LIRS:-$B/lirs}
CC=${CC:-cc}
# Under `make check-asan` the libraries are instrumented: so is the program.
CFL="-std=c11 -Wall -Wextra -Werror ${SANFLAGS:-}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root

# The count of checks follows the tree (one "not ok" per offender):
# done_testing prints the plan at the end (tests/lib/tap.sh).
. "$TOP/tests/lib/tap.sh"
pc() { PKG_CONFIG_PATH=$R/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$R pkg-config "$@"; }

if ! make -C "$TOP" BUILD="$BUILD" DESTDIR="$R" PREFIX=/usr install > "$T/log" 2>&1; then
	notok "install: make install DESTDIR=... PREFIX=/usr failed"
	tail -n 20 "$T/log" | sed 's/^/#   /'
	done_testing 1
	exit 1
fi
ok "install: make install DESTDIR=... PREFIX=/usr"

# ---- the layout -----------------------------------------------------------------
for f in bin/lirs bin/antenna share/man/man1/lirs.1 share/man/man1/antenna.1 \
	share/man/man5/lirs.5 lib/liblirs-base.a lib/liblirs.a lib/liblirs-atom.a \
	lib/liblirs-antenna.a lib/pkgconfig/lirs-codec.pc lib/pkgconfig/lirs-antenna.pc \
	lib/systemd/system/antenna.service lib/systemd/system/antenna.timer; do
	if [ -s "$R/usr/$f" ]; then ok "install: /usr/$f"; else notok "install: /usr/$f"; fi
done
[ -x "$R/usr/bin/lirs" ] && [ -x "$R/usr/bin/antenna" ]
is "install: the commands are executable" "$?" 0
# The public headers are each layer's src/LAYER/*.h, and only those (no priv/).
want=$(cd "$TOP/src" && ls base/*.h lirs/*.h atom/*.h antenna/*.h | sed 's|.*/||' | sort)
got=$(cd "$R/usr/include/lirs-antenna" && ls | sort)
n=$(echo "$want" | grep -c .)
if [ "$n" -gt 0 ] && [ "$got" = "$want" ]; then
	ok "install: include/lirs-antenna/ holds the $n public headers, no private one"
else
	notok "install: include/lirs-antenna/ holds the public headers, no private one"
	printf '%s\n' "$want" > "$T/want"; printf '%s\n' "$got" > "$T/got"
	diff "$T/want" "$T/got" | sed 's/^/#   /'
fi

# ---- pkg-config -------------------------------------------------------------------
v=$("$LIRS" --version | sed -n 's/^lirs \([^ ]*\).*/\1/p')
[ -n "$v" ] || notok "install: 'lirs --version' prints a version"
is "install: lirs-codec.pc's version is lirs --version's ($v)" "$(pc --modversion lirs-codec)" "$v"
is "install: lirs-antenna.pc's version is lirs --version's" "$(pc --modversion lirs-antenna)" "$v"
is "install: lirs-codec links liblirs, liblirs-base, zlib and json-c, in that order" \
	"$(pc --libs lirs-codec | tr ' ' '\n' | grep -E '^-l(lirs|z|json-c)' | tr '\n' ' ')" "-llirs -llirs-base -lz -ljson-c "
is "install: lirs-codec needs no curl, SQLite, libxml2, uchardet, libyaml or upper layer" \
	"$(pc --libs lirs-codec | grep -cE 'lcurl|lsqlite3|lxml2|luchardet|lyaml|llirs-a')" 0
is "install: lirs-antenna links the four libraries in link order" \
	"$(pc --libs lirs-antenna | tr ' ' '\n' | grep -E '^-llirs' | tr '\n' ' ')" "-llirs-antenna -llirs-atom -llirs -llirs-base "

# ---- each public header compiles alone (and twice: include guards) ---------------------
CFLAGS_PC=$(pc --cflags lirs-antenna)
nh=0
for h in "$R"/usr/include/lirs-antenna/*.h; do
	h=${h##*/}
	printf '#include <%s>\n#include <%s>\nint house_unused;\n' "$h" "$h" > "$T/h.c"
	# shellcheck disable=SC2086
	if $CC $CFL -pedantic $CFLAGS_PC -c -o "$T/h.o" "$T/h.c" 2> "$T/err"; then
		nh=$((nh + 1))
	else
		notok "install: <$h> compiles alone with the installed headers"
		head -n 5 "$T/err" | sed 's/^/#   /'
	fi
done
[ "$nh" -gt 0 ] && [ "$nh" -eq "$n" ]
is "install: each of the $nh installed headers compiles alone (-std=c11 -pedantic)" "$?" 0

# ---- an outside program on the codec: lirs-codec only ------------------------------------
# shellcheck disable=SC2046
if $CC $CFL -o "$T/lirscount" "$TOP/tests/install/lirscount.c" $(pc --cflags --libs lirs-codec) 2> "$T/err"; then
	ok "install: lirscount.c builds with pkg-config lirs-codec"
	NOW=1735700000
	for f in data/samples/sites.lirs.gz data/samples/messy.lirs data/samples/tama.lirs tests/lirs/cases/clean.in; do
		(cd "$TOP" && "$T/lirscount" --now $NOW "$f") > "$T/out" 2>&1
		rc=$?
		want=$(cd "$TOP" && "$LIRS" validate --now $NOW "$f" 2>&1 | tail -n 1)
		is "install: lirscount $f prints lirs validate's summary" "$(cat "$T/out")" "$want"
	done
	out=$(cd "$TOP" && "$T/lirscount" --now $NOW data/samples/sites.lirs.gz)
	is "install: lirscount reads the 4 records of the gzip sample, clean, exit 0" \
		"$out:$?" "data/samples/sites.lirs.gz: 4 records, 0 errors, 0 warnings:0"
	(cd "$TOP" && "$T/lirscount" --now $NOW data/samples/messy.lirs) > /dev/null
	is "install: lirscount exits 1 on messy.lirs's errors" "$?" 1
else
	notok "install: lirscount.c builds with pkg-config lirs-codec"
	head -n 10 "$T/err" | sed 's/^/#   /'
fi

# ---- every exported function links --------------------------------------------------------
# refs.c names every function (T) the given installed libraries define, so
# that the linker pulls in each of their objects and must resolve all they
# use from the .pc's Libs and Requires alone; a second file includes every
# public header, to be linked with it.
links() {
	pkg=$1; shift
	{
		echo '#include <stdio.h>'
		for a in "$@"; do nm -g --defined-only "$R/usr/lib/$a"; done |
			awk 'NF == 3 && $2 == "T" && $3 !~ /^__/ { print $3 }' | sort -u > "$T/syms"
		sed 's/.*/extern void &(void);/' "$T/syms"
		echo 'typedef void (*fn)(void);'
		echo 'static fn const used[] = {'
		sed 's/.*/	&,/' "$T/syms"
		echo '};'
		echo 'int main(void) { size_t i, n = 0;'
		echo '	for (i = 0; i < sizeof used / sizeof used[0]; i++) n += used[i] != 0;'
		printf '%s\n' '	printf("%zu\n", n); return 0; }'
	} > "$T/refs.c"
	for h in "$R"/usr/include/lirs-antenna/*.h; do echo "#include <${h##*/}>"; done > "$T/all.c"
	ns=$(grep -c . "$T/syms")
	# shellcheck disable=SC2046
	if $CC -std=c11 ${SANFLAGS:-} -o "$T/refs" "$T/refs.c" "$T/all.c" $(pc --cflags --libs "$pkg") 2> "$T/err"; then
		is "install: the $ns functions of $* link with pkg-config $pkg alone" "$("$T/refs")" "$ns"
		[ "$ns" -gt 0 ] || notok "install: $* export functions"
	else
		notok "install: the functions of $* link with pkg-config $pkg alone"
		grep -m 10 -E 'undefined|error' "$T/err" | sed 's/^/#   /'
	fi
}
links lirs-codec liblirs.a liblirs-base.a
links lirs-antenna liblirs-antenna.a liblirs-atom.a liblirs.a liblirs-base.a

# ---- the systemd units: the timer beside cron ---------------------------------------------
check "install: antenna.service runs PREFIX's antenna run -q" \
	grep -qx 'ExecStart=/usr/bin/antenna -d ${ANTENNA_DB} run -q ${ANTENNA_WWW}' "$R/usr/lib/systemd/system/antenna.service"
P=$T/prefix
if ! command -v systemd-analyze > /dev/null; then
	notok "install: systemd-analyze is installed (Debian systemd: the build installs it)"
elif ! make -C "$TOP" BUILD="$BUILD" PREFIX="$P" install > "$T/log" 2>&1; then
	notok "install: make install PREFIX=DIR"
	tail -n 20 "$T/log" | sed 's/^/#   /'
elif systemd-analyze verify --man=no "$P/lib/systemd/system/antenna.service" \
	"$P/lib/systemd/system/antenna.timer" > "$T/verify" 2>&1 && [ ! -s "$T/verify" ]; then
	ok "install: systemd-analyze verify passes antenna.service and antenna.timer, not a warning"
else
	notok "install: systemd-analyze verify passes antenna.service and antenna.timer"
	sed 's/^/#   /' "$T/verify"
fi
make -C "$TOP" BUILD="$BUILD" PREFIX="$P" uninstall > "$T/log" 2>&1
is "install: make uninstall PREFIX=DIR removes every file" "$?:$(find "$P" -type f 2>/dev/null | wc -l)" "0:0"

# ---- uninstall ------------------------------------------------------------------------
make -C "$TOP" BUILD="$BUILD" DESTDIR="$R" PREFIX=/usr uninstall > "$T/log" 2>&1
is "install: make uninstall removes every file it installed" "$?:$(find "$R" -type f | wc -l)" "0:0"
done_testing 35
