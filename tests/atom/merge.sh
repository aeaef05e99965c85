# tests/atom/merge.sh: `lirs merge`, sourced by tests/atom/run.sh
# (uses its $L, $T, ok, notok, check).

# mk FILE LINE...: a plain-text LIRS file (the reader takes it with a warning)
mk() { f=$1; shift; printf '%s\n' "$@" > "$f"; }

mk "$T/m1" \
	'LIRS,1000,5000,32400,10,HTTP://Example.COM:80/a,first a,,0,,' \
	'LIRS,2000,5000,32400,10,http://example.com/b,b old,,0,,' \
	'LIRS,1500,5000,0,0,http://example.com/A,capital A,,0,,' \
	'LIRS,0,5000,0,0,http://example.com/zero,zero LM,,0,,' \
	'LIRS,1000,0,0,0,http://example.com/zero2,zero LD,,0,,' \
	'LIRS,3000,100,0,0,http://example.com/stale,stale,,0,,'
mk "$T/m2" \
	'LIRS,1000,5000,32400,10,http://example.com/a,second a,,0,,' \
	'LIRS,2000,4000,32400,10,https://example.com:443/b,https b,,0,,' \
	'LIRS,1900,6000,32400,10,http://EXAMPLE.com/b,b smaller LM,,0,,' \
	'LIRS,2000,6000,32400,10,http://example.com:80/b,b newer LD,,0,,'

$L merge --now 6000 --max-age 3000 -f jsonl "$T/m1" "$T/m2" > "$T/out.jsonl" 2> "$T/err"
is "merge: exit 0" "$?" 0
got=$(sed 's/.*"last_modified":\([0-9]*\),"last_detected":\([0-9]*\).*"url":"\([^"]*\)","title":"\([^"]*\)".*/\1 \2 \3 \4/' "$T/out.jsonl" | tr '\n' '|')
is "merge: winners (LM, then LD, then later input), keys normalised, path case kept, order LM desc then URL" \
	"$got" "2000 6000 http://example.com:80/b b newer LD|2000 4000 https://example.com:443/b https b|1500 5000 http://example.com/A capital A|1000 5000 http://example.com/a second a|"

$L merge --now 6000 --max-age 3000 -f jsonl "$T/m2" "$T/m1" > "$T/out2.jsonl"
grep -q '"title":"first a"' "$T/out2.jsonl" && ok "merge: a full tie goes to the later input" || notok "merge: a full tie goes to the later input"

$L merge --now 6000 --max-age 3000 -v -o "$T/m.lirs" "$T/m1" "$T/m2" 2> "$T/err"
is "merge -o: exit 0" "$?" 0
is "merge -v: counts on stderr" "$(cat "$T/err")" "lirs merge: read 10 records: kept 4 (one per URL), replaced 2, superseded 1, dropped 2 unusable, 1 stale and 0 from the future"
gzip -t "$T/m.lirs" 2>/dev/null && ok "merge: default output is gzip" || notok "merge: default output is gzip"
$L cat "$T/m.lirs" > "$T/back.jsonl" 2>/dev/null
cmp -s "$T/back.jsonl" "$T/out.jsonl" && ok "merge: LIRS output decodes to the same records" || notok "merge: LIRS output decodes to the same records"

# Japanese text survives the EUC-JP output
mk "$T/ja" 'LIRS,1000,5000,32400,10,http://example.jp/,日本語のタイトル,著者,0,,'
$L merge --now 6000 -o "$T/ja.lirs" "$T/ja" 2>/dev/null
gzip -dc "$T/ja.lirs" | iconv -f EUC-JP -t UTF-8 2>/dev/null | grep -q '日本語のタイトル' \
	&& ok "merge: output is EUC-JP" || notok "merge: output is EUC-JP"

# An unreadable input: exit 2, the -o target untouched, no temporary left
echo old > "$T/target"
$L merge --now 6000 -o "$T/target" "$T/m1" "$T/missing" 2> "$T/err"
is "merge: unreadable input exits 2" "$?" 2
is "merge: unreadable input leaves the -o target untouched" "$(cat "$T/target")" old
is "merge: no temporary file left" "$(ls "$T" | grep -c 'target.tmp')" 0
grep -q "cannot open '$T/missing'" "$T/err" && ok "merge: says which input" || notok "merge: says which input"

# A corrupt gzip input is fatal too, and nothing is written
printf '\037\213\010\000\000\000\000\000\000\003garbage' > "$T/bad.gz"
$L merge --now 6000 -o "$T/target" "$T/m1" "$T/bad.gz" 2>/dev/null
is "merge: corrupt gzip input exits 2" "$?" 2
is "merge: corrupt input leaves the -o target untouched" "$(cat "$T/target")" old

# Skipped records: diagnostics, exit 1, output still written
mk "$T/skip" 'LIRS,1000,5000,0,0,http://example.com/ok,ok,,0,,' 'LIRS,abc,5000,0,0,http://example.com/bad,bad,,0,,'
$L merge --now 6000 -f jsonl -o "$T/skip.out" "$T/skip" 2> "$T/err"
is "merge: skipped records exit 1" "$?" 1
is "merge: output still written with skipped records" "$(wc -l < "$T/skip.out" | tr -d ' ')" 1
grep -q ':2:' "$T/err" && ok "merge: diagnostic names the line" || notok "merge: diagnostic names the line"

# Standard input
$L merge --now 6000 -f jsonl - < "$T/m1" | grep -q 'capital A' && ok "merge: - reads standard input" || notok "merge: - reads standard input"
$L merge 2>/dev/null
is "merge: no INPUT is a usage error" "$?" 2

# Characters EUC-JP holds only as a look-alike: written so, counted once
mk "$T/yen" 'LIRS,1000,5000,32400,10,http://example.jp/,価格 ¥ 〜,著者,0,,'
$L merge --now 6000 -o "$T/yen.lirs" "$T/yen" 2> "$T/err"
is "merge: look-alikes are not an error" "$?" 0
is "merge: look-alikes counted in one warning" \
	"$(grep -c 'warning: 2 characters written as their nearest EUC-JP equivalent' "$T/err")" 1
$L cat --format tsv "$T/yen.lirs" 2>/dev/null | cut -f 6-7 > "$T/yen.tsv"
is "merge: '¥' and '〜' written as '￥' and '～', fields in place" "$(cat "$T/yen.tsv")" "$(printf '価格 ￥ ～\t著者')"

# A full disk: one message naming the reason, exit 2.  Big and random
# enough that the gzip writer's thread meets the error (errno is per
# thread); the snowmen leave iconv's EILSEQ in the main thread's errno.
if [ -w /dev/full ]; then
	awk 'BEGIN { srand(7); for (i = 0; i < 20000; i++) {
		t = ""; for (j = 0; j < 6; j++) t = t sprintf("%08x", int(rand() * 4294967295))
		printf "LIRS,%d,1000000000,32400,0,http://a%d.example/,\xe2\x98\x83 %s,0,0,,\n", 1e9 - i, i, t } }' > "$T/bigm"
	for f in lirs jsonl; do
		$L merge --now 1000000000 -f $f "$T/bigm" > /dev/full 2> "$T/err"; rc=$?
		is "merge -f $f > /dev/full: one message, exit 2" \
			"$rc:$(grep -c 'No space left on device' "$T/err"):$(grep -vc 'U+3013' "$T/err")" "2:1:1"
	done
else
	for f in lirs jsonl; do ok "merge -f $f > /dev/full: one message, exit 2 # SKIP no /dev/full"; done
fi

# Data-driven cases (merge-cases/README): each directory's inputs merged
# with its args, standard output and error compared with out.jsonl and err.
MC=$D/merge-cases
nmc=0
for c in "$MC"/*/; do
	c=${c%/}
	n=$(basename "$c")
	(cd "$c" && $L merge -f jsonl -v $(cat args) $(ls in* | sort) > "$T/mc.out" 2> "$T/mc.err")
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$T/mc.out" "$c/out.jsonl"; cp "$T/mc.err" "$c/err"
	fi
	cmp -s "$T/mc.out" "$c/out.jsonl" && ok "merge case $n: output" || { notok "merge case $n: output"; diff "$c/out.jsonl" "$T/mc.out" | head -n 6 | sed 's/^/#   /'; }
	cmp -s "$T/mc.err" "$c/err" && ok "merge case $n: counts" || { notok "merge case $n: counts"; diff "$c/err" "$T/mc.err" | head -n 4 | sed 's/^/#   /'; }
	nmc=$((nmc + 1))
done
[ "$nmc" -ge 3 ] && ok "merge cases: $nmc run" || notok "merge cases: only $nmc found in '$MC'"
