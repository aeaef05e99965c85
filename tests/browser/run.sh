#!/bin/sh
# The published index.html in a real browser:
# Debian's chromium, headless, loads a page written by publish_html()
# (tests/tools/pubfixture.c) and dumps the DOM after scripts would have
# run.  Checks: it loads, the titles render as text, a <script> in a title
# stays text (document.title unchanged, no element created), links are
# right and only http(s) URLs are links.  make check installs chromium
# (Makefile .testdeps reads the next line); without it the test fails.
# test-needs: chromium:chromium
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
FIXTURE=$B/tools/pubfixture
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
. "$TOP/tests/lib/tap.sh"
plan 18

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

check() {  # check NAME COMMAND...
	name=$1; shift
	if "$@"; then echo "ok - $name"; else echo "not ok - $name"; fi
}

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

check "the page renders its heading" has "<h1>Fixture アンテナ</h1>"
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
	has "<a href=\"https://diary.example.jp/?date=20240506&amp;05062057\">"
check "link gets ?MMDDHHMM before its fragment" \
	has "<a href=\"http://news.example.com/feed?05061600#latest\">"
check "a javascript: URL is not a link" hasnt "href=\"javascript"
check "it is shown as text" has "<span class=\"nolink\">Not a link</span>"
check "the error line shows the error" has "[404 Not Found]"
check "the group heading renders" has "<h2>Friends</h2>"
check "updates since the previous publish are marked new" has "<span class=\"badge\">new</span>"

# A phone-width screenshot renders (SHOT=DIR keeps phone.png and
# desktop.png there, to look at).
chrome --window-size=390,900 --screenshot="$tmp/phone.png" "file://$tmp/site/index.html" > /dev/null
check "chromium renders a phone-width screenshot" test -s "$tmp/phone.png"
if [ -n "${SHOT:-}" ]; then
	chrome --window-size=1280,800 --screenshot="$tmp/desktop.png" "file://$tmp/site/index.html" > /dev/null
	cp "$tmp/phone.png" "$tmp/desktop.png" "$SHOT"/ 2>/dev/null
fi
exit 0
