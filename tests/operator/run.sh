#!/bin/sh
# What an operator meets: run from cron (-q, failures on stderr, exit
# statuses), what "new" means on the public page (init --new-hours), the
# feeds' base URL (init --base), a failed page's error in the page's words,
# and the help and hints of import, export, add, list and lirs merge.
# Against build/tools/testserver on 127.0.0.1.
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 48
tmpdir operator-test
start_server 300
NOW=$(date +%s)
HDR_OLD='Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT'
hour_ago=$(LC_ALL=C TZ=GMT date -d @$((NOW - 3600)) '+%a, %d %b %Y %H:%M:%S GMT')

# ---- 6. cron: run -q ----------------------------------------------------------
D=$T/cron.db
$A -d "$D" init --base http://antenna.example/ > /dev/null 2>&1
printf '<title>Ok</title><p>ok</p>\n' > "$WWW/ok.html"
printf '%s\n' "$HDR_OLD" > "$WWW/ok.html.hdr"
$A -d "$D" add "$U/ok.html" > /dev/null
$A -d "$D" run -q "$T/site" > "$T/out" 2> "$T/err"
is "run -q, all well: exit 0, nothing on stdout nor stderr" \
	"$?:$(wc -c < "$T/out"):$(wc -c < "$T/err")" "0:0:0"
check "... and the site is published" test -s "$T/site/index.html"
$A -d "$D" run -q --force "$T/site" > "$T/out" 2> "$T/err"
is "run -q --force (update options pass through): exit 0, silent" "$?:$(wc -c < "$T/out"):$(wc -c < "$T/err")" "0:0:0"
$A -d "$D" add "$U/gone.html" > /dev/null
printf 'Status: 404 Not Found\n' > "$WWW/gone.html.hdr"
$A -d "$D" run -q "$T/site" > "$T/out" 2> "$T/err"
is "run -q, a page failed: exit 1, nothing on stdout" "$?:$(wc -c < "$T/out")" "1:0"
check "... the failed page named on stderr with its error" grep -q "failed: $U/gone.html: 404 Not Found" "$T/err"
check "... and the site still published with it" grep -q 'gone.html' "$T/site/index.html"
$A -d "$D" run -q "$T/site" > "$T/out" 2> "$T/err"
is "run -q, nothing due (the failure was the last run's): exit 0, silent" "$?:$(wc -c < "$T/out"):$(wc -c < "$T/err")" "0:0:0"
$A -d "$D" run -q "$T/no/such/dir" > "$T/out" 2> "$T/err"
is "run -q, the publish failed (DIR's parent missing): exit 4, said on stderr" \
	"$?:$(wc -c < "$T/out"):$(test -s "$T/err" && echo said)" "4:0:said"
$A -d "$T/none.db" run -q "$T/site" > "$T/out" 2> "$T/err"
is "run -q, no database: exit 3, said on stderr" "$?:$(grep -c 'cannot open database' "$T/err")" "3:1"
$A -d "$D" run -q > /dev/null 2> "$T/err"
is "run -q without DIR: exit 2 (usage)" $? 2
# the lock held by another run: exit 3, said
D2=$T/lock.db
$A -d "$D2" init --base http://antenna.example/ > /dev/null 2>&1
printf 'Delay-Ms: 6000\n' > "$WWW/slow.html.hdr"
printf '<p>x</p>\n' > "$WWW/slow.html"
$A -d "$D2" add "$U/slow.html" > /dev/null
"$HTTPGET" --max-time 5 "$U/_control/reset" > /dev/null
$A -d "$D2" update --timeout 20 > /dev/null 2>&1 &
UP=$!
i=0
until "$HTTPGET" --max-time 5 "$U/_control/stats" | grep -q ' [1-9][0-9]*$' || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
$A -d "$D2" run -q "$T/site2" > "$T/out" 2> "$T/err"
is "run -q while another run holds the lock: exit 3, the lock named" \
	"$?:$(grep -c 'holds the lock' "$T/err")" "3:1"
wait $UP
$A -d "$D" update -q --force > "$T/out" 2> "$T/err"
is "update -q: nothing on stdout; the failure on stderr" "$(wc -c < "$T/out"):$(grep -c 'gone.html' "$T/err")" "0:1"
$A -d "$D" publish -q "$T/site" > "$T/out" 2> "$T/err"
is "publish -q: exit 0, silent" "$?:$(wc -c < "$T/out"):$(wc -c < "$T/err")" "0:0:0"
check "run --help documents the exit statuses" sh -c "$A run --help | grep -q '3 the update could'"
check "antenna(1) EXIT STATUS documents run's" grep -q 'holds its lock (the message says which)' "$TOP/man/antenna.1"
check "README's crontab line: full path, run -q" grep -Eq '^ *\*/10 \* \* \* \* +/[^ ]*/antenna .*run -q ' "$TOP/README"

# ---- 7. "new": the updates of the last N hours --------------------------------
D=$T/new.db
$A -d "$D" init --base http://antenna.example/ > /dev/null 2>&1
for p in n1 n2 n3; do
	printf '<title>%s</title><p>%s</p>\n' "$p" "$p" > "$WWW/$p.html"
	printf 'Last-Modified: %s\n' "$hour_ago" > "$WWW/$p.html.hdr"
	$A -d "$D" add "$U/$p.html" > /dev/null
done
printf '<title>old</title><p>old</p>\n' > "$WWW/old.html"
printf '%s\n' "$HDR_OLD" > "$WWW/old.html.hdr"
$A -d "$D" add "$U/old.html" > /dev/null
$A -d "$D" run "$T/new" > /dev/null 2>&1
$A -d "$D" run "$T/new" > /dev/null 2>&1   # finds nothing: the marks stay
marks() { grep -o '<li class="h-entry new">' "$1" | wc -l | tr -d ' '; }
badge() { grep -o '新着 [0-9]*' "$1" | head -n 1; }
is "a run that finds nothing keeps the last 3 hours' updates new (rows marked)" "$(marks "$T/new/index.html")" 3
is "... and the badge counts them" "$(badge "$T/new/index.html")" "新着 3"
check "... the old update is not new" sh -c "grep 'old.html' '$T/new/index.html' | grep -vq 'h-entry new'"
$A -d "$D" init --html-limit 2 > /dev/null 2>&1
$A -d "$D" publish "$T/new" > /dev/null 2>&1
is "numbered pages: the marks of index.html and index-2.html together" \
	"$(( $(marks "$T/new/index.html") + $(marks "$T/new/index-2.html") ))" 3
is "numbered pages: index-2.html heads the same count as index.html" \
	"$(badge "$T/new/index-2.html")" "$(badge "$T/new/index.html")"
$A -d "$D" init --new-hours 0 > "$T/out" 2>&1
check "init --new-hours 0 is stored (3 before, the default)" grep -q "new_hours: '3' -> '0'" "$T/out"
$A -d "$D" publish "$T/new" > /dev/null 2>&1
is "--new-hours 0: only what the last run found: nothing marked" "$(( $(marks "$T/new/index.html") + $(marks "$T/new/index-2.html") )):$(badge "$T/new/index.html")" "0:新着 0"
$A -d "$D" init --new-hours -1 > /dev/null 2>&1
is "init --new-hours -1 is refused" $? 2

# ---- 8. init --base ------------------------------------------------------------
D=$T/base.db
$A -d "$D" init > /dev/null 2> "$T/err"
check "init without --base says the feeds link http://localhost/" grep -q 'http://localhost/' "$T/err"
$A -d "$D" init --base https://example.jp/antenna/index.html > /dev/null 2> "$T/err"
is "init --base naming a file is refused: exit 2, the directory suggested" \
	"$?:$(grep -c "give the URL of its directory, 'https://example.jp/antenna/'" "$T/err")" "2:1"
for f in feed.atom a.php b.cgi; do
	$A -d "$D" init --base "https://example.jp/x/$f" > /dev/null 2>&1
	is "init --base .../$f is refused" $? 2
done
$A -d "$D" init --base https://example.jp/antenna > "$T/out" 2> "$T/err"
is "init --base without a trailing slash: taken as the directory, said" \
	"$?:$(grep -c "taken as the directory 'https://example.jp/antenna/'" "$T/err")" "0:1"
$A -d "$D" publish "$T/base" > /dev/null 2>&1
check "... the feeds link under it" grep -q 'https://example.jp/antenna/index.atom' "$T/base/index.atom"
check "... never under a file" sh -c "! grep -q 'index.html/' '$T/base/index.atom'"

# ---- 10. a failed page's error in the page's words ------------------------------
D=$T/err.db
$A -d "$D" init --base http://antenna.example/ > /dev/null 2>&1
$A -d "$D" add "http://127.0.0.1:9/refused.html" > /dev/null
head -c 5000 /dev/zero | tr '\0' 'a' > "$WWW/big.html"
$A -d "$D" add "$U/big.html" > /dev/null
$A -d "$D" add "$U/gone.html" > /dev/null
$A -d "$D" run --max-body 2K "$T/errsite" > /dev/null 2>&1
check "ja: a refused connection is 接続できません" grep -q '\[接続できません\]' "$T/errsite/index.html"
check "ja: a body over --max-body is 2 KiB を超えました" grep -q '\[2 KiB を超えました\]' "$T/errsite/index.html"
check "ja: an HTTP status stays as it is" grep -q '\[404 Not Found\]' "$T/errsite/index.html"
check "no curl or byte-count English on the page" sh -c "test -s '$T/errsite/index.html' && ! grep -Eq 'Failed to connect|connection refused|bytes' '$T/errsite/index.html'"
check "the details stay in show" sh -c "$A -d '$D' show http://127.0.0.1:9/refused.html | grep -q 'last error: *connection refused'"
$A -d "$D" init --lang en > /dev/null 2>&1
$A -d "$D" publish "$T/errsite" > /dev/null 2>&1
check "en: cannot connect, over 2 KiB" sh -c "grep -q '\[cannot connect\]' '$T/errsite/index.html' && grep -q '\[over 2 KiB\]' '$T/errsite/index.html'"

# ---- 11. help and hints ----------------------------------------------------------
check "import --help names tama.cfg" sh -c "$A import --help | grep -q tama.cfg"
check "export --help says the Atom and sitemap sources are written too" sh -c "$A export --help | grep -q 'LIRS, Atom and sitemap'"
$A -d "$D" add "$U/big.html" > /dev/null 2> "$T/err"
check "add of a watched URL points to 'antenna set'" grep -q "antenna set" "$T/err"
$A -d "$D" list > "$T/out" 2>&1
check "list has a header line" sh -c "head -n 1 '$T/out' | grep -q '^last update  *by  *title  <url>'"
check "list --format jsonl has none (every line is JSON)" sh -c "$A -d '$D' list --format jsonl | $PY -c 'import json,sys; [json.loads(l) for l in sys.stdin]'"
D=$T/hub.db
$A -d "$D" init --base http://antenna.example/ > /dev/null 2>&1
$A -d "$D" add --lirs --relay "$U/hub.lirs" > /dev/null
$A -d "$D" list > "$T/out" 2> "$T/err"
is "list on a hub: nothing on stdout, exit 0" "$?:$(wc -c < "$T/out")" "0:0"
check "... and points to list --sources and list --relayed" sh -c "grep -q 'list --sources' '$T/err' && grep -q 'list --relayed' '$T/err'"
printf '$site = "sites.cfg"\n' > "$T/tama.cfg"
$A -d "$D" import --from tama "$T/tama.cfg" > /dev/null 2> "$T/err"
check "tama.cfg: a bad \$site says its keys are site list files" grep -q 'site list file' "$T/err"
check "antenna(1) gives a tama.cfg \$site example" grep -q 'sites.cfg.*=>' "$TOP/man/antenna.1"
printf 'LIRS,%s,%s,32400,10,http://a.example/,A,B,0,\n' $((NOW - 60)) $((NOW - 30)) > "$T/m.lirs"
script -qec "$L merge --now $NOW '$T/m.lirs'; echo rc=\$?" /dev/null > "$T/tty" 2>&1
check "lirs merge to a terminal: refused, exit 2, the way out named" \
	sh -c "grep -q 'compressed data not written to a terminal' '$T/tty' && grep -q 'rc=2' '$T/tty' && ! grep -q \"\$(printf '\\037\\213')\" '$T/tty'"
