#!/bin/sh
# tests/house/run.sh: the rules of the house (README "Layout"), checked on
# the build and the tree:
#  - every name a layer's library exports (nm: defined, global) carries
#    that layer's prefix: lb_ (liblirs-base.a), lirs_ (liblirs.a), atom_
#    (liblirs-atom.a), ant_ (liblirs-antenna.a); one "not ok" per name;
#  - a layer's public headers carry its prefix too (they are installed
#    side by side in include/lirs-antenna/);
#  - no layer includes a header of a layer above it, nor a package it
#    does not link (the codec: no curl, SQLite, libxml2; base: no package);
#  - no loop of calls between the files of a layer (nm, tsort): each
#    file calls only files below it; one "not ok" per loop, naming them;
#  - the lirs command links no libcurl, libyaml or uchardet (ldd) and holds
#    no antenna-layer code;
#  - commands are thin: no threads in cmd/ (the library owns them), and
#    every cmd/ .c file parses options, calls the library and prints in at
#    most 300 lines (one "not ok" per longer file);
#  - the tree is self-contained: no comment cites a tracker's issue or a
#    file outside it, and the doc/ files comments cite are there;
#  - the antenna's face is small: every public header of src/antenna is
#    included by cmd/ or by another public header (else it is priv/), and
#    no public header declares the engine's own ant_upd_, ant_st_, ant_imp_;
#  - doc/schema.sql is the schema of a fresh `antenna init` (sqlite3's
#    .schema, mk/schema.sh);
#  - the antenna's groups go one way: rules/ and read/ include nothing of
#    net/, store/, update/; net/ and store/ nothing of update/ or publish/
#    (nor of each other); every header of src/antenna belongs to a group.
# test-needs: nm:binutils ldd:libc-bin tsort:coreutils sqlite3:sqlite3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The count of checks follows the tree (one "not ok" per offender):
# done_testing prints the plan at the end (tests/lib/tap.sh).
. "$TOP/tests/lib/tap.sh"

# The layers, bottom up: folder, library, prefix of exported names.
LAYERS="base:liblirs-base.a:lb_ lirs:liblirs.a:lirs_ atom:liblirs-atom.a:atom_ antenna:liblirs-antenna.a:ant_"

# ---- exported names carry their layer's prefix ---------------------------------
# nm -g --defined-only: "file.o:" headers, then "VALUE TYPE NAME".  Names
# that begin with "__" are the implementation's (sanitizers add
# __odr_asan.NAME under make check-asan), not ours.
total=0
for l in $LAYERS; do
	lib=${l#*:}; pre=${lib#*:}; lib=${lib%%:*}
	if [ ! -f "$B/$lib" ]; then
		notok "names: $BUILD/$lib is built"
		continue
	fi
	if ! nm -g --defined-only "$B/$lib" > "$T/nm" 2> "$T/err"; then
		notok "names: nm $lib"
		sed 's/^/#   /' "$T/err"
		continue
	fi
	awk '/:$/ { obj = substr($0, 1, length($0) - 1); next }
	     NF == 3 && $2 != "U" && $3 !~ /^__/ { print obj, $2, $3 }' "$T/nm" > "$T/syms"
	n=$(grep -c . "$T/syms")
	awk -v p="$pre" 'index($3, p) != 1' "$T/syms" > "$T/bad"
	if [ -s "$T/bad" ]; then
		while read -r obj type name; do
			notok "names: $lib exports '$name' ($obj, $type) without its layer's prefix $pre"
		done < "$T/bad"
	elif [ "$n" -gt 0 ]; then
		ok "names: the $n names $lib exports all begin with $pre"
	else
		notok "names: $lib exports no name at all"
	fi
	total=$((total + n))
done
[ "$total" -gt 0 ]
is "names: $total exported names checked in the four libraries" "$?" 0

# ---- public headers carry their layer's prefix ------------------------------------
# lirs.h and atom.h are the layers' main headers: the prefix without '_'.
for l in $LAYERS; do
	dir=${l%%:*}; pre=${l##*:}
	n=0
	for h in "$TOP"/src/"$dir"/*.h; do
		[ -f "$h" ] || continue
		n=$((n + 1))
		case ${h##*/} in
		"$pre"*|"${pre%_}.h") ;;
		*) notok "headers: src/$dir/${h##*/} is public (installed) but not named $pre*" ;;
		esac
	done
	[ "$n" -gt 0 ]
	is "headers: src/$dir/ has public headers ($n), each named ${pre}*.h or ${pre%_}.h" "$?" 0
done

# ---- no layer includes from above -------------------------------------------------
# Forbidden for each layer: every header of the layers above it (public
# and priv/), the commands' headers, and the packages it does not link.
# (A name the layer or one below also has is its own: "x.h" finds that one.)
above() {
	found=0
	for l in $LAYERS; do
		d=${l%%:*}
		if [ $found = 1 ]; then
			ls "$TOP"/src/"$d"/*.h "$TOP"/src/"$d"/priv/*.h 2> /dev/null
		else
			ls "$TOP"/src/"$d"/*.h "$TOP"/src/"$d"/priv/*.h 2> /dev/null >> "$T/own"
		fi
		[ "$d" = "$1" ] && found=1
	done
	ls "$TOP"/cmd/*.h "$TOP"/cmd/*/*.h 2> /dev/null
}
PKG_HDRS_base='zlib.h json-c/ json.h sqlite3.h libxml/ curl/ uchardet yaml.h microhttpd.h'
PKG_HDRS_lirs='sqlite3.h libxml/ curl/ uchardet yaml.h microhttpd.h'
PKG_HDRS_atom='curl/ uchardet yaml.h microhttpd.h'
PKG_HDRS_antenna='microhttpd.h'
for l in $LAYERS; do
	d=${l%%:*}
	: > "$T/own"
	above "$d" | sed 's|.*/||' | sort -u > "$T/above.all"
	sed 's|.*/||' "$T/own" | grep -vxF -f - "$T/above.all" > "$T/above"
	eval "pk=\$PKG_HDRS_$d"
	# every #include line of the layer's sources and headers: FILE:LINE:NAME
	for f in "$TOP"/src/"$d"/*.[ch] "$TOP"/src/"$d"/*/*.c "$TOP"/src/"$d"/priv/*.h; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p; =' "$f" |
			awk -v f="${f#"$TOP"/}" '/^[0-9]+$/ { line = $0; next } { print f ":" line ":" $0 }'
	done > "$T/inc"
	n=$(grep -c . "$T/inc")
	nb=0
	while IFS=: read -r f line name; do
		bad=""
		grep -qxF "${name##*/}" "$T/above" && bad="a header of a layer above (or of cmd/)"
		for p in $pk; do
			case $name in "$p"*) bad="a header of a package src/$d does not link ($p)" ;; esac
		done
		if [ -n "$bad" ]; then
			notok "includes: $f:$line includes <$name>, $bad"
			nb=$((nb + 1))
		fi
	done < "$T/inc"
	if [ "$n" -gt 0 ] && [ "$nb" -eq 0 ]; then
		ok "includes: the $n #include lines of src/$d/ name nothing from above it"
	elif [ "$n" -eq 0 ]; then
		notok "includes: src/$d/ has no #include line at all"
	fi
done

# ---- no loop of calls between files of a layer -------------------------------------
# Within a layer the files call one another downward only: when a.c calls
# b.c, b.c does not call back into a.c, directly or round a longer circle
# (a split file whose shared helpers stayed in one half is the usual
# cause; they belong in a file below both halves).  The graph comes from
# the objects: "caller.o callee.o" for each name an object uses (nm: U)
# that another object of the archive defines; tsort names each loop.
for l in $LAYERS; do
	d=${l%%:*}; lib=${l#*:}; lib=${lib%%:*}
	[ -f "$B/$lib" ] || continue
	if ! nm "$B/$lib" > "$T/nm" 2> "$T/err"; then
		notok "calls: nm $lib"
		sed 's/^/#   /' "$T/err"
		continue
	fi
	# defined globals (T D B R, and the weak/common V W C) and undefined ones
	awk '/:$/ { obj = substr($0, 1, length($0) - 1); next }
	     NF == 3 && $2 ~ /^[TDBRVWC]$/ { print "D", obj, $3 }
	     NF == 2 && $1 == "U" { print "U", obj, $2 }' "$T/nm" > "$T/syms"
	awk '$1 == "D" { def[$3] = $2; next }
	     { use[NR] = $2 " " $3 }
	     END { for (i in use) { split(use[i], a, " ")
		   if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' "$T/syms" |
		sort -u > "$T/pairs"
	np=$(grep -c . "$T/pairs")
	# GNU tsort: "tsort: -: input contains a loop:" then one member a line,
	# "tsort: NAME"; it breaks the loop and looks on, so each loop is named.
	tsort "$T/pairs" > /dev/null 2> "$T/loops"
	awk '/input contains a loop/ { if (m != "") print m; m = ""; next }
	     { sub(/^tsort: /, ""); m = (m == "" ? $0 : m " " $0) }
	     END { if (m != "") print m }' "$T/loops" > "$T/circles"
	if [ -s "$T/circles" ]; then
		while IFS= read -r m; do
			notok "calls: src/$d/ files call round in a loop: $m"
		done < "$T/circles"
	elif [ "$np" -gt 0 ]; then
		ok "calls: the $np links (one file calling another) in src/$d/ all run one way, no loop"
	else
		notok "calls: src/$d/ shows no call between its files ($lib)"
	fi
done

# ---- the lirs command: no antenna layer --------------------------------------------
if [ -x "$B/lirs" ]; then
	ldd "$B/lirs" > "$T/ldd" 2>&1
	# a failing ldd must not pass as "links nothing": libc is always there
	if grep -q 'libc\.so' "$T/ldd"; then
		for lib in libcurl libyaml uchardet; do
			is "lirs: ldd shows no $lib" "$(grep -c "$lib" "$T/ldd")" 0
		done
	else
		notok "lirs: ldd $BUILD/lirs lists its libraries"
		sed 's/^/#   /' "$T/ldd"
	fi
	nm "$B/lirs" > "$T/nm" 2>&1
	nl=$(grep -c ' [Tt] lirs_' "$T/nm")
	na=$(grep -c ' [Tt] ant_' "$T/nm")
	is "lirs: holds the codec ($nl lirs_ functions) and no ant_ function" "$([ "$nl" -gt 0 ] && echo "$na")" 0
else
	notok "lirs: $BUILD/lirs is built"
fi

# ---- thin commands -----------------------------------------------------------------
# The threads (publish's side writer, pack's parser ring) belong to the
# library: a command parses options, calls it and prints, in at most 300
# lines per .c file (an engine in cmd/ shows as a long file).
nc=0 np=0 nlong=0
for f in "$TOP"/cmd/*.[ch] "$TOP"/cmd/*/*.[ch]; do
	[ -f "$f" ] || continue
	nc=$((nc + 1))
	grep -n 'pthread' "$f" | head -n 3 > "$T/pt"
	if [ -s "$T/pt" ]; then
		notok "commands: ${f#"$TOP"/} uses threads (pthread): the library's job"
		sed 's/^/#   /' "$T/pt"
		np=$((np + 1))
	fi
	lines=$(wc -l < "$f")
	case $f in *.c) if [ "$lines" -gt 300 ]; then
		notok "commands: ${f#"$TOP"/} is a thin command ($lines lines, at most 300)"
		nlong=$((nlong + 1))
	fi ;; esac
done
if [ "$nc" -eq 0 ]; then
	notok "commands: cmd/ has source files"
else
	[ "$np" -eq 0 ] && ok "commands: none of the $nc files in cmd/ uses pthread"
	[ "$nlong" -eq 0 ] && ok "commands: every .c file in cmd/ is at most 300 lines"
fi
# For the record: the longest command files.
wc -l "$TOP"/cmd/*/*.c | sort -rn | sed -n '2,4p' | sed "s|$TOP/||; s/^ */# longest: /"

# ---- rooms of a readable size; errors by name -------------------------------------
# A library file over 1,200 lines holds more than one job: split it along
# its own sections.  A failure is returned as a code by name (lb_error.h):
# a bare "return -1;" reads as LB_ENOMEM only by accident, so there is none.
ns=0 nbig=0 nm1=0
for f in "$TOP"/src/*/*.c "$TOP"/src/*/*/*.c; do
	[ -f "$f" ] || continue
	ns=$((ns + 1))
	lines=$(wc -l < "$f")
	if [ "$lines" -gt 1200 ]; then
		notok "library: ${f#"$TOP"/} has $lines lines, over 1,200: split it along its sections"
		nbig=$((nbig + 1))
	fi
	grep -n 'return[[:space:]]*-1[[:space:]]*;' "$f" > "$T/m1"
	while IFS=: read -r line rest; do
		notok "library: ${f#"$TOP"/}:$line returns a bare -1: name the code (LB_ENOMEM, LB_EINVAL, ...)"
		nm1=$((nm1 + 1))
	done < "$T/m1"
done
if [ "$ns" -eq 0 ]; then
	notok "library: src/ has source files"
else
	[ "$nbig" -eq 0 ] && ok "library: every one of the $ns .c files in src/ is at most 1,200 lines"
	[ "$nm1" -eq 0 ] && ok "library: no file in src/ returns a bare -1"
fi
wc -l "$TOP"/src/*/*.c "$TOP"/src/*/*/*.c | sort -rn | sed -n '2,4p' | sed "s|$TOP/||; s/^ */# longest: /"

# ---- headers name themselves; public constants carry the prefix --------------------
# Each header's include guard is its file name in capitals (lb_buf.h:
# LB_BUF_H) and its first comment line names it, so a header moved or
# renamed cannot keep an old name.  Every macro and enum constant of a
# public header carries its layer's prefix (LB_, LIRS_, ATOM_, ANT_): the
# headers are installed side by side in include/lirs-antenna/.
ng=0 nh=0
for h in "$TOP"/src/*/*.h "$TOP"/src/*/priv/*.h; do
	[ -f "$h" ] || continue
	nh=$((nh + 1))
	b=${h##*/}
	want=$(echo "${b%.h}" | tr 'a-z' 'A-Z')_H
	# a private header (priv/) carries its layer's prefix in its guard
	case $h in
	*/priv/*)
		d=${h%/priv/*}; d=${d##*/}
		for l in $LAYERS; do
			[ "${l%%:*}" = "$d" ] || continue
			lp=$(echo "${l##*:}" | tr 'a-z' 'A-Z')
			case $want in "$lp"*) ;; *) want=$lp$want ;; esac
		done ;;
	esac
	got=$(sed -n 's/^#ifndef[[:space:]]*\([A-Za-z0-9_]*\).*/\1/p' "$h" | head -n 1)
	name=$(sed -n '2s/^ \* \([A-Za-z0-9_.]*\.h\):.*/\1/p' "$h")
	if [ "$got" != "$want" ]; then
		notok "headers: ${h#"$TOP"/} is guarded by '$got', not '$want'"; ng=$((ng + 1))
	fi
	if [ "$name" != "$b" ]; then
		notok "headers: ${h#"$TOP"/} begins with the name '$name', not '$b'"; ng=$((ng + 1))
	fi
done
[ "$nh" -gt 0 ] && [ "$ng" -eq 0 ] && ok "headers: the $nh headers are each guarded by and begin with their own name"
nm=0 nb=0
for l in $LAYERS; do
	d=${l%%:*}; pre=$(echo "${l##*:}" | tr 'a-z' 'A-Z')
	for h in "$TOP"/src/"$d"/*.h; do
		[ -f "$h" ] || continue
		# #define NAME, and NAME = / NAME, inside enum { ... } (comments removed)
		sed 's|/\*.*\*/||g' "$h" | awk '
			/^[[:space:]]*#[[:space:]]*define[[:space:]]/ { print $2; next }
			/enum[^;]*\{/ { e = 1 }
			e { s = $0; sub(/.*\{/, "", s); n = split(s, a, ","); for (i = 1; i <= n; i++) { t = a[i]; sub(/=.*/, "", t); gsub(/[[:space:]{}]/, "", t); if (t ~ /^[A-Z][A-Z0-9_]*$/) print t } }
			e && /\}/ { e = 0 }' | sed 's/(.*//' > "$T/macros"
		while read -r m; do
			nm=$((nm + 1))
			case $m in "$pre"*|"${pre%_}_H") ;;
			*) notok "constants: ${h#"$TOP"/} defines '$m' without its layer's prefix $pre"; nb=$((nb + 1)) ;;
			esac
		done < "$T/macros"
	done
done
[ "$nm" -gt 0 ] && [ "$nb" -eq 0 ] && ok "constants: the $nm macros and enum constants of the public headers carry their layer's prefix"
# Every header a comment cites ("see ant_store.h") is in the tree or is a
# system header some file includes: no comment points at a header that
# was renamed away.
(cd "$TOP" && git ls-files 2>/dev/null | grep '\.h$' | sed 's|.*/||' | sort -u) > "$T/ourh"
[ -s "$T/ourh" ] || (cd "$TOP" && find src cmd tests fuzz bench -name '*.h' | sed 's|.*/||' | sort -u) > "$T/ourh"
(cd "$TOP" && find src cmd tests fuzz bench -type f \( -name '*.[ch]' -o -name '*.sh' \) ! -path 'tests/house/run.sh' -print) | sort > "$T/srcs"
(cd "$TOP" && xargs grep -hoE '#[[:space:]]*include[[:space:]]*<[^>]+>' < "$T/srcs") | sed 's/.*<//; s/>.*//; s|.*/||' | sort -u > "$T/sysh"
# (comment lines only: " * ...", "/* ...", "// ...", "# ..." in scripts)
(cd "$TOP" && xargs grep -HnE '^[[:space:]]*(\*|/\*|//|#[^a-z!])|/\*' < "$T/srcs") | grep -v '#[[:space:]]*include' |
	awk -F: '{ f = $1; l = $2; s = $0; sub(/^[^:]*:[^:]*:/, "", s)
		while (match(s, /(^|[^A-Za-z0-9_.\/-])[a-z][a-z0-9_]*\.h([^A-Za-z0-9_]|$)/)) {
			m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH - 1)
			match(m, /[a-z][a-z0-9_]*\.h/); m = substr(m, RSTART, RLENGTH)
			print f ":" l ":" m } }' > "$T/cited"
nc=0 nx=0
while IFS=: read -r f line hname; do
	nc=$((nc + 1))
	grep -qxF "$hname" "$T/ourh" && continue
	grep -qxF "$hname" "$T/sysh" && continue
	notok "headers: $f:$line cites '$hname', which is no header of the tree"; nx=$((nx + 1))
done < "$T/cited"
[ "$nc" -gt 0 ] && [ "$nx" -eq 0 ] && ok "headers: the $nc headers the comments and code cite all exist"

# ---- the unit tests mirror the layers --------------------------------------------
# tests/unit/LAYER/t_*.c is built against that layer's headers and linked
# with its libraries only (the Makefile), so a unit test placed elsewhere
# would escape the walls: every t_*.c sits in a layer's folder or cmd/.
nu=0 nx=0
for f in "$TOP"/tests/unit/t_*.c "$TOP"/tests/unit/*/t_*.c; do
	[ -f "$f" ] || continue
	nu=$((nu + 1))
	d=${f%/*}; d=${d##*/}
	case " base lirs atom antenna cmd " in
	*" $d "*) ;;
	*) notok "tests: ${f#"$TOP"/} is not in a layer's folder (tests/unit/base, lirs, atom, antenna or cmd)"; nx=$((nx + 1)) ;;
	esac
done
[ "$nu" -gt 0 ] && [ "$nx" -eq 0 ] && ok "tests: the $nu unit tests sit in their layer's folder (tests/unit/LAYER/)"

# ---- a self-contained tree ------------------------------------------------------------
# Comments cite the spec by name and section ("LIRS 2.1 §2", "RFC 5005 §4")
# or doc/NOTES-lirs-in-the-wild.md, or say the reason: never an issue of a
# tracker a clone does not have, nor files outside the repository.
DIRS="src cmd tests fuzz bench mk man data"
(cd "$TOP" && find $DIRS -type f ! -path 'tests/house/run.sh' -print; echo Makefile) |
	sort > "$T/files"
nf=$(grep -c . "$T/files")
(cd "$TOP" && tr '\n' '\0' < "$T/files" | xargs -0 grep -HnIE 'issues? [0-9]|Issue [0-9]|shared/(specs|NOTES)|/work/shared|STYLE\.md') > "$T/cite"
while IFS= read -r hit; do
	notok "tree: $(echo "$hit" | cut -d: -f1,2) cites what a clone does not have: $(echo "$hit" | cut -d: -f3- | sed 's/^[[:space:]]*//' | cut -c 1-80)"
done < "$T/cite"
[ "$nf" -gt 0 ] && [ ! -s "$T/cite" ] && ok "tree: none of the $nf files cites a tracker issue or a file outside the tree"
# Every doc/ file a comment names is there.
(cd "$TOP" && tr '\n' '\0' < "$T/files" | xargs -0 grep -ohIE '\bdoc/[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*[A-Za-z0-9_]') | sort -u > "$T/docs"
nd=0 nm=0
while IFS= read -r d; do
	nd=$((nd + 1))
	[ -e "$TOP/$d" ] && continue
	notok "tree: $d, which a comment cites, is in the tree"
	nm=$((nm + 1))
done < "$T/docs"
[ "$nd" -gt 0 ] && [ "$nm" -eq 0 ] && ok "tree: the $nd doc/ files the comments cite are in the tree"
for f in doc/README doc/NOTES-lirs-in-the-wild.md doc/specs/lirs-2.1.txt doc/specs/rfc5005-feed-paging-and-archiving.txt; do
	[ -s "$TOP/$f" ]
	is "tree: $f" "$?" 0
done
# ---- settings table complete ------------------------------------------------------
# The settings are one table (ant_settings.h, src/antenna/rules/settings.c):
# every ANT_SET_ name the code reads is a row of it, no code outside the
# store reads or writes a config key by its string, and every row is
# documented in antenna(1) (its key) and accepted by antenna init (its
# options, named in init --help and antenna(1)).
ST=$TOP/src/antenna/rules/settings.c
nbad=0
(cd "$TOP" && grep -rhoE 'ANT_SET_[A-Z0-9_]+' src cmd --include='*.[ch]') | sort -u | grep -vx 'ANT_SET_COUNT' > "$T/setnames"
while read -r n; do
	grep -qE "\\[$n\\] = |ROW_[TN]\\($n," "$ST" && continue
	notok "settings: $n is read but is no row of the table ($ST)"; nbad=$((nbad + 1))
done < "$T/setnames"
(cd "$TOP" && grep -rnE 'ant_store_config_(get|int|set|set_int)\([^,]+, *"' src cmd --include='*.c') > "$T/rawkeys"
while IFS= read -r hit; do
	notok "settings: $(echo "$hit" | cut -d: -f1,2) reads a config key by its string, not through the table"; nbad=$((nbad + 1))
done < "$T/rawkeys"
if [ -x "$B/tools/settings_table" ] && [ -x "$B/antenna" ]; then
	"$B/antenna" init --help > "$T/inithelp" 2>&1
	"$B/tools/settings_table" > "$T/settings"
	nrow=0
	while read -r key opt no; do
		nrow=$((nrow + 1))
		[ "$opt" = - ] && continue
		grep -qE "^\\.(It )?Va $key( |\$)" "$TOP/man/antenna.1" ||
			{ notok "settings: $key is not in man/antenna.1 (.Va $key)"; nbad=$((nbad + 1)); }
		for o in $opt $no; do
			[ "$o" = - ] && continue
			grep -qF -- "--$o" "$T/inithelp" ||
				{ notok "settings: --$o ($key) is not in antenna init --help"; nbad=$((nbad + 1)); }
			grep -qF -- "\\-$o" "$TOP/man/antenna.1" ||
				{ notok "settings: --$o ($key) is not in man/antenna.1"; nbad=$((nbad + 1)); }
		done
	done < "$T/settings"
	[ "$nbad" -eq 0 ] && ok "settings: table complete: the $nrow rows documented and taken by init, $(grep -c . "$T/setnames") names read all rows"
else
	notok "settings: $BUILD/tools/settings_table and $BUILD/antenna are built"
fi
# ---- option codes: each getopt_long table gives every option its own code -----
# (two options sharing a code silently set each other's key: init's
# --gone-days once set --html-pages)
nbad=0
for f in "$TOP"/cmd/antenna/*.c "$TOP"/cmd/lirs/*.c; do
	dup=$(grep -oE 'required_argument, NULL, [^ ]+ \}|no_argument, NULL, [^ ]+ \}' "$f" | awk '{ print $3 }' | sort | uniq -d)
	[ -z "$dup" ] && continue
	notok "options: $(basename "$f") gives two options the code $(echo $dup)"
	nbad=$((nbad + 1))
done
[ "$nbad" -eq 0 ] && ok "options: no command gives two options one code"

# ---- the antenna's face: its public headers are what the commands use -----------
# A public header (src/antenna/*.h, installed by make install) that no
# command and no other public header includes is the engine's own: it
# belongs in priv/.  The engine's internal prefixes (ant_upd_ update,
# ant_st_ store, ant_imp_ import) are declared in priv/ headers only.
nh=0 nx=0
for h in "$TOP"/src/antenna/*.h; do
	[ -f "$h" ] || continue
	nh=$((nh + 1))
	b=${h##*/}
	for f in "$TOP"/cmd/*.[ch] "$TOP"/cmd/*/*.[ch] "$TOP"/src/*/*.h; do
		[ -f "$f" ] && [ "$f" != "$h" ] || continue
		grep -q "^#[[:space:]]*include[[:space:]]*\"$b\"" "$f" && continue 2
	done
	notok "face: src/antenna/$b is included by no command and no other public header: move it to src/antenna/priv/"
	nx=$((nx + 1))
done
[ "$nh" -gt 0 ] && [ "$nx" -eq 0 ] && ok "face: each of the $nh public headers of src/antenna is included by cmd/ or by another public header"
np=0 nx=0
for h in "$TOP"/src/*/*.h; do
	[ -f "$h" ] || continue
	np=$((np + 1))
	# prototypes: NAME( outside comment lines
	grep -nE '\bant_(upd|st|imp)_[A-Za-z0-9_]*[[:space:]]*\(' "$h" | grep -vE '^[0-9]+:[[:space:]]*(\*|/\*|//)' > "$T/engine"
	while IFS=: read -r line rest; do
		notok "face: ${h#"$TOP"/}:$line declares the engine's own $(echo "$rest" | grep -oE 'ant_(upd|st|imp)_[A-Za-z0-9_]*' | head -n 1): declare it in a priv/ header"
		nx=$((nx + 1))
	done < "$T/engine"
done
[ "$np" -gt 0 ] && [ "$nx" -eq 0 ] && ok "face: none of the $np public headers declares ant_upd_, ant_st_ or ant_imp_"

# ---- the schema documented: doc/schema.sql is what a fresh init makes ------------
# mk/schema.sh writes sqlite3's .schema of a fresh `antenna init` (after
# every migration); a migration added without it leaves doc/schema.sql stale.
if ! command -v sqlite3 >/dev/null 2>&1; then
	notok "schema: the sqlite3 command is installed (the build's test-needs installs it)"
elif ! BUILD=$B sh "$TOP/mk/schema.sh" "$T/schema.sql" 2>"$T/schema.err"; then
	notok "schema: a fresh database's .schema can be made (mk/schema.sh)" "$(cat "$T/schema.err")"
elif cmp -s "$T/schema.sql" "$TOP/doc/schema.sql"; then
	ok "schema: doc/schema.sql is a fresh database's .schema"
else
	notok "schema: doc/schema.sql is a fresh database's .schema: run make schema" \
	    "$(diff "$TOP/doc/schema.sql" "$T/schema.sql" | head -5)"
fi

# ---- the antenna's groups, in order ------------------------------------------------
# src/antenna keeps its sources in seven group folders (README "Layout"),
# bottom up: rules/ and read/ (pure rules and parsers: no SQL, no network,
# no engine), net/ and store/ (the transfers; the SQL), update/ and
# publish/ (the check engine; the site), exchange/ (import, export).  A
# file may include the headers of its own group and of the groups its
# line below allows; the public headers (src/antenna/*.h) and priv/ belong
# to a group by the map that follows, and every header is in it.
GROUP_HEADERS='
rules: ant_settings.h ant_taught.h ant_target.h ant_outcome.h ant_detect.h ant_noise.h ant_clock.h ant_tokens.h ant_furniture.h ant_robots.h ant_diff.h ant_difftext.h ant_trust.h ant_source_budget.h ant_textstate.h ant_limits.h detect_noise_cmp.h
read: ant_page.h ant_when.h ant_feed.h ant_sitemap.h page_int.h
net: ant_fetch.h ant_addr.h ant_polite.h ant_worker.h ant_post.h fetch_int.h ant_render.h render_int.h
store: ant_store.h store_int.h
update: ant_update.h ant_pagestate.h update_int.h
publish: ant_publish.h ant_pubdiff.h ant_websub.h ant_notify.h html.h publish_error.h publish_int.h publish_jsonfeed.h publish_stage.h
exchange: ant_import.h ant_export.h import_int.h import_run.h
'
GROUP_MAY='
rules: rules read
read: rules read
net: rules read net
store: rules read store
update: rules read net store update
publish: rules read net store publish
exchange: rules read net store update publish exchange
'
group_of_header() {
	echo "$GROUP_HEADERS" | awk -v h="$1" '{ for (i = 2; i <= NF; i++) if ($i == h) { sub(/:$/, "", $1); print $1; exit } }'
}
ngo=0 nbo=0 nun=0
for h in "$TOP"/src/antenna/*.h "$TOP"/src/antenna/priv/*.h; do
	[ -f "$h" ] || continue
	if [ -z "$(group_of_header "${h##*/}")" ]; then
		notok "groups: ${h#"$TOP"/} belongs to no group (tests/house/run.sh GROUP_HEADERS)"
		nun=$((nun + 1))
	fi
done
[ "$nun" -eq 0 ] && ok "groups: every header of src/antenna belongs to one group"
# FILE GROUP for the group folders' sources and the headers
{
	for f in "$TOP"/src/antenna/*/*.c; do
		[ -f "$f" ] || continue
		g=${f%/*}; echo "$f ${g##*/}"
	done
	for h in "$TOP"/src/antenna/*.h "$TOP"/src/antenna/priv/*.h; do
		[ -f "$h" ] || continue
		g=$(group_of_header "${h##*/}")
		[ -n "$g" ] && echo "$h $g"
	done
} > "$T/grouped"
while read -r f g; do
	may=$(echo "$GROUP_MAY" | awk -v g="$g:" '$1 == g { $1 = ""; print }')
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p; =' "$f" |
		awk '/^[0-9]+$/ { line = $0; next } { print line, $0 }' > "$T/ginc"
	while read -r line name; do
		hg=$(group_of_header "${name##*/}")
		[ -n "$hg" ] || continue
		ngo=$((ngo + 1))
		case " $may " in
		*" $hg "*) ;;
		*) notok "groups: ${f#"$TOP"/}:$line ($g) includes $name ($hg): $g/ may include only $may"
		   nbo=$((nbo + 1)) ;;
		esac
	done < "$T/ginc"
done < "$T/grouped"
[ "$ngo" -gt 0 ] && [ "$nbo" -eq 0 ] && ok "groups: the $ngo includes between the antenna's groups all go down (rules, read < net, store < update, publish < exchange)"

done_testing 36
