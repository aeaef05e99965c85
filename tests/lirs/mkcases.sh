#!/bin/sh
# mkcases.sh: writes the small input files of tests/lirs/cases/ (committed;
# rerun after changing this script).  Big inputs (10 MB line, gzip bomb) are
# *.gen scripts that run.sh runs at test time instead.
# Needs printf, gzip and glibc iconv.  Then: UPDATE=1 sh tests/lirs/run.sh
# rewrites the expected outputs, which must be reviewed before committing.
set -eu
cd "$(dirname "$0")/cases"
# Fresh relative to run.sh's --now 1000000000: detected 100 s earlier.
T=999999900
rec() { printf 'LIRS,%s,%s,32400,1234,%s,%s,Author,0,,\n' "$T" "$T" "$1" "$2"; }
euc() { iconv -f UTF-8 -t EUC-JP-MS; }
gz() { gzip -n -6; }

# The spec's own example (§5), with its CRLF; plain and gzip.
printf 'LIRS,938779260,938781002,32400,49383,http://hiya.ouchi.to/n/,Tadayo Memories,Hiya,http://amano.hauN.org/,blah blah,\r\n' > spec-example.in
gz < spec-example.in > spec-example-gz.in

# A clean gzip EUC-JP file: exit 0 everywhere.
{ rec http://a.example/ 'ようこそ日記'; rec http://b.example/ '旅行記'; } | euc | gz > clean.in

# Escapes: \, and \\, a backslash right before the field's comma, unknown \q.
{
	printf 'LIRS,%s,%s,32400,0,http://a.example/,A\\, B,0,0,,\n' $T $T
	printf 'LIRS,%s,%s,32400,0,http://b.example/,back\\\\slash,0,0,,\n' $T $T
	printf 'LIRS,%s,%s,32400,0,http://c.example/,ends in backslash\\\\,0,0,,\n' $T $T
	printf 'LIRS,%s,%s,32400,0,http://d.example/,odd \\q escape,0,0,,\n' $T $T
	printf 'LIRS,%s,%s,32400,0,http://e.example/,\\\\\\,\\\\,0,0,,\n' $T $T
} > escapes.in

# Line ends: LF, CRLF mixed; a lone CR.
{ rec http://a.example/ lf; rec http://b.example/ crlf | sed 's/$/\r/'; rec http://c.example/ lf2; } > crlf-lf-mix.in
printf 'LIRS,%s,%s,32400,0,http://a.example/,one,0,0,,\rLIRS,%s,%s,32400,0,http://b.example/,two,0,0,,\n' $T $T $T $T > lone-cr.in

# Comments and blank lines are skipped.
{ printf '# sites.lirs\n\n'; rec http://a.example/ a; printf '   \n#LIRS,1,2,3\n'; rec http://b.example/ b; } > comments.in

# Field counts: 8 (samidare, tDiary), 9, 13 without trailing comma (tama), 7.
printf 'LIRS,%s,%s,32400,0,http://a.example/,eight,Author,http://a.example/,\n' $T $T > fields-8.in
printf 'LIRS,%s,%s,+32400,0,http://a.example/,thirteen,Author,http://lirs.example/,,http://a.example/check,HEAD,T,antenna\n' $T $T > fields-13.in
printf 'LIRS,%s,%s,32400,0,http://a.example/,seven,Author,\n' $T $T > fields-7.in

# Charsets: EUC-JP kanji, half-width kana (SS2), JIS X 0212 (SS3), NEC ①.
rec http://a.example/ '漢字のタイトル' | euc > eucjp-kanji.in
rec http://a.example/ 'ｱﾝﾃﾅ' | euc > halfwidth-kana.in
printf 'LIRS,%s,%s,32400,0,http://a.example/,\217\260\241,0,0,,\n' $T $T > jisx0212.in
printf 'LIRS,%s,%s,32400,0,http://a.example/,\255\241 first,0,0,,\n' $T $T > nec-circled.in
# A UTF-8 file (tDiary); bytes valid in neither; NUL bytes.
rec http://a.example/ 'UTF-8 の日記 ☃' > utf8.in
printf 'LIRS,%s,%s,32400,0,http://a.example/,bad \377\376 bytes,0,0,,\n' $T $T > invalid-bytes.in
printf 'LIRS,%s,%s,32400,0,http://a.example/,nul\000here,0,0,,\n' $T $T > nul-bytes.in

# gzip: two members; truncated; corrupt; trailing garbage.
{ rec http://a.example/ one | euc | gz; rec http://b.example/ two | euc | gz; } > gzip-multi.in
i=1; while [ $i -le 400 ]; do rec http://a$i.example/ "title $i $(printf %0100d $i)"; i=$((i + 1)); done | gz > gzip-full.tmp
# Cut in the middle: the records before the damage are delivered.
head -c $(($(wc -c < gzip-full.tmp) / 2)) gzip-full.tmp > gzip-truncated.in
{ head -c 30 gzip-full.tmp; printf 'XXXXXXXXXXXXXXXXXXXX'; tail -c +51 gzip-full.tmp; } > gzip-corrupt.in
{ cat gzip-full.tmp; printf 'junk after the member'; } > gzip-trailing.in
rm -f gzip-full.tmp

: > empty.in

# One case per syntax and record rule.
printf 'HTTP,1,2,3,4,http://a.example/,x,0,0,,\n' > no-prefix.in
printf 'LIRS,x1,%s,32400,0,http://a.example/,a,0,0,,\nLIRS,%s,%s,9h,0,http://b.example/,b,0,0,,\n' $T $T $T > bad-number.in
printf 'LIRS,%s,%s,,0,http://a.example/,,0,,,\n' $T $T > blank-field.in
printf 'LIRS,%s,%s,50401,0,http://a.example/,a,0,0,,\nLIRS,%s,%s,-43201,0,http://b.example/,b,0,0,,\nLIRS,%s,%s,-43200,0,http://c.example/,c,0,0,,\n' $T $T $T $T $T $T > tz-range.in
printf 'LIRS,-5,%s,32400,-1,http://a.example/,a,0,0,,\n' $T > negative.in
printf 'LIRS,0,%s,32400,0,http://a.example/,a,0,0,,\nLIRS,%s,0,32400,0,http://b.example/,b,0,0,,\n' $T $T > zero-time.in
printf 'LIRS,%s,1000003600,32400,0,http://a.example/,a,0,0,,\n' $T > future.in
printf 'LIRS,999971000,999971000,32400,0,http://a.example/,a,0,0,,\nLIRS,999971200,999971200,32400,0,http://b.example/,b,0,0,,\n' > stale.in
printf 'LIRS,999999990,%s,32400,0,http://a.example/,a,0,0,,\n' $T > modified-after-detected.in
{ rec ftp://a.example/ ftp; rec /relative rel; rec 0 blank; rec 'http:///nohost' nohost; rec 'http://a b.example/' space; } > bad-url.in
{ rec http://a.example/ first; rec http://b.example/ other; rec http://a.example/ second; rec HTTP://A.EXAMPLE/ case; rec http://a.example/ third; } > duplicate-url.in
printf 'LIRS,%s,%s,32400,0,http://a.example/,a,0,0,0,\n' $T $T > extension-zero.in
# Columns count characters, not bytes: the extension is at column 62 (byte 68).
printf 'LIRS,%s,%s,32400,0,http://a.example/,漢字の題,作者,0,0,\n' $T $T | euc > columns-kanji.in
printf 'LIRS,%s,%s,32400,0,http://a.example/,a,0,0,ext\n' $T $T > no-trailing-comma.in

# What the peers write, byte for byte (their code, read: samidare's
# generate_lirs in main.rb; tama's csv_join in lib/func.rb, to_lirs and
# natsu_ext in lib/website.rb).
# samidare: escapes ',' and '\', then converts to EUC-JP, so a '¥' becomes
# an unescaped 0x5C; 8 fields, a trailing comma, content length and source
# 0, author 0 when unknown; gzip.  Line 7's title was "価格¥" (the field
# swallows the next: 7 fields), line 8's "¥,円" (one field more).
{
	for i in 1 2 3 4 5 6; do
		printf 'LIRS,%s,%s,32400,0,http://d%s.example.jp/,日記 %s,作者%s,0,\n' $T $T $i $i $i
	done
	printf 'LIRS,%s,%s,32400,0,http://d7.example.jp/,価格\\,0,0,\n' $T $T
	printf 'LIRS,%s,%s,32400,0,http://d8.example.jp/,\\\\,円,作者8,0,\n' $T $T
} | euc | gz > samidare-layout.in
# tama: never doubles '\' (gsub(/\\/, "\\\\") is a no-op in Ruby), escapes
# ',', drops the last comma; 13 fields: the 9th is the URL it checked when
# not the page itself, then "", "", "" and the method (the relaying
# antenna's URL for REMOTE); an ERROR has times 0.  Plain EUC-JP.  Line 6
# is the example tama wrote: its title ended in '\'.  Line 7's title holds a
# '\' that is not before a comma: it only warns.
{
	printf 'LIRS,%s,%s,32400,1234,http://t1.example.jp/,日記,作者,http://antenna.example.jp/,,,,,HEAD\n' $T $T
	printf 'LIRS,%s,%s,32400,20480,http://t2.example.jp/,写真\\, 旅,0,http://antenna.example.jp/,http://t2.example.jp/index.html,,,,GET\n' $T $T
	printf 'LIRS,%s,%s,32400,0,http://t3.example.jp/,掲示板,管理人,http://antenna.example.jp/,,,,,http://other.example.jp/sites.lirs.gz\n' $T $T
	printf 'LIRS,0,0,32400,0,http://t4.example.jp/,消えた日記,誰か,http://antenna.example.jp/,,,,,\n'
	printf 'LIRS,%s,%s,32400,99,http://t5.example.jp/,メモ,0,http://antenna.example.jp/,,,,,HEAD\n' $T $T
	printf 'LIRS,%s,%s,32400,1234,http://example.jp/f,ends with \\,y,http://antenna.example.jp/,,,,,HEAD\n' $T $T
	printf 'LIRS,%s,%s,32400,1234,http://t7.example.jp/,C:\\tama,0,http://antenna.example.jp/,,,,,HEAD\n' $T $T
} | euc > tama-layout.in

# The writers as generators: each field is given as it is meant, and
# escaped the way the writer escapes it.
# samidare (lirs.rb): '\' -> '\\', then ',' -> '\,' in every field; every
# field, extension fields too, is followed by ','.
samidare_rec() { for f; do printf '%s,' "$(printf '%s' "$f" | sed 's/\\/\\\\/g; s/,/\\,/g')"; done; printf '\n'; }
# tama: ',' -> '\,' only (its '\' doubling is a no-op); fields joined by
# ',' with no trailing comma; NATSU's 13 fields.
tama_rec() { sep=; for f; do printf '%s%s' "$sep" "$(printf '%s' "$f" | sed 's/,/\\,/g')"; sep=,; done; printf '\n'; }

# samidare's records have 8 fields; one that carries extension fields
# (the issue's `x,y\z` and `second`: written "x\,y\\z,second,") has more,
# correctly escaped: no backslash-shift.  Nor for a title with both
# escapes, nor an extension field that ends in '\' (its "\\," ends the
# line), nor a title ending in '\' followed by two extension fields.
{
	for i in 1 2 3 4 5 6; do
		samidare_rec LIRS $T $T 32400 0 http://s$i.example.jp/ "日記 $i" "作者$i" 0
	done
	samidare_rec LIRS $T $T 32400 0 http://s7.example.jp/ 'a, b\c' 作者7 0 'x,y\z' second
	samidare_rec LIRS $T $T 32400 0 http://s8.example.jp/ '日記 8' 作者8 0 'x,y\z' second
	samidare_rec LIRS $T $T 32400 0 http://s9.example.jp/ '日記 9' 作者9 0 'ends in \'
	samidare_rec LIRS $T $T 32400 0 'http://s10.example.jp/' 'C:\' 作者10 0 one 'two,\'
} | euc | gz > samidare-extensions.in
# tama's writer with commas in titles (escaped) and a '\' that is not
# before a separator: 13 fields each, no backslash-shift.
{
	tama_rec LIRS $T $T 32400 1234 http://t1.example.jp/ '日記, 旅' 作者 http://antenna.example.jp/ '' '' '' '' HEAD
	tama_rec LIRS $T $T 32400 1234 http://t2.example.jp/ 'a,b,c' 0 http://antenna.example.jp/ http://t2.example.jp/i.html '' '' '' GET
	tama_rec LIRS $T $T 32400 1234 http://t3.example.jp/ 'C:\tama, 2' 0 http://antenna.example.jp/ '' '' '' '' HEAD
	tama_rec LIRS $T $T 32400 1234 http://t4.example.jp/ ',' 0 http://antenna.example.jp/ '' '' '' '' HEAD
} | euc > tama-writer.in
# The writers that did not double '\' (the bug the rule is for), given
# the same fields through the tama escaping in a samidare-shaped file:
# a title ending in '\' swallows the separator (7 fields), a title
# holding '\,' is split at it (9 fields).
{
	for i in 1 2 3 4 5 6; do
		samidare_rec LIRS $T $T 32400 0 http://u$i.example.jp/ "日記 $i" "作者$i" 0
	done
	tama_rec LIRS $T $T 32400 0 http://u7.example.jp/ 'price \' 作者7 0 ''
	tama_rec LIRS $T $T 32400 0 http://u8.example.jp/ 'a\,b' 作者8 0 ''
} | euc | gz > unescaped-backslash.in

# Mistakes people make by hand, as the validator must name them.
# A title typed with bare commas (旅,写真,料理): the source URL field holds
# 料理 (unescaped-comma), and in an 8-field file 写真; a clean record after.
{
	printf 'LIRS,%s,%s,32400,1234,http://a.example/,旅,写真,料理,Author,0,,\n' $T $T
	printf 'LIRS,%s,%s,32400,1234,http://b.example/,旅行記,Author,0,,\n' $T $T
	printf 'LIRS,%s,%s,32400,1234,http://c.example/,旅,写真,作者,0,\n' $T $T
} | euc | gz > unescaped-comma.in
# Times past --now plus the 3600 s of skew merge and atom tolerate: a
# Last-Modified two hours ahead, a Last-Detected a day ahead.
printf 'LIRS,1000007200,%s,32400,0,http://a.example/,a,0,0,,\nLIRS,%s,1000086400,32400,0,http://b.example/,b,0,0,,\n' $T $T | gz > future-dropped.in
# A 404 page saved as lirs.gz, plain and gzip (after a BOM and blanks).
printf '\357\273\277 <!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body>LIRS,1,2,3</body></html>\n' > html-404.in
printf '\n<HTML>\n<body>Not Found</body>\n</HTML>\n' | gz > html-404-gz.in
# tDiary's makelirs plugin (plugin/makelirs.rb): one record, UTF-8, not
# gzipped, empty source URL and no extension field:
# "LIRS,#{lm},#{now},#{utc_offset},#{body.size},#{url},#{title},#{author},,\n"
printf 'LIRS,999999000,%s,32400,5678,http://diary.example.jp/,日記のタイトル,日記の作者,,\n' $T > tdiary-makelirs.in
