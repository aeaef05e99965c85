#!/bin/sh
# mkcases.sh: writes the input files of tests/formats/cases/ (committed;
# rerun after changing this script), each the way a peer's own code writes
# it, bugs included.  The peers: tama 1.1.66-mod1 (wakaba/tama:
# lib/antenna.rb Antenna#save, lib/website.rb Website#to_di, #to_lirs,
# #to_hina) and samidare (akr/samidare: main.rb generate_lirs).
# Needs printf, gzip and glibc iconv.  Then: UPDATE=1 sh tests/formats/run.sh
# rewrites the expected outputs, which must be reviewed before committing.
#
# Times: run.sh validates with --now 1000000000 (2001-09-09 01:46:40 UTC).
#   999999000 = Sun, 09 Sep 2001 01:30:00 GMT (Last-Modified)
#   999999900 = Sun, 09 Sep 2001 01:45:00 GMT (Last-Detected)
set -eu
cd "$(dirname "$0")/cases"
gz() { gzip -n -6; }
crlf() { sed 's/$/\r/'; }
LM='Sun, 09 Sep 2001 01:30:00 GMT'
LD='Sun, 09 Sep 2001 01:45:00 GMT'
EXP='Sun, 09 Sep 2001 09:45:00 GMT'
AGENT='TAMATEBAKO/1.1.66-mod1 (2010-06-13)'

# ---- tama's sites.di (Antenna#save "DI": CRLF, UTF-8) ---------------------
# What it shows, block by block:
#  1. a HEAD check: Method HEAD/200 (the status code rides in the method);
#     Expires AND Expire (tama writes both); the unknown fields Authorized
#     and Server that every check adds (Website#di); X-TAMA-Timezone: JST.
#  2. bug: URL without a path: tama's URL class adds the '/' to the checked
#     URL, which then differs from URL, so a Virtual is written for the
#     page itself.
#  3. a LENGTH check of another URL: X-TAMA-Method (LENGTH is not in the
#     HINA-DI Method list), Virtual the URL checked.
#  4. relayed from another antenna: X-TAMA-Method REMOTE, X-TAMA-Remote-URL,
#     Authorized-url the antenna's own URL ($referer).
#  5. bug: a page never checked: "X-TAMA-Method: " with an empty value
#     (its LIRS and hina.txt lines are not written at all: to_lirs raises).
#  6. an error: X-TAMA-Method ERROR/404, the old Last-Modified kept.
#  7. a title with ": " in it, and Japanese text (UTF-8).
{
	printf 'HINA/2.1\nUser-Agent: %s\nDate: %s\nContent-Type: text/plain; charset=UTF-8\n\n' "$AGENT" "$LD"
	printf 'URL: http://a.example/diary/\nTitle: A diary\nAuthor-Name: Aoi\nLast-Modified: %s\nLast-Modified-Detected: %s\nExpires: %s\nExpire: %s\nContent-Length: 1234\nX-TAMA-Timezone: JST\nMethod: HEAD/200\nAuthorized: %s\nServer: Apache/1.3.20\n\n' "$LM" "$LD" "$EXP" "$EXP" "$AGENT"
	printf 'URL: http://b.example\nTitle: B\nVirtual: http://b.example/\nLast-Modified: %s\nLast-Modified-Detected: %s\nExpires: %s\nExpire: %s\nX-TAMA-Timezone: JST\nMethod: GET/200\nAuthorized: %s\n\n' "$LM" "$LD" "$EXP" "$EXP" "$AGENT"
	printf 'URL: http://c.example/\nTitle: C\nAuthor-Name: Chika\nVirtual: http://c.example/diary/latest.html\nLast-Modified: %s\nLast-Modified-Detected: %s\nExpires: %s\nExpire: %s\nContent-Length: 5120\nX-TAMA-Timezone: JST\nX-TAMA-Method: LENGTH/200\nAuthorized: %s\n\n' "$LM" "$LD" "$EXP" "$EXP" "$AGENT"
	printf 'URL: http://d.example/\nTitle: D\nAuthor-Name: Dai\nLast-Modified: %s\nLast-Modified-Detected: %s\nExpires: %s\nExpire: %s\nAuthorized-url: http://amano.example/antenna/\nX-TAMA-Remote-URL: http://amano.example/antenna/\nX-TAMA-Timezone: JST\nX-TAMA-Method: REMOTE\n\n' "$LM" "$LD" "$EXP" "$EXP"
	printf 'URL: http://e.example/\nTitle: E never checked\nX-TAMA-Method: \n\n'
	printf 'URL: http://f.example/\nTitle: F\nLast-Modified: %s\nLast-Modified-Detected: %s\nExpires: %s\nExpire: %s\nX-TAMA-Timezone: JST\nX-TAMA-Method: ERROR/404\nAuthorized: %s\n\n' "$LM" "$LD" "$EXP" "$EXP" "$AGENT"
	printf 'URL: http://g.example/nikki/\nTitle: 日記: 2001年9月\nAuthor-Name: 山田\nLast-Modified: %s\nLast-Modified-Detected: %s\nX-TAMA-Timezone: JST\nMethod: HEAD/200\n\n' "$LM" "$LD"
} | crlf > tama-sites-di.in
# tama's sites.di.gz: the same through gzip (Antenna#save use_gzip).
gz < tama-sites-di.in > tama-sites-di-gz.in

# ---- tama's sites.lirs (Website#to_lirs, csv_join: UTF-8) ----------------
# 13 data fields (NATSU): the 9th the checked URL (empty for the page
# itself), three empty fields, the 13th the method or the remote antenna.
# Bugs: no trailing comma (csv_join chops it); empty fields instead of 0;
# UTF-8, not EUC-JP; an error line (method "") ends in ',' and so reads as
# 12 fields and a trailing comma: its empty 13th field is lost.
{
	printf 'LIRS,999999000,999999900,32400,1234,http://a.example/diary/,A diary,Aoi,,,,,,HEAD\n'
	printf 'LIRS,999999000,999999900,32400,0,http://b.example,B,,,http://b.example/,,,,GET\n'
	printf 'LIRS,999999000,999999900,32400,5120,http://c.example/,C,Chika,,http://c.example/diary/latest.html,,,,LENGTH\n'
	printf 'LIRS,999999000,999999900,32400,0,http://d.example/,D,Dai,http://amano.example/antenna/,,,,,http://amano.example/antenna/\n'
	printf 'LIRS,0,0,32400,0,http://f.example/,F,,,,,,,\n'
	printf 'LIRS,999999000,999999900,32400,0,http://g.example/nikki/,日記: 2001年9月,山田,,,,,,HEAD\n'
} > tama-natsu-lirs.in

# ---- tama's sites.txt (Website#to_hina: hina.txt, UTF-8, LF) -------------
# Times in JST to the minute (Last-Modified 999999045 would read back as
# 999999000).  Bugs: title and author not HTML-escaped ("A & B <diary>");
# an empty author leaves "</A> <br>".  LENGTH without a time is
# HINA_UNKNOWN, REMOTE and ERROR without one HINA_REMOTE_OUT; [0] checked
# by tama, [1] relayed or by length.
{
	printf '<!--HINA_OK 2001/09/09 10:30 [0]--><A HREF="http://a.example/diary/">A & B <diary></A> Aoi<br>\n'
	printf '<!--HINA_UNKNOWN--><A HREF="http://c.example/">C</A> <br>\n'
	printf '<!--HINA_OK 2001/09/09 10:30 [1]--><A HREF="http://d.example/">D</A> Dai<br>\n'
	printf '<!--HINA_REMOTE_OUT--><A HREF="http://f.example/">F</A> <br>\n'
	printf '<!--HINA_OK 2001/09/09 10:30 [0]--><A HREF="http://g.example/nikki/">日記: 2001年9月</A> 山田<br>\n'
} > tama-hina-txt.in

# ---- HINA-DI in the other charsets a header may declare -------------------
# Shift_JIS (Asahina-style, "HEAD/200" methods, a WDB title) and EUC-JP:
# not from tama, which wrote UTF-8 only; hand-made per the HINA-DI header.
{
	printf 'HINA/2.2\nContent-Type: text/plain; charset=Shift_JIS\n\n'
	printf 'URL: http://s.example/\nX-WDB-Title: 更新日記\nAuthor-Name: 佐藤\nLast-Modified: Sunday, 09-Sep-01 01:30:00 GMT\nLast-Modified-Detected: Sun Sep  9 01:45:00 2001\nMethod: HEAD/200\n\n'
} | crlf | iconv -f UTF-8 -t CP932 > sjis-di.in
{
	printf 'HINA/2.1\nContent-Type: text/plain; charset=EUC-JP\n\n'
	printf 'URL: http://u.example/\nTitle: ①日記\nLast-Modified: 2001/09/09 01:30\nLast-Modified-Detected: %s\n' "$LD"
} | iconv -f UTF-8 -t EUC-JP-MS > eucjp-di.in

# ---- broken HINA-DI: every block rule ------------------------------------
{
	printf 'HINA/2.1\nContent-Type: text/plain; charset=x-klingon\n\n'
	printf 'Title: no URL here\n\n'
	printf 'URL: http://bad-date.example/\nLast-Modified: yesterday\n\n'
	printf 'URL: http://bad-length.example/\nContent-Length: 12k\n\n'
	printf 'URL: http://bad-line.example/\nthis line has no colon\nLast-Modified: %s\nLast-Modified-Detected: %s\n\n' "$LM" "$LD"
	printf 'URL: http://many.example/\n'
	i=0; while [ $i -lt 65 ]; do printf 'X-LIRS-Extra: %d\n' $i; i=$((i + 1)); done
	printf '\nURL: http://last.example/\nLast-Modified: %s\nLast-Modified-Detected: %s' "$LM" "$LD"
} > di-bad-blocks.in

# ---- broken hina.txt -----------------------------------------------------
{
	printf '# a comment\n'
	printf '<!--HINA_OK 2001/09/09 10:30 [0]--><A HREF="http://ok.example/">OK &amp; fine</A> me<BR>\n'
	printf '<!--HINA_OK yesterday [0]--><A HREF="http://bad-time.example/">x</A><br>\n'
	printf '<!--HINA_WHAT--><A HREF="http://bad-status.example/">x</A><br>\n'
	printf '<p>not a record</p>\n'
	printf '<!--HINA_OK 2001/09/09 10:30 [0]--><A HREF=http://unquoted.example/>unquoted</A><br>\n'
} > hina-bad-lines.in

# ---- samidare's sites.lirs.gz (generate_lirs: EUC-JP, gzip) --------------
# 8 data fields and the trailing comma: no extension field; Content-Length
# always 0, time difference always 32400, Source URL 0, author 0 when none.
{
	printf 'LIRS,999999000,999999900,32400,0,http://a.example/diary/,日記\\, その2,Aoi,0,\n'
	printf 'LIRS,999999000,999999900,32400,0,http://b.example/,B,0,0,\n'
} | iconv -f UTF-8 -t EUC-JP-MS | gz > samidare-lirs.in
