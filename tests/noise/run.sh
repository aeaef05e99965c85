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

plan 10
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
if [ -n "${NOISE_SUMMARY:-}" ]; then
	echo "$ON_FALSE $UNCHANGED $ON_FOUND $REAL $ON_BAD $ON_REF $ON_REQ $ON_LEARNED $FALSE $ON_SREF $ON_SREQ" > "$NOISE_SUMMARY"
fi
