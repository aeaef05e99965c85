#!/bin/sh
# What the antenna's followers read: feed.json (JSON Feed 1.1, checked
# with jsonschema against the spec's fields; the same entries and ids as
# current.atom), the WebSub hub
# (named in the live feeds, pinged after a publish with news, never fatal),
# and index.html's microformats2 (read by mf2py).  Against
# build/tools/testserver and tests/follow/hub.py on 127.0.0.1.
# test-needs: python3:python3 import:jsonschema:python3-jsonschema import:mf2py:python3-mf2py
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 29
tmpdir follow-test
start_server 120
C="$PY $TOP/tests/follow/check.py"
NOW=$(date +%s)
lm() { LC_ALL=C TZ=GMT date -d @$(($NOW - $1)) '+Last-Modified: %a, %d %b %Y %H:%M:%S GMT'; }
BASE=http://antenna.example/friends/

D=$T/a.db
$A -d "$D" init --base "$BASE" --title '友達の日記' --author '管理人' --page-size 2 > /dev/null 2>&1
printf '<title>山田の日記</title><p>今日は晴れ</p>\n' > "$WWW/yamada.html"
lm 3600 > "$WWW/yamada.html.hdr"
printf '<title>Say "hi" \\ & </script> \342\200\256</title><p>x</p>\n' > "$WWW/odd.html"
lm 1800 > "$WWW/odd.html.hdr"
printf '<title>Never dated</title><p>x</p>\n' > "$WWW/plain.html"
printf 'No-Validators: 1\n' > "$WWW/plain.html.hdr"
$A -d "$D" add --author 'やまだ' "$U/yamada.html" > /dev/null
$A -d "$D" add "$U/odd.html" > /dev/null
$A -d "$D" add "$U/plain.html" > /dev/null
$A -d "$D" update > /dev/null 2>&1
$A -d "$D" publish "$T/s1" > /dev/null 2>&1
is "publish: exit 0" "$?" "0"

# ---- JSON Feed 1.1 ----------------------------------------------------------
check "feed.json is written" test -s "$T/s1/feed.json"
is "feed.json is JSON Feed 1.1 (its schema, RFC 3339 dates)" "$($C jsonfeed "$T/s1")" "ok 2"
is "its items are current.atom's entries: the same ids, in the same order" "$($C ids "$T/s1")" "same"
check "index.html links it as application/feed+json" \
	grep -qF '<link rel="alternate" type="application/feed+json" href="feed.json"' "$T/s1/index.html"
is "the feed's title, home page, feed_url, language and author" "$($PY -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(d["title"], d["home_page_url"], d["feed_url"], d["language"], d["authors"][0]["name"])
' "$T/s1/feed.json")" "友達の日記 $BASE ${BASE}feed.json ja 管理人"
is "an item: url, title, date (RFC 3339), author" "$($PY -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
it = [i for i in d["items"] if i["url"].endswith("/yamada.html")][0]
print(it["title"], it["date_modified"].endswith("Z"), it["authors"][0]["name"], bool(it["content_text"]))
' "$T/s1/feed.json")" "山田の日記 True やまだ True"
is "a hostile title comes through whole, as JSON, not as markup" "$($PY -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print([i["title"] for i in d["items"] if i["url"].endswith("/odd.html")][0] == "Say \"hi\" \\ & \u202e")
' "$T/s1/feed.json")" "True"
check "no hubs in feed.json while none is set" sh -c "! grep -q '\"hubs\"' '$T/s1/feed.json'"

# ---- microformats2 ----------------------------------------------------------
$C mf2 "$T/s1" > "$T/mf2"
is "mf2py finds one h-feed on index.html" "$(head -1 "$T/mf2")" "h-feed 1"
is "... with an h-entry per row" "$(grep -c '^h-entry' "$T/mf2")" "3"
check "... each dated row has its name, its URL and dt-updated" \
	grep -q "^h-entry|山田の日記|$U/yamada.html?[0-9]*|20[0-9-]*T[0-9:]*+09:00\$" "$T/mf2"
check "... an undated row has its name and no date" grep -q "^h-entry|Never dated|$U/plain.html|\$" "$T/mf2"

# ---- WebSub -----------------------------------------------------------------
$PY "$TOP/tests/follow/hub.py" "$T/hubport" "$T/hub.log" &
HPID=$!
i=0; while [ ! -s "$T/hubport" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
HUB=http://127.0.0.1:$(cat "$T/hubport")/hub
$A -d "$D" init --hub 'javascript:alert(1)' > /dev/null 2> "$T/err"
is "init --hub refuses what is not an http(s) URL: exit 2" "$?" "2"
$A -d "$D" init --hub "$HUB" > /dev/null 2>&1
$A -d "$D" publish "$T/s1" > "$T/out" 2> "$T/err"
is "a publish without news pings no hub" "$(cat "$T/hub.log" 2>/dev/null | wc -l)" "0"
is "current.atom names the hub and itself" "$($C hubs "$T/s1" current.atom)" "self=${BASE}current.atom hub=$HUB"
is "index.atom names the hub and itself" "$($C hubs "$T/s1" index.atom)" "self=${BASE}index.atom hub=$HUB"
is "feed.json's hubs" "$($PY -c '
import json, sys
print(json.load(open(sys.argv[1], encoding="utf-8"))["hubs"])' "$T/s1/feed.json")" "[{'type': 'WebSub', 'url': '$HUB'}]"

lm 60 > "$WWW/yamada.html.hdr"
printf '<title>山田の日記</title><p>今日は晴れ</p><p>夜は雨になった</p>\n' > "$WWW/yamada.html"
$A -d "$D" update --force > /dev/null 2>&1
$A -d "$D" publish "$T/s1" > "$T/out" 2> "$T/err"
is "a publish with news: exit 0, the hub told on stdout" "$?:$(cat "$T/out" | grep -c 'told 1 WebSub hub')" "0:1"
enc=$(printf '%s' "$BASE" | sed 's|:|%3A|g; s|/|%2F|g')
is "the hub got one form-encoded ping per live feed" "$(cut -f2 "$T/hub.log" | sort | tr '\n' ' ')" \
	"hub.mode=publish&hub.url=${enc}current.atom hub.mode=publish&hub.url=${enc}feed.json hub.mode=publish&hub.url=${enc}index.atom "
is "... as application/x-www-form-urlencoded" "$(cut -f1 "$T/hub.log" | sort -u)" "application/x-www-form-urlencoded"
$A -d "$D" publish -q "$T/s1" > "$T/out" 2> "$T/err"
is "the next publish, no news: no ping, silent" "$(wc -l < "$T/hub.log"):$(cat "$T/out" "$T/err")" "3:"
kill $HPID 2>/dev/null; wait $HPID 2>/dev/null

# a dead hub, then one that answers 500: said, never fatal
$A -d "$D" init --hub http://127.0.0.1:1/hub > /dev/null 2>&1
lm 30 > "$WWW/yamada.html.hdr"
printf '<title>山田の日記</title><p>今日は晴れ</p><p>夜は雨になった</p><p>翌朝は雪</p>\n' > "$WWW/yamada.html"
$A -d "$D" update --force > /dev/null 2>&1
$A -d "$D" publish "$T/s1" > "$T/out" 2> "$T/err"
is "a dead hub: the publish still exits 0" "$?" "0"
check "... and the failure is said on stderr" grep -q 'warning: WebSub: 3 of 3 pings failed: http://127.0.0.1:1/hub' "$T/err"
check "... with the site written" grep -qF 'http://127.0.0.1:1/hub' "$T/s1/current.atom"
rm -f "$T/hubport"
$PY "$TOP/tests/follow/hub.py" "$T/hubport" "$T/hub500.log" 500 &
HPID=$!
i=0; while [ ! -s "$T/hubport" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
$A -d "$D" init --hub "http://127.0.0.1:$(cat "$T/hubport")/hub" > /dev/null 2>&1
lm 10 > "$WWW/yamada.html.hdr"
printf '<title>山田の日記</title><p>今日は晴れ</p><p>夜は雨になった</p><p>翌朝は雪</p><p>昼は曇り</p>\n' > "$WWW/yamada.html"
$A -d "$D" update --force > /dev/null 2>&1
$A -d "$D" publish "$T/s1" > "$T/out" 2> "$T/err"
is "a hub answering 500: exit 0, said with the status" "$?:$(grep -c 'HTTP status 500' "$T/err")" "0:1"
kill $HPID 2>/dev/null; wait $HPID 2>/dev/null

check "an archive, which never changes, names no hub" sh -c "test -s '$T/s1/archive/1.atom' && ! grep -q 'rel=\"hub\"' '$T/s1/archive/1.atom'"
$A -d "$D" init --no-hub > /dev/null 2>&1
$A -d "$D" publish "$T/s1" > /dev/null 2>&1
is "init --no-hub: no hub named any more" "$($C hubs "$T/s1" current.atom)" "self=${BASE}current.atom"
check "... nor in feed.json" sh -c "! grep -q '\"hubs\"' '$T/s1/feed.json'"
