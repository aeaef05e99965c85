#!/bin/sh
# Politeness per server, the contact and HTTP/2, end to end against nginx
# on loopback (one nginx listening on 127.0.0.1 and 127.0.0.2, plain HTTP
# and HTTP/2 over TLS with a certificate of the test's own CA, made here
# with openssl).  Host names are resolved by ANTENNA_RESOLVE (ant_fetch.h).
# nginx logs each request's end ($msec) and duration ($request_time), and
# its connection's age and count of requests, so the script sees which
# requests overlapped and when each started; /slow/
# pages (38 KB) take about 0.6 s (limit_rate 24k: its first second's worth at once), /busy/ answers 429 Retry-After 120.
# A third port ($PR, its own log one.log) counts every request to one
# server: a slow robots.txt, redirects (/go/N to p.example.com/slow/N)
# and a page of its own noise (/noisy/, SSI: a new request id in each answer).
# test-needs: nginx:nginx
# test-needs: openssl:openssl
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 23
tmpdir antenna-polite
chmod 755 "$T"   # nginx's worker (www-data) reads the pages
NPID=
trap '[ -n "$NPID" ] && kill "$NPID" 2>/dev/null; cleanup' EXIT INT TERM
for t in nginx openssl; do
	command -v $t > /dev/null 2>&1 || [ -x /usr/sbin/$t ] || { notok "$t installed"; exit 1; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

# the test's CA and the server's certificate
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=polite-test-ca \
	-keyout "$T/ca.key" -out "$T/ca.pem" > "$T/openssl.log" 2>&1 &&
openssl req -newkey rsa:2048 -nodes -subj /CN=h2.example.com \
	-keyout "$T/srv.key" -out "$T/srv.csr" >> "$T/openssl.log" 2>&1 &&
printf 'subjectAltName=DNS:h2.example.com,IP:127.0.0.1\n' > "$T/ext" &&
openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial \
	-days 2 -extfile "$T/ext" -out "$T/srv.pem" >> "$T/openssl.log" 2>&1 ||
	{ notok "test CA made" "$(cat "$T/openssl.log")"; exit 1; }

mkdir -p "$WWW/slow" "$WWW/fast" "$WWW/busy" "$WWW/h2" "$WWW/noisy" "$T/ngx/tmp"
big=$(awk 'BEGIN { for (i = 0; i < 760; i++) printf "<p>slow text line %d of the page, long enough</p>\n", i }')
for i in 1 2 3 4 5 6; do
	printf '<html><head><title>slow %d</title></head><body>%s</body></html>\n' $i "$big" > "$WWW/slow/$i.html"
	printf '<html><head><title>fast %d</title></head><body><p>fast %d</p></body></html>\n' $i $i > "$WWW/fast/$i.html"
done
i=0
while [ $i -lt 12 ]; do
	printf '<html><head><title>h2 %d</title></head><body><p>h2 %d</p></body></html>\n' $i $i > "$WWW/h2/$i.html"
	i=$((i + 1))
done

{ printf 'User-agent: *\nAllow: /\n'; printf '# %s\n' $big; } > "$WWW/robots.txt"
{ printf '<html><head><title>noisy</title></head><body>\n'
  for i in 1 2 3 4 5 6 7 8 9 10 11 12; do printf '<p>diary of day %d: long walks by the river, tea, and books</p>\n' $i; done
  printf '<div class="counter">visitor <!--# echo var="request_id" --></div></body></html>\n'; } > "$WWW/noisy/1.html"
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$WWW/marker.txt"
start_nginx() {
	tries=0
	while [ $tries -lt 10 ]; do
		# a port from the kernel's randomness: srand() is the second, the
		# same for two suites started together
		P=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000)); PS=$((P + 1)) PR=$((P + 2))
		cat > "$T/ngx/nginx.conf" <<NGX
worker_processes 1;
daemon off;
pid $T/ngx/nginx.pid;
error_log $T/ngx/error.log;
events { worker_connections 256; }
http {
	log_format t '\$msec \$request_time \$host \$status \$connection \$server_protocol \$uri "\$http_user_agent" \$connection_time \$connection_requests';
	access_log $T/ngx/access.log t;
	client_body_temp_path $T/ngx/tmp/body; proxy_temp_path $T/ngx/tmp/proxy;
	fastcgi_temp_path $T/ngx/tmp/fcgi; uwsgi_temp_path $T/ngx/tmp/uwsgi; scgi_temp_path $T/ngx/tmp/scgi;
	types { text/html html; }
	server {
		listen 127.0.0.1:$P; listen 127.0.0.2:$P; listen 127.0.0.3:$P;
		root $WWW;
		location /slow/ { limit_rate 24k; sendfile off; }
		location /busy/ { add_header Retry-After 120 always; return 429; }
		location = /robots.txt { access_log off; return 404; }   # counted apart (tests/robots)
	}
	server {
		listen 127.0.0.1:$PS ssl http2;
		ssl_certificate $T/srv.pem; ssl_certificate_key $T/srv.key;
		keepalive_timeout 60s;
		root $WWW;
		location = /robots.txt { access_log off; return 404; }
	}
	server {
		listen 127.0.0.1:$PR; listen 127.0.0.2:$PR;
		access_log $T/ngx/one.log t;
		root $WWW;
		location /slow/ { limit_rate 24k; sendfile off; }
		location = /robots.txt { limit_rate 24k; sendfile off; }
		location ~ ^/go/(.*)\$ { return 302 http://p.example.com:$PR/slow/\$1; }
		location /noisy/ { ssi on; }
		etag off; if_modified_since off;   # every answer whole: overlap seen in each run
	}
}
NGX
		"$NGINX" -p "$T/ngx" -c "$T/ngx/nginx.conf" 2> "$T/ngx/start.err" &
		NPID=$!
		n=0
		while [ $n -lt 40 ]; do
			# our nginx, not another's on that port: it serves our marker
			kill -0 $NPID 2> /dev/null || break
			"$HTTPGET" -o "$T/marker.got" "http://127.0.0.1:$P/marker.txt" 2> /dev/null &&
				cmp -s "$T/marker.got" "$WWW/marker.txt" && return 0
			sleep 0.1; n=$((n + 1))
		done
		kill $NPID 2> /dev/null; wait $NPID 2> /dev/null; NPID=
		tries=$((tries + 1))
	done
	return 1
}
start_nginx || { notok "nginx started" "$(cat "$T/ngx/start.err" "$T/ngx/error.log" 2>/dev/null)"; exit 1; }
: > "$T/ngx/access.log"
LOG=$T/ngx/access.log

# host names: NAME=ADDRESS pairs for both ports
resolve() {
	r=
	for h in "$@"; do r="$r ${h%=*}:$P:${h#*=} ${h%=*}:$PS:${h#*=} ${h%=*}:$PR:${h#*=}"; done
	echo "$r"
}
export CURL_CA_BUNDLE="$T/ca.pem"
# (g.example.jp has an address of its own: names at one address are one server)
export ANTENNA_RESOLVE="$(resolve a.example.com=127.0.0.1 b.example.com=127.0.0.2 \
	c.example.net=127.0.0.1 d.example.org=127.0.0.2 alice.github.io=127.0.0.1 bob.github.io=127.0.0.2 \
	e.example.net=127.0.0.1 f.example.org=127.0.0.1 g.example.jp=127.0.0.3 \
	x.busy.example=127.0.0.1 y.busy.example=127.0.0.2 h2.example.com=127.0.0.1 \
	p.example.com=127.0.0.1 q.example.com=127.0.0.1 r.example.org=127.0.0.2)"

newdb() { # newdb NAME [INIT OPTION...]: $T/NAME.db
	db=$T/$1.db; shift
	$A -d "$db" init --allow-private --base http://antenna.example.jp/ "$@" > /dev/null
}
addpages() { # addpages DB URL...
	d=$1; shift
	for u in "$@"; do $A -d "$d" add "$u" > /dev/null 2>&1; done
}
# overlap HOSTRE PATHRE [AFTER]: the most requests to those hosts and paths
# running at once (of those started after the first one ended, with AFTER)
overlap() {
	awk -v h="$1" -v p="$2" -v after="${3:-0}" '$3 ~ h && $7 ~ p {
		n++; e[n] = $1; s[n] = $1 - $2 }
	END {
		first = 1e18; for (i = 1; i <= n; i++) if (e[i] < first) first = e[i]
		m = 0
		for (i = 1; i <= n; i++) {
			if (after && s[i] < first - 0.002) continue
			c = 0
			for (j = 1; j <= n; j++) {
				if (after && s[j] < first - 0.002) continue
				if (s[j] <= s[i] + 0.001 && e[j] > s[i] + 0.001) c++
			}
			if (c > m) m = c
		}
		print m }' "$LOG"
}
upd() { $A -d "$1" update --force --per-host "${2:-1}" --jobs 16 ${3:-} > "$T/upd.out" 2>&1; }

# 1. two names of one registrable domain on two addresses: one server
newdb dom
addpages "$T/dom.db" "http://a.example.com:$P/slow/1.html" "http://b.example.com:$P/slow/2.html"
: > "$LOG"; upd "$T/dom.db"
is "a.example.com and b.example.com share one budget (never at once)" "$(overlap 'example\.com' /slow/)" 1
# the same with two domains: at once (what the test above can see)
newdb twodom
addpages "$T/twodom.db" "http://c.example.net:$P/slow/1.html" "http://d.example.org:$P/slow/2.html"
: > "$LOG"; upd "$T/twodom.db"
is "c.example.net and d.example.org on two addresses: two budgets" "$(overlap 'example\.(net|org)' /slow/)" 2
# a private suffix of the list: alice.github.io and bob.github.io are two sites
newdb priv
addpages "$T/priv.db" "http://alice.github.io:$P/slow/1.html" "http://bob.github.io:$P/slow/2.html"
: > "$LOG"; upd "$T/priv.db"
is "github.io is a public suffix: alice and bob get a budget each" "$(overlap 'github\.io' /slow/)" 2

# 2. two domains at one address: one server once an address is seen
newdb addr
addpages "$T/addr.db" "http://e.example.net:$P/slow/1.html" "http://f.example.org:$P/slow/2.html" \
	"http://e.example.net:$P/slow/3.html" "http://f.example.org:$P/slow/4.html" \
	"http://e.example.net:$P/slow/5.html" "http://f.example.org:$P/slow/6.html"
: > "$LOG"; upd "$T/addr.db"
is "names at one address share the budget once it is seen" "$(overlap 'example\.(net|org)' /slow/ 1)" 1
is "... all six checked" "$(grep -c ' /slow/' "$LOG")" 6

# 3. the minimum delay between two requests to one server
newdb delay --min-delay 400
addpages "$T/delay.db" "http://g.example.jp:$P/fast/1.html" "http://g.example.jp:$P/fast/2.html" \
	"http://g.example.jp:$P/fast/3.html" "http://g.example.jp:$P/fast/4.html"
: > "$LOG"; upd "$T/delay.db" 4
# each request's start as the antenna made it: a connection's first
# request when the connection was accepted (its first bytes come only
# after the connect, a loop's turn or two later on a loaded machine: by
# them alone its gap to the next, on the open connection, looks shorter
# than the antenna spaced it), a later one when its first bytes came
gap=$(awk '{ printf "%.3f\n", $NF == 1 ? $1 - $(NF - 1) : $1 - $2 }' "$LOG" | sort -n | awk 'NR > 1 { d = $1 - prev; if (min == "" || d < min) min = d } { prev = $1 } END { printf "%d", min * 1000 }')
check "init --min-delay 400: starts at least 390 ms apart (got ${gap} ms)" test "$gap" -ge 390
is "... all four checked" "$(wc -l < "$LOG" | tr -d ' ')" 4
check "init --min-delay -1 refused" sh -c "! $A -d '$T/delay.db' init --min-delay -1 2>/dev/null"

# 4. 429 with Retry-After: no request to that server until then, across runs
newdb busy
addpages "$T/busy.db" "http://x.busy.example:$P/busy/1.html" "http://x.busy.example:$P/fast/1.html" \
	"http://y.busy.example:$P/fast/2.html" "http://g.example.jp:$P/fast/3.html"
: > "$LOG"; upd "$T/busy.db"
is "429 Retry-After: one request to busy.example, none after it" "$(grep -c 'busy\.example' "$LOG")" 1
# (its page: the one page of its site, it may also have had its sibling
# page fetched for the site's template, ant_furniture.h)
is "... another server still checked" "$(grep -c 'g\.example\.jp .* /fast/3\.html' "$LOG")" 1
jget "$T/busy.db" "http://y.busy.example:$P/fast/2.html" last_error > "$T/err"
check "... the page not asked says deferred and until when: $(cat "$T/err")" grep -q 'deferred: busy.example asked us to wait until .*(Retry-After)' "$T/err"
: > "$LOG"; upd "$T/busy.db"
is "... remembered: the next run asks busy.example nothing" "$(grep -c 'busy\.example' "$LOG")" 0

# 5. the contact in the User-Agent
newdb ua --contact https://antenna.example.org/about
addpages "$T/ua.db" "http://g.example.jp:$P/fast/5.html"
: > "$LOG"; upd "$T/ua.db"
V=$($A --version | awk '{ print $NF; exit }')
check "init --contact: User-Agent lirs-antenna/VERSION (+URL)" grep -q "\"lirs-antenna/[^ ]* (+https://antenna.example.org/about)\"" "$LOG"
check "init --contact mailto: accepted" $A -d "$T/ua.db" init --contact mailto:ops@example.org
check "init --contact with CR LF refused" sh -c "! $A -d '$T/ua.db' init --contact \"\$(printf 'http://x.example/\r\nX-Evil: 1')\" 2>/dev/null"
check "init --contact ftp:// refused" sh -c "! $A -d '$T/ua.db' init --contact ftp://x.example/ 2>/dev/null"

# 6. HTTP/2 over TLS, one connection for the whole run across batches
newdb h2
i=0; while [ $i -lt 12 ]; do addpages "$T/h2.db" "https://h2.example.com:$PS/h2/$i.html"; i=$((i + 1)); done
: > "$LOG"; upd "$T/h2.db" 4 "--page-batch 4"
is "HTTP/2 over TLS (the test CA): every request" "$(awk '$6 == "HTTP/2.0"' "$LOG" | wc -l | tr -d ' ')" 12
is "... one connection across three batches" "$(awk '{ print $5 }' "$LOG" | sort -u | wc -l | tr -d ' ')" 1

# 7. every request to a server counts against its limit, from the run's
# first: robots.txt (slow here), a redirect from another server's name
# (r.example.org) and from the server's own (q.example.com), and the
# noise re-fetch; two names at one address, --per-host 2, three runs
newdb one
addpages "$T/one.db" "http://p.example.com:$PR/slow/1.html" "http://q.example.com:$PR/slow/2.html" \
	"http://p.example.com:$PR/slow/3.html" "http://r.example.org:$PR/go/4.html" \
	"http://q.example.com:$PR/go/5.html" "http://p.example.com:$PR/noisy/1.html"
LOG1=$LOG; LOG=$T/ngx/one.log
for run in 1 2 3; do
	: > "$LOG"; upd "$T/one.db" 2 "--refetch-pause 100"
	[ $run = 1 ] && is "... the redirects followed (run 1)" "$(grep -c ' /slow/[45]\.html' "$LOG")" 2
	[ $run = 2 ] && check "... the noisy page fetched again (run 2): $(sed -n 's/.*; \([0-9]* pages\{0,1\} fetched again\).*/\1/p' "$T/upd.out")" \
		grep -q 'fetched again' "$T/upd.out"
	is "one server, --per-host 2: at most 2 requests at once, and 2 (run $run)" "$(overlap 'example\.com' .)" 2
done
LOG=$LOG1
