# bench/federation.sh: a hub relaying four shards (doc/PERFORMANCE.md "Scaling out");
# sourced by bench/run.sh.
#
# N_FED pages (100,000; quick 10,000) of the loopback test server's
# /bench/N.html, a quarter each in four shard databases (bench/seed
# --first), each checked once (update --force) and published into the
# server's root; the hub reads the four lirs.gz as relay sources and
# publishes (its first read is a baseline, timed once: "first read").
# Then REPS cycles: the server changes every (N_FED/100)th page, shard 0
# checks its quarter (--force) and publishes, the hub updates (shard 0's
# lirs.gz is new, the other three answer 304) and publishes.
#
#   ours_s   the freshness lag: from the end of shard 0's publish to the end
#            of the hub's publish, whose lirs.gz then holds the update
#            (checked each cycle); the wait for cron comes on top
#   notes    the hub's CPU per relayed record: its update's CPU over the
#            records it read and relayed (the cycle's N_FED/4, shard 0's
#            lirs.gz; the first read's N_FED), and its publish's CPU over the records it
#            published (N_FED)
# Target: the lag of one cycle <= 10 s at 100,000 pages (2 s quick).
if want federation; then
	if [ ! -x "$ANTENNA" ] || [ ! -x "$SERVER" ] || [ ! -x "$TOP/$BUILD/bench/seed" ]; then
		skip federation "antenna, tests/tools/testserver or bench/seed not built"
	else
		if [ "$QUICK" = 1 ]; then N_FED=10000 FED_LAG=2; else N_FED=100000 FED_LAG=10; fi
		FQ=$((N_FED / 4)) FEVERY=$((N_FED / 100))
		F=$OUT/federation
		rm -rf "$F"
		start_server "$F" 3600
		FSPID=$SRV_PID FU=$SRV_URL
		sleep 1   # a Last-Modified in the second of the answer's Date is not believed
		FNOW=$(date +%s)
		k=0
		while [ $k -lt 4 ]; do
			"$ANTENNA" -d "$F/shard$k.db" init > /dev/null &&
				"$TOP/$BUILD/bench/seed" --first $((k * FQ)) "$F/shard$k.db" "$FU/bench/" "$FQ" &&
				"$ANTENNA" -d "$F/shard$k.db" update --now "$FNOW" --force --jobs 64 --per-host 64 > /dev/null &&
				"$ANTENNA" -d "$F/shard$k.db" publish --now "$FNOW" "$F/www/shard$k" > /dev/null ||
				say "federation: shard $k failed"
			k=$((k + 1))
		done
		"$ANTENNA" -d "$F/hub.db" init > /dev/null
		for k in 0 1 2 3; do
			"$ANTENNA" -d "$F/hub.db" add --lirs "$FU/shard$k/lirs.gz" --relay > /dev/null
		done
		"$TM" "$R/fed-first.ours" "$ANTENNA" -d "$F/hub.db" update --now "$FNOW" > "$F/first.out" 2>&1 ||
			say "federation: the hub's first update failed"
		"$ANTENNA" -d "$F/hub.db" publish --now "$FNOW" "$F/hub" > /dev/null
		# fed_lm0 LIRS_GZ: the Last-Modified page 0 has in a published list
		fed_lm0() { "$LIRS" cat --format jsonl "$1" 2> /dev/null | grep "\"$FU/bench/0.html\"" |
			sed -n 's/.*"last_modified":\([0-9]*\).*/\1/p'; }
		i=0 fed_bad=
		while [ $i -lt "$REPS" ]; do
			"$TOP/$BUILD/tools/httpget" -o /dev/null "$FU/_control/bump?every=$FEVERY" || say "federation: bump failed"
			sleep 1
			FT=$(date +%s)
			"$ANTENNA" -d "$F/shard0.db" update --now "$FT" --force --jobs 64 --per-host 64 > "$F/shard.out" 2>&1 &&
				"$ANTENNA" -d "$F/shard0.db" publish --now "$FT" "$F/www/shard0" > /dev/null ||
				say "federation: shard 0's cycle failed"
			"$TM" "$R/fed-upd.ours" "$ANTENNA" -d "$F/hub.db" update --now "$FT" > "$F/hub.out" 2>&1
			"$TM" "$R/fed-pub.ours" "$ANTENNA" -d "$F/hub.db" publish --now "$FT" "$F/hub" > /dev/null
			# the lag is over only if the hub's list holds shard 0's news:
			# page 0 changes every cycle, dated by the bump
			s0=$(fed_lm0 "$F/www/shard0/lirs.gz") h0=$(fed_lm0 "$F/hub/lirs.gz")
			[ -n "$s0" ] && [ "$s0" -ge $((FT - 5)) ] && [ "$h0" = "$s0" ] || fed_bad="$fed_bad cycle$i:$s0/$h0"
			paste -d ' ' "$R/fed-upd.ours" "$R/fed-pub.ours" | tail -n 1 |
				awk '{ printf "%.3f %d %d %.3f\n", $1 + $5, ($2 > $6 ? $2 : $6), $3 + $7, $4 + $8 }' >> "$R/fed-lag.ours"
			i=$((i + 1))
		done
		kill $FSPID 2> /dev/null; wait $FSPID 2> /dev/null
		trap 'rm -rf "$OUT/.lock"' EXIT
		# read in a cycle: shard 0's quarter (the summary counts a 304
		# source's last document too, so it says N_FED)
		relayed=$FQ
		first=$(sed -n 's/.* \([0-9][0-9]*\) relayed,.*/\1/p' "$F/first.out")
		us() { awk -v c="$1" -v n="$2" 'BEGIN { if (n + 0 > 0) printf "%.1f", c * 1e6 / n; else print "-" }'; }
		o=$(median "$R/fed-lag.ours" 1)
		v=$(verdict "$o" "$FED_LAG")
		[ -z "$fed_bad" ] && [ "$(rcs "$R/fed-upd.ours")" = 0 ] && [ "$(rcs "$R/fed-pub.ours")" = 0 ] || v=FAIL
		row federation "$o" - - "lag <= $FED_LAG s" "$v" "$(mib "$R/fed-lag.ours")" \
			"4 shards x $FQ pages, the hub relays $N_FED: hub cpu per relayed record: update $(us "$(median "$R/fed-upd.ours" 4)" "${relayed:-0}") us (a cycle, ${relayed:-?} records read), first read $(us "$(median "$R/fed-first.ours" 4)" "${first:-0}") us (${first:-?}), publish $(us "$(median "$R/fed-pub.ours" 4)" "$N_FED") us per published record; lag = hub update $(median "$R/fed-upd.ours" 1) s + publish $(median "$R/fed-pub.ours" 1) s, wall $(spread "$R/fed-lag.ours"); shard 0's cycle: $(tail -n 1 "$F/shard.out" | tr ';' ',')${fed_bad:+; news missing:$fed_bad}"
	fi
fi
