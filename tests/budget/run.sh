#!/bin/sh
# A relay hub's sources, bounded by design (ant_source_budget.h, antenna(1)
# LIMITS): a churning source (CHURN records, every one with a new
# Last-Modified at every read; the issue's 100,000 scaled down to fit the
# suite's time, the ratio to the news budget kept far beyond it) adds at
# most ceil(news budget / 50) + 1 archive files per run, is flagged
# churning in list --sources (text, jsonl) and show, and then gets a
# tenth of the budget; --max-source-news and --max-source-records hold;
# a huge source (a 5 MB gzip of 15M records, 1 GiB decoded, served
# without validators) re-read unchanged costs a digest, < 1 s, not a
# parse; "N relayed" counts pages, not records.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
plan 15

CHURN=20000
server_suite antenna-budget
H=$T/hub.db
# gen N LM: a LIRS source of N records dated LM (detected a minute later)
gen() {
	awk -v n="$1" -v lm="$2" 'BEGIN { for (i = 0; i < n; i++)
		printf "LIRS,%d,%d,+32400,100,http://churn.example/%d.html,page %d,0,http://src.example/,\n",
			lm, lm + 60, i, i }' | gzip -1 > "$WWW/churn.lirs.gz"
}
# archives: archive files published so far
archives() { ls "$T/site/archive" 2> /dev/null | grep -c '\.atom$'; }
t() { date +%s.%N; }

$A -d "$H" init > /dev/null 2>&1
printf 'No-Validators: 1\n' > "$WWW/churn.lirs.gz.hdr"
$A -d "$H" add --lirs "$U/churn.lirs.gz" --relay > /dev/null
gen $CHURN $((NOW - 3600))
$A -d "$H" update --now "$NOW" > "$T/u0.out" 2>&1
$A -d "$H" publish --now "$NOW" "$T/site" > /dev/null
a0=$(archives)
bad=
for r in 1 2 3; do
	gen $CHURN $((NOW - 3600 + r * 60))
	$A -d "$H" update --now $((NOW + r * 60)) > "$T/u$r.out" 2>&1
	$A -d "$H" publish --now $((NOW + r * 60)) "$T/site" > /dev/null
	eval "a$r=$(archives)"
done
is "the first read is a baseline: no archive" "$a0" 0
check "a churning read makes the budget's news (250) and holds the rest" \
	grep -q "(0 unchanged, $((CHURN - 250)) news over budget, 0 churning, 0 cut)" "$T/u1.out"
OK_ARCH=$((250 / 50 + 1))
is "run 1 adds at most $OK_ARCH archive files, not $((CHURN / 50))" "$(( a1 - a0 <= OK_ARCH ))" 1
is "run 2 too" "$(( a2 - a1 <= OK_ARCH ))" 1
is "flagged churning after two reads in a row: run 3 adds at most one archive" "$(( a3 - a2 <= 1 ))" 1
echo "# archive files: $a0, $a1, $a2, $a3 after the baseline and three churning runs of $CHURN records"
check "list --sources says churning" grep -q "relayed $CHURN, skipped 0, churning" "$($A -d "$H" list --sources > "$T/ls"; echo "$T/ls")"
check "list --sources --format jsonl says churning" grep -q '"churning":true' "$($A -d "$H" list --sources --format jsonl > "$T/lj"; echo "$T/lj")"
check "show SOURCE says churning" grep -q "^churn: *yes: churning" "$($A -d "$H" show "$U/churn.lirs.gz" > "$T/sh"; echo "$T/sh")"
is "every record is still published (lirs.gz)" "$($L cat --format jsonl "$T/site/lirs.gz" | grep -c churn.example)" "$CHURN"

# Budgets given on the command line hold.
gen $CHURN $((NOW - 3600 + 600))
$A -d "$H" update --now $((NOW + 600)) --max-source-news 7 --max-source-records 5000 > "$T/u4.out" 2>&1
check "--max-source-records: 5000 records read, the source says it was cut" \
	grep -q "5000 records.*, 1 cut)" "$T/u4.out"
is "--max-source-news: a churning source's events are a tenth of it (0 of 7)" \
	"$(sed -n 's/.*"news_held":\([0-9]*\).*/\1/p' "$($A -d "$H" list --sources --format jsonl > "$T/lj"; echo "$T/lj")")" 5000

# A huge source: 15M records in a 5 MB gzip (members of one block), no validators.
$PY - "$WWW/huge.lirs.gz" "$NOW" <<'PYEOF'
import sys, zlib
now = int(sys.argv[2])
lines = b"".join(b"LIRS,%d,%d,+32400,1,http://h.example/%d,t,0,http://s/,\n" % (now - 60, now, i)
		 for i in range(20))
block = lines * 50000                       # 1M records, ~68 MB
c = zlib.compressobj(9, zlib.DEFLATED, 31)
member = c.compress(block) + c.flush()
with open(sys.argv[1], "wb") as f:
	for _ in range(15):                     # gzip members concatenate (RFC 1952 §2.2)
		f.write(member)
PYEOF
printf 'No-Validators: 1\n' > "$WWW/huge.lirs.gz.hdr"
$A -d "$H" add --lirs "$U/huge.lirs.gz" --relay > /dev/null
t0=$(t)
$A -d "$H" update --now "$NOW" --max-source-records 200000 > "$T/h1.out" 2>&1
t1=$(t)
$A -d "$H" update --now "$NOW" --max-source-records 200000 > "$T/h2.out" 2>&1
t2=$(t)
first=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') again=$(echo "$t1 $t2" | awk '{ printf "%.2f", $2 - $1 }')
echo "# huge source ($(wc -c < "$WWW/huge.lirs.gz") bytes gzip): first read (200,000 records) $first s, unchanged re-read $again s"
is "re-reading the unchanged huge source takes < 1 s ($again s)" "$(echo "$again" | awk '{ print ($1 < 1) }')" 1
check "... as unchanged" grep -q "(2 unchanged," "$T/h2.out"
# "N relayed" is of pages: the huge source's 200,000 records name 20 URLs
check "\"N relayed\" counts pages, not records" grep -q " $((CHURN + 20)) relayed," "$T/h2.out"
is "list --sources: the huge source relays 20 pages" \
	"$($A -d "$H" list --sources | grep -c "huge.lirs.gz  (relay)  read 200000, merged 0, relayed 20, skipped 0, cut")" 1
