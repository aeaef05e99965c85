#!/bin/sh
# `make demo` end to end (data/demo/run.sh) in a temporary directory: it
# must succeed, and what it publishes must show what the demo sets up:
# charsets decoded, the header/text/LIRS rules, an ignored part that
# changed without an update, the 404 line, the relayed records, and a
# lirs.gz that validates.  The demo's server must be gone afterwards.
# Programs: timeout, gzip, iconv, awk, sed (all in a minimal Debian) and
# build/tools/httpget (ours).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
. "$TOP/tests/lib/tap.sh"
plan 24

tmp=$(mktemp -d "${TMPDIR:-/tmp}/demo-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

(cd "$tmp" && BUILD=$B DEMO_DB=$tmp/demo.db DEMO_OUT=$tmp/public \
	timeout 120 sh "$TOP/data/demo/run.sh") > "$tmp/out" 2>&1
rc=$?
check "the demo runs to the end (exit $rc)" test $rc -eq 0
if [ $rc -ne 0 ]; then
	tail -n 15 "$tmp/out" | sed 's/^/#   /'
	exit 0
fi
html=$tmp/public/index.html   # one <li> per page, one line each
check "it says where index.html is" grep -q "Open file://$tmp/public/index.html" "$tmp/out"
check "index.html, lirs.gz and index.atom are written" \
	test -s "$html" -a -s "$tmp/public/lirs.gz" -a -s "$tmp/public/index.atom"
check "UTF-8 page without a declared charset: title decoded" sh -c "grep -F 'yamada/diary.html' '$html' | grep -qF '>山田の日記</a>'"
check "Shift_JIS page without a declared charset: title decoded" sh -c "grep -F 'suzuki/index.html' '$html' | grep -qF '>鈴木の雑記帳</a>'"
check "EUC-JP page without a declared charset: title decoded" sh -c "grep -F 'sato/index.html' '$html' | grep -qF '>佐藤のホームページ</a>'"
check "a newer Last-Modified is an update, marked H and new" \
	sh -c "grep -F 'yamada/diary.html' '$html' | grep -F '<li class=\"h-entry new\">' | grep -qF '>H</abbr>'"
check "a text change without validators is an update, marked T and new" \
	sh -c "grep -F 'suzuki/index.html' '$html' | grep -F '<li class=\"h-entry new\">' | grep -qF '>T</abbr>'"
# (its first check was a quiet baseline without a trusted date: its time
# stays unknown, not new)
check "a change in the ignored #clock only is not an update" \
	sh -c "grep -F 'news/index.html' '$html' | grep -F -- '--/-- --:--' | grep -vqF 'h-entry new'"
check "a page we cannot check (503) is dated by the peer LIRS file (lirs)" \
	sh -c "grep -E '^[0-9-]+ [0-9:]+ JST  lirs .*tanaka/blog.html>  \[503 Service Unavailable\]' '$tmp/out'"
check "index.html: the page we cannot check shows the source's time, mark L and its error" \
	sh -c "grep -F 'tanaka/blog.html' '$html' | grep -F '<time class=\"dt-updated\"' | grep -F '>L</abbr>' | grep -qF '<span class=\"error\">[503 Service Unavailable]</span>'"
check "index.html: no known update is grey 更新時刻不明, not an error" \
	sh -c "grep -F 'news/index.html' '$html' | grep -F '<li class=\"h-entry undated\">' | grep -F '<span class=\"unknown\">更新時刻不明</span>' | grep -vqF 'class=\"error\"'"
check "the 404 page is listed with its error" \
	sh -c "grep -F 'gone.html' '$html' | grep -qF '[404 Not Found]'"
check "the demo fills an Atom archive: archive/1.atom of 3 entries" \
	sh -c "test \$(grep -c '<entry>' '$tmp/public/archive/1.atom') -eq 3"
check "... and says so" grep -q "wrote $tmp/public/archive/1.atom (an Atom archive" "$tmp/out"
check "groups have headings" sh -c "grep -qF '<h2>日記</h2>' '$html' && grep -qF '<h2>Friends</h2>' '$html'"

"$B/lirs" cat "$tmp/public/lirs.gz" > "$tmp/lirs.jsonl" 2> "$tmp/lirs.err"
check "the published lirs.gz reads without a diagnostic" test ! -s "$tmp/lirs.err"
# five: the news page (no validators, only its ignored #clock changed) has
# no known update time: a new page's first check is a quiet baseline
check "it holds the five dated pages" test "$(wc -l < "$tmp/lirs.jsonl")" -eq 5
check "a relayed page keeps the LIRS source as its Source URL" \
	sh -c "grep -F '/tanaka/blog.html\"' '$tmp/lirs.jsonl' | grep -qF '\"source_url\":\"http://127.0.0.1:' && grep -F '/tanaka/blog.html\"' '$tmp/lirs.jsonl' | grep -qF 'peer.lirs.gz\"'"
check "pages the antenna does not watch are not relayed" sh -c "! grep -qF 'not-watched' '$tmp/lirs.jsonl'"
check "the bad record of the peer file is not relayed" sh -c "! grep -qF 'bad.html' '$tmp/lirs.jsonl'"

# README ("The two commands") lists every file the demo writes
wrote=$(cd "$tmp/public" && find . -type f | sed 's|^\./||; s|^diff/.*|diff/*.html|' | sort -u | tr '\n' ' ')
listed=$(sed -n '/it writes \.\/demo\.db/,/diff\/\*\.html/p' "$TOP/README" | tr -s ' ,' '\n\n' |
	grep -E '\.(html|gz|atom|json)$' | sort -u | tr '\n' ' ')
is "README lists the files the demo wrote" "$listed" "$wrote"
port=$(sed -n 's|^pages at http://127.0.0.1:\([0-9]*\)/$|\1|p' "$tmp/out")
check "the demo named its server's port" test -n "$port"
# build/tools/httpget is ours (no curl in a fresh Debian); exit 7: nobody listens.
if [ -n "$port" ]; then
	"$B/tools/httpget" --max-time 2 -o /dev/null "http://127.0.0.1:$port/"
	check "the demo's server is stopped (httpget cannot connect)" test $? -eq 7
else
	check "the demo's server is stopped (no port to try)" false
fi
exit 0
