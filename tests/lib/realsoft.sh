# tests/lib/realsoft.sh: what the real-software suites share (tests/realsoft,
# realstatic, realdyn, realredmine), sourced after tests/lib/antenna.sh.
#
# FTLIB          libfaketime's library, or "" (the suite names it missing)
# faked CMD...   CMD under the suite's clock, in this process (exec): run it
#                as (faked CMD) & and $! is CMD's own pid.  The clock is
#                real time plus $T/clock's offset, read at every call;
#                FAKED_ENV adds the suite's own variables (NO_FAKE_STAT=1,
#                TZ=UTC)
# freeport       a free TCP port on 127.0.0.1
# up URL LOG     waits (at most 20 s) until a server answers URL, else a
#                failure with LOG's tail, and the suite ends
# rs_clock       the clock of the generated-site suites (realdyn, realheld):
#                fakedrun CMD... runs CMD on it (a child, not exec), clock
#                SECONDS moves it to real time + SECONDS, now prints its
#                epoch, build DIR CMD... runs a generator on it and stamps
#                the files it wrote under DIR with the faked time
FTLIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -n 1)
FAKED_ENV=${FAKED_ENV:-}
faked() {
	# shellcheck disable=SC2086 # FAKED_ENV: VAR=VALUE words
	exec env LD_PRELOAD="$FTLIB" FAKETIME_TIMESTAMP_FILE="$T/clock" FAKETIME_NO_CACHE=1 \
		FAKETIME_DONT_FAKE_MONOTONIC=1 $FAKED_ENV "$@"
}
freeport() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
up() {
	i=0
	while [ $i -lt 200 ]; do
		"$HTTPGET" "$1" >/dev/null 2>&1 && return 0
		sleep 0.1
		i=$((i + 1))
	done
	notok "server at $1 started" "$(tail -n 5 "$2" 2>/dev/null)"
	exit 1
}

# The software's clock: real time plus $T/clock's offset (libfaketime reads
# the file at every call).  The kernel stamps a written file with the real
# time, so after each build the files it wrote get the faked time (stamp):
# nginx's Last-Modified and ETag are then those of the faked clock.
rs_clock() {
	OFF=0
	echo "+0" > "$T/clock"
}
fakedrun() {
	env LD_PRELOAD="$FTLIB" FAKETIME_TIMESTAMP_FILE="$T/clock" FAKETIME_NO_CACHE=1 \
		FAKETIME_DONT_FAKE_MONOTONIC=1 "$@"
}
clock() { OFF=$1; echo "+$OFF" > "$T/clock"; }
now() { echo $(($(date +%s) + OFF)); }
# build DIR CMD...: CMD (on the faked clock) rebuilds files under DIR; the
# files it wrote are stamped with the faked time; a failure is noted in
# $T/build.errors (the suite checks it), the output kept in $T/build.log
build() {
	bd=$1; shift
	find "$bd" -type f -printf '%p %T@\n' > "$T/before"
	fakedrun "$@" >>"$T/build.log" 2>&1 || echo "build failed: $*" >>"$T/build.errors"
	find "$bd" -type f -printf '%p %T@\n' > "$T/after"
	$PY "$TOP/tests/realdyn/dyn.py" changed "$T/before" "$T/after" | while IFS= read -r f; do
		touch -d "@$(now)" "$f"
	done
}

# rs_record: where the scored run keeps its record, $R (REALDYN_KEEP, or
# $T/rec) with the pages watched ($PAGES, url KEY), and the steps' times:
# STEP_MIN, each step's minutes after the baseline (15 minutes, an hour,
# 2 minutes apart, across the date turn: UTC at +600, JST at +1440).
# real KEY WANT...: KEY's own content changed in this step ($S); its
# excerpt must show WANT.
rs_record() {
	R=${REALDYN_KEEP:-$T/rec}
	mkdir -p "$R"
	: > "$R/pages"
	for k in $PAGES; do printf '%s\t%s\n' "$k" "$(url "$k")" >> "$R/pages"; done
	STEP_MIN="15 30 90 150 152 210 600 1440 1455 1515 1517 1575 1635"
	STEPS=13
}
real() { w=$1; shift; for k in "$@"; do printf '%s\t%s\n' "$k" "$w" >> "$R/real.$S"; done; }

# The scored run of tests/realdyn and tests/realredmine (dyn.py score):
# rs_steps DB: a baseline check, then for each minute of $STEP_MIN the
# clock moved there, `act S` (the suite's), and one check a little over a
# second later (HTTP dates are whole seconds: a rebuilt file never
# answers 304 by chance).  Each check writes into $R: log.S, show.S/KEY,
# ann.S (KEY, excerpt, how, for each page announced) and, with
# REALDYN_SNAP=1, text.S/KEY (and KEY.diff: `antenna diff`, the last
# change the antenna found in the page's text).  Needs url KEY, $PAGES, $DYN, clock, now.
rs_check() {
	[ -n "${REALDYN_SNAP:-}" ] && now > "$R/now.$2"
	$A -d "$1" update --force --now "$(now)" -v >"$T/out" 2>"$T/log"
	cp "$T/log" "$R/log.$2"
	: > "$R/ann.$2"
	mkdir -p "$R/show.$2"
	[ -n "${REALDYN_SNAP:-}" ] && mkdir -p "$R/text.$2"
	for k in $PAGES; do
		u=$(url "$k")
		$A -d "$1" show "$u" > "$R/show.$2/$k" 2>&1
		if [ -n "${REALDYN_SNAP:-}" ]; then
			$DYN snap "$R/text.$2/$k" "$u"
			$A -d "$1" diff --color=never "$u" > "$R/text.$2/$k.diff" 2>&1
		fi
		if grep -qF "$u: updated" "$T/log"; then
			printf '%s\t%s\t%s\n' "$k" "$(sed -n 's/^excerpt: *//p' "$R/show.$2/$k" | head -n 1)" \
				"$(grep -F "$u: updated" "$T/log" | head -n 1 | sed "s|^$u: ||")" >> "$R/ann.$2"
		fi
	done
}
rs_steps() {
	START=$(date +%s)
	# each page read once in turn first, as a live site's pages have been:
	# hg serve answered one 500 in a cold, concurrent first read (its caches
	# written by several threads at once), never after
	for k in $PAGES; do "$HTTPGET" "$(url "$k")" >/dev/null 2>&1 || :; done
	rs_check "$1" 0
	$A -d "$1" list --format jsonl | grep -v '"last_error":null' > "$T/errs"
	is "baseline: the $(echo $PAGES | wc -w) pages fetched without error" "$(grep -c . "$T/errs")" 0
	sed 's/^/#   /' "$T/errs"
	[ -s "$T/errs" ] && tail -n 20 "$T"/*.log 2>/dev/null | sed 's/^/#   /'
	S=1
	for m in $STEP_MIN; do
		clock $((m * 60))
		: > "$R/real.$S"
		act $S
		sleep 1.1
		rs_check "$1" $S
		S=$((S + 1))
	done
}
# rs_run TITLE ERRORS NTAP: the checks every real-software suite runs: a
# new antenna watching $PAGES, the steps (act), the file where the
# software's builds or API calls wrote their failures (ERRORS, "" for
# none), then the score's NTAP lines of TAP
rs_run() {
	DB=$T/antenna.db
	$A -d "$DB" init --title "$1" --base http://example.com/ant/ >/dev/null
	for k in $PAGES; do $A -d "$DB" add "$(url "$k")" >/dev/null || notok "add $k"; done
	rs_steps "$DB"
	if [ -n "$2" ]; then
		[ ! -s "$2" ] && ok "every build and call of the run succeeded" ||
			notok "every build and call of the run succeeded" "$(cat "$2")" \
				"$(tail -n 5 "$T/build.log" 2>/dev/null)"
	fi
	echo "# $STEPS steps checked in $(($(date +%s) - START)) s"
	$DYN score "$R" "$STEPS" ${REALSOFT_SUMMARY:+"$REALSOFT_SUMMARY"} > "$T/score"
	tap_from "$T/score" "$3"
}
# rs_nginx_conf TYPES SERVER: writes $T/nginx.conf, nginx in the
# foreground on libfaketime's clock (nginx clears its environment for its
# processes: env keeps libfaketime's), its temporary files under
# $T/nginx, serving TYPES (an nginx types list) and SERVER (a server
# block's inside)
rs_nginx_conf() {
	cat > "$T/nginx.conf" <<EOF
env LD_PRELOAD;
env FAKETIME_TIMESTAMP_FILE;
env FAKETIME_NO_CACHE;
env FAKETIME_DONT_FAKE_MONOTONIC;
daemon off;
master_process off;
worker_processes 1;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $T/nginx; proxy_temp_path $T/nginx; fastcgi_temp_path $T/nginx;
	uwsgi_temp_path $T/nginx; scgi_temp_path $T/nginx;
	types { $1 }
	default_type application/octet-stream;
	server {
$2
	}
}
EOF
}
