# bench/antenna.sh: `antenna update` against urlwatch, and `antenna publish`;
# sourced by bench/run.sh.
#
# Pages are the loopback test server's generated /bench/N.html (about
# 1.5 KB each, with ETag and Last-Modified); /_control/bump?every=2 changes
# every even page, so each timed run finds half of the pages changed since
# its own previous run.  The pages are added with bench/seed.c (the store
# API `antenna add` uses, one transaction for all) because thousands of
# `antenna add` processes would take longer than the benchmark.
#
# update: `antenna update --force --jobs 64 --per-host 64` against urlwatch
#   (10 worker threads, its fixed default) over the same N_PAGES URLs,
#   both primed by one untimed run, runs interleaved.  --per-host 64:
#   every page is on the one loopback host, and the default of 2 per host
#   (politeness towards real servers) would measure the limit, not the
#   program.  The server's own CPU time during the timed runs is reported
#   to show it is not the bottleneck.  Our wall time holds the text rule's
#   pause before it fetches the changed pages again (--refetch-pause, 2 s),
#   which urlwatch does not do: the notes add the CPU ratio.  (A page that
#   held still at its last two checks is not fetched again; the changed
#   half here changes at every run, so it never is still.)
# publish: `antenna publish DIR` of a database of N_PUBLISH pages that one
#   real `antenna update` checked (so every page has an update and an Atom
#   event): the first publish into an empty DIR (all archives written),
#   from a fresh copy of the database each time; then a second publish.
. "$TOP/bench/floor.sh"
if want update || want update-floor || want update-h2 || want publish || want update-feeds || want update-100k ||
	{ [ "${BENCH_BIG:-0}" = 1 ] && want update-1m; }; then
	if [ ! -x "$ANTENNA" ] || [ ! -x "$SERVER" ]; then
		skip update "antenna or tests/tools/testserver not built"
	else
		W=$OUT/antenna
		rm -rf "$W"
		start_server "$W" 1800
		SPID=$SRV_PID BASEURL=$SRV_URL
		ctl() { "$TOP/$BUILD/tools/httpget" -o /dev/null "$BASEURL/_control/$1" || say "server control '$1' failed"; }
		# CPU seconds the server has used so far (utime + stime).
		srvcpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$SPID/stat"; }
		UPD="--force --jobs 64 --per-host 64"
	fi
fi

if want update && [ -n "${SPID:-}" ]; then
	DB=$W/update.db
	"$ANTENNA" -d "$DB" init --title bench --base http://antenna.example.jp/ > /dev/null &&
		"$TOP/$BUILD/bench/seed" "$DB" "$BASEURL/bench/" "$N_PAGES" || say "update: cannot create the database"
	i=0
	while [ $i -lt "$N_PAGES" ]; do
		printf 'name: p%d\nurl: %s/bench/%d.html\n---\n' $i "$BASEURL" $i
		i=$((i + 1))
	done > "$W/urls.yaml"
	mkdir -p "$W/home"
	# urlwatch keeps its files where HOME says unless told: point both at $W.
	UW="HOME='$W/home' urlwatch --urls '$W/urls.yaml' --config '$W/urlwatch.yaml' --cache '$W/cache.db' --hooks '$W/hooks.py'"
	"$ANTENNA" -d "$DB" update $UPD > "$W/update.prime" 2>&1 || say "update: priming run failed"
	have_uw=0
	if command -v urlwatch > /dev/null 2>&1; then
		sh -c "$UW" > /dev/null 2>&1 && have_uw=1 || say "update: urlwatch priming run failed"
	fi
	cpu0=$(srvcpu) i=0
	while [ $i -lt "$REPS" ]; do
		ctl "bump?every=2"
		"$TM" "$R/update.ours" "$ANTENNA" -d "$DB" update $UPD > "$W/update.out" 2>&1 ||
			say "update: exited $?"
		if [ $have_uw = 1 ]; then
			ctl "bump?every=2"
			"$TM" "$R/update.base" sh -c "$UW > '$W/urlwatch.out' 2>&1" || say "urlwatch: exited $?"
		fi
		i=$((i + 1))
	done
	cpu1=$(srvcpu)
	o=$(median "$R/update.ours" 1) m=$(mib "$R/update.ours")
	got=$(tail -n 1 "$W/update.out")
	if [ $have_uw = 1 ]; then
		b=$(median "$R/update.base" 1)
		# The target is "at least 50x faster": urlwatch time / ours >= 50.
		sp=$(ratio "$b" "$o")
		v=FAIL; le 50 "$(ratio3 "$b" "$o")" && v=PASS
		le "$m" 64 || v=FAIL
		[ "$(rcs "$R/update.ours")" = 0 ] || v=FAIL
		row update "$o" "$b" "1/$sp" "<= 1/50" "$v" "$m" \
			"$N_PAGES pages, half changed; ours: $got; urlwatch: $(grep -cE '^[0-9]+\. CHANGED:' "$W/urlwatch.out") CHANGED, rss $(mib "$R/update.base") MiB; cpu ours/urlwatch $(median "$R/update.ours" 4)/$(median "$R/update.base" 4) s = 1/$(ratio "$(median "$R/update.base" 4)" "$(median "$R/update.ours" 4)"); server cpu $cpu0->$cpu1 s over all timed runs; wall ours $(spread "$R/update.ours"), urlwatch $(spread "$R/update.base"); rss < 64 MiB"
	else
		row update "$o" - - - INFO "$m" "urlwatch not installed; ours: $got"
	fi
fi

# update-floor, update-floor-off, update-first: `antenna update --force
#   --jobs 64 --per-host 64` of N_FLOOR pages (10,000; quick 2,000)
#   against the fetch floor: curl --parallel --parallel-max 64 getting the
#   same pages to /dev/null (libcurl's multi interface, no analysis, no
#   database), on nginx (bench/floor.sh).  update-floor: every feature on
#   (the diff texts, robots.txt, trust), half the pages changed in a word
#   before each run; update-floor-off: the same with the diff texts and
#   robots.txt off (floor_off), its own database; the three commands run
#   in turn each round (curl, on, off), each after its own change of half
#   the pages.  Targets: cpu <= 1.1x the floor's, wall <= 1.2x.  The notes
#   add the database's growth per change found (bytes of file over the
#   rounds / updates found).  update-first: the first run of N_FLOOR new
#   pages (a fresh copy of the seeded database each time) against curl
#   over the same pages, interleaved; target <= 1.3x (wall and cpu).
# h2_ca DIR: the bench's own CA and a certificate for 127.0.0.1 signed by it
h2_ca() {
	mkdir -p "$1"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=bench-ca \
		-keyout "$1/ca.key" -out "$1/ca.pem" > "$1/log" 2>&1 &&
	openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout "$1/srv.key" \
		-out "$1/srv.csr" >> "$1/log" 2>&1 &&
	printf 'subjectAltName=IP:127.0.0.1\n' > "$1/ext" &&
	openssl x509 -req -in "$1/srv.csr" -CA "$1/ca.pem" -CAkey "$1/ca.key" -CAcreateserial \
		-days 2 -extfile "$1/ext" -out "$1/srv.pem" >> "$1/log" 2>&1
}
# floor_rounds NAME DB CURLCMD OUT [NAME2 DB2 OUT2]: REPS rounds, curl
# then ours (then the second database's), half the pages changed before
# each run (times in $R/NAME.base, $R/NAME.ours, $R/NAME2.ours; the last
# outputs in OUT, OUT2; the updates found in $R/NAME.found), after one
# priming run of each
floor_rounds() {
	"$ANTENNA" -d "$2" update $UPD > "$4" 2>&1 || say "$1: priming run failed"
	[ -n "${5:-}" ] && { "$ANTENNA" -d "$6" update $UPD > "$7" 2>&1 || say "$5: priming run failed"; }
	sh -c "$3" || say "$1: curl priming run failed"
	i=0 v=1
	: > "$R/$1.found"
	while [ $i -lt "$REPS" ]; do
		floor_pages "$W/floor" "$N_FLOOR" $v 2; v=$((v + 1))
		"$TM" "$R/$1.base" sh -c "$3" || say "$1: curl exited $?"
		floor_pages "$W/floor" "$N_FLOOR" $v 2; v=$((v + 1))
		"$TM" "$R/$1.ours" "$ANTENNA" -d "$2" update $UPD > "$4" 2>&1 || say "$1: exited $?"
		sed -n 's/.* \([0-9]*\) updated.*/\1/p' "$4" | tail -n 1 >> "$R/$1.found"
		if [ -n "${5:-}" ]; then
			floor_pages "$W/floor" "$N_FLOOR" $v 2; v=$((v + 1))
			"$TM" "$R/$5.ours" "$ANTENNA" -d "$6" update $UPD > "$7" 2>&1 || say "$5: exited $?"
		fi
		i=$((i + 1))
	done
}
# db_used DB: the bytes of DB's pages in use (its WAL checkpointed first)
db_used() {
	sqlite3 "$1" "PRAGMA wal_checkpoint(TRUNCATE);" > /dev/null 2>&1
	sqlite3 "$1" "SELECT (p.page_count - f.freelist_count) * s.page_size FROM pragma_page_count p, pragma_freelist_count f, pragma_page_size s"
}
# floor_row NAME OURS_FILE BASE_FILE NOTE: the row of a floor comparison,
# cpu <= 1.1x and wall <= 1.2x (the verdict on both)
floor_row() {
	o=$(median "$2" 1) b=$(median "$3" 1) co=$(median "$2" 4) cb=$(median "$3" 4)
	v=$(verdict "$(ratio3 "$co" "$cb")" 1.1)
	le "$(ratio3 "$o" "$b")" 1.2 || v=FAIL
	le "$(mib "$2")" 64 || v=FAIL
	[ "$(rcs "$2")" = 0 ] || v=FAIL
	row "$1" "$o" "$b" "$(ratio "$o" "$b")" "<=1.2,1.1" "$v" "$(mib "$2")" \
		"wall ratio; cpu $co/$cb s = $(ratio "$co" "$cb") (<= 1.1); wall ours $(spread "$2"), curl $(spread "$3"); $4"
}
if want update-floor && [ -n "${SPID:-}" ]; then
	rm -rf "$W/floor"; mkdir -p "$W/floor"
	floor_pages "$W/floor" "$N_FLOOR" 0 1
	if ! command -v nginx > /dev/null 2>&1; then
		skip update-floor "nginx not installed (make bench installs nginx-light as root)"
	elif ! floor_nginx; then
		skip update-floor "nginx did not start: $(tail -n 1 "$W/ngx/start.err")"
	else
		DBFL=$W/floor.db DBOFF=$W/flooroff.db
		floor_setup update-floor "$DBFL" "$FLOOR_URL" "$W/curl.cfg"
		floor_setup update-floor-off "$DBOFF" "$FLOOR_URL" "$W/curl.cfg"
		floor_off "$DBOFF"
		# update-first's database: seeded, never checked
		cp "$DBFL" "$W/first.db"
		CURLF="curl -s --no-progress-meter --parallel --parallel-max 64 -K '$W/curl.cfg' > /dev/null 2>&1"
		floor_rounds update-floor "$DBFL" "$CURLF" "$W/floor.out" update-floor-off "$DBOFF" "$W/flooroff.out"
		# the growth: one more run, the database's pages in use before and after
		b0=$(db_used "$DBFL")
		floor_pages "$W/floor" "$N_FLOOR" $v 2
		"$ANTENNA" -d "$DBFL" update $UPD > "$W/grow.out" 2>&1 || say "update-floor: growth run exited $?"
		grow=$(awk -v a="$b0" -v b="$(db_used "$DBFL")" -v n="$(sed -n 's/.* \([0-9]*\) updated.*/\1/p' "$W/grow.out")" \
			'BEGIN { if (n > 0) printf "%d", (b - a) / n; else print "-" }')
		floor_row update-floor "$R/update-floor.ours" "$R/update-floor.base" \
			"diff texts, robots.txt, trust on; $N_FLOOR pages on nginx, half changed; db growth $grow B per change found; ours: $(tail -n 1 "$W/floor.out" | tr '/;' '  ')"
		floor_row update-floor-off "$R/update-floor-off.ours" "$R/update-floor.base" \
			"diff texts and robots.txt off, the same rounds; ours: $(tail -n 1 "$W/flooroff.out" | tr '/;' '  ')"
		# the first run: a fresh copy of the seeded database each time
		floor_pages "$W/floor" "$N_FLOOR" 0 1
		i=0
		while [ $i -lt "$REPS" ]; do
			rm -f "$W/firstrun.db"*
			cp "$W/first.db" "$W/firstrun.db"
			"$TM" "$R/update-first.base" sh -c "$CURLF" || say "update-first: curl exited $?"
			"$TM" "$R/update-first.ours" "$ANTENNA" -d "$W/firstrun.db" update $UPD > "$W/first.out" 2>&1 ||
				say "update-first: exited $?"
			i=$((i + 1))
		done
		rm -f "$W/firstrun.db"*
		kill $NGX_PID 2> /dev/null; wait $NGX_PID 2> /dev/null
		o=$(median "$R/update-first.ours" 1) b=$(median "$R/update-first.base" 1)
		co=$(median "$R/update-first.ours" 4) cb=$(median "$R/update-first.base" 4)
		v=$(verdict "$(ratio3 "$o" "$b")" 1.3)
		le "$(ratio3 "$co" "$cb")" 1.3 || v=FAIL
		[ "$(rcs "$R/update-first.ours")" = 0 ] || v=FAIL
		row update-first "$o" "$b" "$(ratio "$o" "$b")" "<= 1.3" "$v" "$(mib "$R/update-first.ours")" \
			"wall ratio; cpu $co/$cb s = $(ratio "$co" "$cb") (<= 1.3); the first run of $N_FLOOR new pages; wall ours $(spread "$R/update-first.ours"), curl $(spread "$R/update-first.base"); ours: $(tail -n 1 "$W/first.out")"
	fi
fi

# update-h2: `antenna update --force --jobs 64 --per-host 64` of N_FLOOR
#   pages (10,000; quick 2,000) over HTTP/2 and TLS (nginx, a certificate of
#   the bench's own CA made with openssl, trusted through CURL_CA_BUNDLE)
#   against the floor measured in the same run: curl --http2 --parallel
#   --parallel-max 64 getting the same URLs to /dev/null (multiplexed too).
#   Half the pages changed before each run, runs interleaved, as
#   update-floor.  The antenna's one connection pool serves every batch.
#   Targets: cpu <= 1.1x the floor's, wall <= 1.2x.
if want update-h2 && [ -n "${SPID:-}" ]; then
	rm -rf "$W/floor" "$W/tls"; mkdir -p "$W/floor"
	floor_pages "$W/floor" "$N_FLOOR" 0 1
	if ! command -v nginx > /dev/null 2>&1 || ! command -v openssl > /dev/null 2>&1; then
		skip update-h2 "nginx or openssl not installed"
	elif ! h2_ca "$W/tls"; then
		skip update-h2 "openssl could not make the CA: $(tail -n 1 "$W/tls/log")"
	elif ! floor_nginx; then
		skip update-h2 "nginx did not start: $(tail -n 1 "$W/ngx/start.err")"
	else
		DBH=$W/h2.db
		floor_setup update-h2 "$DBH" "$FLOOR_H2_URL" "$W/curlh2.cfg"
		export CURL_CA_BUNDLE="$W/tls/ca.pem"
		CURLH="curl -s --no-progress-meter --http2 --parallel --parallel-max 64 -K '$W/curlh2.cfg' > /dev/null 2>&1"
		floor_rounds update-h2 "$DBH" "$CURLH" "$W/h2.out"
		unset CURL_CA_BUNDLE
		kill $NGX_PID 2> /dev/null; wait $NGX_PID 2> /dev/null
		o=$(median "$R/update-h2.ours" 1) b=$(median "$R/update-h2.base" 1)
		co=$(median "$R/update-h2.ours" 4) cb=$(median "$R/update-h2.base" 4)
		v=$(verdict "$(ratio3 "$co" "$cb")" 1.1)
		le "$(ratio3 "$o" "$b")" 1.2 || v=FAIL
		[ "$(rcs "$R/update-h2.ours")" = 0 ] || v=FAIL
		row update-h2 "$o" "$b" "$(ratio "$o" "$b")" "<=1.2,1.1" "$v" "$(mib "$R/update-h2.ours")" \
			"wall ratio (cpu <= 1.1x: $co/$cb s = $(ratio "$co" "$cb")); $N_FLOOR pages, HTTP/2 over TLS on nginx; wall ours $(spread "$R/update-h2.ours"), curl $(spread "$R/update-h2.base"); ours: $(tail -n 1 "$W/h2.out")"
	fi
fi

# update-feeds: `antenna update --force` over N_PAGES pages that
#   each advertise an RSS 2.0 feed (/benchf/N.html and N.rss, 10 items; a
#   bump changes the page and its feed's newest item), against the same
#   run over the same pages without feeds (/bench/N.html), runs
#   interleaved after each bump; both databases primed by two untimed runs
#   (the second reads the feeds the first found).  Target: <= 1.5x.
if want update-feeds && [ -n "${SPID:-}" ]; then
	DBN=$W/nofeed.db DBF=$W/feeds.db
	rm -f "$DBN"* "$DBF"*
	for d in "$DBN" "$DBF"; do
		"$ANTENNA" -d "$d" init --title bench --base http://antenna.example.jp/ > /dev/null ||
			say "update-feeds: cannot create the database"
	done
	"$TOP/$BUILD/bench/seed" "$DBN" "$BASEURL/bench/" "$N_PAGES" && "$TOP/$BUILD/bench/seed" "$DBF" "$BASEURL/benchf/" "$N_PAGES" ||
		say "update-feeds: cannot seed the databases"
	for k in 1 2; do
		"$ANTENNA" -d "$DBN" update $UPD > /dev/null 2>&1 || say "update-feeds: priming run failed"
		"$ANTENNA" -d "$DBF" update $UPD > "$W/feeds.prime" 2>&1 || say "update-feeds: priming run failed"
	done
	i=0
	while [ $i -lt "$REPS" ]; do
		ctl "bump?every=2"
		"$TM" "$R/update-feeds.base" "$ANTENNA" -d "$DBN" update $UPD > "$W/nofeed.out" 2>&1 ||
			say "update-feeds: no-feed run exited $?"
		"$TM" "$R/update-feeds.ours" "$ANTENNA" -d "$DBF" update $UPD > "$W/feeds.out" 2>&1 ||
			say "update-feeds: feed run exited $?"
		i=$((i + 1))
	done
	o=$(median "$R/update-feeds.ours" 1) b=$(median "$R/update-feeds.base" 1)
	v=$(verdict "$(ratio3 "$o" "$b")" 1.5)
	[ "$(rcs "$R/update-feeds.ours")" = 0 ] || v=FAIL
	row update-feeds "$o" "$b" "$(ratio "$o" "$b")" "<= 1.5" "$v" "$(mib "$R/update-feeds.ours")" \
		"$N_PAGES pages with feeds: $(tail -n 1 "$W/feeds.out"); without: $(tail -n 1 "$W/nofeed.out"); cpu $(median "$R/update-feeds.ours" 4)/$(median "$R/update-feeds.base" 4) s; wall feeds $(spread "$R/update-feeds.ours"), no feeds $(spread "$R/update-feeds.base")"
fi

if want publish && [ -n "${SPID:-}" ]; then
	DB=$W/publish.db
	"$ANTENNA" -d "$DB" init --title bench --base http://antenna.example.jp/ > /dev/null &&
		"$TOP/$BUILD/bench/seed" "$DB" "$BASEURL/bench/" "$N_PUBLISH" 20 || say "publish: cannot create the database"
	"$ANTENNA" -d "$DB" update $UPD > "$W/publish.prime" 2>&1 || say "publish: update failed"
	i=0
	while [ $i -lt "$REPS" ]; do
		rm -rf "$W/site" "$W/pubwork"; mkdir -p "$W/pubwork"
		cp "$DB"* "$W/pubwork/"
		sync    # publish syncs the file system (afile_syncdir): not our copy's pages
		"$TM" "$R/publish.ours" "$ANTENNA" -d "$W/pubwork/publish.db" publish "$W/site" > /dev/null ||
			say "publish: exited $?"
		"$TM" "$R/publish2.ours" "$ANTENNA" -d "$W/pubwork/publish.db" publish "$W/site" > /dev/null ||
			say "publish (again): exited $?"
		i=$((i + 1))
	done
	o=$(median "$R/publish.ours" 1)
	v=$(verdict "$o" 1.0)
	idx=$(wc -c < "$W/site/index.html" 2>/dev/null)
	le "${idx:-9999999}" 500000 || v=FAIL
	[ "$(rcs "$R/publish.ours")" = 0 ] || v=FAIL
	row publish "$o" - - "< 1 s" "$v" "$(mib "$R/publish.ours")" \
		"$N_PUBLISH pages ($(tail -n 1 "$W/publish.prime")): first publish, $(ls "$W/site/archive" 2>/dev/null | wc -l) archives, index.html $idx bytes (<= 500 KB); cpu $(median "$R/publish.ours" 4) s; wall $(spread "$R/publish.ours")"
	o=$(median "$R/publish2.ours" 1)
	v=$(verdict "$o" 1.0)
	row publish-again "$o" - - "< 1 s" "$v" "$(mib "$R/publish2.ours")" \
		"the same site published again (archives already written); cpu $(median "$R/publish2.ours" 4) s; wall $(spread "$R/publish2.ours")"
fi
# update-100k, update-1m (hub scale): `antenna update --force --jobs 64
#   --per-host 64` of 100,000 pages (quick: 20,000) and, with BENCH_BIG=1,
#   1,000,000 pages, against 10,000 pages in the same run: each run on a
#   fresh copy of a seeded database (every page's first check, the same
#   work per page at every size).  The ratio is the CPU time per page over
#   that at 10,000 (target <= 1.10: no cost grows with the number of
#   pages); the peak RSS must stay under 32 MiB (the pages are read in
#   batches, ant_update.h ANT_UPDATE_PAGE_BATCH).  The notes add the
#   database's bytes per page after the run.  1M pages take minutes (the
#   test server answers about 5,000 requests a second): one run.
hub_db() { # hub_db N: $W/hubN.db, seeded once per bench run
	[ -f "$W/hub$1.db" ] && return 0
	"$ANTENNA" -d "$W/hub$1.db" init --title bench --base http://antenna.example.jp/ > /dev/null &&
		"$TOP/$BUILD/bench/seed" "$W/hub$1.db" "$BASEURL/bench/" "$1" || say "hub: cannot seed $1 pages"
}
hub_run() { # hub_run N TAG: one timed update of a fresh copy of hubN.db
	rm -f "$W/hubrun.db"*
	cp "$W/hub$1.db" "$W/hubrun.db"
	"$TM" "$R/$2" "$ANTENNA" -d "$W/hubrun.db" update $UPD > "$W/$2.out" 2>&1 || say "$2: exited $?"
	wc -c < "$W/hubrun.db" > "$W/$2.bytes"
	rm -f "$W/hubrun.db"*
}
hub_row() { # hub_row NAME N TAG: the row of TAG against hub10k
	c10=$(median "$R/hub10k" 4) c=$(median "$R/$3" 4) m=$(mib "$R/$3")
	us=$(awk -v c="$c" -v n="$2" 'BEGIN { printf "%.1f", c * 1e6 / n }')
	us10=$(awk -v c="$c10" 'BEGIN { printf "%.1f", c * 1e6 / 10000 }')
	r=$(ratio3 "$us" "$us10")
	v=$(verdict "$r" 1.10)
	le "$m" 32 || v=FAIL
	[ "$(rcs "$R/$3")" = 0 ] || v=FAIL
	row "$1" "$(median "$R/$3" 1)" "$(median "$R/hub10k" 1)" "$(ratio "$us" "$us10")" "<= 1.10" "$v" "$m" \
		"$2 pages: cpu $us us/page (10,000: $us10 us/page), rss <= 32 MiB (10,000: $(mib "$R/hub10k") MiB); db $(awk -v b="$(cat "$W/$3.bytes")" -v n="$2" 'BEGIN { printf "%d", b / n }') bytes/page; $(tail -n 1 "$W/$3.out")"
}
if { want update-100k || { [ "${BENCH_BIG:-0}" = 1 ] && want update-1m; }; } && [ -n "${SPID:-}" ]; then
	N_HUB=100000; [ "$QUICK" = 1 ] && N_HUB=20000
	hub_db 10000
	hub_db $N_HUB
	i=0
	while [ $i -lt "$REPS" ]; do
		hub_run 10000 hub10k
		[ $i -lt 2 ] && hub_run $N_HUB hub100k   # at most 2: 20 s each
		i=$((i + 1))
	done
	hub_row update-100k $N_HUB hub100k
	if [ "${BENCH_BIG:-0}" = 1 ] && want update-1m; then
		hub_db 1000000
		hub_run 1000000 hub1m
		hub_row update-1m 1000000 hub1m
	fi
	rm -f "$W"/hub*.db*
fi

if [ -n "${SPID:-}" ]; then
	kill "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	trap 'rm -rf "$OUT/.lock"' EXIT
fi
