#!/bin/sh
# The real-software corpus: tDiary 5.2 and DokuWiki, installed from Debian,
# served on loopback from this script (rackup, php -S) with their clocks
# run by faketime, driven the way people use them (entries, edits of an
# entry, comments, visits by browsers and bots with referers, wiki pages
# created and edited through the edit form, the sidebar page edited, days
# passing) and watched by the real antenna: the diary's top page and four
# day pages, six wiki pages, one check per step.
# Asserts page by page: a page whose own content changed in a step is
# announced in that check or the next (otherwise it is missed); any other
# announcement is a false update; an announced edit's excerpt shows the
# edit, not furniture (sidebars, counters, calendars).
# Prints per-step and total counts.  REALSOFT_SUMMARY=FILE: also appends
# one line of figures per kind of software there (bench/realsoft.sh; the
# format every real-software suite shares):
#   KIND UNCHANGED FALSE REAL ONTIME LATE MISSED BADEXCERPT
# with KIND tdiary or dokuwiki.
# A missing program is a failure, never a skip.
# test-needs: ruby:ruby rackup:ruby-rack php:php-cli faketime:faketime file:/usr/share/tdiary/index.rb:tdiary file:/usr/share/dokuwiki/doku.php:dokuwiki
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
. "$TOP/tests/lib/realsoft.sh"
DRIVE="$PY $TOP/tests/realsoft/drive.py"

tmpdir realsoft
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT INT TERM

# ---- the software, or a loud failure -------------------------------------
missing=
for c in ruby rackup php faketime; do
	command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
done
for f in /usr/share/tdiary/index.rb /usr/share/dokuwiki/doku.php; do
	[ -f "$f" ] || missing="$missing $f"
done
[ -n "$FTLIB" ] || missing="$missing libfaketime.so.1"
if [ -n "$missing" ]; then
	echo "1..1"
	echo "not ok - the real software is installed (missing:$missing; make tests installs it)"
	exit 1
fi

# The servers' clock: real time plus $T/clock's offset (libfaketime reads
# the file at every call), so the software sees days pass as the antenna's
# --now does.  Files keep their real times (NO_FAKE_STAT): a cache file
# written an hour of the clock ago is an hour old, as DokuWiki's feed
# cache (rss_update, 300 s) expects.
OFF=0
echo "+0" > "$T/clock"
# (faked CMD) & runs CMD under that clock (tests/lib/realsoft.sh), $! its own
# pid, the one the EXIT trap kills; with these variables:
FAKED_ENV="NO_FAKE_STAT=1"
clock() { OFF=$1; echo "+$OFF" > "$T/clock"; }

# ---- tDiary: a private app directory, rackup on 127.0.0.1 -----------------
TD=$T/tdiary
# public/: where makerss.rb writes the feed the top page advertises
# (index.rdf) and rack serves it from, as in a real install; without it
# the feed is a 404
mkdir -p "$TD/data" "$TD/public"
for d in lib views theme misc js; do ln -s "/usr/share/tdiary/$d" "$TD/$d"; done
cp /usr/share/tdiary/config.ru /usr/share/tdiary/index.rb /usr/share/tdiary/update.rb "$TD/"
cat > "$TD/tdiary.conf" <<'EOF'
@data_path = 'data/'
@style = 'Wiki'
@index = './'
@update = 'update.rb'
@html_title = 'テスト日記'
@author_name = 'test'
@options['sp.path'] = ['misc/plugin']
@options['sp.selected'] = "calendar2.rb
counter.rb
disp_referrer.rb
recent_comment3.rb
recent_list.rb
makelirs.rb
makerss.rb
"
@header = <<HEADER
<%= navi %>
<h1><%= h @conf.html_title %></h1>
<div class="sidebar"><%= calendar2 %>
<p>今日 <%= counter_today %> 昨日 <%= counter_yesterday %> 合計 <%= counter %></p>
<h3>最近の日記</h3><%= recent_list(5) %>
<h3>最近のツッコミ</h3><%= recent_comment3 %>
</div>
HEADER
@footer = ""
load_cgi_conf
EOF
(cd "$TD" && ruby -rwebrick -e 'h = WEBrick::HTTPAuth::Htpasswd.new(".htpasswd")
	h.set_passwd(nil, "author", "secret"); h.flush')
# tDiary's clock: under libfaketime ruby spends 15 times the CPU, so a
# rack middleware reads the offset once a request and Time.now adds it.
cat >> "$TD/config.ru" <<'EOF'
class << Time
	alias_method :real_now, :now
	def now(**kw) real_now(**kw) + ($test_clock || 0) end
end
class TestClock
	def initialize(app) @app = app end
	def call(env)
		$test_clock = File.read(ENV['TEST_CLOCK']).to_i
		@app.call(env)
	end
end
use TestClock
EOF
TDPORT=$(freeport)
(cd "$TD" && RUBYOPT=-rpathname RACK_ENV=production TEST_CLOCK="$T/clock" \
	exec rackup -p "$TDPORT" -o 127.0.0.1 >"$T/tdiary.log" 2>&1) &
PIDS="$PIDS $!"
TDB=http://127.0.0.1:$TDPORT/

# ---- DokuWiki: the package's web root, a private conf and data copy ------
DW=$T/dokuwiki
mkdir -p "$DW"
cp -rL /etc/dokuwiki "$DW/conf"
cp -r /var/lib/dokuwiki/data "$DW/data"
rm -f "$DW/conf/local.php" "$DW/conf/apache.conf" "$DW/conf/lighttpd.conf"
cat > "$DW/conf/local.php" <<EOF
<?php
\$conf['savedir'] = '$DW/data';
\$conf['useacl'] = 0;
\$conf['title'] = 'テストウィキ';
\$conf['lang'] = 'ja';
EOF
echo "<?php define('DOKU_CONF', '$DW/conf/');" > "$DW/prepend.php"
DWPORT=$(freeport)
(faked php -d auto_prepend_file="$DW/prepend.php" -S "127.0.0.1:$DWPORT" -t /usr/share/dokuwiki \
	>"$T/dokuwiki.log" 2>&1) &
PIDS="$PIDS $!"
DWB=http://127.0.0.1:$DWPORT/

up "$TDB" "$T/tdiary.log" && ok "tDiary serves on $TDB"
up "${DWB}doku.php" "$T/dokuwiki.log" && ok "DokuWiki serves on $DWB"

# ---- the watched pages -----------------------------------------------------
# key URL: the diary's top page and four day pages, six wiki pages.
DAYS="20261120 20261121 20261122 20261123"
WIKI="start club:news club:meeting club:members club:rules club:links"
PAGES="td-top"
for d in $DAYS; do PAGES="$PAGES td-$d"; done
for w in $WIKI; do PAGES="$PAGES dw-$w"; done
url() {
	case $1 in
	td-top) echo "$TDB" ;;
	td-*) echo "${TDB}?date=${1#td-}" ;;
	dw-*) echo "${DWB}doku.php?id=${1#dw-}" ;;
	esac
}

# The site before the baseline: four diary days, the wiki's pages and its
# sidebar page (shown on every wiki page).
fail=
for d in $DAYS; do
	$DRIVE td-post "$TDB" "$d" "${d#2026} の日記" "!その日のこと
${d#2026}日はいつものように過ごした。" || fail="$fail td-$d"
done
$DRIVE td-comment "$TDB" 20261121 'たろう' 'はじめまして' || fail="$fail comment"
wsave() { $DRIVE doku-save "$DWB" "$1" "$2" || fail="$fail dw-$1"; }
wsave start '====== クラブのウィキ ======
ようこそ。[[club:news|お知らせ]]、[[club:meeting|例会]]、[[club:members|会員]]。'
wsave club:news '====== お知らせ ======
  * 会報第1号を発行しました。'
wsave club:meeting '====== 例会 ======
次回の例会は12月3日です。会場は公民館です。'
wsave club:members '====== 会員 ======
^ 名前 ^ 役 ^
| 山田 | 会長 |
| 佐藤 | 会計 |'
wsave club:rules '====== 会則 ======
第1条 本会はクラブと称する。'
wsave club:links '====== リンク ======
  * [[https://www.debian.org/|Debian]]'
wsave sidebar '====== メニュー ======
  * [[start]]
  * [[club:news]]
  * 今週の当番: 山田'
[ -z "$fail" ] && ok "the site's first pages posted through the software" ||
	notok "the site's first pages posted through the software" "failed:$fail"

# ---- what people do --------------------------------------------------------
# visit: browsers with referers and bots visit the diary (counter.rb counts
# the browsers; disp_referrer.rb lists the referers to browsers), and the wiki
visit() {
	for d in $DAYS; do
		$DRIVE visit "${TDB}?date=$d" "Mozilla/5.0 (X11; Linux x86_64) Firefox/$1" \
			"https://search.example/?q=$d-$1" || true
	done
	$DRIVE visit "$TDB" "Mozilla/5.0 (iPhone) Safari/$1" "https://sns.example/p/$1" || true
	$DRIVE visit "$TDB" "Googlebot/2.1 (+http://www.google.com/bot.html)" || true
	$DRIVE visit "${DWB}doku.php?id=start" "Mozilla/5.0 Chrome/$1" || true
}

# STEP_MIN: each step's time in minutes after the baseline: an hour apart,
# some 2 minutes apart (DokuWiki's feed is cached 5 minutes), one next day.
STEP_MIN="0 60 120 122 180 240 242 1680 1740 1742 1800 1860 1862 1920"
STEPS=13
# act S: what happens before check S; REAL_S: the pages whose own content
# it changes, WANT_key: a text each one's excerpt must show.
act() {
	REAL_S=
	visit "$1"
	case $1 in
	2)	$DRIVE td-comment "$TDB" 20261121 'はなこ' 'お元気ですか、二件目のコメント' &&
			REAL_S="td-top td-20261121" WANT="二件目のコメント" ;;
	3)	wsave club:news '====== お知らせ ======
  * 会報第2号を発行しました。
  * 会報第1号を発行しました。' && REAL_S="dw-club:news" WANT="会報第2号" ;;
	4)	$DRIVE td-post "$TDB" 20261124 "11-24 の日記" "!新しい日
今日は新しい日記を書いた。体重 60.2kg" && REAL_S="td-top" WANT="新しい日記を書いた" ;;
	5)	wsave sidebar '====== メニュー ======
  * [[start]]
  * [[club:news]]
  * 今週の当番: 佐藤' ;;
	6)	$DRIVE td-edit "$TDB" 20261122 "1122 の日記" "!その日のこと
1122日はいつものように過ごした。
!追記
夜に雨が降り出した。" && REAL_S="td-top td-20261122" WANT="夜に雨が降り出した" ;;
	7)	: ;;	# the next day: counters roll over, nothing else
	8)	wsave club:meeting '====== 例会 ======
次回の例会は12月10日です。会場は公民館です。' && REAL_S="dw-club:meeting" WANT="12月10日" ;;
	9)	$DRIVE td-comment "$TDB" 20261120 'じろう' '三件目、古い日記へのコメント' &&
			REAL_S="td-top td-20261120" WANT="古い日記へのコメント"
		wsave club:minutes '====== 議事録 ======
新しいページです。' ;;
	10)	wsave club:members '====== 会員 ======
^ 名前 ^ 役 ^
| 山田 | 会長 |
| 佐藤 | 会計 |
| 鈴木 | 書記 |' && REAL_S="dw-club:members" WANT="鈴木" ;;
	11)	$DRIVE td-edit "$TDB" 20261124 "11-24 の日記" "!新しい日
今日は新しい日記を書いた。体重 59.8kg" && REAL_S="td-top" WANT="59.8" ;;
	12)	wsave start '====== クラブのウィキ ======
ようこそ。[[club:news|お知らせ]]、[[club:meeting|例会]]、[[club:members|会員]]、[[club:minutes|議事録]]。' &&
			REAL_S="dw-start" WANT="議事録" ;;
	13)	: ;;
	esac
}
# Furniture an excerpt must never be made of: the sidebars' and footers' text.
FURNITURE='最近の日記|最近のツッコミ|今日 |昨日 |合計|\([0-9]{2}-[0-9]{2}\)|メニュー|今週の当番|最終更新|トレース'

# ---- the checks ------------------------------------------------------------
DB=$T/antenna.db
$A -d "$DB" init --title realsoft --base http://example.com/ant/ >/dev/null
for k in $PAGES; do $A -d "$DB" add "$(url "$k")" >/dev/null || notok "add $k"; done
# check S: one antenna update at the step's time; ANN: the keys announced
check_step() {
	$A -d "$DB" update --force --now $(($(date +%s) + OFF)) -v >"$T/out" 2>"$T/log"
	ANN=
	for k in $PAGES; do
		u=$(url "$k")
		grep -qF "$u: updated" "$T/log" && ANN="$ANN $k"
	done
}
has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }
excerpt() { $A -d "$DB" show "$(url "$1")" | sed -n 's/^excerpt: *//p'; }

check_step
$A -d "$DB" list --format jsonl | grep -v '"last_error":null' > "$T/errs"
is "baseline: the $(echo $PAGES | wc -w) pages fetched without error" "$(grep -c . "$T/errs")" 0
sed 's/^/#   /' "$T/errs"

UNCHANGED=0 FALSE=0 REAL=0 ONTIME=0 LATE=0 MISSED=0 BAD=0 CONSUMED=0
# the same figures per kind of software: UNCHANGED_tdiary, ..., BAD_dokuwiki
KINDS="tdiary dokuwiki"
for kk in $KINDS; do
	for v in UNCHANGED FALSE REAL ONTIME LATE MISSED BAD; do eval "${v}_$kk=0"; done
done
kind_of() { case $1 in td-*) echo tdiary ;; *) echo dokuwiki ;; esac; }
# bump KEY VAR...: one more of each VAR for KEY's kind of software
bump() {
	bk=$(kind_of "$1"); shift
	for v in "$@"; do eval "${v}_$bk=\$((${v}_$bk + 1))"; done
}
PENDING= PWANT=
s=1
for m in $(echo "$STEP_MIN" | cut -d' ' -f2-); do
	clock $((m * 60))
	WANT=
	act $s
	check_step
	su=0 sf=0 sr=0 sl=0 sm=0 fl= nl=
	# last step's edits not yet announced: now or never
	for k in $PENDING; do
		CONSUMED=$((CONSUMED + 1))
		if has "$ANN" "$k"; then
			LATE=$((LATE + 1)) sl=$((sl + 1)) nl="$nl $k"
			bump "$k" LATE
		else
			MISSED=$((MISSED + 1)) sm=$((sm + 1)) nl="$nl $k(missed)"
			bump "$k" MISSED
		fi
	done
	LASTPEND=$PENDING PENDING=
	for k in $PAGES; do
		if has "$REAL_S" "$k"; then
			REAL=$((REAL + 1)) sr=$((sr + 1))
			bump "$k" REAL
			if has "$ANN" "$k"; then
				ONTIME=$((ONTIME + 1))
				bump "$k" ONTIME
				x=$(excerpt "$k")
				if ! printf '%s' "$x" | grep -qF "$WANT" || printf '%s' "$x" | grep -Eq "$FURNITURE"; then
					BAD=$((BAD + 1))
					bump "$k" BAD
					echo "#   step $s $k: excerpt '$x' (want '$WANT', no furniture)"
				fi
			else
				PENDING="$PENDING $k"
			fi
		elif has "$LASTPEND" "$k"; then
			:	# counted above: late or missed
		else
			UNCHANGED=$((UNCHANGED + 1)) su=$((su + 1))
			bump "$k" UNCHANGED
			if has "$ANN" "$k"; then
				FALSE=$((FALSE + 1)) sf=$((sf + 1)) fl="$fl $k"
				bump "$k" FALSE
				echo "#   step $s $k: false update ($(sed -n "s|^$(url "$k"): updated *||p" "$T/log" | head -n 1)): '$(excerpt "$k")'"
			fi
		fi
	done
	echo "# step $s (+${m} min): unchanged $su, false $sf${fl:+ ($fl )}, real $sr${REAL_S:+ ($REAL_S)}, not yet$(echo "$PENDING" | sed 's/^$/ 0/'), late $sl, missed $sm${nl:+ ($nl )}"
	s=$((s + 1))
done
# edits of the last step not announced in it are missed (no next check)
for k in $PENDING; do MISSED=$((MISSED + 1)); bump "$k" MISSED; done
echo "# total: $UNCHANGED checks of unchanged content, $FALSE false updates, $REAL real edits, $ONTIME on time, $LATE late, $MISSED missed, $BAD bad excerpts"

# every check counted once: unchanged, a real edit, or the next check of one not yet announced
is "the corpus: $STEPS steps of $(echo $PAGES | wc -w) pages, 12 real edits, each check counted once" \
	"$REAL $((UNCHANGED + REAL + CONSUMED))" "12 $((STEPS * $(echo $PAGES | wc -w)))"
check "false updates $FALSE of $UNCHANGED checks of unchanged content (<= 1%)" [ $((FALSE * 100)) -le $UNCHANGED ]
is "every real edit announced in its own check or the next ($ONTIME on time, $LATE late, $MISSED missed)" "$MISSED" 0
is "no excerpt made of furniture, each shows its edit" "$BAD" 0
S=$($A -d "$DB" show "$(url td-20261120)")
printf '%s\n' "$S" | grep -q '^furniture: .* left out: tDiary: outside its days (div.day)' &&
	ok "show: a diary day's sidebar and footer treated as furniture, and why" ||
	notok "show: a diary day's sidebar and footer treated as furniture, and why" "$S"
S=$($A -d "$DB" show "$(url dw-club:rules)")
printf '%s\n' "$S" | grep -q '^furniture: .* left out: DokuWiki: outside the wiki page (div.page)' &&
	ok "show: a wiki page's sidebar, tools and footer treated as furniture, and why" ||
	notok "show: a wiki page's sidebar, tools and footer treated as furniture, and why" "$S"
for kk in $KINDS; do
	eval "set -- \$UNCHANGED_$kk \$FALSE_$kk \$REAL_$kk \$ONTIME_$kk \$LATE_$kk \$MISSED_$kk \$BAD_$kk"
	echo "# $kk: $1 checks of unchanged content, $2 false updates, $3 real edits, $4 on time, $5 late, $6 missed, $7 bad excerpts"
	[ -n "${REALSOFT_SUMMARY:-}" ] && echo "$kk $*" >> "$REALSOFT_SUMMARY"
done
done_testing 9
