# bench/db-size.sh: the database's bytes per watched page at hub scale;
# sourced by bench/run.sh (BENCH_ONLY=db-size).
#
# db-size: N_DB pages (100,000; quick 10,000) added with bench/seed.c,
#   then checked for real against the loopback test server's generated
#   /bench/N.html pages: a first `antenna update`, then DB_CYCLES cycles of
#   /_control/bump?every=2 (half of the pages change), `antenna update`
#   and `antenna publish` (which prunes the history to keep-events, a
#   tenth of the pages as 10,000 is of 100,000, and gives the freed pages
#   back).  ours: check-db's bytes of file per watched page after the last
#   publish (the steady state); target <= 500, detection state included.
#   The note gives the peak (after the last update, before its publish
#   prunes: one run's events more), bytes per update event, the biggest
#   tables and columns, and the time per cycle.  BENCH_BIG=1 adds the same
#   at 1,000,000 pages (db-size-1m; about 10 minutes per run on 2 cores).
if want db-size; then
	if [ ! -x "$ANTENNA" ] || [ ! -x "$SERVER" ] || [ ! -x "$TOP/$BUILD/bench/seed" ]; then
		skip db-size "antenna, tests/tools/testserver or bench/seed not built"
	else
		DZ=$OUT/db-size
		rm -rf "$DZ"
		start_server "$DZ" 7200
		DZPID=$SRV_PID DZURL=$SRV_URL
		DB_CYCLES=3 UPD_DZ="--force --jobs 64 --per-host 64"
		DZ_SIZES=$(sizes 100000 10000)
		for n in $DZ_SIZES; do
			db=$DZ/p$n.db
			"$ANTENNA" -d "$db" init --title bench --base http://antenna.example.jp/ \
				--keep-events $((n / 10)) > /dev/null &&
				"$TOP/$BUILD/bench/seed" "$db" "$DZURL/bench/" "$n" 20 || say "db-size: cannot seed $n pages"
			"$ANTENNA" -d "$db" update $UPD_DZ > "$DZ/update.out" 2>&1 || say "db-size: first update failed"
			"$ANTENNA" -d "$db" publish "$DZ/site$n" > /dev/null 2>&1 || say "db-size: first publish failed"
			c=1 t0=$(date +%s)
			while [ $c -le $DB_CYCLES ]; do
				"$TOP/$BUILD/tools/httpget" -o /dev/null "$DZURL/_control/bump?every=2" || say "db-size: bump failed"
				sleep 1   # a Last-Modified of the second of the fetch is not trusted
				"$ANTENNA" -d "$db" update $UPD_DZ > "$DZ/update.out" 2>&1 || say "db-size: update exited $?"
				[ $c = $DB_CYCLES ] && "$ANTENNA" -d "$db" check-db > "$DZ/peak$n.txt"
				"$ANTENNA" -d "$db" publish "$DZ/site$n" > /dev/null 2>&1 || say "db-size: publish exited $?"
				c=$((c + 1))
			done
			t1=$(date +%s)
			"$ANTENNA" -d "$db" check-db > "$DZ/end$n.txt"
			# the 500 B target leaves out the diff pages' texts, budgeted apart
			bpp=$(awk '$1 == "without" && $2 == "the" { print $5 }' "$DZ/end$n.txt")
			txt=$(awk '$1 == "without" && $2 == "the" { print $15 }' "$DZ/end$n.txt")
			tbl=$(awk '$1 == "per" && $2 == "watched" { print $8 }' "$DZ/end$n.txt")
			bpe=$(awk '$1 == "per" && $2 == "update" { print $4 }' "$DZ/end$n.txt")
			peak=$(awk '$1 == "per" && $2 == "watched" { print $4 }' "$DZ/peak$n.txt")
			big=$(sed -n 's/^biggest: //p' "$DZ/end$n.txt")
			cols=$(sed -n 's/^pages columns, bytes per page: //p' "$DZ/end$n.txt" | cut -d, -f1-5)
			v=$(verdict "${bpp:-9999}" 500)
			name=db-size; [ "$n" = 1000000 ] && name=db-size-1m
			row "$name" "${bpp:--}" - - "<= 500 B" "$v" - \
				"$n pages, bytes of file per watched page (besides the diff texts, ${txt:-?} B a page more) after $DB_CYCLES update + publish cycles (half changed each); table pages with its index $tbl; peak before publish $peak; per update event $bpe; biggest: $big; pages columns: $cols; $(( (t1 - t0) / DB_CYCLES )) s per cycle; last: $(tail -n 1 "$DZ/update.out")"
		done
		kill $DZPID 2> /dev/null; wait $DZPID 2> /dev/null
		trap 'rm -rf "$OUT/.lock"' EXIT
	fi
fi
