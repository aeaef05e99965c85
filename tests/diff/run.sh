#!/bin/sh
# The diff page end to end: a diary page on the loopback test server is
# checked, then changed (a word replaced, a paragraph added, one with
# markup as text, an unbroken 600-character line; its menu and footer
# counter changed too), checked again and published.  Asserts: the diff
# page exists, is linked from its row in index.html and from its Atom
# entry, parses (python3's html.parser) and shows the removed and the
# added words in <del>/<ins>, with the menu (furniture) and the counter
# (noise) left out and the markup only as text; at 360 px in headless
# chromium it does not scroll sideways; 'antenna diff URL' prints the same
# change (-/+ lines, colour only when asked or on a terminal, no ESC from
# the page); a later change replaces the page and the stale one goes;
# init --diff-text-max 0 keeps no texts and makes no diff pages.  Lines
# are compared with their numbers: a diary's new dated heading is added
# (yesterday's stays context), and an update of a number has its diff.
# test-needs: python3:python3 chromium:chromium
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

plan 36
tmpdir diff-test
start_server 120
NOW=1700000000
DB=$T/db
SITE=$T/site

page() {  # page WORD EXTRA COUNTER MENU: the diary page
	cat > "$WWW/d.html" <<EOF
<!DOCTYPE html><html><head><meta charset="utf-8"><title>日記</title></head><body>
<nav>ホーム | $4 | リンク</nav>
<main><h1>ある日の日記</h1>
<p>今日は朝から雨が降っていた。</p>
<p>午後は図書館で$1。</p>
<p>夕方には晴れた。</p>
$2
<p>夕飯はカレーだった。</p>
</main><footer>訪問者 $3 人</footer></body></html>
EOF
}
LONG=$(head -c 600 /dev/zero | tr '\0' W)
page "本を読んだ" "" 1234 "日記"
$A -d "$DB" init --title "差分テスト" --base http://example.com/ant/ >/dev/null
$A -d "$DB" add "$U/d.html" >/dev/null
$A -d "$DB" update --now $NOW --refetch-pause -1 >/dev/null
$A -d "$DB" diff "$U/d.html" >"$T/none.out" 2>"$T/none.err"
is "before any change: 'antenna diff' exits 1" "$?" 1
check "... saying no change was found" grep -q "no change found in the text" "$T/none.err"

page "友達と話した" "<p>新しい段落を追加。&lt;script&gt;alert(1)&lt;/script&gt;</p>
<p>$LONG</p>" 1299 "ブログ"
$A -d "$DB" update --force --now $((NOW + 3600)) --refetch-pause -1 >/dev/null
$A -d "$DB" publish --now $((NOW + 3700)) "$SITE" >/dev/null
n=$(ls "$SITE/diff" 2>/dev/null | grep -c '\.html$')
is "one diff page written into DIR/diff" "$n" 1
D=$(ls "$SITE/diff" | grep '\.html$' | head -n 1)
check "index.html links it from the page's row" grep -qF "<a class=\"diff\" href=\"diff/$D\">差分</a>" "$SITE/index.html"
check "index.atom links it from the entry (rel=related, absolute)" \
	grep -qF "<link rel=\"related\" href=\"http://example.com/ant/diff/$D\"/>" "$SITE/index.atom"
is "feed.json links it from the item (content_html, absolute)" "$($PY -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(sum(1 for i in d["items"] if "href=\"http://example.com/ant/diff/" + sys.argv[2] + "\"" in i.get("content_html", "")))
' "$SITE/feed.json" "$D")" 1

# The page parsed: what stands in <del>, <ins>, and the lines' classes.
$PY - "$SITE/diff/$D" >"$T/parsed" 2>&1 <<'EOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.dels, self.inss, self.text, self.tags = [], [], [], [], []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in ("meta", "br"):
            self.stack.append(tag)
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            raise SystemExit("unbalanced </%s> after %s" % (tag, self.stack))
        self.stack.pop()
    def handle_data(self, d):
        self.text.append(d)
        if "del" in self.stack: self.dels.append(d)
        if "ins" in self.stack: self.inss.append(d)
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
p.close()
if p.stack: raise SystemExit("unclosed: %s" % p.stack)
print("DEL:" + "|".join(p.dels))
print("INS:" + "|".join(p.inss))
print("TEXT:" + "".join(p.text).replace("\n", " "))
print("TAGS:" + " ".join(sorted(set(p.tags))))
EOF
is "the diff page parses, every element closed" "$?" 0
check "it shows the removed words in <del>" grep -q "^DEL:.*本を読んだ" "$T/parsed"
check "it shows the added words in <ins>" grep -q "^INS:.*友達と話した" "$T/parsed"
check "an added paragraph is in <ins> whole" grep -q "^INS:.*新しい段落を追加。" "$T/parsed"
check "context: an unchanged line around the change" grep -q "^TEXT:.*夕方には晴れた。" "$T/parsed"
check "the menu (furniture) is left out" sh -c "! grep -q '^TEXT:.*ブログ' '$T/parsed'"
check "the counter (noise) is left out" sh -c "! grep -q '^TEXT:.*訪問者' '$T/parsed'"
check "the diff page follows dark mode (prefers-color-scheme, as index.html)" \
	grep -q 'prefers-color-scheme:dark' "$SITE/diff/$D"
W=$(grep -o '更新時刻 [0-9][0-9]/[0-9][0-9] [0-9][0-9]:[0-9][0-9]' "$SITE/diff/$D" | cut -d' ' -f2-)
check "its time is MM/DD HH:MM in the display zone, as index.html shows it ($W)" \
	sh -c "[ -n '$W' ] && grep -qF '$W' '$SITE/index.html'"
check "markup in the page's text stays text (no script element)" \
	sh -c "grep -q '^INS:.*<script>alert(1)</script>' '$T/parsed' && ! grep -q '^TAGS:.*script' '$T/parsed'"
check "the page is in the site's language (lang=ja)" grep -q '<html lang="ja">' "$SITE/diff/$D"

# 'antenna diff URL': plain to a file, coloured when asked.
$A -d "$DB" diff "$U/d.html" >"$T/diff.out" 2>"$T/diff.err"
is "'antenna diff URL' exits 0" "$?" 0
check "it prints the removed line with -" grep -qx -- "-午後は図書館で本を読んだ。" "$T/diff.out"
check "and the added ones with +" sh -c "grep -qx -- '+午後は図書館で友達と話した。' '$T/diff.out' && grep -q '^+新しい段落を追加。' '$T/diff.out'"
check "context lines start with a space" grep -qx -- " 夕方には晴れた。" "$T/diff.out"
check "to a file: no escape sequence at all" sh -c "! grep -q \"\$(printf '\\033')\" '$T/diff.out'"
$A -d "$DB" diff --color=always "$U/d.html" >"$T/color.out"
check "--color=always: removed lines red, the changed words in reverse video" \
	grep -q "$(printf '\033\\[31m-午後は図書館で\033\\[7m本を読んだ\033\\[27m')" "$T/color.out"
$A -d "$DB" diff "$U/nope.html" >/dev/null 2>"$T/nope.err"
is "a URL not watched: exit 1" "$?:$(cat "$T/nope.err")" "1:antenna diff: '$U/nope.html' is not watched"

# 360 px in chromium: the 600-character line wraps, nothing scrolls sideways.
if [ -x "$CHROMIUM" ]; then
	mkdir -p "$T/profile" "$T/home"
	sed 's|</body>|<script>parent.postMessage("w=" + document.documentElement.scrollWidth, "*");</script></body>|' \
		"$SITE/diff/$D" >"$SITE/diff/measure.html"
	printf '<!DOCTYPE html><html><head><title>none</title></head><body style="margin:0"><iframe src="diff/measure.html" style="width:360px;height:1400px;border:0"></iframe><script>addEventListener("message", function (e) { document.title = e.data; });</script></body></html>\n' \
		>"$SITE/frame.html"
	HOME=$T/home timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
		--user-data-dir="$T/profile" --virtual-time-budget=3000 --dump-dom "file://$SITE/frame.html" \
		>"$T/dom.html" 2>"$T/chrome.err"
	w=$(sed -n 's|.*<title>w=\([0-9]*\)</title>.*|\1|p' "$T/dom.html")
	check "chromium at 360 px: no sideways scroll (scroll width ${w:-unknown})" test -n "$w" -a "${w:-999}" -le 360
	rm -f "$SITE/diff/measure.html" "$SITE/frame.html"
else
	notok "chromium is installed ($CHROMIUM; mk/deps.sh --tools installs it)"
fi

# A later change: a new diff page, the stale one removed at publish.
page "友達と話した" "<p>二度目の変更。</p>" 1300 "ブログ"
$A -d "$DB" update --force --now $((NOW + 7200)) --refetch-pause -1 >/dev/null
$A -d "$DB" publish --now $((NOW + 7300)) "$SITE" >/dev/null
D2=$(ls "$SITE/diff" | grep '\.html$' | head -n 1)
is "after a second change DIR/diff holds one page" "$(ls "$SITE/diff" | grep -c '\.html$')" 1
check "... the new one, the stale one removed" test "$D2" != "$D" -a ! -e "$SITE/diff/$D"
check "the second diff shows the second change" grep -q "<p class=\"add\"><ins>二度目の変更</ins>。</p>" "$SITE/diff/$D2"
check "... against the text of the first: its paragraph removed" grep -q "<p class=\"del\"><del>新しい段落を追加</del>。</p>" "$SITE/diff/$D2"

# 'antenna set' changes what is compared: the quiet baseline takes the new
# text, so the next diff does not show the ignored line as removed.
$A -d "$DB" set "$U/d.html" --ignore '夕方には晴れた。' >/dev/null
$A -d "$DB" update --force --now $((NOW + 10800)) --refetch-pause -1 >/dev/null
page "友達と話した" "<p>二度目の変更。</p><p>散歩に出かけた。</p>" 1301 "ブログ"
$A -d "$DB" update --force --now $((NOW + 14400)) --refetch-pause -1 >/dev/null
$A -d "$DB" diff "$U/d.html" >"$T/set.out" 2>&1
check "after set --ignore: the change shows" grep -q '^+散歩に出かけた。' "$T/set.out"
check "... and the line now ignored is not shown removed" sh -c "! grep -q '夕方' '$T/set.out'"

# Lines are compared by their words, numbers included.
diary() {  # diary DAYS PRICE: days (newest first) as "DATE|TEXT ...", a price
	{
		printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>日記</title></head><body><main>\n'
		for d in $1; do printf '<h2>%s の日記</h2><p>%s</p>\n' "${d%%|*}" "${d#*|}"; done
		printf '<p>会費は %s円 です。</p></main></body></html>\n' "$2"
	} > "$WWW/days.html"
}
diary "2026-11-27|昨日は晴れ。" 120
printf 'No-Validators: 1\n' > "$WWW/days.html.hdr"   # a dynamic page: no 304, a held change confirmed by the next answer
$A -d "$DB" add "$U/days.html" >/dev/null
$A -d "$DB" update --now $((NOW + 20000)) --refetch-pause -1 >/dev/null
diary "2026-11-28|今日は雨。 2026-11-27|昨日は晴れ。" 120
$A -d "$DB" update --force --now $((NOW + 23600)) --refetch-pause -1 >/dev/null
$A -d "$DB" diff "$U/days.html" >"$T/days.out" 2>&1
check "a diary's new dated heading is added, yesterday's is context" \
	sh -c "grep -qx -- '+2026-11-28 の日記' '$T/days.out' && grep -qx -- ' 2026-11-27 の日記' '$T/days.out' && ! grep -q -- '^[-+]2026-11-27' '$T/days.out'"
diary "2026-11-28|今日は雨。 2026-11-27|昨日は晴れ。" 150
$A -d "$DB" update --force --now $((NOW + 27200)) --refetch-pause -1 >/dev/null
$A -d "$DB" update --force --now $((NOW + 30800)) --refetch-pause -1 >/dev/null
$A -d "$DB" diff "$U/days.html" >"$T/price.out" 2>&1
is "an update of a number alone (120円 -> 150円) has its diff" \
	"$(grep -c -x -e '-会費は 120円 です。' -e '+会費は 150円 です。' "$T/price.out")" 2
check "... and nothing else changed in it" sh -c "! grep -q -- '^[-+].*の日記' '$T/price.out'"

# The bound: --diff-text-max 0 keeps no text, makes no diff page.
$A -d "$T/db0" init --title zero --base http://example.com/z/ --diff-text-max 0 >/dev/null
$A -d "$T/db0" add "$U/d.html" >/dev/null
$A -d "$T/db0" update --now $NOW --refetch-pause -1 >/dev/null
page "散歩した" "" 1301 "ブログ"
$A -d "$T/db0" update --force --now $((NOW + 3600)) --refetch-pause -1 >/dev/null
$A -d "$T/db0" publish --now $((NOW + 3700)) "$T/site0" >/dev/null
is "--diff-text-max 0: no text kept" "$(sqlq "$T/db0" 'SELECT count(*) FROM page_texts')" 0
check "... no diff page, no link" sh -c "! ls '$T/site0/diff/'*.html 2>/dev/null && ! grep -q 'class=\"diff\"' '$T/site0/index.html'"
