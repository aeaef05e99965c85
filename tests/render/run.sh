#!/bin/sh
# Pages that need a browser (ant_render.h, net/render.c): Debian's headless
# chromium renders loopback pages of the test server through the module
# alone (tests/tools/render-get), and the rules read what it rendered.
#  - a list built by the page's script (a timer, a fetch()) is empty read
#    plainly, there when rendered; the browser sends our User-Agent;
#  - the internal-address guard holds for everything the browser asks: a
#    script's fetch(), a redirect of the page, an image, an iframe, a
#    WebSocket to another internal host (localhost:PORT2, 127.0.0.2, as
#    tests/internal names them; an https fetch; a name that resolves to
#    loopback) fail the render, naming what was refused,
#    and the internal server is never asked; --allow-private lets them;
#  - bounds: a render over its time limit is killed with every process of
#    it; one over its memory or DOM size limit fails; no process, zombie or
#    profile folder is left; renders take turns on the machine's lock;
#    20 renders in a row stay bounded in time and memory (the figures are
#    printed as "# " lines);
#  - no chromium: the error says what to install;
#  - the rendered DOM's clock and random ids are not an update for the
#    existing rules, the page's real edit is (served as a static snapshot
#    of each render: the update loop's own --render is tested by
#    tests/render's last part once 'add --render' exists).
# test-needs: python3:python3 chromium:chromium flock:util-linux
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

RG=$TOP/$BUILD/tools/render-get
tmpdir antenna-render
start_server 300 --verbose   # its log: the User-Agent
if [ ! -x /usr/lib/chromium/chromium ] && ! command -v chromium > /dev/null; then
	notok "chromium is installed (make tests installs it: test-needs)"
	exit 1
fi
[ -x "$RG" ] || { notok "render-get is built ($RG)"; exit 1; }
mkdir -p "$T/tmp"
export TMPDIR=$T/tmp   # the renders' profile folders and lock files: ours
second_server
asked2() { grep -c "GET " "$T/server2.log"; }
# render NAME [OPTIONS...] URL: render-get with the page's own host allowed,
# as the update loop passes it; DOM in $T/NAME.html, its line in $T/NAME.err
render() {
	rn=$1; shift
	eval "rurl=\${$#}"
	"$RG" --allow "$rurl" "$@" > "$T/$rn.html" 2> "$T/$rn.err"
}
stat_of() { sed -n "s/^render: .*$2=\([^ ]*\).*/\1/p" "$T/$1.err" | tail -1; }
leftover() { ps -eo args | grep -F "$T/tmp/antenna-render" | grep -v grep; }

plan 54

# ---- a page built by its script ------------------------------------------
cat > "$WWW/items.json" <<'EOF'
["item-one", "item-two", "item-three"]
EOF
cat > "$WWW/app.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>App</title></head>
<body><h1>News</h1><ul id="news"></ul><p id="late"></p>
<script>
fetch('/items.json').then(function (r) { return r.json(); }).then(function (items) {
  var ul = document.getElementById('news');
  items.forEach(function (t) { var li = document.createElement('li'); li.textContent = t; ul.appendChild(li); });
});
setTimeout(function () { document.getElementById('late').textContent = 'after-a-timer'; }, 1500);
</script></body></html>
EOF
"$HTTPGET" "$U/app.html" > "$T/plain.html"
check "read plainly, the page's list is empty" sh -c "! grep -q 'item-one' '$T/plain.html'"
render app "$U/app.html"
is "rendered: render-get succeeds" "$?" 0
check "rendered: the list its script fetched is there" grep -q '<li>item-one</li><li>item-two</li><li>item-three</li>' "$T/app.html"
check "rendered: what a 1.5 s timer wrote is there (virtual time)" grep -q 'after-a-timer' "$T/app.html"
is "rendered: status 200, no error" "$(stat_of app status) $(stat_of app err)" "200 ok"
render missing "$U/no-such-page.html"
is "a page that is not there: its own status (404), as a fetch's" "$(stat_of missing status) $(stat_of missing err)" "404 ok"
ua=$(grep "GET /app.html " "$T/server.log" | tail -1)
case $ua in *"user-agent 'lirs-antenna/"*) ok "the browser sends our User-Agent" ;;
	*) notok "the browser sends our User-Agent" "$ua" ;; esac
is "the render leaves no process (render-get's count of them)" "$(stat_of app leftover)" 0
is "... and no profile folder" "$(ls "$T/tmp" | grep -c '^antenna-render\.')" 0

# ---- the guard --------------------------------------------------------------
echo '{"secret": "SECRET-INTERNAL"}' > "$T/www2/secret.json"
printf 'Access-Control-Allow-Origin: *\n' > "$T/www2/secret.json.hdr"   # CORS: the page may read it
echo '<html><body><p>SECRET-INTERNAL</p></body></html>' > "$T/www2/secret.html"
cat > "$WWW/leak-fetch.html" <<EOF
<html><body><p id="x">waiting</p><script>
fetch('$U2/secret.json').then(function (r) { return r.text(); })
  .then(function (t) { document.getElementById('x').textContent = t; }, function () {});
</script></body></html>
EOF
printf 'Redirect: %s/secret.html\n' "$U2" > "$WWW/leak-redir.html.hdr"
cat > "$WWW/leak-img.html" <<EOF
<html><body><p>an image on another internal address</p><img src="http://127.0.0.2:$P/pixel.png"></body></html>
EOF
cat > "$WWW/leak-frame.html" <<EOF
<html><body><p>a frame</p><iframe src="$U2/secret.html"></iframe></body></html>
EOF
cat > "$WWW/leak-ws.html" <<EOF
<html><body><p>a socket</p><script>try { new WebSocket('ws://localhost:$P2/ws'); } catch (e) {}</script></body></html>
EOF
cat > "$WWW/leak-tls.html" <<EOF
<html><body><p>https</p><script>fetch('https://localhost:$P2/secret.json').catch(function () {});</script></body></html>
EOF
# a public-looking name the proxy resolves to loopback (ANTENNA_RESOLVE,
# as a name re-bound to an internal address would)
cat > "$WWW/leak-name.html" <<EOF
<html><body><p>a name</p><script>fetch('http://intranet.example:$P2/secret.json').catch(function () {});</script></body></html>
EOF
export ANTENNA_RESOLVE="intranet.example:$P2:127.0.0.1"
for k in fetch redir img frame ws tls name; do
	render "leak-$k" "$U/leak-$k.html"
	rc=$?
	e=$(grep '^error: ' "$T/leak-$k.err")
	case "$rc $e" in
	"1 error: internal: refused to connect to internal address "*"(loopback) of "*"asked by the rendered page: init --allow-private allows it")
		ok "a page's $k to an internal host: the render is refused, the error says why" ;;
	*) notok "a page's $k to an internal host: the render is refused, the error says why" "rc $rc: $e" ;;
	esac
done
check "... the fetch() names localhost:PORT2" grep -q "of localhost:$P2," "$T/leak-fetch.err"
check "... the image names 127.0.0.2:PORT" grep -q "internal address 127.0.0.2 (loopback) of 127.0.0.2:$P," "$T/leak-img.err"
check "... the name is judged on the address the proxy resolved it to" \
	grep -q "internal address 127.0.0.1 (loopback) of intranet.example:$P2," "$T/leak-name.err"
unset ANTENNA_RESOLVE
is "the internal server was never asked" "$(asked2)" 0
check "a refused render's DOM is not handed back" test ! -s "$T/leak-fetch.html"
"$RG" "$U/app.html" > /dev/null 2> "$T/notallowed.err"
check "the page's own internal host, not allowed: refused too" \
	grep -q "error: internal: refused to connect to internal address 127.0.0.1 (loopback) of 127.0.0.1:$P," "$T/notallowed.err"
render allowed --allow-private "$U/leak-fetch.html"
check "--allow-private: the script's fetch goes through (the refusal was the guard's)" \
	grep -q 'SECRET-INTERNAL' "$T/allowed.html"
check "... so the internal server was asked" test "$(asked2)" -ge 1
is "no process left after the refusals" "$(leftover)" ""

# ---- bounds -------------------------------------------------------------
printf 'Delay-Ms: 60000\n' > "$WWW/slow.json.hdr"
echo '[]' > "$WWW/slow.json"
cat > "$WWW/slow.html" <<'EOF'
<html><body><p>slow</p><script>fetch('/slow.json');</script></body></html>
EOF
t0=$(date +%s)
render slow --timeout 3 "$U/slow.html"
rc=$? t1=$(date +%s)
check "a render over --timeout fails as a timeout" grep -q "error: timeout: the render took over 3 s" "$T/slow.err"
check "... within a few seconds of the limit ($((t1 - t0)) s)" test $((t1 - t0)) -le 10
is "... every process of it killed and reaped (none left, no zombie)" "$(stat_of slow leftover)" 0
is "... none in ps either" "$(leftover)" ""
is "... its profile folder removed" "$(ls "$T/tmp" | grep -c '^antenna-render\.')" 0
render mem --memory 16 "$U/app.html"
check "a render over --render-memory fails, naming the limit" grep -q "error: other: the browser used over 16 MiB" "$T/mem.err"
"$PY" -c 'print("<html><body>" + "<p>filler text</p>" * 5000 + "</body></html>")' > "$WWW/big.html"
render big --max-body 20000 "$U/big.html"
check "a DOM over the body limit fails as too big" grep -q "error: too-big: the rendered page is over 20000 bytes" "$T/big.err"
"$RG" --browser /nonexistent/chromium --allow "$U/app.html" "$U/app.html" > /dev/null 2> "$T/nobrowser.err"
check "no chromium: the error says what to install" \
	grep -q "error: other: --render needs chromium: apt-get install chromium" "$T/nobrowser.err"
ANTENNA_CHROMIUM=/nonexistent/chromium "$RG" --allow "$U/app.html" "$U/app.html" > /dev/null 2> "$T/nobrowser2.err"
check "... also when ANTENNA_CHROMIUM names none" grep -q "apt-get install chromium" "$T/nobrowser2.err"
# the machine's render lock: held elsewhere for 3 s, a render waits for it
LF=$T/tmp/lirs-antenna-render.0.lock
flock "$LF" sleep 3 &
FPID=$!
i=0
while flock -n "$LF" true && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done   # until it holds it
t0=$(date +%s)
render locked --lock "$U/app.html"
t1=$(date +%s)
wait "$FPID"
check "a render waits for the machine's render lock ($((t1 - t0)) s)" test $((t1 - t0)) -ge 3
check "... then renders" grep -q '<li>item-one</li>' "$T/locked.html"

# ---- 20 renders in a row --------------------------------------------------
t0=$(date +%s)
"$RG" --allow "$U/app.html" --count 20 "$U/app.html" > "$T/twenty.html" 2> "$T/twenty.err"
rc=$? t1=$(date +%s)
is "20 renders in a row all succeed" "$rc $(grep -c 'err=ok' "$T/twenty.err")" "0 20"
"$PY" - "$T/twenty.err" > "$T/twenty.sum" <<'EOF'
import re, sys
s, kb, procs, left = [], [], [], []
for l in open(sys.argv[1]):
    m = re.match(r"render: seconds=(\S+) peak_kb=(\d+) procs=(\d+) .*leftover=(\d+)", l)
    if m:
        s.append(float(m[1])); kb.append(int(m[2])); procs.append(int(m[3])); left.append(int(m[4]))
print(len(s), "%.2f" % (sum(s) / len(s)), "%.2f" % max(s), max(kb) // 1024, max(procs), sum(left),
      "%.2f" % (sum(s[-5:]) / 5 - sum(s[:5]) / 5), (max(kb[-5:]) - max(kb[:5])) // 1024)
EOF
read -r n avg smax mb procs left drift mdrift < "$T/twenty.sum"
echo "# 20 renders: $((t1 - t0)) s in all, $avg s a render on average, $smax s the longest;"
echo "#   peak memory (PSS summed) $mb MiB, $procs processes at most; last five vs first five: ${drift} s, ${mdrift} MiB"
check "... each under 10 s (longest $smax s)" "$PY" -c "import sys; sys.exit(not $smax < 10)"
check "... each under 1024 MiB (peak $mb MiB)" test "$mb" -lt 1024
check "... the later renders no slower or bigger than the first (${drift} s, ${mdrift} MiB)" \
	"$PY" -c "import sys; sys.exit(not ($drift < 5 and $mdrift < 200))"
is "... none leaves a process" "$left" 0
is "... nor a profile folder" "$(ls "$T/tmp" | grep -c '^antenna-render\.')" 0

# ---- the rules on the rendered DOM: a clock and random ids are no update ------
cat > "$WWW/clock.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>Club</title></head>
<body><div id="app"></div>
<script>
var now = new Date();
var app = document.getElementById('app');
var id = 'w' + Math.random().toString(36).slice(2);
app.innerHTML = '<p class="clock">Now: ' + now.toISOString() + '</p>' +
  '<div id="' + id + '" data-nonce="' + Math.random() + '"><h2>Next meeting</h2>' +
  '<p>The next meeting of the club is on the first Saturday of next month at the town hall, room two.</p></div>';
</script></body></html>
EOF
# The update loop's own path (p->render) needs 'add --render' (another
# change): here every plain GET of /page on a small server of the test's
# runs render-get on the clock page and answers its DOM, so that each of
# the antenna's fetches -- its check and the re-fetch after the pause
# (ant_update.h: what differs between the two is learned volatile) --
# is a fresh render, as for a page added with --render.
cat > "$T/rserver.py" <<'PYEOF'
import http.server, subprocess, sys
rg, url, port_file = sys.argv[1], sys.argv[2], sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        p = subprocess.run([rg, "--allow", url, url], capture_output=True, timeout=60)
        code = 200 if p.returncode == 0 else 500
        self.send_response(code)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(p.stdout)))
        self.end_headers()
        self.wfile.write(p.stdout)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(port_file + ".tmp", "w").write(str(s.server_address[1]))
import os; os.rename(port_file + ".tmp", port_file)
s.timeout = 1
import time; end = time.time() + 200
while time.time() < end:
    s.handle_request()
PYEOF
"$PY" "$T/rserver.py" "$RG" "$U/clock.html" "$T/port3" 2> "$T/rserver.log" &
SPID3=$!
trap '[ -n "$SPID2" ] && kill "$SPID2" 2>/dev/null; kill "$SPID3" 2>/dev/null; cleanup' EXIT INT TERM
i=0
while [ ! -s "$T/port3" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
U3="http://127.0.0.1:$(cat "$T/port3")"
D=$T/r.db
$A -d "$D" init --title Render --base http://example.com/ant/ > /dev/null
"$HTTPGET" "$U3/page" > "$T/snap.first"
"$HTTPGET" "$U3/page" > "$T/snap.second"
check "rendered twice: the clock and the random ids differ" sh -c "! cmp -s '$T/snap.first' '$T/snap.second'"
check "... the meeting is in the DOM" grep -q 'first Saturday' "$T/snap.first"
$A -d "$D" add "$U3/page" > /dev/null
NOWT=$(date +%s)
$A -d "$D" update --force --now "$NOWT" > "$T/u1" 2>&1
$A -d "$D" update --force --now $((NOWT + 3600)) > "$T/u2" 2>&1
check "rendered again, the clock and ids changed, nothing else: not an update" \
	grep -q "checked 1 page: 0 updated, 1 unchanged, 0 failed" "$T/u2"
$A -d "$D" update --force --now $((NOWT + 7200)) > "$T/u2b" 2>&1
check "... nor the next time" grep -q "checked 1 page: 0 updated, 1 unchanged, 0 failed" "$T/u2b"
sed -i 's/first Saturday/second Sunday/' "$WWW/clock.html"
$A -d "$D" update --force --now $((NOWT + 10800)) > "$T/u3" 2>&1
check "the page's real edit, rendered: an update" grep -q "checked 1 page: 1 updated, 0 unchanged, 0 failed" "$T/u3"
check "... its excerpt is the edit" sh -c "$A -d '$D' show '$U3/page' | grep -q 'second Sunday'"

# ---- the update loop's own path: a page added with --render ------------------
# (ant_store_page.render)
E=$T/e.db
$A -d "$E" init --title E --base http://example.com/e/ > /dev/null
sed -i 's/second Sunday/third Monday/; s/first Saturday/third Monday/' "$WWW/clock.html"
$A -d "$E" add --render "$U/clock.html" > /dev/null
$A -d "$E" add --render "$U/leak-fetch.html" > /dev/null
$A -d "$E" update --force --now "$NOWT" > "$T/e1" 2>&1
$A -d "$E" update --force --now $((NOWT + 3600)) > "$T/e2" 2>&1
check "update, add --render: the rendered clock and ids are not an update" \
	grep -q "checked 2 pages: 0 updated, 1 unchanged, 1 failed" "$T/e2"
e=$(jget "$E" "$U/leak-fetch.html" last_error)
case $e in "refused to connect to internal address "*"of localhost:$P2, asked by the rendered page: init --allow-private allows it")
	ok "update, add --render: a page whose script asks an internal host fails, saying why" ;;
	*) notok "update, add --render: a page whose script asks an internal host fails, saying why" "$e" ;; esac
sed -i 's/third Monday/fourth Friday/' "$WWW/clock.html"
$A -d "$E" update --force --now $((NOWT + 7200)) > "$T/e3" 2>&1
check "update, add --render: the page's real edit is an update" \
	grep -q "checked 2 pages: 1 updated, 0 unchanged, 1 failed" "$T/e3"
check "... its excerpt is the text its script wrote (the page was rendered)" \
	sh -c "$A -d '$E' show '$U/clock.html' | grep -q 'fourth Friday'"

# politeness: a server that answered 503 Retry-After in this run is not
# rendered either (its page deferred, the wait named); the browser is not
# started for it (the server's log has no new request of the page)
F=$T/f.db
$A -d "$F" init --title F --base http://example.com/f/ > /dev/null
printf 'Status: 503 Service Unavailable\nRetry-After: 86400\n' > "$WWW/busy.html.hdr"
$A -d "$F" add "$U/busy.html" > /dev/null
$A -d "$F" add --render "$U/clock.html" > /dev/null
n=$(asked /clock.html)
$A -d "$F" update --force --now "$NOWT" > "$T/f1" 2>&1
e=$(jget "$F" "$U/clock.html" last_error)
case $e in "deferred: 127.0.0.1 asked us to wait until "*) ok "update, add --render: a server's Retry-After defers its render too, named" ;;
	*) notok "update, add --render: a server's Retry-After defers its render too, named" "$e" "$(cat "$T/f1")" ;; esac
is "... chromium never asked the server for it" "$(asked /clock.html)" "$n"
