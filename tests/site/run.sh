#!/bin/sh
# A site people and feed readers can fetch, whatever a relay sends: a
# hub relays a shard's lirs.gz (served by the loopback test server, read
# by `antenna update` as a relay source) of 120 pages and publishes it
# with small caps.
#   - The HTML files are capped (init --html-pages, publish --html-pages):
#     no index-N.html past the cap, those of a bigger publish removed; the
#     last file says how many pages it leaves out and links lirs.gz and
#     index.atom; lirs.gz still has every fresh record.
#   - current.atom is complete (RFC 5005 §2, fh:complete) while it fits
#     its caps (init/publish --current-entries, --current-bytes); past
#     them it holds the newest records, no fh:complete, and links the
#     newest archive (prev-archive, RFC 5005 §4); always well-formed;
#     feed.json lists the same entries.
# test-needs: python3:python3 xmllint:libxml2-utils gzip:gzip
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
for cmd in xmllint gzip; do
	command -v $cmd > /dev/null || { echo "Bail out! $cmd is needed (mk/deps.sh)"; exit 1; }
done
plan 23

server_suite antenna-site
D=$T/hub.db
N=120

# the shard's lirs.gz: N pages, p0 the newest, a minute apart
$PY - "$NOW" "$N" > "$T/shard.jsonl" <<'EOF'
import json, sys
now, n = int(sys.argv[1]), int(sys.argv[2])
for i in range(n):
    print(json.dumps({"last_modified": now - 60 - 60 * i, "last_detected": now - 30,
        "tz_offset": 32400, "content_length": 1000 + i,
        "url": "http://pages.example/p%d.html" % i, "title": "ページ %d <&>" % i,
        "author": "著者", "source_url": "http://shard.example/lirs.gz"}, ensure_ascii=False))
EOF
$L pack -o "$WWW/lirs.gz" "$T/shard.jsonl"
$A -d "$D" init --base http://hub.example/ --html-limit 10 --html-pages 3 --page-size 5 > /dev/null
$A -d "$D" add --lirs "$U/lirs.gz" --relay > /dev/null
$A -d "$D" update > "$T/update.out" 2>&1
check "the hub reads the shard's $N records" grep -q "$N relayed" "$T/update.out"

# a bigger publish first: 6 files of 10
$A -d "$D" publish --now $NOW --html-pages 6 "$T/s" > "$T/out6"
is "--html-pages 6: six files" "$(cd "$T/s" && ls index*.html | wc -l | tr -d ' ')" 6
# then the database's cap (init --html-pages 3)
$A -d "$D" publish --now $((NOW + 1)) "$T/s" > "$T/out"
is "init --html-pages 3: index.html, index-2.html, index-3.html; the others removed" \
	"$(cd "$T/s" && ls index*.html | tr '\n' ' ')" "index-2.html index-3.html index.html "
check "publish says how many it lists" grep -q "published $N pages: .*index-3.html), the newest 30 listed" "$T/out"
check "index-3.html has no older link" sh -c "! grep -q 'rel=\"next\"' '$T/s/index-3.html'"
grep '<p class="more">' "$T/s/index-3.html" > "$T/more"
check "the last file says how many pages it leaves out" grep -q "$((N - 30)) ページ" "$T/more"
check "...and links lirs.gz and index.atom" sh -c \
	"grep -q 'href=\"lirs.gz\"' '$T/more' && grep -q 'href=\"index.atom\"' '$T/more'"
check "only the last file says so" sh -c "! grep -q 'class=\"more\"' '$T/s/index.html' '$T/s/index-2.html'"
check "index.html counts every page" grep -q "$N ページ" "$T/s/index.html"
last=$(grep -o 'p[0-9]*\.html?' "$T/s/index-3.html" | tr -d 'p?' | sed 's/\.html//' | sort -n | tail -n 1)
is "the files hold the 30 newest (p0..p29)" "$last" 29
is "lirs.gz still has every record" "$($L cat --format jsonl "$T/s/lirs.gz" | wc -l | tr -d ' ')" $N
bad=0
for f in "$T"/s/index*.html; do
	xmllint --html --noout "$f" 2>&1 | grep 'parser error' | grep -qv 'Tag [a-z]* invalid' && bad=$((bad + 1))
done
is "every file parses as HTML" $bad 0

# current.atom: complete while it fits (the default caps)
entries() { grep -c '<entry>' "$1"; }
is "current.atom, default caps: all $N entries" "$(entries "$T/s/current.atom")" $N
check "...marked complete (fh:complete)" grep -q '<fh:complete/>' "$T/s/current.atom"

# the archives exist once updates are events: a second read of the shard
# with 12 news (a page-size 5 archive feed: 2 archives)
$PY - "$T/shard.jsonl" "$NOW" > "$T/shard2.jsonl" <<'EOF'
import json, sys
now = int(sys.argv[2])
for i, l in enumerate(open(sys.argv[1], encoding="utf-8")):
    r = json.loads(l)
    if i < 12:
        r["last_modified"] = now - 5 - i
    print(json.dumps(r, ensure_ascii=False))
EOF
$L pack -o "$WWW/lirs.gz" "$T/shard2.jsonl"
$A -d "$D" update --force > /dev/null 2>&1
$A -d "$D" publish --now $((NOW + 2)) --current-entries 25 "$T/s" > "$T/out"
is "--current-entries 25: 25 entries" "$(entries "$T/s/current.atom")" 25
check "...not complete (no fh:complete)" sh -c "! grep -q 'fh:complete' '$T/s/current.atom'"
check "...its prev-archive link names an archive on disk" sh -c \
	"f=\$(sed -n 's|.*rel=\"prev-archive\" href=\"http://hub.example/\\([^\"]*\\)\".*|\\1|p' '$T/s/current.atom'); test -n \"\$f\" && test -s '$T/s/'\"\$f\""
check "...the newest records (p0 first)" sh -c \
	"grep -o 'href=\"http://pages.example/p[0-9]*.html\"' '$T/s/current.atom' | head -n 1 | grep -q 'p0.html'"
check "publish says current.atom is not complete" grep -q "current.atom: the newest 25, not complete" "$T/out"
check "current.atom is well-formed XML" xmllint --noout "$T/s/current.atom"
# the bytes cap, from the database
$A -d "$D" init --current-bytes 8192 > /dev/null
$A -d "$D" publish --now $((NOW + 3)) "$T/s" > /dev/null
sz=$(wc -c < "$T/s/current.atom")
check "init --current-bytes 8192: current.atom of $sz bytes, at most 8192, well-formed" sh -c \
	"test $sz -le 8192 && test $sz -gt 4096 && xmllint --noout '$T/s/current.atom'"
check "...and not complete" sh -c "! grep -q 'fh:complete' '$T/s/current.atom'"
is "feed.json lists the same entries as the capped current.atom" \
	"$($PY -c 'import json, sys; print(" ".join(i["id"] for i in json.load(open(sys.argv[1]))["items"]))' "$T/s/feed.json")" \
	"$(sed -n 's|^    <id>\(.*\)</id>$|\1|p' "$T/s/current.atom" | tr '\n' ' ' | sed 's/ $//')"
