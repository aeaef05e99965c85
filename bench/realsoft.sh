# bench/realsoft.sh: the real-software corpus; sourced by bench/run.sh.
#
# realsoft: tests/realsoft (tDiary and DokuWiki from Debian on loopback,
# driven as people use them, 11 pages checked at 13 steps) end to end.
# ours: false updates in % of the checks of unchanged content; base: the
# missed updates in % of the real edits (announced neither in their own
# check nor the next).  Target: false <= 1% and nothing missed.  The note
# gives the counts, the edits announced a check late and the excerpts made
# of furniture.
if want realsoft; then
	RS_SCRIPT=$TOP/tests/realsoft/run.sh
	if [ ! -x "$ANTENNA" ]; then
		skip realsoft "antenna not built"
	else
		RSS=$OUT/realsoft.summary
		rm -f "$RSS"
		TOP=$TOP BUILD=$BUILD REALSOFT_SUMMARY=$RSS sh "$RS_SCRIPT" > "$OUT/realsoft.out" 2>&1
		if [ -s "$RSS" ]; then
			read -r un fa re ot la mi bad < "$RSS"
			pf=$(awk -v a="$fa" -v b="$un" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')
			pm=$(awk -v a="$mi" -v b="$re" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')
			v=PASS
			le "$pf" 1 && [ "$mi" = 0 ] || v=FAIL
			row realsoft "$pf%" "$pm%" - "<= 1%, 0" "$v" - \
				"false updates $fa of $un unchanged checks; missed $mi of $re real edits ($ot on time, $la a check late); excerpts of furniture $bad"
		else
			row realsoft - - - "<= 1%, 0" FAIL - "$(basename "$RS_SCRIPT") gave no figures: $(tail -n 3 "$OUT/realsoft.out" | tr '\n' ' ')"
		fi
	fi
fi
