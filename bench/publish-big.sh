# bench/publish-big.sh: `antenna publish` at hub scale; sourced by
# bench/run.sh (BENCH_ONLY=publish-big).
#
# publish-100k, and with BENCH_BIG=1 publish-1m: `antenna publish DIR` of
# a database of 100,000 (1,000,000) watched pages, every one with an
# update (fresh: all of them go into lirs.gz, sites.di.gz and
# current.atom), 20 groups, and the 10,000 newest update events (what the
# default retention keeps), into an empty DIR, from a fresh copy of the
# database each run.  Target: peak RSS <= 64 MiB (nothing holds all the
# pages), every HTML file <= 1 MB, index.html <= 500 KB (what a phone
# opens: its 1,000 updates, whatever the number of pages).  The notes give
# the size of index.html and of the biggest HTML file, and how many there
# are.
# The databases are made with SQL (python3's sqlite3), in seconds, not
# with a million `antenna update` checks: the pages as bench/seed.c adds
# them, the update state and events as one update run records them.
if want publish-big; then
	PB=$OUT/publish-big
	mkdir -p "$PB"
	PB_SIZES=$(sizes 100000 20000)
	for n in $PB_SIZES; do
		db=$PB/p$n.db
		if stale_db "$db"; then
			# the empty publish creates the event tables and the Atom state
			"$ANTENNA" -d "$db" init --title bench --base http://antenna.example.jp/ > /dev/null &&
				"$ANTENNA" -d "$db" publish --now $((NOW - 7200)) "$PB/empty" > /dev/null &&
				python3 - "$db" "$n" "$NOW" "$TOP/bench" <<'EOF' || say "publish-big: cannot make $db"
import sqlite3, sys
sys.path.insert(0, sys.argv[4])
from seed_pages import seed, events
db, n, now = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = sqlite3.connect(db)
seed(c, n, now)
events(c)
c.commit()
EOF
		fi
		reps=$REPS
		[ "$n" -ge 1000000 ] && reps=1
		i=0
		while [ $i -lt "$reps" ]; do
			rm -rf "$PB/work" "$PB/site"; mkdir -p "$PB/work"
			cp "$db" "$PB/work/p.db"
			sync
			"$TM" "$R/pb$n" "$ANTENNA" -d "$PB/work/p.db" publish --now $((NOW + 60)) "$PB/site" \
				> /dev/null || say "publish-big: publish of $n pages exited $?"
			i=$((i + 1))
		done
		o=$(median "$R/pb$n" 1)
		rss=$(mib "$R/pb$n")
		idx=$(wc -c < "$PB/site/index.html" 2>/dev/null)
		big=$(ls -S "$PB"/site/index*.html 2>/dev/null | head -n 1)
		bigb=$(wc -c < "$big" 2>/dev/null)
		nhtml=$(ls "$PB"/site/index*.html 2>/dev/null | wc -l)
		v=PASS
		le "$rss" 64 && le "${bigb:-9999999}" 1000000 && le "${idx:-9999999}" 500000 || v=FAIL
		[ "$(rcs "$R/pb$n")" = 0 ] || v=FAIL
		name=publish-$((n / 1000))k
		[ "$n" -ge 1000000 ] && name=publish-$((n / 1000000))m
		row "$name" "$o" - - "RSS <= 64 MiB, HTML <= 1 MB" "$v" "$rss" \
			"$n pages (all fresh, 20 groups, 10,000 events): index.html $idx bytes (<= 500 KB), biggest HTML $(basename "$big") $bigb bytes, $nhtml HTML files, lirs.gz $(wc -c < "$PB/site/lirs.gz") bytes; wall $(spread "$R/pb$n"); cpu $(median "$R/pb$n" 4) s"
		rm -rf "$PB/work"; [ -n "${BENCH_KEEP_SITE:-}" ] || rm -rf "$PB/site"
	done
fi

# publish-relay-100k, and with BENCH_BIG=1 publish-relay-1m: a hub's
# `antenna publish DIR` of 100,000 (1,000,000) relayed pages (one relay
# source's fresh records, 10,000 of them update events), into an empty
# DIR, from a fresh copy of the database each run.  Ours: the default
# caps (10 HTML files, current.atom <= 10,000 entries and 10 MB).  The
# baseline, in the same run: the same publish with the caps lifted
# (--html-pages 1000000 --current-entries 100000000 --current-bytes
# 100000000000), the complete site
# every publish wrote before the caps.  Target: <= 10 s, a site <= 100 MB,
# current.atom <= 10 MB (the hub test of a 1M-record relay source).  The
# notes give the sizes of both.
if want publish-relay; then
	PR=$OUT/publish-relay
	mkdir -p "$PR"
	PR_SIZES=$(sizes 100000 20000)
	for n in $PR_SIZES; do
		db=$PR/r$n.db
		if stale_db "$db"; then
			"$ANTENNA" -d "$db" init --title bench --base http://antenna.example.jp/ > /dev/null &&
				"$ANTENNA" -d "$db" add --lirs http://shard.example.jp/lirs.gz --relay > /dev/null &&
				"$ANTENNA" -d "$db" publish --now $((NOW - 7200)) "$PR/empty" > /dev/null &&
				python3 - "$db" "$n" "$NOW" <<'EOF2' || say "publish-relay: cannot make $db"
import sqlite3, sys
db, n, now = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = sqlite3.connect(db)
# as update_sources.c keeps a relay source's records: one per URL key
c.execute("""WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
  INSERT INTO source_records(url_key, source_id, url, last_modified, last_detected, title,
    excerpt, author, content_length)
  SELECT u, 1, u, ? - i, ? - (i % 3600), '日記ページ ' || i || ' <&>',
    CASE WHEN i % 2 THEN '今日は晴れ。散歩に出かけた ' || i ELSE '' END,
    CASE WHEN i % 3 THEN '山田太郎' ELSE '' END, 1500
  FROM (SELECT i, 'http://pages.example.jp/diary/' || i || '.html' AS u FROM k)""",
    (n - 1, now, now))
c.execute("""INSERT INTO ev_events(url, url_key, last_modified, last_detected, tz_offset,
    content_length, title, author, source_url)
  SELECT url, url_key, last_modified, last_detected, 32400, 1500, title, author,
    'http://shard.example.jp/lirs.gz'
  FROM (SELECT * FROM source_records ORDER BY last_modified DESC LIMIT 10000)
  ORDER BY last_modified""")
c.commit()
EOF2
		fi
		reps=$REPS
		[ "$n" -ge 1000000 ] && reps=${BENCH_RELAY_REPS:-3}
		i=0
		rm -f "$R/pr$n.ours" "$R/pr$n.base"
		while [ $i -lt "$reps" ]; do
			for who in base ours; do
				rm -rf "$PR/work" "$PR/site-$who"; mkdir -p "$PR/work"
				cp "$db" "$PR/work/p.db"
				sync
				caps=
				[ $who = base ] && caps="--html-pages 1000000 --current-entries 100000000 --current-bytes 100000000000"
				"$TM" "$R/pr$n.$who" "$ANTENNA" -d "$PR/work/p.db" publish --now $((NOW + 60)) \
					$caps "$PR/site-$who" > /dev/null || say "publish-relay: $who publish of $n exited $?"
				eval "site_$who=\$(du -sk \"\$PR/site-$who\" | awk '{ printf \"%.1f\", \$1 / 1024 }')"
				eval "cur_$who=\$(wc -c < \"\$PR/site-$who/current.atom\" | awk '{ printf \"%.1f\", \$1 / 1048576 }')"
				nhtml=$(ls "$PR/site-$who"/index*.html | wc -l)
				eval "html_$who=$nhtml"
				rm -rf "$PR/site-$who"
			done
			i=$((i + 1))
		done
		o=$(median "$R/pr$n.ours" 1) b=$(median "$R/pr$n.base" 1)
		v=PASS
		le "$o" 10 && le "$site_ours" 100 && le "$cur_ours" 10 || v=FAIL
		[ "$(rcs "$R/pr$n.ours")" = 0 ] || v=FAIL
		name=publish-relay-$((n / 1000))k
		[ "$n" -ge 1000000 ] && name=publish-relay-$((n / 1000000))m
		row "$name" "$o" "$b" "$(ratio "$o" "$b")" "<= 10 s" "$v" "$(mib "$R/pr$n.ours")" \
			"$n relayed pages: site $site_ours MB (uncapped $site_base MB), current.atom $cur_ours MB ($cur_base MB), $html_ours HTML files ($html_base); cpu $(median "$R/pr$n.ours" 4)/$(median "$R/pr$n.base" 4) s; wall ours $(spread "$R/pr$n.ours"), base $(spread "$R/pr$n.base"); $reps runs; site <= 100 MB, current.atom <= 10 MB"
		rm -rf "$PR/work"
	done
fi

# publish-diffs (and with BENCH_BIG=1 publish-diffs-1m): `antenna publish
# DIR` right after an update that found 50,000 pages changed (quick:
# 10,000) among 100,000 (1,000,000), every change with its diff kept
# (page_texts), into the DIR the publish before wrote (its diff pages
# there): the diff pages of the updates now listed are written, the
# others removed.  The databases are made with SQL as publish-big's, the
# update as SQL too: the pages' new time, their diffs and the update
# events of the changes.  Target: <= 10 s.  The notes give the diff pages
# written and removed, and index.html's size (<= 500 KB).
if want publish-diffs; then
	PD=$OUT/publish-diffs
	mkdir -p "$PD"
	PD_SIZES=$(sizes 100000 20000)
	for n in $PD_SIZES; do
		changed=$((n / 2))
		[ "$QUICK" = 1 ] && changed=10000
		db=$PD/d$n.db
		if stale_db "$db"; then
			"$ANTENNA" -d "$db" init --title bench --base http://antenna.example.jp/ > /dev/null &&
				"$ANTENNA" -d "$db" publish --now $((NOW - 7200)) "$PD/empty" > /dev/null &&
				python3 - "$db" "$n" "$NOW" "$changed" "$TOP/bench" <<'EOF3' || say "publish-diffs: cannot make $db"
import sqlite3, sys, zlib
sys.path.insert(0, sys.argv[5])
from seed_pages import seed, events
db, n, now, changed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
c = sqlite3.connect(db)
# the pages as publish-big's, each with one earlier update and its diff
seed(c, n, now, 86400)
def blob(i, w):
    return zlib.compress(("  今日は朝から雨が降っていた。\n- 午後は図書館で本を読んだ %d。\n+ 午後は図書館で%sと話した %d。\n  夕方には晴れた。\n" % (i, w, i)).encode(), 6)
c.create_function("blob", 2, blob, deterministic=True)
c.execute("INSERT INTO page_texts(page_id, text, diff, diff_time) SELECT id, x'00', blob(id, '友達'), last_modified FROM pages")
events(c)
c.commit()
EOF3
			# the publish before the update: its diff pages in the site
			"$ANTENNA" -d "$db" publish --now $((NOW - 3600)) "$PD/site0" > /dev/null ||
				say "publish-diffs: the first publish failed"
			python3 - "$db" "$NOW" "$changed" <<'EOF4' || say "publish-diffs: cannot update $db"
import sqlite3, sys, zlib
db, now, changed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = sqlite3.connect(db)
def blob(i):
    return zlib.compress(("  夕方には晴れた。\n- 午後は図書館で友達と話した %d。\n+ 午後は公園を散歩した %d。\n" % (i, i)).encode(), 6)
c.create_function("blob", 1, blob, deterministic=True)
# the update: every other page changed, newest first by id
c.execute("UPDATE pages SET last_modified = ? - id, last_detected = ? WHERE id % 2 = 0 AND id <= ?", (now, now, changed * 2))
c.execute("UPDATE page_texts SET diff = blob(page_id), diff_time = (SELECT last_modified FROM pages WHERE id = page_id) WHERE page_id % 2 = 0 AND page_id <= ?", (changed * 2,))
c.execute("""INSERT INTO ev_events(url, url_key, last_modified, last_detected, tz_offset,
    content_length, title, author, source_url)
  SELECT url, url, last_modified, last_detected, 32400, 1500, title, author, url
  FROM pages WHERE id % 2 = 0 AND id <= ? ORDER BY last_modified""", (changed * 2,))
c.commit()
EOF4
		fi
		reps=$REPS
		[ "$n" -ge 1000000 ] && reps=1
		i=0
		while [ $i -lt "$reps" ]; do
			rm -rf "$PD/work" "$PD/site"; mkdir -p "$PD/work"
			cp "$db" "$PD/work/p.db"
			cp -a "$PD/site0" "$PD/site"
			sync
			"$TM" "$R/pd$n" "$ANTENNA" -d "$PD/work/p.db" publish --now $((NOW + 60)) "$PD/site" \
				> "$PD/out" 2>&1 || say "publish-diffs: publish of $n pages exited $?"
			i=$((i + 1))
		done
		o=$(median "$R/pd$n" 1)
		idx=$(wc -c < "$PD/site/index.html" 2>/dev/null)
		v=$(verdict "$o" 10)
		le "${idx:-9999999}" 500000 || v=FAIL
		[ "$(rcs "$R/pd$n")" = 0 ] || v=FAIL
		name=publish-diffs-$((n / 1000))k
		[ "$n" -ge 1000000 ] && name=publish-diffs-$((n / 1000000))m
		row "$name" "$o" - - "<= 10 s" "$v" "$(mib "$R/pd$n")" \
			"$n pages, $changed new updates with diffs, into the site the publish before wrote ($(ls "$PD/site0/diff" | wc -l) diff pages): $(ls "$PD/site/diff" | wc -l) diff pages after; $(tail -n 1 "$PD/out"); index.html $idx bytes (<= 500 KB); wall $(spread "$R/pd$n"); cpu $(median "$R/pd$n" 4) s"
		rm -rf "$PD/work" "$PD/site"
	done
fi
