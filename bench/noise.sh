# bench/noise.sh: the noise corpus; sourced by bench/run.sh.
#
# noise: tests/noise/run.sh end to end (the test server's /noise/ pages,
# tests/unit/noise_corpus.h: 24 dynamic diary and blog pages, a baseline
# check and 6 more an hour apart, real updates of four shapes on 20 of
# them).  ours: false updates in % of the checks of unchanged content;
# base: the same with --no-auto-ignore (volatile tokens and order still
# normalised, nothing learned).  Target <= 5% of those checks
# (the aim is 0).  The note gives the real updates found, the excerpts
# that showed noise or missed the update, and the share of requests that
# were re-fetches, over all checks and from the third check on, when the
# widgets are learned (the steady state, bound to 10%).
if want noise; then
	if [ ! -x "$ANTENNA" ] || [ ! -x "$SERVER" ]; then
		skip noise "antenna or tests/tools/testserver not built"
	else
		NS=$OUT/noise.summary
		rm -f "$NS"
		TOP=$TOP BUILD=$BUILD NOISE_SUMMARY=$NS sh "$TOP/tests/noise/run.sh" > "$OUT/noise.out" 2>&1
		if [ -s "$NS" ]; then
			read -r nf nu fo re bad rf rq le off srf srq < "$NS"
			pf=$(awk -v a="$nf" -v b="$nu" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')
			po=$(awk -v a="$off" -v b="$nu" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')
			v=PASS
			le "$pf" 5 && [ "$fo" = "$re" ] && [ "$bad" = 0 ] && [ $((srf * 10)) -le "$srq" ] || v=FAIL
			row noise "$pf%" "$po%" - "<= 5%" "$v" - \
				"false updates $nf of $nu unchanged checks (--no-auto-ignore: $off); real updates found $fo of $re; bad excerpts $bad; re-fetches $rf of $rq requests ($(awk -v a="$rf" -v b="$rq" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')%), $srf of $srq once learned ($(awk -v a="$srf" -v b="$srq" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')%, target <= 10%); $le parts learned"
		else
			row noise - - - "<= 5%" FAIL - "tests/noise/run.sh gave no figures: $(tail -n 3 "$OUT/noise.out" | tr '\n' ' ')"
		fi
		"$TOP/$BUILD/tests/t_noise_corpus" -b 2>/dev/null | sed 's/^/bench: /' >&2
	fi
fi
