#!/bin/sh
# tests/lirs/run.sh: the lirs command, data-driven.
#
# Each case in cases/ is an input, NAME.in (or NAME.gen, a shell script
# that prints the input, for big ones), optional NAME.args (extra options
# for every command), and expected results:
#   NAME.jsonl  stdout of `lirs cat --format jsonl NAME.in`
#   NAME.tsv    stdout of `lirs cat --format tsv NAME.in`        (optional)
#   NAME.lirs   stdout of `lirs cat --format lirs NAME.in`       (optional)
#   NAME.stderr stderr of `lirs cat --format jsonl NAME.in`      (optional)
#   NAME.diag   stdout of `lirs validate --now 1000000000 NAME.in`
#   NAME.json   the same with --format jsonl                     (optional)
#   NAME.rc     "cat N" and "validate N": the expected exit statuses
# Every case is also round-tripped: cat | pack --utf8 | cat, and through
# EUC-JP when pack reports no U+3013 replacement and no look-alike
# (lirs(5), ENCODING); EUC-JP-MS when the records hold vendor characters.  Then come the checks
# that are not per case (usage, stdin, several files, pack -o, docs).
#
# UPDATE=1 sh tests/lirs/run.sh rewrites the expected files from the
# current build: review the diff before committing it.
# Prints one "ok - ..." / "not ok - ..." line per check.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
LIRS=${LIRS:-$TOP/${BUILD:-build}/lirs}
L="${LIRS_WRAP:-} $LIRS"
CASES=$TOP/tests/lirs/cases
NOW=1000000000
if [ ! -x "$LIRS" ]; then
	echo "not ok - '$LIRS' is not built"
	exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The count of checks follows the cases: done_testing at the end prints the
# plan and fails a run of fewer than MIN_CHECKS (tests/lib/tap.sh); the
# case loop must run at least MIN_CASES.
. "$TOP/tests/lib/tap.sh"
MIN_CASES=45 MIN_CHECKS=360

# Compares file $1 with expected $2 (or writes it under UPDATE=1).
expect() {
	if [ "${UPDATE:-}" = 1 ]; then cp "$1" "$2"; ok "$3 (updated)"; return; fi
	if cmp -s "$1" "$2"; then ok "$3"; else notok "$3"; diff "$2" "$1" | head -n 10 | cut -c 1-200 | sed 's/^/#   /'; fi
}

want_rc() { sed -n "s/^$2 //p" "$CASES/$1.rc"; }

run_case() {
	name=$1 in=$2 args=""
	[ -f "$CASES/$name.args" ] && args=$(cat "$CASES/$name.args")
	# Run from the case's directory so FILE in diagnostics is just the name.
	cd "$(dirname "$in")" || return
	f=$(basename "$in")
	$L cat --format jsonl $args "$f" > "$T/out" 2> "$T/err"; crc=$?
	expect "$T/out" "$CASES/$name.jsonl" "$name: cat --format jsonl"
	[ -f "$CASES/$name.stderr" ] && expect "$T/err" "$CASES/$name.stderr" "$name: what cat says on stderr"
	for fmt in tsv lirs; do
		[ -f "$CASES/$name.$fmt" ] || continue
		$L cat --format $fmt $args "$f" > "$T/out" 2> /dev/null
		expect "$T/out" "$CASES/$name.$fmt" "$name: cat --format $fmt"
	done
	$L validate --now $NOW $args "$f" > "$T/diag" 2> "$T/verr"; vrc=$?
	expect "$T/diag" "$CASES/$name.diag" "$name: validate diagnostics"
	if [ -f "$CASES/$name.json" ]; then
		$L validate --now $NOW --format jsonl $args "$f" > "$T/out" 2> /dev/null
		expect "$T/out" "$CASES/$name.json" "$name: validate --format jsonl"
	fi
	if [ "${UPDATE:-}" = 1 ]; then
		printf 'cat %s\nvalidate %s\n' $crc $vrc > "$CASES/$name.rc"
	fi
	is "$name: cat exit status" "$crc" "$(want_rc "$name" cat)"
	is "$name: validate exit status" "$vrc" "$(want_rc "$name" validate)"
	cd "$TOP" || return
	# What cat wrote, pack must write back: the same records, through
	# EUC-JP, or through UTF-8 when EUC-JP cannot hold every character.
	[ "$crc" -le 1 ] || return
	$L cat $args "$in" 2> /dev/null > "$T/a.jsonl"
	# the writer leaves out a line its reader would skip: the same --max-line
	pargs=$(printf '%s\n' "$args" | sed -n 's/.*\(--max-line [^ ]*\).*/\1/p')
	$L pack $pargs < "$T/a.jsonl" 2> "$T/perr" > "$T/p.gz"
	# Vendor characters (①, 髙) take readable forms in strict EUC-JP, the
	# default; --charset euc-jp-ms keeps them, so that is the round trip.
	grep -q 'readable forms' "$T/perr" &&
		$L pack $pargs --charset euc-jp-ms < "$T/a.jsonl" 2> "$T/perr" > "$T/p.gz"
	# Records are expected exactly when the case's expected output has some.
	empty=may-be-empty; [ -s "$CASES/$name.jsonl" ] && empty=
	if ! grep -q 'U+3013\|nearest EUC-JP\|readable forms' "$T/perr"; then
		$L cat $args "$T/p.gz" > "$T/b.jsonl" 2> /dev/null
		expect_same "$T/a.jsonl" "$T/b.jsonl" "$name: round trip cat | pack | cat (EUC-JP, gzip)" $empty
	elif [ -f "$CASES/$name.no-utf8-round-trip" ]; then
		ok "$name: no UTF-8 round trip # SKIP $(head -n 1 "$CASES/$name.no-utf8-round-trip")"
	else
		$L pack --utf8 < "$T/a.jsonl" 2> /dev/null | $L cat $args > "$T/b.jsonl" 2> /dev/null
		expect_same "$T/a.jsonl" "$T/b.jsonl" "$name: round trip cat | pack --utf8 | cat" $empty
	fi
}

# expect_same A B NAME [may-be-empty]: the same bytes, and (a floor) not
# both empty unless the caller says that is what is expected.
expect_same() {
	if [ ! -s "$1" ] && [ "${4:-}" != may-be-empty ]; then notok "$3"; echo "#   both empty: '$1'"; return; fi
	if cmp -s "$1" "$2"; then ok "$3"; else notok "$3"; diff "$1" "$2" | head -n 6 | cut -c 1-200 | sed 's/^/#   /'; fi
}

cases() {
	ncases=0
	for f in "$CASES"/*.in "$CASES"/*.gen; do
		[ -f "$f" ] || continue
		name=$(basename "$f"); name=${name%.*}
		case $f in
		*.gen) sh "$f" > "$T/$name.in"; run_case "$name" "$T/$name.in" ;;
		*) run_case "$name" "$f" ;;
		esac
		rm -f "$T/$name.in"
		ncases=$((ncases + 1))
	done
	[ "$ncases" -ge "$MIN_CASES" ] && ok "the case loop ran $ncases cases (at least $MIN_CASES)" ||
		notok "the case loop ran $ncases cases, fewer than $MIN_CASES"
}

# ---- checks that are not per case ---------------------------------------

usage() {
	$L > /dev/null 2>&1; is "no command: exit 2" $? 2
	$L frobnicate > /dev/null 2> "$T/err"; is "unknown command: exit 2" $? 2
	grep -q "unknown command 'frobnicate'" "$T/err" && ok "unknown command is named" || notok "unknown command is named"
	$L --version > "$T/out"; is "--version" "$?:$(cat "$T/out")" "0:lirs $(sed -n 's/#define LIRS_VERSION "\(.*\)"/\1/p' "$TOP/src/lirs/lirs.h")"
	$L --help > "$T/out"; is "--help: exit 0" $? 0
	for c in cat validate pack merge atom; do
		grep -q "^  $c " "$T/out" && ok "--help lists $c" || notok "--help lists $c"
	done
	for c in cat validate pack; do
		$L $c --help > "$T/out" 2>&1; is "$c --help" "$?:$(head -n 1 "$T/out" | cut -d ' ' -f 1-3)" "0:usage: lirs $c"
		$L help $c > "$T/out2" 2>&1; expect_same "$T/out" "$T/out2" "help $c = $c --help"
		$L $c --no-such-option x > /dev/null 2> "$T/err"; is "$c: unknown option: exit 2" $? 2
		grep -q "unknown option '--no-such-option'" "$T/err" && ok "$c: unknown option named" || notok "$c: unknown option named"
	done
	f=$CASES/clean.in
	$L cat --format xml "$f" > /dev/null 2>&1; is "cat --format xml: exit 2" $? 2
	$L cat --max-decoded 12x "$f" > /dev/null 2>&1; is "cat --max-decoded 12x: exit 2" $? 2
	$L cat --max-line 0 "$f" > /dev/null 2>&1; is "cat --max-line 0: exit 2" $? 2
	# One strict byte count for both commands (cmd/cli.c): no sign, no blanks.
	for b in +1M " 1M" "1M " 1MB 1K2; do
		$L cat --max-decoded "$b" "$f" > /dev/null 2> "$T/err"; is "cat --max-decoded '$b': exit 2" $? 2
		grep -q "^lirs cat: --max-decoded: '$b' is not a byte count\$" "$T/err" && ok "cat --max-decoded '$b': named" || notok "cat --max-decoded '$b': named"
	done
	$L cat --max-line 1m --max-decoded 1g "$f" > /dev/null 2>&1; is "cat: lowercase k, m, g suffixes" $? 0
	$L cat --max-line 99999999999999999999k "$f" > /dev/null 2> "$T/err"; is "cat --max-line overflow: exit 2" $? 2
	grep -q "is out of range \[1, " "$T/err" && ok "byte count overflow: out of range" || notok "byte count overflow: out of range"
	$L cat --format > /dev/null 2> "$T/err"; is "cat --format without value: exit 2" $? 2
	grep -q "needs a value" "$T/err" && ok "missing value is reported" || notok "missing value is reported"
	$L validate > /dev/null 2>&1; is "validate without FILE: exit 2" $? 2
	$L validate --now 1e9 "$f" > /dev/null 2>&1; is "validate --now 1e9: exit 2" $? 2
	$L validate --now 99999999999999999999 "$f" > /dev/null 2>&1; is "validate --now overflow: exit 2" $? 2
	$L validate --max-age -5 "$f" > /dev/null 2>&1; is "validate --max-age -5: exit 2" $? 2
	$L validate --format yaml "$f" > /dev/null 2>&1; is "validate --format yaml: exit 2" $? 2
	$L pack a b > /dev/null 2>&1; is "pack with two FILEs: exit 2" $? 2
	$L cat "$T/missing.lirs" > /dev/null 2> "$T/err"; is "cat of a missing file: exit 2" $? 2
	grep -q "cannot open '$T/missing.lirs': No such file or directory" "$T/err" &&
		ok "missing file message" || notok "missing file message"
}

stdin_and_files() {
	cd "$CASES" || return
	$L cat - < clean.in > "$T/a"; is "cat - reads stdin" $? 0
	$L cat < clean.in > "$T/b"; expect_same "$T/a" "$T/b" "cat with no FILE reads stdin"
	expect_same "$T/a" clean.jsonl "stdin gives the same records"
	$L validate --now $NOW - < duplicate-url.in > "$T/out"; is "validate - : exit 2 (data lost)" $? 2
	grep -q '^<stdin>:5:37: error: .*already appears on line 1 \[duplicate-url\]' "$T/out" &&
		ok "stdin is called <stdin>" || notok "stdin is called <stdin>"
	$L cat clean.in escapes.in > "$T/out"; is "cat of two clean files: exit 0" $? 0
	cat clean.jsonl escapes.jsonl > "$T/want"; expect_same "$T/out" "$T/want" "cat of two files concatenates"
	$L cat clean.in bad-number.in > /dev/null 2>&1; is "cat clean + skipped: exit 1" $? 1
	$L cat clean.in gzip-truncated.in bad-number.in > "$T/out" 2>/dev/null; is "cat clean + truncated + skipped: exit 2" $? 2
	# A floor: the records before the damage are there, none after it.
	is "truncated gzip: records up to the damage, none after it" \
		"$(grep -c 'http://a1.example/' "$T/out"):$(grep -c 'http://a399.example/' "$T/out")" "1:0"
	grep -q 'http://b.example/' "$T/out" && ok "files after a fatal one are still read" || notok "files after a fatal one are still read"
	$L validate --max-age 99999999 --now $NOW clean.in > "$T/out"; is "validate clean: exit 0" $? 0
	$L validate --now $NOW clean.in stale.in > "$T/out"; is "validate clean + nonconforming: exit 1" $? 1
	is "one summary line per file" "$(grep -c ': [0-9]* records, ' "$T/out")" 2
	$L validate --now $NOW clean.in negative.in "$T/missing" > "$T/out" 2> "$T/err"; is "validate with a missing file: exit 2" $? 2
	is "the other files are still validated" "$(grep -c ' records, ' "$T/out")" 2
	$L validate -q --now $NOW stale.in > "$T/out"
	is "-q hides warnings, still counts them" "$(cat "$T/out")" "stale.in: 2 records, 0 errors, 2 warnings"
	$L cat --format lirs --utf8 --gzip eucjp-kanji.in > "$T/u.gz"
	is "cat --format lirs --utf8 --gzip" "$(zcat "$T/u.gz" | tr -d '\n')" "$(iconv -f EUC-JP -t UTF-8 eucjp-kanji.in | tr -d '\n')"
	cd "$TOP" || return
}

pack_checks() {
	printf '%s\n' '{"url":"http://a.example/","title":"a"}' 'not json' '' \
		'{"url":"http://b.example/","tz_offset":"9"}' '[1,2]' \
		'{"url":"http://c.example/","title":"c","extra":["x"]}' > "$T/in.jsonl"
	$L pack --no-gzip "$T/in.jsonl" > "$T/out" 2> "$T/err"; is "pack: bad lines give exit 1" $? 1
	is "pack: good lines are still written" "$(grep -c '^LIRS,' "$T/out")" 2
	grep -q "^$T/in.jsonl:2:[0-9]*: error: line is not JSON\$" "$T/err" && ok "pack: FILE:LINE:COL: line is not JSON" || notok "pack: FILE:LINE:COL: line is not JSON"
	grep -q "^lirs pack: warning: 2 records without a time (last_modified or last_detected 0 or missing): readers drop them (lirs validate: zero-time): $T/in.jsonl:1, $T/in.jsonl:6\$" "$T/err" &&
		ok "pack: records without a time counted, with their lines" || notok "pack: records without a time counted, with their lines"
	grep -q "^$T/in.jsonl:4: error: 'tz_offset' is not an integer" "$T/err" && ok "pack: wrong type reported" || notok "pack: wrong type reported"
	grep -q "^$T/in.jsonl:5: error: not a JSON object" "$T/err" && ok "pack: non-object reported" || notok "pack: non-object reported"
	is "pack: defaults and extras" "$(grep 'c.example' "$T/out")" "LIRS,0,0,0,0,http://c.example/,c,0,0,,x,"
	printf '{"url":"http://a.example/","title":"snow \342\230\203 and \360\237\230\200"}\n' |
		$L pack > "$T/out" 2> "$T/err"; is "pack: replacements are not an error" $? 0
	grep -q 'warning: 2 characters EUC-JP cannot hold were replaced by U+3013' "$T/err" &&
		ok "pack: U+3013 replacements counted" || { notok "pack: U+3013 replacements counted"; sed 's/^/#   /' "$T/err"; }
	$L cat "$T/out" | grep -q '"snow 〓 and 〓"' && ok "pack: U+3013 written" || notok "pack: U+3013 written"
	# Numbers json-c would clamp are refused, never changed.
	printf '%s\n' '{"url":"http://a/","last_modified":9223372036854775808}' \
		'{"url":"http://a/","last_modified":-9223372036854775809}' '{"url":"http://a/","tz_offset":1.5}' |
		$L pack --no-gzip 2> "$T/err" > /dev/null; is "pack: numbers out of range are errors" $? 1
	is "pack: ...above and below int64, each reported" "$(grep -c "out of the 64-bit range" "$T/err")" 2
	is "pack: a fraction is not an integer" "$(grep -c "'tz_offset' is not an integer" "$T/err")" 1
	# A key given twice: the last value wins (as in jq); the record is kept.
	printf '%s\n' '{"url":"http://a.example/","url":"http://b.example/","title":"t"}' |
		$L pack --no-gzip > "$T/out" 2> "$T/err"; is "pack: a key given twice is not an error" $? 0
	is "pack: a key given twice takes its last value" "$($L cat --format tsv "$T/out" 2> /dev/null | cut -f 5)" "http://b.example/"
	# Order and diagnostics survive the parser threads: 5000 records with a
	# bad line every 997 lines come out in input order, errors in line order.
	awk 'BEGIN { for (i = 1; i <= 5000; i++) if (i % 997 == 0) print "{bad"; else printf "{\"last_modified\":%d,\"last_detected\":%d,\"url\":\"http://h/%d\"}\n", i, i, i }' > "$T/many.jsonl"
	$L pack "$T/many.jsonl" 2> "$T/err" | $L cat --format tsv 2> /dev/null | cut -f 1 > "$T/out"
	is "pack: every good line of 5000 packed" "$(wc -l < "$T/out" | tr -d ' ')" 4995
	is "pack: records keep their input order across batches" "$(sort -n "$T/out" | cmp - "$T/out" > /dev/null && echo sorted)" sorted
	is "pack: bad lines reported, in line order" "$(cut -d: -f2 "$T/err" | tr '\n' ' ')" "997 1994 2991 3988 4985 "
	# U+00A5 is not the backslash glibc's EUC-JP makes of it: no field shifts.
	printf '%s\n' '{"last_modified":1,"last_detected":1,"url":"http://a.example/","title":"価格 ¥","author":"x","source_url":"http://s/","extension":"e"}' \
		'{"last_modified":1,"last_detected":1,"url":"http://b.example/","title":"〜‖−¢£¬‾"}' > "$T/yen.jsonl"
	$L pack --no-gzip "$T/yen.jsonl" > "$T/out" 2> "$T/err"; is "pack: look-alikes are not an error" $? 0
	is "pack: '¥' written as '￥', the fields after it in place" \
		"$($L cat --format tsv "$T/out" 2> /dev/null | cut -f 6-8 | head -n 1)" "$(printf '価格 ￥\tx\thttp://s/')"
	is "pack: many-to-one characters come back as their look-alikes" \
		"$($L cat --format tsv "$T/out" 2> /dev/null | cut -f 6 | tail -n 1)" "～∥－￠￡￢￣"
	is "pack: look-alikes counted in one warning" \
		"$(grep -c 'warning: 8 characters written as their nearest EUC-JP equivalent' "$T/err")" 1
	$L pack --no-gzip --utf8 "$T/yen.jsonl" 2> "$T/err" | $L cat --format tsv 2> /dev/null | cut -f 6 > "$T/out"
	is "pack --utf8: look-alikes kept, no warning" "$(cat "$T/out" "$T/err" | tr '\n' '|')" "価格 ¥|〜‖−¢£¬‾|"
	$L pack --utf8 "$T/yen.jsonl" | $L cat --format lirs > /dev/null 2> "$T/err"
	grep -q 'warning: 8 characters written as their nearest EUC-JP' "$T/err" &&
		ok "cat --format lirs: look-alikes counted" || notok "cat --format lirs: look-alikes counted"
	$L pack < /dev/null > "$T/out"; is "pack of nothing: an empty gzip file" "$?:$(zcat "$T/out" | wc -c)" "0:0"
	$L pack --no-gzip < "$CASES/clean.jsonl" > "$T/out"
	is "pack --no-gzip writes plain text" "$(head -c 5 "$T/out")" "LIRS,"
	$L pack < "$CASES/clean.jsonl" | head -c 2 | od -An -tx1 > "$T/out"
	is "pack writes gzip by default" "$(tr -d ' \n' < "$T/out")" "1f8b"
}

# pack -o: the target is replaced only when the new file is complete.
pack_atomic() {
	d=$T/pub; mkdir -p "$d"
	head -n 1 "$CASES/duplicate-url.jsonl" > "$T/one.jsonl"
	# A slow producer: one line, a pause, the rest.
	{ cat "$T/one.jsonl"; sleep 1; cat "$CASES/escapes.jsonl"; } | $L pack -o "$d/new.lirs.gz" 2> "$T/err" &
	pid=$!
	sleep 0.4
	[ ! -e "$d/new.lirs.gz" ] && ok "pack -o: no target while writing" || notok "pack -o: no target while writing"
	wait $pid; is "pack -o: exit 0" $? 0
	$L cat "$d/new.lirs.gz" | wc -l > "$T/n"; is "pack -o: complete file after" "$(tr -d ' ' < "$T/n")" 6
	$L pack -o "$d/new.lirs.gz" < "$CASES/clean.jsonl"
	cp "$d/new.lirs.gz" "$T/old"
	{ cat "$CASES/escapes.jsonl"; sleep 1; cat "$CASES/escapes.jsonl"; } | $L pack -o "$d/new.lirs.gz" &
	pid=$!
	sleep 0.4
	cmp -s "$d/new.lirs.gz" "$T/old" && ok "pack -o: old content kept while writing" || notok "pack -o: old content kept while writing"
	wait $pid
	is "pack -o: replaced when done" "$($L cat "$d/new.lirs.gz" | wc -l | tr -d ' ')" 10
	$L pack -o "$d/new.lirs.gz" "$T/missing.jsonl" 2> /dev/null; is "pack -o of a missing input: exit 2" $? 2
	is "pack -o: failed run leaves the target" "$($L cat "$d/new.lirs.gz" | wc -l | tr -d ' ')" 10
	$L pack -o "$T/no/such/dir/x.gz" < "$CASES/clean.jsonl" 2> /dev/null; is "pack -o into a missing directory: exit 2" $? 2
	is "pack -o leaves no temporary files" "$(ls "$d")" "new.lirs.gz"
}

# A full disk: one message naming the reason, exit 2.  The output is big
# and random enough that the gzip writer's thread meets the error (errno
# is per thread), and holds a snowman, whose encoding leaves iconv's
# EILSEQ in the main thread's errno.
write_errors() {
	full=1; [ -w /dev/full ] || full=
	awk 'BEGIN { srand(7); for (i = 0; i < 20000; i++) {
		t = ""; for (j = 0; j < 6; j++) t = t sprintf("%08x", int(rand() * 4294967295))
		printf "{\"last_modified\":%d,\"url\":\"http://a%d.example/\",\"title\":\"\xe2\x98\x83 %s\"}\n", 1e9 - i, i, t } }' > "$T/big.jsonl"
	$L pack --no-gzip "$T/big.jsonl" > "$T/big.lirs" 2> /dev/null
	for c in "pack $T/big.jsonl" "pack --no-gzip $T/big.jsonl" "cat --format lirs $T/big.lirs" \
		"cat --format lirs --utf8 $T/big.lirs" "cat $T/big.lirs" "pack $CASES/clean.jsonl"; do
		if [ -z "$full" ]; then
			ok "$(echo "$c" | sed "s|$T/||; s|$CASES/||") > /dev/full: one message, exit 2 # SKIP no /dev/full"
			continue
		fi
		$L $c > /dev/full 2> "$T/err"; rc=$?
		is "$(echo "$c" | sed "s|$T/||; s|$CASES/||") > /dev/full: one message, exit 2" \
			"$rc:$(grep -c 'No space left on device' "$T/err"):$(grep -vc 'U+3013' "$T/err")" "2:1:1"
	done
}

# Summarised warnings, -v, the layout note and JSON's completeness,
# on the peers' own layouts.
validate_summary() {
	cd "$CASES" || return
	$L validate --now $NOW samidare-layout.in > "$T/out"
	is "samidare: 3 no-extension lines and one note" "$(grep -c '\[no-extension\]$' "$T/out")" 4
	grep -q '^samidare-layout.in: note: and 3 more no-extension warnings, the last on line 6; -v lists every line \[no-extension\]$' "$T/out" &&
		ok "samidare: 'and 3 more'" || notok "samidare: 'and 3 more'"
	is "samidare: the layout named once" "$(grep -c '\[layout\]$' "$T/out")" 1
	is "samidare: both shifted records" "$(grep -c '\[backslash-shift\]$' "$T/out")" 2
	$L validate -v --now $NOW samidare-layout.in > "$T/out"
	is "samidare -v: every no-extension line" "$(grep -c '\[no-extension\]$' "$T/out")" 6
	is "samidare -v: no 'and N more'" "$(grep -c 'more .* -v lists' "$T/out")" 0
	$L validate -q --now $NOW tama-layout.in > "$T/out"
	is "tama -q: errors and the summary only" "$(grep -vc ': error: ' "$T/out")" 1
	for c in tama-layout samidare-layout; do
		# JSON: every diagnostic, each line parses, the counts agree.
		$L validate --format json --now $NOW $c.in > "$T/out"
		python3 -c '
import json, sys, collections
seen = collections.Counter(); summ = None
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "summary": summ = o
    elif o["severity"] != "note": seen[o["rule"]] += 1
sys.exit(0 if summ and dict(seen) == summ["rules"] and summ["layout"]["name"] == sys.argv[2] else 1)
' "$T/out" "${c%-layout}" && ok "$c: JSON lists every diagnostic, counts agree" || notok "$c: JSON lists every diagnostic, counts agree"
	done
	# duplicate-url past the table's first growths and the key file's
	# write buffer: every 10th URL after line 5000 repeats one 4999 back.
	awk 'BEGIN { for (i = 1; i <= 20000; i++) { u = (i % 10 == 0 && i > 5000) ? i - 4999 : i
		printf "LIRS,999999900,999999900,32400,0,http://h%d.example/page/%d,t,0,0,,\n", u % 50, u } }' > "$T/many.lirs"
	$L validate -q --now $NOW "$T/many.lirs" > "$T/out"
	is "duplicate-url: 1500 of 20000, each naming its first line" \
		"$(grep -c 'duplicate-url' "$T/out"):$(grep -c 'http://h1.example/page/5001. already appears on line 5001 ' "$T/out")" "1500:1"
	TMPDIR=$T/none $L validate -q --now $NOW "$T/many.lirs" > "$T/out2" 2> "$T/err"
	expect_same "$T/out" "$T/out2" "duplicate-url: the same with the keys in memory"
	grep -q "warning: cannot create a temporary file in '$T/none'" "$T/err" &&
		ok "duplicate-url: no temporary file is a warning" || notok "duplicate-url: no temporary file is a warning"
	# More diagnostics than validate holds back before the layout is known:
	# printed as they come, nothing lost.
	{ awk 'BEGIN { for (i = 0; i < 4200; i++) print "junk" }'; sed -n '1p;6p' tama-layout.in; } > "$T/junk.lirs"
	$L validate --now $NOW "$T/junk.lirs" > "$T/out"
	is "4200 diagnostics before the layout is known: all printed, the shift found" \
		"$(grep -c '\[no-prefix\]$' "$T/out"):$(grep -c '^[^:]*:4202:[0-9]*: error: .*\[backslash-shift\]$' "$T/out")" "4200:1"
	cd "$TOP" || return

}

# LIRS 2.1 §2, §7: every LIRS writer (pack, cat --format lirs, merge) writes
# strict EUC-JP by default, each vendor character of vendor.tsv as its
# readable form, and with --charset euc-jp-ms exactly glibc's EUC-JP-MS
# bytes (those of 0.1).  iconv(1) is glibc's own, the strict reader.
vendor() {
	tsv=$TOP/tests/lirs/vendor.tsv
	grep -v '^#' "$tsv" > "$T/v.tsv"
	n=$(wc -l < "$T/v.tsv")
	nform=$(grep -vc "$(printf '\t')〓\$" "$T/v.tsv")
	awk -F'\t' '{ t = $1; gsub(/\\/, "\\\\", t); gsub(/"/, "\\\"", t)
		printf "{\"url\":\"http://v.example/%03d\",\"last_modified\":%d,\"last_detected\":1000000000,\"title\":\"%s\"}\n", NR, 1000000000 - NR, t }' \
		"$T/v.tsv" > "$T/v.jsonl"
	cut -f 2 "$T/v.tsv" > "$T/v.forms"
	cut -f 1 "$T/v.tsv" > "$T/v.chars"
	titles() { cut -d , -f 7 "$1"; }
	$L pack --no-gzip < "$T/v.jsonl" > "$T/v.euc" 2> "$T/v.err"
	is "vendor: pack writes $n vendor characters" $? 0
	if iconv -f EUC-JP -t UTF-8 < "$T/v.euc" > "$T/v.strict" 2> /dev/null; then
		ok "vendor: pack's default output decodes with iconv -f EUC-JP (strict)"
	else
		notok "vendor: pack's default output decodes with iconv -f EUC-JP (strict)"
	fi
	titles "$T/v.strict" > "$T/v.got"
	expect_same "$T/v.forms" "$T/v.got" "vendor: each written as its readable form (vendor.tsv)"
	grep -q "warning: $nform vendor characters .*readable forms" "$T/v.err" &&
		ok "vendor: pack counts the $nform readable forms" ||
		notok "vendor: pack counts the $nform readable forms ($(cat "$T/v.err"))"
	grep -q "warning: $((n - nform)) characters EUC-JP cannot hold" "$T/v.err" &&
		ok "vendor: and the ones without a form as U+3013" ||
		notok "vendor: and the ones without a form as U+3013"
	$L cat --format tsv "$T/v.euc" | cut -f 6 > "$T/v.got"
	expect_same "$T/v.forms" "$T/v.got" "vendor: our reader reads the readable forms back"
	# the old bytes, on request
	$L pack --no-gzip --charset euc-jp-ms < "$T/v.jsonl" > "$T/v.ms" 2> "$T/v.err"
	$L pack --no-gzip --utf8 < "$T/v.jsonl" | iconv -f UTF-8 -t EUC-JP-MS > "$T/v.want"
	expect_same "$T/v.want" "$T/v.ms" "vendor: pack --charset euc-jp-ms writes EUC-JP-MS's bytes"
	grep -q 'readable forms\|U+3013' "$T/v.err" && notok "vendor: --charset euc-jp-ms warns of nothing" ||
		ok "vendor: --charset euc-jp-ms warns of nothing"
	$L cat --format tsv "$T/v.ms" | cut -f 6 > "$T/v.got"
	expect_same "$T/v.chars" "$T/v.got" "vendor: our reader reads EUC-JP-MS back as the characters"
	# the other writer paths: cat --format lirs, merge
	$L cat --format lirs "$T/v.ms" > "$T/v.cat" 2> /dev/null
	expect_same "$T/v.euc" "$T/v.cat" "vendor: cat --format lirs writes the same strict EUC-JP"
	$L cat --format lirs --charset euc-jp-ms "$T/v.ms" > "$T/v.cat" 2> /dev/null
	expect_same "$T/v.ms" "$T/v.cat" "vendor: cat --format lirs --charset euc-jp-ms keeps the bytes"
	$L merge --now 1000000000 "$T/v.ms" 2> /dev/null | gzip -dc > "$T/v.merge"
	expect_same "$T/v.euc" "$T/v.merge" "vendor: merge writes the same strict EUC-JP"
	$L merge --now 1000000000 --charset euc-jp-ms "$T/v.ms" 2> /dev/null | gzip -dc > "$T/v.merge"
	expect_same "$T/v.ms" "$T/v.merge" "vendor: merge --charset euc-jp-ms keeps the bytes"
	$L pack --charset latin1 < /dev/null > /dev/null 2> "$T/v.err"
	is "vendor: an unknown --charset is a usage error" "$?:$(grep -c "unknown charset 'latin1'" "$T/v.err")" 2:1
}

# The documentation must keep up with the code.
docs() {
	man5=$TOP/man/lirs.5 man1=$TOP/man/lirs.1
	missing="" nid=0
	for id in $(sed -n 's/^.*= { "\([a-z0-9-]*\)", LIRS_SEV_.*/\1/p' "$TOP/src/lirs/rules.c"); do
		grep -q "^\.It Cm $id\$" "$man5" || missing="$missing $id"
		nid=$((nid + 1))
	done
	# A floor: a scrape that finds nothing documents nothing.
	[ "$nid" -ge 30 ] || missing="$missing (only $nid rule ids found in rules.c)"
	is "every rule id in src/lirs/rules.c is documented in lirs(5)" "${missing:-none}" none
	missing=""
	for c in cat validate pack merge atom; do
		$L $c --help 2> /dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u > "$T/opts"
		# The command's own section: from ".Ss lirs CMD" to the next .Ss/.Sh.
		awk -v c="$c" '/^\.S[sh] /{ on = ($0 == ".Ss lirs " c) } on' "$man1" > "$T/sect"
		[ "$(grep -vc -- --help "$T/opts")" -ge 3 ] || missing="$missing $c:(fewer than 3 options in --help)"
		[ -s "$T/sect" ] || missing="$missing $c:(no section in lirs(1))"
		while read -r o; do
			[ "$o" = --help ] && continue
			grep -qF -- "Fl \\-${o#--}" "$T/sect" || missing="$missing $c:$o"
		done < "$T/opts"
	done
	is "every --help option is documented in lirs(1)" "${missing:-none}" none
	# lirs(1)'s EXIT STATUS table names the class of every rule but the notes.
	awk '/^\.Sh EXIT STATUS/{ on = 1; next } /^\.Sh /{ on = 0 } on' "$man1" > "$T/exit"
	missing="" nid=0
	for id in $(sed -n 's/^.*= { "\([a-z0-9-]*\)", LIRS_SEV_[A-Z]*, LIRS_CLASS_[ACL].*/\1/p' "$TOP/src/lirs/rules.c"); do
		grep -qw -- "$id" "$T/exit" || missing="$missing $id"
		nid=$((nid + 1))
	done
	[ "$nid" -ge 30 ] || missing="$missing (only $nid classed rules found in rules.c)"
	is "every rule's class is in lirs(1) EXIT STATUS" "${missing:-none}" none
}

# The mistakes people make by hand, as merge, atom
# and cat meet them (the cases hold what validate says of each).
by_hand() {
	cd "$CASES" || return
	# 12: a bare ',' in a title.  cat, merge and atom leave the shifted
	# records out and say where; exit 1 (cat: cases/unescaped-comma.*).
	$L merge --now $NOW --format jsonl unescaped-comma.in > "$T/out" 2> "$T/err"
	is "unescaped-comma: merge skips the shifted records, exit 1" \
		"$?:$(grep -c '"http://b.example/"' "$T/out"):$(grep -c 'a.example\|c.example' "$T/out")" 1:1:0
	grep -q "warning: 2 records skipped: .*unescaped-comma): unescaped-comma.in:1, unescaped-comma.in:3\$" "$T/err" &&
		ok "unescaped-comma: merge counts them with FILE:LINE" || notok "unescaped-comma: merge counts them with FILE:LINE"
	rm -rf "$T/feed" "$T/st.db"
	$L atom --state "$T/st.db" --base http://x.example/ --out "$T/feed" --now $NOW unescaped-comma.in 2> "$T/err"
	is "unescaped-comma: atom skips them, exit 1, and says where" \
		"$?:$(grep -c 'skipped: .*unescaped-comma.in:1, unescaped-comma.in:3$' "$T/err"):$(grep -c '写真' "$T/feed/current.atom")" 1:1:0
	# 13: times past the tolerated skew.  Dropped, and said, exit 1.
	$L merge --now $NOW --format jsonl future-dropped.in > "$T/out" 2> "$T/err"
	is "future-dropped: merge drops both, exit 1" "$?:$(wc -c < "$T/out" | tr -d ' ')" 1:0
	grep -q "warning: 2 records dropped: Last-Modified or Last-Detected more than 3600 seconds after now, 1000000000 (2001-09-09 01:46:40 UTC) (lirs validate: future-dropped): future-dropped.in:1, future-dropped.in:2\$" "$T/err" &&
		ok "future-dropped: merge says what, why and where" || { notok "future-dropped: merge says what, why and where"; sed 's/^/#   /' "$T/err"; }
	rm -rf "$T/feed" "$T/st.db"
	$L atom --state "$T/st.db" --base http://x.example/ --out "$T/feed" --now $NOW future-dropped.in 2> "$T/err"
	is "future-dropped: atom says it too, exit 1" "$?:$(grep -c 'future-dropped.in:1, future-dropped.in:2$' "$T/err")" 1:1
	$L merge --now $NOW --max-future 100000 --format jsonl future-dropped.in > "$T/out" 2> "$T/err"
	is "future-dropped: merge --max-future 100000 keeps them, exit 0" "$?:$(wc -l < "$T/out" | tr -d ' ')" 0:2
	$L validate --now $NOW --max-future 100000 future-dropped.in > "$T/out"
	is "future-dropped: validate --max-future 100000: no future-dropped" "$(grep -c 'future-dropped\]' "$T/out")" 0
	# 14: Shift_JIS, made here by iconv.
	printf 'LIRS,999999900,999999900,32400,0,http://a.example/,日本語の表題,作者,0,,\nLIRS,999999900,999999900,32400,0,http://b.example/,ソフト表,作者,0,,\n' |
		iconv -f UTF-8 -t CP932 > "$T/sjis.lirs"
	$L validate --now $NOW "$T/sjis.lirs" > "$T/out"; rc=$?
	is "shift-jis: named on each line, the iconv command once, exit 2" \
		"$rc:$(grep -c '\[shift-jis\]$' "$T/out"):$(grep -c 'iconv -f CP932 -t EUC-JP in > out' "$T/out")" 2:2:1
	for cs in cp932 sjis shift_jis SHIFT_JIS; do
		$L cat --charset $cs --format tsv "$T/sjis.lirs" > "$T/out" 2> "$T/err"
		is "shift-jis: cat --charset $cs reads the titles" "$?:$(cut -f 6 "$T/out" | tr '\n' '|')" "0:日本語の表題|ソフト表|"
	done
	$L validate --now $NOW --charset cp932 "$T/sjis.lirs" > "$T/out"
	is "shift-jis: validate --charset cp932 reads it, and still says once that it is not EUC-JP" \
		"$?:$(grep -c 'invalid-encoding' "$T/out"):$(grep -c 'read so as asked.*iconv -f CP932 -t EUC-JP in > out \[shift-jis\]$' "$T/out")" 2:0:1
	# read as EUC-JP, the garbled lines are left out, as cat leaves them
	# (cases/shift-jis.*)
	$L merge --now $NOW --format jsonl "$T/sjis.lirs" > "$T/out" 2> "$T/err"
	is "shift-jis: merge skips the lines, exit 1, and says where" \
		"$?:$(wc -c < "$T/out" | tr -d ' '):$(grep -c 'warning: 2 records skipped: Shift_JIS .*--charset cp932): .*sjis.lirs:1, .*sjis.lirs:2$' "$T/err")" 1:0:1
	# bytes never decoded: no hint that --utf8 would have kept them
	$L merge --now $NOW invalid-bytes.in 2> "$T/err" > /dev/null
	is "merge: U+FFFD written as U+3013 is said, --utf8 not offered" \
		"$(grep -c 'warning: 2 U+FFFD .*written as U+3013; .*lost on reading, no --utf8 keeps it' "$T/err"):$(grep -c 'use --utf8' "$T/err")" 1:0
	$L merge --now $NOW --charset sjis --format jsonl "$T/sjis.lirs" > "$T/out" 2> /dev/null
	is "shift-jis: merge --charset sjis" "$?:$(grep -c 'ソフト表' "$T/out")" 0:1
	$L merge --now $NOW --charset sjis "$T/sjis.lirs" 2> /dev/null | gzip -dc | iconv -f EUC-JP -t UTF-8 > "$T/out"
	is "shift-jis: merge --charset sjis writes EUC-JP" "$(grep -c '日本語の表題' "$T/out")" 1
	rm -rf "$T/feed" "$T/st.db"
	$L atom --state "$T/st.db" --base http://x.example/ --out "$T/feed" --now $NOW --charset shift_jis "$T/sjis.lirs"
	is "shift-jis: atom --charset shift_jis" "$?:$(grep -c 'ソフト表' "$T/feed/current.atom")" 0:1
	$L validate --charset latin1 clean.in > /dev/null 2> "$T/err"
	is "validate --charset latin1: usage error" "$?:$(grep -c "unknown charset 'latin1'" "$T/err")" 2:1
	# a byte order mark before LIRS, is named, not taken for a line without
	# it (validate and cat: cases/bom.*); merge names it too, reads both
	$L merge --now $NOW --format jsonl bom.in > "$T/out" 2> "$T/err"
	is "bom: merge names it and reads both records" \
		"$(grep -c '^bom.in:1:1: error: a byte order mark before LIRS,: save without BOM.*\[bom\]$' "$T/err"):$(grep -c 'no-prefix' "$T/err"):$(wc -l < "$T/out" | tr -d ' ')" 1:0:2
	# 15: an empty standard input is named too.
	$L validate --now $NOW - < /dev/null > "$T/out"
	is "empty stdin: named, exit 1" "$?:$(grep -c '^<stdin>: warning: the file is empty' "$T/out")" 1:1
	# 16: jsonl, and json its alias.
	$L validate --now $NOW --format jsonl duplicate-url.in > "$T/a"
	$L validate --now $NOW --format json duplicate-url.in > "$T/b"
	expect_same "$T/a" "$T/b" "validate --format json is --format jsonl"
	$L validate --help | grep -q 'text (default) or jsonl' && ok "validate --help says jsonl" || notok "validate --help says jsonl"
	is "jsonl summary names the class" "$(grep -c '"class":"data-lost"' "$T/a")" 1
	cd "$TOP" || return
}

cases
usage
by_hand
stdin_and_files
pack_checks
pack_atomic
write_errors
validate_summary
vendor
docs
done_testing "$MIN_CHECKS"
