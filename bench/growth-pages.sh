# bench/growth-pages.sh: how `antenna publish` grows with the number of
# pages; sourced by bench/run.sh (BENCH_ONLY=growth-pages).
#
# growth-pages-N: `antenna publish DIR` of N pages into an empty DIR, from
#   a fresh copy of a database in which every page has one update and one
#   Atom event (bench/seed.c with UPDATED: what one `antenna update` of N
#   changed pages records, without N HTTP checks), so the first publish
#   writes index.html, lirs.gz, current.atom with N entries and N/50
#   archives.  Per step: median wall time and its min-max over the runs,
#   CPU time, peak RSS, microseconds per page and the ratio of that to the
#   previous step's (1.00 = linear; superlinear growth shows as > 1).
#   The 50,000-page step carries the target: <= 1 s.
# growth-pages-fs: creating N/50 empty files in a new directory beside
#   DIR, timed the same way: the file system's own share of writing the
#   archives (one new file each), to read the wall times against.  On
#   this machine's busy ext4 it alone can take more than a second: the
#   kernel skips inodes freed in the last minutes one by one (perf shows
#   ext4's recently_deleted() under openat).
# growth-pages-db: the database after CYCLES update + publish cycles of
#   1,000 pages (each cycle a new update event for every page), with the
#   default retention (keep-events 10000) and with --keep-events all:
#   pages of the file, events kept.  With retention the file stops
#   growing once the kept history is full.
if want growth-pages; then
	G=$OUT/growth
	rm -rf "$G"; mkdir -p "$G"
	if [ "$QUICK" = 1 ]; then
		G_SIZES="1000 5000 10000" G_CYCLES=30
	else
		G_SIZES="1000 10000 50000" G_CYCLES=40
	fi
	G_URL=http://pages.example.jp/diary/
	prev=
	for n in $G_SIZES; do
		db=$G/p$n.db
		"$ANTENNA" -d "$db" init --title bench --base http://antenna.example.jp/ > /dev/null &&
			"$TOP/$BUILD/bench/seed" "$db" "$G_URL" "$n" 20 $NOW || say "growth-pages: cannot seed $n pages"
		i=0
		while [ $i -lt "$REPS" ]; do
			rm -rf "$G/work"; mkdir -p "$G/work"
			cp "$db" "$G/work/"
			sync
			# A new DIR each run, all removed after the step: ext4 skips
			# inodes freed in the last minutes one by one when allocating,
			# so removing the previous run's 1,000 files would slow the
			# next run's creation.
			"$TM" "$R/gp$n" "$ANTENNA" -d "$G/work/p$n.db" publish --now $((NOW + 60)) "$G/site$i" \
				> /dev/null || say "growth-pages: publish of $n pages exited $?"
			# the same number of new files as archives, in a new directory
			"$TM" "$R/gpfs$n" sh -c "mkdir '$G/fs$i' && cd '$G/fs$i' && k=0 &&
				while [ \$k -lt $((n / 50)) ]; do : > \$k.atom; k=\$((k + 1)); done"
			i=$((i + 1))
		done
		rm -rf "$G"/site* "$G"/fs*
		o=$(median "$R/gp$n" 1)
		us=$(awk -v t="$o" -v n="$n" 'BEGIN { printf "%.1f", t * 1e6 / n }')
		step=$(awk -v a="$us" -v b="${prev:-}" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }')
		v=INFO target=-
		if [ "$n" = 50000 ]; then
			target="<= 1 s" v=$(verdict "$o" 1.0)
			[ "$(rcs "$R/gp$n")" = 0 ] || v=FAIL
		fi
		row "growth-pages-$((n / 1000))k" "$o" - "$step" "$target" "$v" "$(mib "$R/gp$n")" \
			"$n pages, $((n / 50)) archives: $us us/page, x$step per page vs the step before; wall $(spread "$R/gp$n"); cpu $(median "$R/gp$n" 4) s; fs floor ($((n / 50)) new files) $(median "$R/gpfs$n" 1) s, $(spread "$R/gpfs$n"); exit $(rcs "$R/gp$n")"
		prev=$us
	done
	# DB size after update + publish cycles, with and without retention
	for keep in 10000 all; do
		db=$G/cycles-$keep.db
		"$ANTENNA" -d "$db" init --title bench --base http://antenna.example.jp/ \
			--keep-events $keep > /dev/null || say "growth-pages: cannot create $db"
		c=1
		while [ $c -le $G_CYCLES ]; do
			"$TOP/$BUILD/bench/seed" "$db" "$G_URL" 1000 20 $((NOW + c * 3600)) &&
				"$ANTENNA" -d "$db" publish --now $((NOW + c * 3600 + 60)) "$G/cycles-$keep" > /dev/null ||
				say "growth-pages: cycle $c (keep $keep) failed"
			[ $c = $((G_CYCLES / 2)) ] && "$ANTENNA" -d "$db" check-db > "$G/half-$keep.txt"
			c=$((c + 1))
		done
		"$ANTENNA" -d "$db" check-db > "$G/end-$keep.txt"
	done
	# "file: 2.1 MiB, 540 pages of 4096 bytes, ..." and the ev_events row
	dbp() { awk '$1 == "file:" { print $4 }' "$1"; }
	dbev() { awk '$1 == "ev_events" { print $2 }' "$1"; }
	h=$(dbp "$G/half-10000.txt") e=$(dbp "$G/end-10000.txt") ea=$(dbp "$G/end-all.txt")
	v=PASS
	[ -n "$h" ] && [ -n "$e" ] && le "$e" "$(awk -v h="$h" 'BEGIN { print h * 1.05 }')" || v=FAIL
	row growth-pages-db "$e" "$ea" "$(ratio "$e" "$ea")" "steady" "$v" - \
		"pages of the file (x4 KiB) after $G_CYCLES update+publish cycles of 1,000 pages: keep-events 10000 $e (after $((G_CYCLES / 2)) cycles: $h), $(dbev "$G/end-10000.txt") events kept; keep all $ea (after $((G_CYCLES / 2)): $(dbp "$G/half-all.txt")), $(dbev "$G/end-all.txt") events"
fi
