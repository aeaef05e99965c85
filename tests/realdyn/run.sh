#!/bin/sh
# The real-software corpus, dynamic and generated pages: four kinds of
# Debian 12 software the antenna was never tuned to, run on loopback from
# this script with their clocks faked (libfaketime), driven as people use
# them and watched by the real antenna, one check per step:
#   hgweb    mercurial's `hg serve` (gitweb style): commits over days, one
#            commit message amended (a typo fixed); the summary, shortlog,
#            graph (server-side "3 hours ago"), a file view at tip, that
#            file's log, the tip changeset page; a CSP nonce in every
#            answer (and so no ETag, no 304).  A new commit is news on
#            every page that shows it (the summary's "latest commit" cell
#            included); ages moving with the clock are not.
#   mhonarc  a mail archive rebuilt as mail arrives (mhonarc -add, and a
#            full -editidx rebuild), served by nginx: new messages are news
#            on the date and thread indexes; old messages only gain
#            prev/next/follow-up links (their archive's furniture).
#   zim      a notebook exported to HTML (zim --export, every file rewritten
#            at every export, as a cron job does) served by nginx: a price,
#            a version, one word and a typo edited on their pages; a new
#            page is news on the index, not on its neighbours' Prev/Next.
#   awstats  statistics rebuilt from an access log at every step
#            (awstats.pl -update, -output -staticlinks) served by nginx:
#            visitors and crawlers move numbers, times and "Last Update";
#            nothing to announce.
# Time passes in steps of 2 and 15 minutes, hours, across the date turn.
# Scored page by page like tests/realsoft (tests/realdyn/dyn.py score): a
# page whose own content changed in a step is expected announced in that
# check (on time) or the next (late), else it is missed; any other
# announcement is a false update; an announced edit's excerpt must show the
# edit and no furniture.  Per kind: false updates <= 1% of the checks of
# unchanged content, no edit missed, no excerpt of furniture.
# REALSOFT_SUMMARY=FILE: appends one line per kind there:
#   KIND UNCHANGED FALSE REAL ONTIME LATE MISSED BADEXCERPT
# REALDYN_KEEP=DIR: keeps the checks' records (ann.S, real.S, show.S/);
# REALDYN_SNAP=1 also each page's text, answer and validators after each
# check (text.S/) and each check's time (now.S): tests/realdyn/replay.py
# replays them to a newly built antenna in seconds.
# A missing program is a failure, never a skip.
# test-needs: hg:mercurial mhonarc:mhonarc zim:zim nginx:nginx-light faketime:faketime file:/usr/lib/cgi-bin/awstats.pl:awstats
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
. "$TOP/tests/lib/realsoft.sh"
DYN="$PY $TOP/tests/realdyn/dyn.py"

tmpdir realdyn
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT INT TERM

# ---- the software, or a loud failure -------------------------------------
missing=
for c in hg mhonarc zim nginx faketime; do
	command -v "$c" >/dev/null 2>&1 || [ -x "/usr/sbin/$c" ] || missing="$missing $c"
done
AWSTATS=/usr/lib/cgi-bin/awstats.pl
[ -f "$AWSTATS" ] || missing="$missing $AWSTATS"
[ -n "$FTLIB" ] || missing="$missing libfaketime.so.1"
if [ -n "$missing" ]; then
	echo "1..1"
	echo "not ok - the real software is installed (missing:$missing; make tests installs it)"
	exit 1
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

# ---- the clock ---------------------------------------------------------------
# fakedrun, clock, now, build: tests/lib/realsoft.sh
rs_clock

# ---- hgweb: a repository with a history, hg serve on 127.0.0.1 -------------
# Served with a Content-Security-Policy nonce, as a careful host does: a
# fresh token in every answer's script tags, and (hgweb's rule) no ETag,
# so every check reads the page and its relative ages ("3 hours ago").
HG=$T/widget
export HGPLAIN=1 HGRCPATH="$T/hgrc"
printf '[ui]\nusername = Taro Yamada <taro@example.org>\n' > "$T/hgrc"
hg init "$HG"
cat > "$HG/.hg/hgrc" <<'EOF'
[web]
name = widget
description = Widget, a small command-line tool
contact = Taro Yamada
style = gitweb
csp = script-src 'self' 'nonce-%nonce%'
EOF
# commit AGE_S USER MESSAGE: a commit dated AGE_S seconds before the clock
commit() {
	hg -R "$HG" addremove -q &&
		hg -R "$HG" commit -q -u "$2" -d "$(($(now) - $1)) 0" -m "$3"
}
mkdir -p "$HG/src" "$HG/docs"
printf 'Widget 1.4.2\n\nA small tool that sorts plum jam jars.\nPrice: 120円 a copy.\n' > "$HG/README"
printf 'int main(void) { return 0; }\n' > "$HG/src/main.c"
commit 259200 'Taro Yamada <taro@example.org>' 'Initial import'
printf 'int main(int argc, char **argv) { (void)argc; (void)argv; return 0; }\n' > "$HG/src/main.c"
commit 172800 'Hanako Sato <hanako@example.org>' 'main.c: take arguments'
printf 'Installing\n==========\nmake && make install\n' > "$HG/docs/INSTALL"
commit 18000 'Taro Yamada <taro@example.org>' 'docs: how to install'
HGPORT=$(freeport)
(cd "$HG" && faked hg serve -a 127.0.0.1 -p "$HGPORT" -R "$HG" >"$T/hg.log" 2>&1) &
PIDS="$PIDS $!"
HGB=http://127.0.0.1:$HGPORT/

# ---- nginx: the generated archives, the notebook and the statistics ---------
WEB=$T/web
mkdir -p "$WEB/mail" "$WEB/zim" "$WEB/stats" "$T/nginx"
NGPORT=$(freeport)
rs_nginx_conf "text/html html; text/css css; image/png png;" \
	"		listen 127.0.0.1:$NGPORT; root $WEB;"
("$NGINX" -t -q -c "$T/nginx.conf" -e "$T/nginx/error.log" >"$T/nginx.log" 2>&1 &&
	faked "$NGINX" -c "$T/nginx.conf" -e "$T/nginx/error.log" >>"$T/nginx.log" 2>&1) &
PIDS="$PIDS $!"
NGB=http://127.0.0.1:$NGPORT/

# ---- mhonarc: mail arriving, the archive updated ----------------------------
MN=0
# mail SUBJECT BODY [REPLY_TO]: a message arrives now; mhonarc -add files it
mail() {
	$DYN mail "$T/mbox" "$MN" "$(now)" "$1" "$2" ${3:+"$3"}
	build "$WEB/mail" mhonarc -add -quiet -outdir "$WEB/mail" "$T/mbox"
	MN=$((MN + 1))
}

# ---- zim: a notebook exported to HTML --------------------------------------
NB=$T/notebook
mkdir -p "$NB" "$T/zimhome" "$T/zimrun"
chmod 700 "$T/zimrun"
printf '[Notebook]\nversion=0.4\nname=Club notebook\nhome=Home\n' > "$NB/notebook.zim"
# zpage NAME TEXT: the page as zim saves it
zpage() {
	printf 'Content-Type: text/x-zim-wiki\nWiki-Format: zim 0.6\nCreation-Date: 2026-11-20T10:00:00+09:00\n\n====== %s ======\nCreated Friday 20 November 2026\n\n%s\n' \
		"$1" "$2" > "$NB/$1.txt"
}
zexport() {
	build "$WEB/zim" env HOME="$T/zimhome" XDG_RUNTIME_DIR="$T/zimrun" XDG_CONFIG_HOME="$T/zimhome/.config" \
		XDG_CACHE_HOME="$T/zimhome/.cache" XDG_DATA_HOME="$T/zimhome/.local" \
		zim --export --overwrite --format=html --index-page=index --output="$WEB/zim" "$NB"
}
zpage Home 'Welcome to the club notebook. See [[Prices]], [[Releases]], [[Garden]] and [[Journal]].'
zpage Prices 'Our jam, by the jar:

* plum jam: 120円
* apricot jam: 180円'
zpage Releases 'The club'"'"'s widget, current release: 1.4.2

Download it from the club server.'
zpage Garden 'This year we planted a plum tree by the gate.

Watering: Tuesdays and Fridays.'
zpage Journal 'Saturday: we cleaned teh shed and sorted the jars.'

# ---- awstats: a log, the statistics rebuilt --------------------------------
AW=$T/awstats
mkdir -p "$AW/data"
cat > "$AW/awstats.club.conf" <<EOF
Include "/etc/awstats/awstats.conf"
LogFile="$AW/access.log"
LogFormat=1
SiteDomain="club.example.org"
HostAliases="localhost 127.0.0.1"
DNSLookup=0
DirData="$AW/data"
DirIcons="icon"
Lang="en"
EOF
: > "$AW/access.log"
LASTVISIT=$(($(now) - 86400))
# stats: the day's traffic since the last run, then the cron job's
# awstats.pl -update and the four pages it publishes
stats() {
	$DYN visits "$AW/access.log" "$LASTVISIT" "$(now)" "$1"
	LASTVISIT=$(now)
	build "$WEB/stats" sh -c '
		aw="$1 -config=club -configdir=$2"
		$aw -update >/dev/null &&
		$aw -output -staticlinks > "$3/awstats.club.html" &&
		for o in lasthosts lastrobots urldetail; do
			$aw -output=$o -staticlinks > "$3/awstats.club.$o.html" || exit 1
		done' awstats "$AWSTATS" "$AW" "$WEB/stats"
}

# ---- the site before the baseline -------------------------------------------
mail 'Meeting on 12/3' 'The next meeting is on 12/3 at the hall.'
mail 'Re: Meeting on 12/3' 'I will come, and bring the jars.' 0
mail 'Plum jam recipe' 'Two kilos of plums, one of sugar, a lemon.'
zexport
stats 0

up "${HGB}summary" "$T/hg.log" && ok "hg serve (hgweb) serves on $HGB"
up "${NGB}mail/maillist.html" "$T/nginx.log" && ok "nginx serves the archive, the notebook and the statistics on $NGB"
ls "$WEB/mail/msg00002.html" "$WEB/zim/Journal.html" "$WEB/zim/index.html" "$WEB/stats/awstats.club.urldetail.html" \
	>/dev/null 2>&1 && [ ! -s "$T/build.errors" ] &&
	ok "mhonarc, zim --export and awstats.pl built the first pages" ||
	notok "mhonarc, zim --export and awstats.pl built the first pages" "$(cat "$T/build.errors" 2>/dev/null)" \
		"$(tail -n 5 "$T/build.log")"

# ---- the watched pages -------------------------------------------------------
PAGES="hgweb-summary hgweb-shortlog hgweb-graph hgweb-file hgweb-filelog hgweb-tip
mhonarc-date mhonarc-thread mhonarc-msg0 mhonarc-msg1 mhonarc-msg2
zim-index zim-Home zim-Prices zim-Releases zim-Garden zim-Journal
awstats-main awstats-lasthosts awstats-lastrobots awstats-urldetail"
url() {
	case $1 in
	hgweb-summary) echo "${HGB}summary" ;;
	hgweb-shortlog) echo "${HGB}shortlog" ;;
	hgweb-graph) echo "${HGB}graph" ;;
	hgweb-file) echo "${HGB}file/tip/README" ;;
	hgweb-filelog) echo "${HGB}log/tip/README" ;;
	hgweb-tip) echo "${HGB}rev/tip" ;;
	mhonarc-date) echo "${NGB}mail/maillist.html" ;;
	mhonarc-thread) echo "${NGB}mail/threads.html" ;;
	mhonarc-msg*) echo "${NGB}mail/msg0000${1#mhonarc-msg}.html" ;;
	zim-*) echo "${NGB}zim/${1#zim-}.html" ;;
	awstats-main) echo "${NGB}stats/awstats.club.html" ;;
	awstats-*) echo "${NGB}stats/awstats.club.${1#awstats-}.html" ;;
	esac
}
rs_record

# ---- what people do ------------------------------------------------------------
# a commit is news on every page showing the tip (the file view's is its
# "latest commit" cell: a commit of README shows there as README's new text)
HGALL="hgweb-summary hgweb-shortlog hgweb-graph hgweb-file hgweb-tip"
HGPAGES="hgweb-summary hgweb-shortlog hgweb-graph hgweb-filelog hgweb-tip"
act() {
	# every step: the day's visitors and crawlers, the statistics rebuilt
	stats "$1"
	case $1 in
	1)	zpage Prices 'Our jam, by the jar:

* plum jam: 150円
* apricot jam: 180円'
		real '150円' zim-Prices ;;
	2)	printf 'int main(int argc, char **argv) { int quiet = argc > 1; (void)argv; return quiet ? 0 : 0; }\n' \
			> "$HG/src/main.c"
		commit 0 'Hanako Sato <hanako@example.org>' 'main.c: add a --quiet option' &&
			real 'quiet option' $HGALL
		mail 'Re: Plum jam recipe' 'Add the lemon at the end, not at the start.' 2 &&
			real 'Re: Plum jam recipe' mhonarc-date mhonarc-thread ;;
	3)	zpage Releases 'The club'"'"'s widget, current release: 1.4.3

Download it from the club server.'
		real '1.4.3' zim-Releases ;;
	4)	sed -i 's/^Widget 1.4.2$/Widget 1.4.3/' "$HG/README"
		commit 0 'Taro Yamada <taro@example.org>' 'Release 1.4.3' &&
			real 'Release 1.4.3' $HGPAGES && real '1.4.3' hgweb-file
		mail 'Club fee for 2027' 'The fee stays at 3000円 a year.' &&
			real 'Club fee for 2027' mhonarc-date mhonarc-thread ;;
	5)	zpage Garden 'This year we planted a peach tree by the gate.

Watering: Tuesdays and Fridays.'
		real 'peach' zim-Garden ;;
	6)	sed -i 's/^Price: 120円 a copy.$/Price: 150円 a copy./' "$HG/README"
		commit 0 'Taro Yamada <taro@example.org>' 'README: new pirce' &&
			real 'new pirce' $HGPAGES && real '150円' hgweb-file
		# the archive's nightly rebuild: every page rewritten, same bytes
		build "$WEB/mail" mhonarc -editidx -quiet -outdir "$WEB/mail" ;;
	7)	zpage Journal 'Saturday: we cleaned the shed and sorted the jars.'
		real 'cleaned the shed' zim-Journal ;;
	8)	hg -R "$HG" commit -q --amend -m 'README: new price' &&
			real 'new price' $HGALL hgweb-filelog
		# a reply with the subject of one already archived
		mail 'Re: Meeting on 12/3' 'The hall is booked until 21:00.' 0 &&
			real 'Re: Meeting on 12/3' mhonarc-date mhonarc-thread ;;
	9)	zpage Recipes 'Plum jam: two kilos of plums, one of sugar.'
		real 'Recipes' zim-index ;;
	10)	printf 'Using\n=====\nwidget --quiet FILE\n' > "$HG/docs/GUIDE"
		commit 0 'Hanako Sato <hanako@example.org>' 'docs: a short guide' &&
			real 'a short guide' $HGALL ;;
	11)	zpage Home 'Welcome to the club notebook. See [[Prices]], [[Releases]], [[Garden]], [[Journal]] and [[Recipes]].'
		real 'Recipes' zim-Home
		build "$WEB/mail" mhonarc -editidx -quiet -outdir "$WEB/mail" ;;
	12)	sed -i 's/sorts plum jam jars/sorts peach jam jars/' "$HG/README"
		commit 0 'Taro Yamada <taro@example.org>' 'README: peach, not plum' &&
			real 'peach, not plum' $HGPAGES && real 'peach jam' hgweb-file
		mail 'Peach jam' 'This year we make peach jam too.' &&
			real 'Peach jam' mhonarc-date mhonarc-thread ;;
	13)	: ;;
	esac
	# the notebook is exported at every step (a cron job), edited or not
	zexport
}

# ---- the checks -------------------------------------------------------------------
rs_run realdyn "$T/build.errors" 16

# the corpus does what it says: every zim export rewrote every page (new
# ETag, same text), mhonarc's rebuild rewrote its old messages, hgweb sent
# no ETag (its CSP nonce)
et() { sed -n 's/^etag: *//p' "$R/show.$1/$2"; }
[ "$(et 1 zim-Home)" != "$(et 2 zim-Home)" ] && [ "$(et 5 mhonarc-msg0)" != "$(et 6 mhonarc-msg0)" ] &&
	[ "$(et 3 hgweb-graph)" = none ] &&
	ok "the software rewrote unchanged pages (zim, mhonarc) and hgweb sent no ETag" ||
	notok "the software rewrote unchanged pages (zim, mhonarc) and hgweb sent no ETag" \
		"zim Home: $(et 1 zim-Home) $(et 2 zim-Home); msg0: $(et 5 mhonarc-msg0) $(et 6 mhonarc-msg0); graph: $(et 3 hgweb-graph)"

# show says what it left out of a wiki page exported by zim, and of an
# archived message (no product named: whatever the antenna learned)
for k in zim-Garden mhonarc-msg2; do
	f=$(sed -n 's/^furniture: *//p' "$R/show.$STEPS/$k" | head -n 1)
	case $f in "" | "none found"*) f= ;; esac
	[ -n "$f" ] && ok "show: $k has furniture left out ($f)" ||
		notok "show: $k has furniture left out" "$(head -n 20 "$R/show.$STEPS/$k")"
done
done_testing 24
