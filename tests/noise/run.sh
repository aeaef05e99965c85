#!/bin/sh
# The noise corpus end to end: the test server's /noise/ pages
# (tests/unit/noise_corpus.h: 24 diary and blog pages with counters,
# clocks, rotating quotes, ads and weather, relative times, shuffled and
# random lists, session tokens, calendars...; real updates of four shapes
# on 20 of them) checked by 'antenna update' once as a baseline and 6
# times more, an hour apart.  Asserts: false
# updates at most 5% of the checks of unchanged content (and none, the
# aim), every real update found exactly once, no excerpt made of noise;
# 'antenna show' tells what is ignored; --no-auto-ignore turns it off.
# NOISE_SUMMARY=FILE: also writes one line of figures there (make bench).
# Prints "ok - ..." / "not ok - ...".
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 26
tmpdir noise-test
start_server 600
NOW=1700000000
PAGES=24 CHECKS=6
showkey() { $A -d "$1" show "$2" | sed -n "s/^$3: *//p"; }
# real K C: the shape of page K's real update at check C (noise_corpus.h
# noise_real()), or nothing
real() {
	k=$1 c=$2 s=
	if [ "$k" -lt 16 ]; then
		[ "$c" -eq $((1 + k % CHECKS)) ] && s=$((k % 4))
	elif [ "$k" -lt 20 ]; then
		[ "$c" -eq 2 ] || [ "$c" -eq 5 ] && s=$(((k + c) % 4))
	fi
	case $s in
	0) echo "新しい日記 $k-$c" ;; 1) echo "コメント $k-$c" ;; 2) echo "追記 $k-$c" ;; 3) echo "体重" ;;
	esac
}
MARKERS='人目|生成|generated|名言|PR:|天気|分前|時間前|ago|閲覧|views|likes|リンク集|今日は|sid=|おすすめ|Last updated|アクセス|ドル|ランキング|★|最近のコメント'

# run DB [off]: the corpus through one database (off: automatic ignoring
# turned off for every page); sets the counts
run() {
	db=$1
	$A -d "$db" init --title noise --base http://example.com/ant/ >/dev/null
	k=0
	while [ $k -lt $PAGES ]; do
		$A -d "$db" add ${2:+--no-auto-ignore} "$U/noise/$k.html" >/dev/null || notok "add $k"
		k=$((k + 1))
	done
	UNCHANGED=0 FALSE=0 REAL=0 FOUND=0 BAD=0 REFETCHED=0 LEARNED=0 REQUESTS=0 SREF=0 SREQ=0
	c=0
	while [ $c -le $CHECKS ]; do
		"$HTTPGET" "$U/_control/noise?check=$c" >/dev/null 2>&1 || notok "control check $c"
		$A -d "$db" update --force --now $((NOW + 3600 * c)) --refetch-pause 50 -v >"$T/out" 2>"$T/log"
		r=$(sed -n 's/.*; \([0-9]*\) pages\{0,1\} fetched again, \([0-9]*\) noisy parts\{0,1\} learned.*/\1 \2/p' "$T/out")
		REFETCHED=$((REFETCHED + ${r%% *}0 / 10)) LEARNED=$((LEARNED + ${r##* }0 / 10))
		REQUESTS=$((REQUESTS + PAGES + ${r%% *}0 / 10))
		# from the third check on, the widgets are learned: the steady state
		[ $c -ge 3 ] && SREF=$((SREF + ${r%% *}0 / 10)) SREQ=$((SREQ + PAGES + ${r%% *}0 / 10))
		k=0
		while [ $c -gt 0 ] && [ $k -lt $PAGES ]; do
			url="$U/noise/$k.html" want=$(real $k $c)
			up=0
			grep -q "^$url: updated" "$T/log" && up=1
			x=
			[ $up = 1 ] && x=$(showkey "$db" "$url" excerpt)
			if [ -n "$want" ]; then
				REAL=$((REAL + 1)) FOUND=$((FOUND + up))
				[ $up = 0 ] && echo "#   page $k check $c: real update not found"
			else
				UNCHANGED=$((UNCHANGED + 1)) FALSE=$((FALSE + up))
				[ $up = 1 ] && echo "#   page $k check $c: false update: $x"
			fi
			if [ $up = 1 ] && { printf '%s' "$x" | grep -Eq "$MARKERS" || ! printf '%s' "$x" | grep -qF "$want"; }; then
				BAD=$((BAD + 1))
				echo "#   page $k check $c: excerpt '$x' (want '$want', no noise)"
			fi
			k=$((k + 1))
		done
		c=$((c + 1))
	done
}

D=$T/on.db
run "$D" > "$T/detail"
head -n 20 "$T/detail"
is "corpus: $PAGES pages checked $CHECKS times after a baseline" "$UNCHANGED $REAL" "120 24"
check "false updates $FALSE of $UNCHANGED checks of unchanged content (<= 5%)" [ $((FALSE * 20)) -le $UNCHANGED ]
is "no false update (the aim)" "$FALSE" 0
is "every real update found at once ($FOUND of $REAL)" "$FOUND" "$REAL"
is "no excerpt made of noise, each shows its update" "$BAD" 0
is "re-fetches: $REFETCHED of $REQUESTS requests, $SREF of $SREQ once learned (<= 10%), $LEARNED noisy parts learned" \
	"$([ "$LEARNED" -gt 0 ] && [ $((SREF * 10)) -le "$SREQ" ] && echo yes)" yes
S=$($A -d "$D" show "$U/noise/1.html")
printf '%s\n' "$S" | grep -q '^  ignored: *body>div.column>div.pr>p$' &&
	printf '%s\n' "$S" | grep -q 'since 2023-11-15 09:13:20 +0900 (1700007200): differed between two fetches' &&
	ok "show: an ad learned by the second re-fetch that saw it differ, its place and since when" ||
	notok "show: an ad learned by the second re-fetch that saw it differ, its place and since when" "$S"
printf '%s\n' "$S" | grep -q '"今日の天気: ' && printf '%s\n' "$S" | grep -q 'changed check after check' &&
	ok "show: the weather learned across checks, its text" || notok "show: the weather learned across checks, its text" "$S"
OFF=$T/off.db
ON_FALSE=$FALSE ON_FOUND=$FOUND ON_BAD=$BAD ON_REF=$REFETCHED ON_REQ=$REQUESTS ON_LEARNED=$LEARNED
ON_SREF=$SREF ON_SREQ=$SREQ
run "$OFF" off > /dev/null
is "--no-auto-ignore: nothing learned, no re-fetch, the noise announced" \
	"$LEARNED $REFETCHED $([ "$FALSE" -gt 20 ] && echo many || echo "only $FALSE") false updates" "0 0 many false updates"
$A -d "$OFF" show "$U/noise/1.html" | grep -q '^auto ignore: *off' &&
	ok "show: auto-ignore off" || notok "show: auto-ignore off" "$($A -d "$OFF" show "$U/noise/1.html")"
# Volatility per word: a notice block holding a form token made per
# request (tests/unit/words_corpus.h, page 2), its author's sentence edited
# at checks 1, 2 and 3: the token's words are learned, not the block, and
# each edit is an update in its own check.
W=$T/words.db
$A -d "$W" init --title words --base http://example.com/ant/ >/dev/null
$A -d "$W" add "$U/words/2.html" >/dev/null || notok "add words/2"
SEQ= c=0
while [ $c -le 6 ]; do
	"$HTTPGET" "$U/_control/noise?check=$c" >/dev/null 2>&1 || notok "control check $c"
	$A -d "$W" update --force --now $((NOW + 3600 * c)) --refetch-pause 50 -v >"$T/out" 2>"$T/log"
	if [ $c = 0 ]; then
		SEQ=-
	elif grep -q ": updated" "$T/log"; then
		# U: an update whose excerpt is the edit, X: one made of the token
		x=$(showkey "$W" "$U/words/2.html" excerpt)
		case $x in *"The topic is"*) case $x in *"form key"*) SEQ=${SEQ}X ;; *) SEQ=${SEQ}U ;; esac ;;
		*) SEQ=${SEQ}X ;; esac
	else
		SEQ=${SEQ}.
	fi
	c=$((c + 1))
done
is "a block with a per-request token, its author's words edited at 3 checks: 3 updates, each at once, each excerpt the edit" \
	"$SEQ" "-UUU..."
S=$($A -d "$W" show "$U/words/2.html")
printf '%s\n' "$S" | grep -q '^  ignored words: .*form\.notice' && printf '%s\n' "$S" | grep -qF '"form key: …' &&
	ok "show: the token's words learned (shown as …), not its block" ||
	notok "show: the token's words learned (shown as …), not its block" "$S"

# ---- clocks (ant_clock.h): stamps on pages rebuilt between checks,
# served as a static server does (Last-Modified = the rebuild), checked at
# uneven times: a "generated on" line (and its timing) and footer in the
# page's local time (UTC+9, not said), a cron page's "last updated at HH:MM" (every 5 minutes), and a
# price edited beside a stamp.
jst() { date -u -d "@$(($1 + 32400))" "+$2"; }
imf() { date -u -d "@$1" '+%a, %d %b %Y %H:%M:%S GMT'; }
clock_pages() {   # NOW CHECK
	n=$1 b=$(($1 - 600)) cr=$(($1 - $1 % 300)) price=120
	[ "$2" -ge 3 ] && price=150
	mkdir -p "$WWW/clock"
	printf '<html><head><title>gen</title></head><body><h1>例会のお知らせ</h1><p>次回の例会は公民館で開きます。</p><p>持ち物は筆記用具です。</p><p>This page was generated on %s in 0.0%d s.</p><footer><p>Generated on %s by sitebuilder 1.2</p></footer></body></html>\n' \
		"$(jst $b '%b %d, %Y %H:%M')" $((($2 * 7) % 10 + 1)) "$(jst $b '%Y-%m-%d %H:%M')" > "$WWW/clock/gen.html"
	printf 'Last-Modified: %s\n' "$(imf $b)" > "$WWW/clock/gen.html.hdr"
	printf '<html><head><title>cron</title></head><body><h1>サーバーの状態</h1><p>すべて正常です。</p><p>last updated at %s</p></body></html>\n' \
		"$(jst $cr '%H:%M')" > "$WWW/clock/cron.html"
	printf 'Last-Modified: %s\n' "$(imf $cr)" > "$WWW/clock/cron.html.hdr"
	printf '<html><head><title>price</title></head><body><h1>お店</h1><p>毎日営業しています。</p><p>本日の価格は %s円 です。</p><p>最終更新: %s</p></body></html>\n' \
		"$price" "$(jst $b '%Y年%m月%d日 %H時%M分')" > "$WWW/clock/price.html"
	printf 'Last-Modified: %s\n' "$(imf $b)" > "$WWW/clock/price.html.hdr"
}
CD=$T/clock.db CFALSE=0 CSEEN=
$A -d "$CD" init --title clocks --base http://example.com/ant/ >/dev/null
c=0
for off in 0 420 3900 7500 94000 94420; do
	clock_pages $((NOW + off)) $c
	[ $c -eq 0 ] && for p in gen cron price; do $A -d "$CD" add "$U/clock/$p.html" >/dev/null || notok "add $p"; done
	$A -d "$CD" update --force --now $((NOW + off)) --refetch-pause 50 -v >"$T/out" 2>"$T/log"
	for p in gen cron; do
		grep -q "^$U/clock/$p.html: updated" "$T/log" && CFALSE=$((CFALSE + 1)) &&
			echo "# clock: $p check $c: false update: $(showkey "$CD" "$U/clock/$p.html" excerpt)"
	done
	grep -q "^$U/clock/price.html: updated" "$T/log" && CSEEN="$CSEEN $c" &&
		echo "# clock: price check $c: $(showkey "$CD" "$U/clock/price.html" excerpt)"
	c=$((c + 1))
done
is "a rebuilt page's \"Generated on\" and a cron page's \"last updated at\": no update in 5 checks each" "$CFALSE" 0
check "a price edited beside the stamp at check 3: announced once, at most a check late (checks:$CSEEN)" \
	sh -c 'case $1 in " 3"|" 4") exit 0 ;; esac; exit 1' - "$CSEEN"
showkey "$CD" "$U/clock/price.html" excerpt | grep -q '150円' &&
	ok "... its excerpt shows the new price" || notok "... its excerpt shows the new price" "$(showkey "$CD" "$U/clock/price.html" excerpt)"
$A -d "$CD" diff "$U/clock/price.html" 2>&1 | grep -q '150円' &&
	ok "... its diff shows the price changed" || notok "... its diff shows the price changed" "$($A -d "$CD" diff "$U/clock/price.html" 2>&1)"
# ---- held changes on static pages that answer 304 (the test server: ETag
# of the content, Last-Modified of the file, 304 to If-None-Match) -------
# A price and a one-word edit (a small part of the page) on pages whose
# Last-Modified does not move
# (an editor that keeps the file's time, a copy with its time kept): held
# at the check that sees them, then a 304 -- the answer that showed them,
# still -- confirms them: announced then, dated when first seen.
S304=$T/s304.db
long="ほかの話題がいくつか並んでいる長い段落です。今日も静かな一日でした。"
# (each page's long paragraphs its own: text the two pages shared would be
# their site's template, and the note the page's only own words)
sp() { printf '<html><head><title>%s</title></head><body><h1>%s</h1><div class="note"><p>%s</p></div><p>%s</p><p>%s</p><p>%s</p><p>%s</p></body></html>\n' \
	"$1" "$1" "$2" "$1: $long 一" "$1: $long 二" "$1: $long 三" "$1: $long 四" > "$WWW/$1.html"
	touch -d "@$((NOW - 86400))" "$WWW/$1.html"; }
sup() { $A -d "$S304" update --force --now "$1" -v > "$T/s304.out" 2> "$T/s304.log"; }
sp price "今日の価格は120円です。"
sp word "庭の木はplumです。"
$A -d "$S304" init --title s304 > /dev/null 2>&1
for n in price word; do $A -d "$S304" add "$U/$n.html" > /dev/null; done
sup $((NOW + 100))
sp price "今日の価格は150円です。"
sp word "庭の木はpeachです。"
sup $((NOW + 3700))
is "a price and a one-word edit with the same Last-Modified: held, not announced" \
	"$(grep -c ': updated' "$T/s304.log")" 0
$A -d "$S304" show "$U/price.html" > "$T/price.show"
check "show: the price change is held, by the numbers rule, and what confirms it" \
	sh -c "grep -q '^  held: *numbers or dates of a sentence changed, first seen .*($((NOW + 3700)))' '$T/price.show' &&
	       grep -q '(the numbers rule)' '$T/price.show' && grep -q 'still shows them (a 304 included)' '$T/price.show'"
sup $((NOW + 7300))
is "the next check's 304 confirms both: announced" \
	"$(grep -c ': updated' "$T/s304.log") $($A -d "$S304" show "$U/word.html" | sed -n 's/^last status: *//p')" "2 304"
is "... dated when first seen" "$(jget "$S304" "$U/price.html" last_modified) $(jget "$S304" "$U/word.html" last_modified)" \
	"$((NOW + 3700)) $((NOW + 3700))"
is "... each with the held change as its excerpt" \
	"$(showkey "$S304" "$U/price.html" excerpt) / $(showkey "$S304" "$U/word.html" excerpt)" \
	"今日の価格は150円です。 / 庭の木はpeachです。"
$A -d "$S304" show "$U/price.html" > "$T/price.show"
check "show: nothing held any more" sh -c "! grep -q '^  held:' '$T/price.show'"
sup $((NOW + 10900))
is "another 304: nothing announced again" "$(grep -c ': updated' "$T/s304.log")" 0
# The page held still (two 304s: the answer before, again): one change
# made once now (the price again) is announced in its own check, dated
# then, and show says why.  (A second swap of the word page's part within
# 7 days would be a rotating widget's, held or not: not tried here.)
sp price "今日の価格は180円です。"
sup $((NOW + 14500))
is "a price edited on a page that held still: announced in its own check, dated then" \
	"$(grep -c ': updated' "$T/s304.log") $(jget "$S304" "$U/price.html" last_modified)" "1 $((NOW + 14500))"
is "... its edit as the excerpt" "$(showkey "$S304" "$U/price.html" excerpt)" "今日の価格は180円です。"
$A -d "$S304" show "$U/price.html" > "$T/price.show"
check "show: the change announced at once because the page had held still" \
	sh -c "grep -q '^  at once: .*($((NOW + 14500))): one change' '$T/price.show' && grep -q 'as the page had held still' '$T/price.show' && ! grep -q '^  held:' '$T/price.show'"

if [ -n "${NOISE_SUMMARY:-}" ]; then
	echo "$ON_FALSE $UNCHANGED $ON_FOUND $REAL $ON_BAD $ON_REF $ON_REQ $ON_LEARNED $FALSE $ON_SREF $ON_SREQ" > "$NOISE_SUMMARY"
fi
