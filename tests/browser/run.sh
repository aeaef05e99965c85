#!/bin/sh
# The published index.html in a real browser:
# Debian's chromium, headless, loads a page written by publish_html()
# (tests/tools/pubfixture.c) and dumps the DOM after scripts would have
# run.  Checks: it loads, the titles render as text, a <script> in a title
# stays text (document.title unchanged, no element created), links are
# right and only http(s) URLs are links.  make check installs chromium
# (Makefile .testdeps reads the next line); without it the test fails.
# The page at 360 px (a small phone) with Japanese fonts: no horizontal
# scrolling (a copy of the page with a script that measures it), and a
# screenshot to look at (SHOT=DIR).
# test-needs: chromium:chromium file:/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc:fonts-noto-cjk
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
FIXTURE=$B/tools/pubfixture
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
. "$TOP/tests/lib/tap.sh"
plan 26

if [ ! -x "$CHROMIUM" ]; then
	echo "not ok - browser test: $CHROMIUM is not installed (make check installs it: mk/deps.sh --tools)"
	exit 0
fi
if [ ! -x "$FIXTURE" ]; then
	echo "not ok - pubfixture is built ($FIXTURE)"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/browser.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/site" "$tmp/profile" "$tmp/home"


# A fixed "now" (2024-05-06 12:00 UTC = 05/06 21:00 JST) makes the links predictable.
NOW=1714996800
"$FIXTURE" "$tmp/site" "$NOW" 2> "$tmp/fixture.err"
check "pubfixture writes index.html" test -s "$tmp/site/index.html"

chrome() {  # chrome EXTRA-ARGS...: one headless run with a fresh profile, bounded
	rm -rf "$tmp/profile"; mkdir -p "$tmp/profile"
	HOME=$tmp/home timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --hide-scrollbars \
		--user-data-dir="$tmp/profile" "$@" 2> "$tmp/chrome.err"
}

chrome --dump-dom "file://$tmp/site/index.html" > "$tmp/dom.html"
rc=$?
check "chromium loads the page (exit $rc)" test "$rc" -eq 0 -a -s "$tmp/dom.html"
if [ ! -s "$tmp/dom.html" ]; then
	sed 's/^/#   /' "$tmp/chrome.err" | tail -n 5
	exit 0
fi
dom=$tmp/dom.html
has() { grep -qF -- "$1" "$dom"; }
hasnt() { ! grep -qiF -- "$1" "$dom"; }

check "the page renders its heading" has "<h1 class=\"p-name\">Fixture アンテナ</h1>"
check "document.title is the antenna's, not 'pwned'" has "<title>Fixture アンテナ</title>"
check "no script ran: 'pwned' is only ever text" \
	sh -c "! grep -o '<title>[^<]*' '$dom' | grep -q pwned"
check "a <script> in a title stays text" \
	has "&lt;script&gt;document.title='pwned'&lt;/script&gt;Evil page</a>"
check "no script element in the DOM" hasnt "<script"
check "an <img onerror> in an author stays text" hasnt "<img"
check "Japanese titles render" has ">はてなの日記</a>"
check "English title with & and ' renders" has ">Example News: what's new &amp; noteworthy</a>"
check "link keeps its query and gets &MMDDHHMM" \
	has "<a class=\"p-name u-url\" href=\"https://diary.example.jp/?date=20240506&amp;05062057\">"
check "link gets ?MMDDHHMM before its fragment" \
	has "<a class=\"p-name u-url\" href=\"http://news.example.com/feed?05061600#latest\">"
check "a javascript: URL is not a link" hasnt "href=\"javascript"
check "it is shown as text" has "<span class=\"nolink p-name\">Not a link</span>"
check "the error line shows the error" has "[404 Not Found]"
check "the group heading renders" has "<h2>Friends</h2>"
check "updates since the previous publish are marked new (新着, Japanese by default)" has "<span class=\"badge\">新着</span>"
check "the page is Japanese: lang=ja" has "<html lang=\"ja\">"
check "the header is Japanese" has "更新時刻 05/06 21:00 JST · 8 ページ · 新着 "
check "the legend is Japanese" has "<dd>ページの本文が変わった</dd>"

# English (antenna init --lang en): the same page with English words.
mkdir -p "$tmp/en"
"$FIXTURE" "$tmp/en" "$NOW" en 2>> "$tmp/fixture.err"
chrome --dump-dom "file://$tmp/en/index.html" > "$tmp/dom-en.html"
check "English: lang=en, the badge says new" \
	sh -c "grep -qF '<html lang=\"en\">' '$tmp/dom-en.html' && grep -qF '<span class=\"badge\">new</span>' '$tmp/dom-en.html'"

# 360 px wide with a Japanese font: nothing wider than the frame.  Headless
# chromium's window is at least 500 px wide, so the page is shown in a
# 360 px iframe; a copy of it gets a script (the published page has none)
# that posts the document's scroll width to the frame's parent, which puts
# it into its title.
check "a Japanese font is installed (fonts-noto-cjk)" \
	test -e /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
sed 's|</body>|<script>parent.postMessage("w=" + document.documentElement.scrollWidth, "*");</script></body>|' \
	"$tmp/site/index.html" > "$tmp/site/measure.html"
frame() {  # frame PAGE: a harness showing PAGE 360 px wide
	printf '<!DOCTYPE html><html><head><title>none</title></head><body style="margin:0">'
	printf '<iframe src="%s" style="width:360px;height:1400px;border:0"></iframe>' "$1"
	printf '<script>addEventListener("message", function (e) { document.title = e.data; });</script></body></html>\n'
}
frame measure.html > "$tmp/site/frame-measure.html"
frame index.html > "$tmp/site/frame.html"
chrome --virtual-time-budget=3000 --dump-dom "file://$tmp/site/frame-measure.html" > "$tmp/dom-360.html"
w=$(sed -n 's|.*<title>w=\([0-9]*\)</title>.*|\1|p' "$tmp/dom-360.html")
check "360 px wide: no horizontal scrolling (scroll width ${w:-unknown})" test -n "$w" -a "${w:-999}" -le 360

# A numbered page of a paged listing (publish --html-limit) at 360 px, with
# what makes a page wide: an unbroken 600-character title and URLs of
# 2,000 bytes shown as text (no title).
A=$B/antenna
"$A" -d "$tmp/p.db" init --html-limit 3 > /dev/null 2>&1
i=0
while [ $i -lt 7 ]; do
	long=$(head -c 2000 /dev/zero | tr '\0' x)
	if [ $((i % 2)) = 0 ]; then
		"$A" -d "$tmp/p.db" add "https://wide.example/$i/$long" > /dev/null 2>&1
	else
		"$A" -d "$tmp/p.db" add --title "$(head -c 600 /dev/zero | tr '\0' W)$i" "https://wide.example/$i" > /dev/null 2>&1
	fi
	i=$((i + 1))
done
"$A" -d "$tmp/p.db" publish --now "$NOW" "$tmp/paged" > /dev/null 2>&1
check "a paged listing: index-2.html and index-3.html written" test -s "$tmp/paged/index-2.html" -a -s "$tmp/paged/index-3.html"
sed 's|</body>|<script>parent.postMessage("w=" + document.documentElement.scrollWidth, "*");</script></body>|' \
	"$tmp/paged/index-2.html" > "$tmp/paged/measure.html"
frame measure.html > "$tmp/paged/frame-measure.html"
chrome --virtual-time-budget=3000 --dump-dom "file://$tmp/paged/frame-measure.html" > "$tmp/dom-paged.html"
w=$(sed -n 's|.*<title>w=\([0-9]*\)</title>.*|\1|p' "$tmp/dom-paged.html")
check "index-2.html at 360 px with long titles and URLs: no horizontal scrolling (scroll width ${w:-unknown})" \
	test -n "$w" -a "${w:-999}" -le 360

# A 360 px screenshot renders (SHOT=DIR keeps phone.png and desktop.png
# there, to look at).
chrome --window-size=500,1400 --screenshot="$tmp/phone.png" "file://$tmp/site/frame.html" > /dev/null
check "chromium renders a 360 px screenshot" test -s "$tmp/phone.png"
if [ -n "${SHOT:-}" ]; then
	chrome --window-size=1280,800 --screenshot="$tmp/desktop.png" "file://$tmp/site/index.html" > /dev/null
	cp "$tmp/phone.png" "$tmp/desktop.png" "$SHOT"/ 2>/dev/null
fi
exit 0
