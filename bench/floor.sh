# bench/floor.sh: the curl floor's pages and server, shared by
# bench/antenna.sh (rows update-floor, update-floor-off, update-first,
# update-h2) and bench/profile.sh.  Sourced; the caller sets W (a work
# directory), TOP, BUILD, ANTENNA, N_FLOOR and a say() function.
#
# The pages are static files of the shape of the test server's
# /bench/N.html (about 1.5 KB, 22 text lines) served by nginx on loopback,
# one worker: the test server tops out at about 5,000 requests/s and
# would be the floor itself.  A page's version line changes when
# floor_pages writes it again, and its sentence a word (a real text change
# the diff pages show, as the test server's /benchd/ pages; a new mtime and
# ETag).

floor_pages() { # floor_pages DIR N VERSION EVERY: write the pages N % EVERY == 0
	awk -v d="$1" -v n="$2" -v v="$3" -v k="$4" 'BEGIN {
		split("alpha bravo charlie delta echo foxtrot", w0)
		for (j = 0; j < 6; j++) w[j] = w0[j + 1]
		for (i = 0; i < n; i++) {
			if (i % k) continue
			f = d "/" i ".html"
			printf "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Bench page %d</title></head>\n<body><h1>Bench page %d</h1>\n<p>version %d: entry number %d of page %d is new today.</p>\n", i, i, v, v, i > f
			printf "<p>This version of page %d is called %s.</p>\n", i, w[v % 6] > f
			for (j = 0; j < 20; j++)
				printf "<p>Paragraph %d of page %d: the quick brown fox jumps.</p>\n", j, i > f
			print "</body></html>" > f
			close(f)
		} }'
}
# h2_server PORT: nginx's HTTP/2 over TLS server block, when h2_ca made one
h2_server() {
	[ -f "$W/tls/srv.pem" ] || return 0
	printf 'server { listen 127.0.0.1:%s ssl http2; ssl_certificate %s; ssl_certificate_key %s; root %s; keepalive_requests 100000; http2_max_requests 100000; }' \
		"$1" "$W/tls/srv.pem" "$W/tls/srv.key" "$W/floor"
}
# floor_setup NAME DB URL CFG: DB seeded with the N_FLOOR pages under URL,
# and CFG, curl's config getting the same URLs to /dev/null (update-floor,
# update-h2)
floor_setup() {
	rm -f "$2"*
	"$ANTENNA" -d "$2" init --title bench --base http://antenna.example.jp/ > /dev/null &&
		"$TOP/$BUILD/bench/seed" "$2" "$3/" "$N_FLOOR" || say "$1: cannot create the database"
	i=0
	while [ $i -lt "$N_FLOOR" ]; do
		printf 'url = "%s/%d.html"\noutput = "/dev/null"\n' "$3" $i
		i=$((i + 1))
	done > "$4"
}
floor_nginx() { # starts nginx on a free loopback port; sets NGX_PID, FLOOR_URL
	mkdir -p "$W/ngx/logs" "$W/ngx/tmp"
	tries=0
	while [ $tries -lt 10 ]; do
		p=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 30000))
		cat > "$W/ngx/nginx.conf" <<NGX
worker_processes 1;
daemon off;
pid $W/ngx/nginx.pid;
error_log $W/ngx/logs/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $W/ngx/tmp/body; proxy_temp_path $W/ngx/tmp/proxy;
	fastcgi_temp_path $W/ngx/tmp/fcgi; uwsgi_temp_path $W/ngx/tmp/uwsgi; scgi_temp_path $W/ngx/tmp/scgi;
	types { text/html html; }
	server { listen 127.0.0.1:$p; root $W/floor; keepalive_requests 100000; }
	$(h2_server $((p + 1)))
}
NGX
		nginx -p "$W/ngx" -c "$W/ngx/nginx.conf" 2> "$W/ngx/start.err" &
		NGX_PID=$!
		n=0
		while [ $n -lt 40 ]; do
			if "$TOP/$BUILD/tools/httpget" -o /dev/null "http://127.0.0.1:$p/0.html" 2> /dev/null; then
				FLOOR_URL=http://127.0.0.1:$p FLOOR_H2_URL=https://127.0.0.1:$((p + 1))
				return 0
			fi
			kill -0 $NGX_PID 2> /dev/null || break
			sleep 0.05; n=$((n + 1))
		done
		kill $NGX_PID 2> /dev/null; wait $NGX_PID 2> /dev/null
		tries=$((tries + 1))
	done
	return 1
}
# floor_off DB: the database's pages watched with the optional work off:
# no diff texts kept (init --diff-text-max 0), robots.txt not asked (every
# page --ignore-robots, as `antenna set` records it).  Trust judges the
# claims of sources, and the floor's database has none: nothing to turn off.
floor_off() {
	"$ANTENNA" -d "$1" init --diff-text-max 0 > /dev/null &&
		sqlite3 "$1" "INSERT OR REPLACE INTO robots_pages(page_id, ignore) SELECT id, 1 FROM pages" || say "cannot turn the features off in $1"
}
