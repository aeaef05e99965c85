#!/bin/sh
# The real-software corpus, static sites: Debian 12's jekyll (minima),
# pelican (its simple theme), sphinx (its classic theme), mkdocs (its own
# theme) and hugo (layouts of the usual kind, as it ships none) build a
# small site each (a home page, three posts or doc pages, an archive, a
# category or a tag page where the generator has them, the theme's
# navigation, sidebars, recent posts and footers) under a faked clock; nginx on
# 127.0.0.1 serves them with Last-Modified, ETag and 304s, and the jekyll
# site once more through a server with no validators (tests/realstatic/
# drive.py serve: "dynamic pages").  drive.py rebuilds and edits them as
# people do, with time passing (15 min, an hour, the date turning):
# rebuilds with no change, a new post, small edits of one page each (a
# price, a date, a version, a typo fixed, one word, a row of a list, the
# price again), a nightly rebuild whose only difference is a build stamp,
# and checks the 31 watched pages with the real antenna a minute (of the
# faked clock) after every step's rebuild.
# A page whose own content (the theme's main block) changed must be
# announced in that check, or the next (late), else it is missed; any
# other announcement is a false update; an announced edit's excerpt must
# show the edit, not furniture.  Asserts per kind the corpus's targets:
# false updates <= 1% of the checks of unchanged content, no real edit
# missed, no excerpt of furniture (late ones are printed).
# REALSOFT_SUMMARY=FILE: appends one line per kind there (bench/realsoft.sh):
#   KIND UNCHANGED FALSE REAL ONTIME LATE MISSED BADEXCERPT
# A missing program is a failure, never a skip.
# test-needs: jekyll:jekyll file:/usr/share/rubygems-integration/all/specifications/minima-2.5.1.gemspec:jekyll-theme-minima pelican:pelican sphinx-build:python3-sphinx mkdocs:mkdocs hugo:hugo nginx:nginx faketime:faketime
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
. "$TOP/tests/lib/realsoft.sh"
DRIVE="$PY $TOP/tests/realstatic/drive.py"

tmpdir realstatic
chmod 755 "$T"     # nginx's worker may run as another user
PIDS=
# REALSTATIC_KEEP=1 keeps the directory (the sites, the database) to look into
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; [ -n "${REALSTATIC_KEEP:-}" ] && echo "# kept $T" || rm -rf "$T"' EXIT INT TERM

# ---- the software, or a loud failure -------------------------------------
missing=
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || missing="$missing nginx"
for c in jekyll pelican sphinx-build mkdocs hugo faketime; do
	command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
done
ls /usr/share/rubygems-integration/all/gems/minima-*/_includes/footer.html >/dev/null 2>&1 ||
	missing="$missing minima"
[ -n "$FTLIB" ] || missing="$missing libfaketime.so.1"
if [ -n "$missing" ]; then
	echo "1..1"
	echo "not ok - the real software is installed (missing:$missing; make tests installs it)"
	exit 1
fi

# The servers' clock: real time plus $T/clock's offset (drive.py moves
# it), read by libfaketime at every call: nginx's Date, the python
# server's, and the generators' "generated on" and post dates.
echo "+0" > "$T/clock"
FAKED_ENV="NO_FAKE_STAT=1 TZ=UTC"

# ---- nginx: one server a kind, on 127.0.0.1, its files the built sites ----
mkdir -p "$T/nginx"
{
	echo "daemon off; worker_processes 1; pid $T/nginx/nginx.pid; error_log $T/nginx/error.log;"
	echo "env FAKETIME_TIMESTAMP_FILE; env FAKETIME_NO_CACHE; env NO_FAKE_STAT; env FAKETIME_DONT_FAKE_MONOTONIC; env TZ;"
	echo "events { worker_connections 64; }"
	echo "http { include /etc/nginx/mime.types; default_type application/octet-stream;"
	echo "  access_log $T/nginx/access.log; client_body_temp_path $T/nginx/body;"
	echo "  proxy_temp_path $T/nginx/proxy; fastcgi_temp_path $T/nginx/fastcgi;"
	echo "  uwsgi_temp_path $T/nginx/uwsgi; scgi_temp_path $T/nginx/scgi;"
	for k in jekyll pelican sphinx mkdocs hugo; do
		p=$(freeport)
		eval "PORT_$k=$p"
		mkdir -p "$T/$k/out"
		echo "  server { listen 127.0.0.1:$p; root $T/$k/out; index index.html; }"
	done
	echo "}"
} > "$T/nginx/nginx.conf"
(faked "$NGINX" -p "$T/nginx" -c "$T/nginx/nginx.conf" >"$T/nginx/stderr" 2>&1) &
PIDS="$PIDS $!"
# ---- the jekyll site again, with no validators -------------------------------
(faked $PY "$TOP/tests/realstatic/drive.py" serve "$T/jekyll/out" "$T/dyn.port" >"$T/dyn.log" 2>&1) &
PIDS="$PIDS $!"
i=0
while [ ! -s "$T/dyn.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
PORT_dyn=$(cat "$T/dyn.port" 2>/dev/null)

echo ok > "$T/jekyll/out/up.txt"
up "http://127.0.0.1:$PORT_jekyll/up.txt" "$T/nginx/error.log" && ok "nginx serves on 127.0.0.1"
up "http://127.0.0.1:$PORT_dyn/up.txt" "$T/dyn.log" && ok "the server with no validators serves on 127.0.0.1"
rm -f "$T/jekyll/out/up.txt"

# ---- the scenario: build, act, check, score (drive.py) --------------------
RS_ANTENNA="$A" RS_CLOCK="$T/clock" RS_FTLIB="$FTLIB" RS_RESULTS="$T/results" RS_TAP="$T/tap" \
	RS_BASE_JEKYLL="http://127.0.0.1:$PORT_jekyll" RS_BASE_PELICAN="http://127.0.0.1:$PORT_pelican" \
	RS_BASE_SPHINX="http://127.0.0.1:$PORT_sphinx" RS_BASE_MKDOCS="http://127.0.0.1:$PORT_mkdocs" \
	RS_BASE_HUGO="http://127.0.0.1:$PORT_hugo" RS_BASE_JEKYLL_DYN="http://127.0.0.1:$PORT_dyn" \
	$DRIVE run "$T" 2>"$T/drive.err"
rc=$?
is "the sites built, edited and checked at every step (drive.py's exit)" "$rc" 0
[ $rc = 0 ] || sed 's/^/#   /' "$T/drive.err" | tail -n 20
is "baseline: the watched pages fetched without error" "$(sed -n 's/^BASELINE_ERRORS //p' "$T/tap")" 0

# ---- the servers were what they claim -----------------------------------------
U=http://127.0.0.1:$PORT_pelican/market.html
H=$($DRIVE probe "$U")
LM=$(printf '%s\n' "$H" | sed -n 's/^Last-Modified: //p' | tr -d '\r')
printf '%s\n' "$H" | grep -q '^ETag: ' && [ -n "$LM" ] &&
	ok "nginx sends Last-Modified and ETag" || notok "nginx sends Last-Modified and ETag" "$H"
is "nginx answers 304 to If-Modified-Since" "$($DRIVE probe "$U" "$LM" | sed -n 1p)" 304
H=$($DRIVE probe "http://127.0.0.1:$PORT_dyn/" "$LM")
printf '%s\n' "$H" | grep -Eqi '^(Last-Modified|ETag):' || [ "$(printf '%s\n' "$H" | sed -n 1p)" != 200 ] &&
	notok "the dynamic server sends no validators and never 304" "$H" ||
	ok "the dynamic server sends no validators and never 304"

# the servers' Date is the faked clock's (the day drive.py left it at)
OFF=$(tr -d '+\n' < "$T/clock")
DAY=$(LC_ALL=C date -u -d "@$(($(date +%s) + OFF))" '+%d %b %Y')
for s in "nginx:$U" "the dynamic server:http://127.0.0.1:$PORT_dyn/"; do
	D=$($DRIVE probe "${s#*:}" | sed -n 's/^Date: //p')
	case $D in
	*"$DAY"*) ok "${s%%:*} runs on the faked clock (Date: $D)" ;;
	*) notok "${s%%:*} runs on the faked clock" "Date: $D, want the day $DAY" ;;
	esac
done

# ---- the figures, kind by kind -------------------------------------------------
# Each kind's real edits: the new post on its listing pages (jekyll's
# home; pelican's index, archives and category; sphinx's and mkdocs's
# index; hugo's home and tag page) and seven edits of one page each.
real_of() {
	case $1 in pelican) echo 10 ;; hugo) echo 9 ;; *) echo 8 ;; esac
}
set -- $(grep '^STEPS ' "$T/tap")
[ $# = 6 ] && is "each check counted once ($2 steps of $4 pages): unchanged, a real edit or the next check of one" \
	"$(awk -v c="$6" '{ s += $2 + $4 } END { print s + c }' "$T/results")" "$(($2 * $4))" ||
	notok "each check counted once" "$(cat "$T/tap")"
while read -r kind un fa re ot la mi bad; do
	echo "# $kind: $un checks of unchanged content, $fa false updates, $re real edits, $ot on time, $la late, $mi missed, $bad bad excerpts"
	is "$kind: the scenario's real edits" "$re" "$(real_of "$kind")"
	check "$kind: false updates $fa of $un checks of unchanged content (<= 1%)" [ $((fa * 100)) -le "$un" ]
	is "$kind: every real edit announced in its own check or the next ($ot on time, $la late, $mi missed)" "$mi" 0
	# (pelican's archive page, its titles beside its dates, was a gap
	# until a list's item alone stopped being a page's main content)
	check "$kind: no excerpt made of furniture, each shows its edit ($bad bad)" [ "$bad" -eq 0 ]
	if [ -n "${REALSOFT_SUMMARY:-}" ]; then
		echo "$kind $un $fa $re $ot $la $mi $bad" >> "$REALSOFT_SUMMARY"
	fi
done < "$T/results"
is "six kinds scored" "$(grep -c . "$T/results")" 6
done_testing 34
