# bench/realsoft.sh: the real-software corpus; sourced by bench/run.sh.
#
# realsoft: the real-software suites end to end, each one present of
# tests/realsoft (tDiary and DokuWiki on loopback), tests/realstatic
# (jekyll, pelican, sphinx and mkdocs sites on nginx, and one with no
# validators), tests/realdyn, tests/realredmine and tests/realheld (the
# held-out corpus: cgit, ikiwiki, doxygen, never tuned to), and one row
# per kind of software from
# the lines each writes to REALSOFT_SUMMARY:
#   KIND UNCHANGED FALSE REAL ONTIME LATE MISSED BADEXCERPT
# ours: false updates in % of the checks of unchanged content; base: the
# missed updates in % of the real edits (announced neither in their own
# check nor the next).  Target: false <= 1% and nothing missed.  The note
# gives the counts, the edits announced a check late and the bad excerpts
# (made of furniture, or not showing the edit).  A suite that gives no figures is a FAIL row of its own.
if want realsoft; then
	if [ ! -x "$ANTENNA" ]; then
		skip realsoft "antenna not built"
	else
		for RS_SUITE in realsoft realstatic realdyn realredmine realheld; do
			RS_SCRIPT=$TOP/tests/$RS_SUITE/run.sh
			[ -f "$RS_SCRIPT" ] || continue
			RSS=$OUT/$RS_SUITE.summary
			rm -f "$RSS"
			say "realsoft: $RS_SUITE"
			TOP=$TOP BUILD=$BUILD REALSOFT_SUMMARY=$RSS sh "$RS_SCRIPT" > "$OUT/$RS_SUITE.out" 2>&1
			if [ ! -s "$RSS" ]; then
				row "realsoft-$RS_SUITE" - - - "<= 1%, 0" FAIL - \
					"tests/$RS_SUITE gave no figures: $(tail -n 3 "$OUT/$RS_SUITE.out" | tr '\n' ' ')"
				continue
			fi
			while read -r kind un fa re ot la mi bad; do
				pf=$(awk -v a="$fa" -v b="$un" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')
				pm=$(awk -v a="$mi" -v b="$re" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')
				v=PASS
				le "$pf" 1 && [ "$mi" = 0 ] || v=FAIL
				row "realsoft-$kind" "$pf%" "$pm%" - "<= 1%, 0" "$v" - \
					"tests/$RS_SUITE: false updates $fa of $un unchanged checks; missed $mi of $re real edits ($ot on time, $la a check late); bad excerpts $bad"
			done < "$RSS"
		done
	fi
fi
