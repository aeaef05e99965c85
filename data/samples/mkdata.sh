#!/bin/sh
# mkdata.sh: writes the sample LIRS files beside it (see README).
set -eu
cd "$(dirname "$0")"
euc() { iconv -f UTF-8 -t EUC-JP-MS; }
cat <<'X' | euc | gzip -n -9 > sites.lirs.gz
# sites.lirs.gz: the antenna's own update times
LIRS,1735689000,1735699000,32400,18234,http://diary.example.jp/,ひだまり日記,みどり,http://diary.example.jp/,,
LIRS,1735680000,1735699000,32400,5120,http://www.example.jp/~taro/,太郎のページ\, 旅と写真,太郎,http://www.example.jp/~taro/,,
LIRS,1735600000,1735699000,32400,0,https://blog.example.com/,C:\\Users の話,0,https://blog.example.com/,,
LIRS,1735690000,1735699100,32400,2048,http://novel.example.jp/index.html,① 連載小説 ｱﾝﾃﾅ,作者,http://antenna.example.jp/sites.lirs.gz,T,
X
cat <<'X' | euc > samidare.lirs
LIRS,1735689000,1735699000,32400,0,http://diary.example.jp/,ひだまり日記,みどり,http://diary.example.jp/,
LIRS,1735650000,1735699000,32400,0,http://bbs.example.jp/,掲示板,0,http://bbs.example.jp/,
X
cat <<'X' | euc > tama.lirs
LIRS,1735689000,1735698000,+32400,18234,http://diary.example.jp/,ひだまり日記,みどり,http://antenna.example.jp/sites.lirs.gz,,http://diary.example.jp/index.html,HEAD,T,natsu
LIRS,1735688000,1735698000,+32400,999,http://photo.example.jp/,写真館,0,http://photo.example.jp/,,http://photo.example.jp/,GET,S,tama
X
# A mix of what real files get wrong; kept plain and partly invalid on purpose.
{
	printf '# messy.lirs\r\n'
	printf 'LIRS,1735689000,1735699000,32400,100,http://a.example.jp/,CRLF line,0,0,,\r\n'
	printf 'LIRS,1735689000,1735699000,32400,100,http://a.example.jp/,duplicate,0,0,,\n'
	printf 'LIRS,17356890OO,1735699000,32400,100,http://b.example.jp/,letter O in a time,0,0,,\n'
	printf 'LIRS,1735689000,1735699000,540,100,c.example.jp/page,minutes not seconds? no scheme,0,,0,\n'
	printf 'LIRS,1735689000,1735699000,99999,100,http://d.example.jp/,tz out of range,0,0,,\n'
	printf 'LIRS,0,1735699000,32400,100,http://e.example.jp/,unknown update time \\q,0,0,,\n'
	printf 'LIRS,1735699999,1735699000,32400,100,http://f.example.jp/,modified after detected,0,0,,\n'
	printf 'LIRS,1735000000,1735000000,32400,100,http://g.example.jp/,stale,0,0,,\n'
	printf 'LIRS,1735689000,1735699000,32400,100,http://h.example.jp/,lone CR\rLIRS,1735689000,1735699000,32400\n'
	printf 'RSS,1735689000,1735699000,32400,100,http://i.example.jp/,no prefix,0,0,,\n'
	printf 'LIRS,1735689000,1735699000,32400,100,http://j.example.jp/,bad \377 byte,0,0,,\n'
	printf 'LIRS,1735689000,1735699000,32400,100,http://k.example.jp/,' ; printf 'UTF-8 の行' ; printf ',0,0,,\n'
} > messy.lirs
