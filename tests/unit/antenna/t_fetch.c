/*
 * t_fetch: ant_fetch_run() against the project's own loopback server
 * (build/tools/testserver, started here on 127.0.0.1, port 0, with a
 * scratch --root the checks write pages and .hdr directives into).
 * No other address is touched: the internal-address checks refuse
 * 10.0.0.1 and the like before connecting, and the one public address
 * asked for (192.0.2.1, TEST-NET-1) goes through the server as a proxy.
 */
#include "ant_fetch.h"
#include "ant_page.h"
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <iconv.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];            /* the server's --root, under /tmp */
static char base[64];          /* "http://127.0.0.1:PORT" */
static int port;
static pid_t server = -1;

/* ---- scratch files ------------------------------------------------------- */

static void put(const char *name, const char *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fwrite(data, 1, len, f);
	fclose(f);
}

static void puts_file(const char *name, const char *s)
{
	put(name, s, strlen(s));
}

static void set_mtime(const char *name, time_t t)
{
	char path[PATH_MAX];
	struct timeval tv[2] = { { t, 0 }, { t, 0 } };

	snprintf(path, sizeof path, "%s/%s", dir, name);
	utimes(path, tv);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

/* ---- the server ---------------------------------------------------------- */

static void server_path(char *out, size_t n)
{
	char self[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	const char *env = getenv("TESTSERVER");

	if (env) {
		snprintf(out, n, "%s", env);
		return;
	}
	/* $BUILD/tests/t_fetch -> $BUILD/tools/testserver */
	self[k > 0 ? k : 0] = '\0';
	snprintf(out, n, "%s/../tools/testserver", dirname(self));
}

static int start_server(void)
{
	char exe[PATH_MAX], portfile[PATH_MAX];

	server_path(exe, sizeof exe);
	snprintf(portfile, sizeof portfile, "%s/port", dir);
	server = fork();
	if (server == 0) {
		execl(exe, exe, "--root", dir, "--port-file", portfile, "--max-seconds", "120", (char *)NULL);
		perror(exe);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {   /* up to 5 s */
		FILE *f = fopen(portfile, "r");

		if (f) {
			int ok = fscanf(f, "%d", &port) == 1;

			fclose(f);
			if (ok) {
				snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
				return 0;
			}
		}
		usleep(10000);
	}
	return -1;
}

static void stop_server(void)
{
	if (server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
	}
}

/* ---- fetching ------------------------------------------------------------ */

/* A deep copy of a ant_fetch_result, which the callback only borrows. */
typedef struct got {
	ant_fetch_errkind err;
	char error[256];
	long status;
	char *body;
	size_t len;
	char *etag, *last_modified, *content_type, *effective_url;
	int64_t last_modified_time, date_time, content_length, retry_after;
	int conditional_retried;
	double seconds;
	int calls;
} got;

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void on_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	got *g = (got *)ctx + (req->user ? (size_t)(intptr_t)req->user - 1 : 0);

	g->calls++;
	g->err = res->err;
	snprintf(g->error, sizeof g->error, "%s", res->error);
	g->status = res->status;
	g->body = malloc(res->len + 1);
	memcpy(g->body, res->body, res->len + 1);
	g->len = res->len;
	g->etag = dup_or_null(res->etag);
	g->last_modified = dup_or_null(res->last_modified);
	g->content_type = dup_or_null(res->content_type);
	g->effective_url = dup_or_null(res->effective_url);
	g->last_modified_time = res->last_modified_time;
	g->date_time = res->date_time;
	g->content_length = res->content_length;
	g->retry_after = res->retry_after;
	g->conditional_retried = res->conditional_retried;
	g->seconds = res->seconds;
}

static void got_free(got *g)
{
	free(g->body);
	free(g->etag);
	free(g->last_modified);
	free(g->content_type);
	free(g->effective_url);
	memset(g, 0, sizeof *g);
}

static ant_fetch_limits limits(void)
{
	ant_fetch_limits l;

	memset(&l, 0, sizeof l);
	l.max_redirects = -1;
	return l;
}

/* path (on the server, or a whole URL) fetched with allow as its
 * allow_host; "" means the URL itself, as for a page the operator added. */
static got get_as(const ant_fetch_limits *l, const char *path, const char *etag, const char *lm,
		  const char *allow)
{
	char url[512];
	ant_fetch_req r = { url, etag, lm, NULL, NULL };
	got g;

	memset(&g, 0, sizeof g);
	if (strstr(path, "://"))
		snprintf(url, sizeof url, "%s", path);
	else
		snprintf(url, sizeof url, "%s%s", base, path);
	r.allow_host = allow && !*allow ? url : allow;
	if (ant_fetch_run(l, &r, 1, on_done, &g) != 0)
		g.err = -1;
	return g;
}

static got get(const ant_fetch_limits *l, const char *path, const char *etag, const char *lm)
{
	return get_as(l, path, etag, lm, "");
}

static void control(const char *path)
{
	ant_fetch_limits l = limits();
	got g = get(&l, path, NULL, NULL);

	got_free(&g);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- checks -------------------------------------------------------------- */

static void t_basic_and_304(void)
{
	ant_fetch_limits l = limits();
	got a, b, c;

	puts_file("p.html", "<html><head><title>P</title></head><body>text</body></html>\n");
	set_mtime("p.html", 1700000000);  /* Tue, 14 Nov 2023 22:13:20 GMT */
	a = get(&l, "/p.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_OK, "200: no error");
	IS_INT(a.status, 200, "200: status");
	OK(a.body && strstr(a.body, "<title>P</title>"), "200: body");
	OK(a.etag && a.etag[0] == '"', "200: quoted ETag kept as sent (%s)", a.etag ? a.etag : "-");
	IS_STR(a.last_modified, "Tue, 14 Nov 2023 22:13:20 GMT", "200: Last-Modified raw");
	IS_INT(a.last_modified_time, 1700000000, "200: Last-Modified parsed");
	OK(llabs((long long)(a.date_time - time(NULL))) < 5, "200: Date parsed");
	IS_STR(a.content_type, "text/html", "200: Content-Type");
	IS_INT(a.content_length, (int64_t)a.len, "200: Content-Length");
	OK(a.seconds > 0, "200: transfer time");

	b = get(&l, "/p.html", a.etag, a.last_modified);
	IS_INT(b.status, 304, "conditional: 304 with ETag + Last-Modified echoed");
	IS_INT(b.len, 0, "304: empty body");
	IS_STR(b.etag, a.etag, "304: validators reported again");
	c = get(&l, "/p.html", NULL, a.last_modified);
	IS_INT(c.status, 304, "conditional: 304 with Last-Modified alone");
	got_free(&b);
	got_free(&c);
	b = get(&l, "/p.html", "\"other\"", a.last_modified);
	IS_INT(b.status, 200, "a stale ETag wins over a matching If-Modified-Since");
	got_free(&a);
	got_free(&b);
}

/* The server compares validators as strings: only an unchanged echo of an
 * unusual date format gets 304. */
static void t_echo_unchanged(void)
{
	ant_fetch_limits l = limits();
	got a, b, e;

	puts_file("odd.html", "odd\n");
	puts_file("odd.html.hdr", "Last-Modified: Tuesday, 02-Jan-24 03:04:05 GMT\n");
	a = get(&l, "/odd.html", NULL, NULL);
	IS_STR(a.last_modified, "Tuesday, 02-Jan-24 03:04:05 GMT", "RFC 850 Last-Modified kept raw");
	IS_INT(a.last_modified_time, 1704164645, "RFC 850 Last-Modified parsed");
	b = get(&l, "/odd.html", NULL, a.last_modified);
	IS_INT(b.status, 304, "RFC 850 If-Modified-Since echoed unchanged gets 304");
	e = get(&l, "/_control/echo", "W/\"x y\"", "Tuesday, 02-Jan-24 03:04:05 GMT");
	OK(strstr(e.body, "If-None-Match: W/\"x y\"\n") != NULL, "If-None-Match sent verbatim");
	OK(strstr(e.body, "If-Modified-Since: Tuesday, 02-Jan-24 03:04:05 GMT\n") != NULL,
	   "If-Modified-Since sent verbatim");
	OK(strstr(e.body, "User-Agent: lirs-antenna/") != NULL, "polite User-Agent names the antenna");
	OK(strstr(e.body, "Accept-Encoding: ") != NULL, "Accept-Encoding offered");
	got_free(&e);
	e = get(&l, "/_control/echo", "\"a\"\r\nX-Injected: 1", NULL);
	OK(strstr(e.body, "X-Injected") == NULL, "a validator with CR/LF is not sent");
	got_free(&a);
	got_free(&b);
	got_free(&e);
}

static void t_412(void)
{
	ant_fetch_limits l = limits();
	got a, b;

	puts_file("pf.html", "<title>pf</title>\n");
	puts_file("pf.html.hdr", "Precondition-Failed: 1\n");
	a = get(&l, "/pf.html", "\"whatever\"", NULL);
	IS_INT(a.status, 200, "412 to a conditional GET: retried unconditionally");
	IS_INT(a.conditional_retried, 1, "412: conditional_retried set");
	OK(strstr(a.body, "pf") != NULL, "412: body of the retry");
	b = get(&l, "/pf.html", NULL, NULL);
	IS_INT(b.conditional_retried, 0, "unconditional GET: no retry flag");
	got_free(&a);
	got_free(&b);
}

static void t_dynamic_date(void)
{
	ant_fetch_limits l = limits();
	got a;

	puts_file("dyn.html", "dynamic\n");
	puts_file("dyn.html.hdr", "Last-Modified: now\nDate: now\n");
	a = get(&l, "/dyn.html", NULL, NULL);
	OK(a.last_modified_time > 0 && a.last_modified_time == a.date_time,
	   "Last-Modified equal to Date is visible to the caller");
	got_free(&a);
}

static void t_errors(void)
{
	ant_fetch_limits l = limits();
	char date[128];
	struct tm tm;
	time_t t = time(NULL) + 3600;
	got a;

	puts_file("gone.html.hdr", "Status: 410 Gone\n");
	a = get(&l, "/gone.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_OK, "410: an HTTP answer, not a transfer error");
	IS_INT(a.status, 410, "410: status");
	IS_STR(a.error, "410 Gone", "410: error text");
	got_free(&a);
	a = get(&l, "/missing.html", NULL, NULL);
	IS_STR(a.error, "404 Not Found", "404: error text");
	got_free(&a);
	puts_file("busy.html.hdr", "Status: 429 Too Many Requests\nRetry-After: 120\n");
	a = get(&l, "/busy.html", NULL, NULL);
	IS_INT(a.status, 429, "429: status");
	IS_INT(a.retry_after, 120, "429: Retry-After seconds");
	got_free(&a);
	gmtime_r(&t, &tm);
	strftime(date, sizeof date, "Status: 503 Service Unavailable\nRetry-After: %a, %d %b %Y %H:%M:%S GMT\n", &tm);
	puts_file("down.html.hdr", date);
	a = get(&l, "/down.html", NULL, NULL);
	IS_INT(a.status, 503, "503: status");
	OK(a.retry_after > 3590 && a.retry_after <= 3600, "503: Retry-After HTTP-date an hour on (%lld)",
	   (long long)a.retry_after);
	got_free(&a);
	/* the server's clock two hours behind ours: its Date and a Retry-After
	 * an hour after it, which is an hour ago by our clock: the wait it
	 * implies is the hour, not none (RFC 9110 §10.2.3) */
	{
		char d1[40], d2[40], hdr[160];
		time_t sd = time(NULL) - 7200, sr = sd + 3600;

		gmtime_r(&sd, &tm);
		strftime(d1, sizeof d1, "%a, %d %b %Y %H:%M:%S GMT", &tm);
		gmtime_r(&sr, &tm);
		strftime(d2, sizeof d2, "%a, %d %b %Y %H:%M:%S GMT", &tm);
		snprintf(hdr, sizeof hdr, "Status: 503 Service Unavailable\nDate: %s\nRetry-After: %s\n", d1, d2);
		puts_file("skew.html.hdr", hdr);
	}
	a = get(&l, "/skew.html", NULL, NULL);
	IS_INT(a.retry_after, 3600, "503: Retry-After HTTP-date relative to the answer's Date, not our clock");
	got_free(&a);
}

static void t_timeout(void)
{
	ant_fetch_limits l = limits();
	double t0 = now_s();
	got a;

	puts_file("slow.html", "slow\n");
	puts_file("slow.html.hdr", "Delay-Ms: 5000\n");
	l.timeout = 1;
	a = get(&l, "/slow.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_TIMEOUT, "slow answer past a 1 s timeout: ANT_FETCH_ERR_TIMEOUT");
	OK(now_s() - t0 < 3.5, "timeout: gave up in time (%.2f s)", now_s() - t0);
	OK(strncmp(a.error, "timed out", 9) == 0, "timeout: error text '%s'", a.error);
	got_free(&a);
}

static void t_redirects(void)
{
	ant_fetch_limits l = limits();
	char want[128];
	got a;

	puts_file("loop1.html.hdr", "Redirect: /loop2.html\n");
	puts_file("loop2.html.hdr", "Redirect: /loop1.html\n");
	a = get(&l, "/loop1.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_REDIRECTS, "redirect loop: ANT_FETCH_ERR_REDIRECTS");
	got_free(&a);
	puts_file("moved.html.hdr", "Redirect: /p.html\n");
	a = get(&l, "/moved.html", NULL, NULL);
	IS_INT(a.status, 200, "one redirect followed");
	snprintf(want, sizeof want, "%s/p.html", base);
	IS_STR(a.effective_url, want, "redirect: effective URL");
	got_free(&a);
	l.max_redirects = 0;
	a = get(&l, "/moved.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_REDIRECTS, "max_redirects 0: no redirect followed");
	got_free(&a);
	l.max_redirects = -1;
	l.allow_file = 1;
	snprintf(want, sizeof want, "Redirect: file://%s/p.html\n", dir);
	puts_file("tofile.html.hdr", want);
	a = get(&l, "/tofile.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_PROTOCOL, "redirect to file:// refused even with allow_file");
	got_free(&a);
}

static long maxrss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void t_too_big(void)
{
	ant_fetch_limits l = limits();
	long rss0 = maxrss_kib();
	double t0 = now_s();
	char *text;
	got a;

	puts_file("bomb.html.hdr", "Gzip-Bomb: 1\n");
	a = get(&l, "/bomb.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_TOO_BIG, "gzip bomb: ANT_FETCH_ERR_TOO_BIG");
	OK(now_s() - t0 < 5, "gzip bomb: stopped quickly (%.2f s)", now_s() - t0);
	OK(maxrss_kib() - rss0 < 64 * 1024, "gzip bomb: memory bounded (+%ld KiB)", maxrss_kib() - rss0);
	IS_INT(a.len, 0, "gzip bomb: no body handed over");
	got_free(&a);
	t0 = now_s();
	puts_file("huge.html.hdr", "Size: 104857600\n");
	a = get(&l, "/huge.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_TOO_BIG, "100 MB body: ANT_FETCH_ERR_TOO_BIG");
	OK(now_s() - t0 < 5, "100 MB body: refused quickly (%.2f s)", now_s() - t0);
	got_free(&a);
	l.max_body = 1000;
	puts_file("small.html.hdr", "Size: 1000\n");
	a = get(&l, "/small.html", NULL, NULL);
	IS_INT(a.len, 1000, "a body of exactly max_body is kept");
	got_free(&a);

	/* Content-Encoding is decoded: the caller sees the page itself. */
	text = malloc(20001);
	for (int i = 0; i < 20000; i++)
		text[i] = "abcdefgh\n"[i % 9];
	text[20000] = '\0';
	put("z.html", text, 20000);
	puts_file("z.html.hdr", "Gzip: 1\n");
	l.max_body = 0;
	a = get(&l, "/z.html", NULL, NULL);
	OK(a.len == 20000 && memcmp(a.body, text, 20000) == 0, "gzip Content-Encoding decoded");
	OK(a.content_length > 0 && a.content_length < 20000, "Content-Length is the encoded size");
	l.max_body = 10000;
	got_free(&a);
	a = get(&l, "/z.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_TOO_BIG, "max_body counts decoded bytes");
	got_free(&a);
	free(text);
}

static void t_refused_and_file(void)
{
	ant_fetch_limits l = limits();
	struct sockaddr_in sa;
	socklen_t sl = sizeof sa;
	char url[PATH_MAX + 16];
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	got a;

	/* A port that was free a moment ago: nothing listens there. */
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&sa, sizeof sa);
	getsockname(fd, (struct sockaddr *)&sa, &sl);
	close(fd);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(sa.sin_port));
	a = get(&l, url, NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_CONNECT, "closed port: ANT_FETCH_ERR_CONNECT");
	OK(strncmp(a.error, "connection refused: ", 20) == 0, "closed port: error text '%s'", a.error);
	got_free(&a);

	snprintf(url, sizeof url, "file://%s/p.html", dir);
	a = get(&l, url, NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_PROTOCOL, "file:// refused by default");
	got_free(&a);
	a = get(&l, "ftp://127.0.0.1/x", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_PROTOCOL, "ftp:// refused");
	got_free(&a);
	l.allow_file = 1;
	a = get(&l, url, NULL, NULL);
	IS_INT(a.err, ANT_FETCH_OK, "file:// allowed with allow_file");
	IS_INT(a.status, 200, "file://: reported as 200");
	OK(a.body && strstr(a.body, "<title>P</title>"), "file://: body");
	IS_INT(a.last_modified_time, 1700000000, "file://: mtime as Last-Modified");
	IS_STR(a.last_modified, "Tue, 14 Nov 2023 22:13:20 GMT", "file://: Last-Modified as HTTP-date");
	got_free(&a);
}

/* ---- internal addresses -------------------------------------------------- */

static int starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The page the operator added may be on loopback; a redirect, or any
 * request not allowed there, may not reach an internal address. */
static void t_internal(void)
{
	ant_fetch_limits l = limits();
	char url[256], want[256], allow[128];
	got a;

	puts_file("p.html", "<html><head><title>P</title></head><body>text</body></html>\n");
	a = get_as(&l, "/p.html", NULL, NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_INTERNAL, "loopback, nothing allowed: ANT_FETCH_ERR_INTERNAL");
	snprintf(want, sizeof want, "refused to connect to internal address 127.0.0.1 (loopback) "
		 "of 127.0.0.1:%d: init --allow-private allows it", port);
	IS_STR(a.error, want, "... its error names the address, its kind and the way out");
	IS_INT(a.len, 0, "... no body");
	IS_STR(ant_fetch_errkind_name(a.err), "internal", "... kind name 'internal'");
	got_free(&a);
	a = get(&l, "/p.html", NULL, NULL);
	IS_INT(a.status, 200, "the page's own host allowed (allow_host)");
	got_free(&a);
	snprintf(allow, sizeof allow, "HTTP://127.0.0.1:%d/elsewhere/index.html", port);
	a = get_as(&l, "/p.html", NULL, NULL, allow);
	IS_INT(a.status, 200, "allow_host is a host and port: another path, the scheme in capitals");
	got_free(&a);
	a = get_as(&l, "/p.html", NULL, NULL, "http://127.0.0.1:1/");
	IS_INT(a.err, ANT_FETCH_ERR_INTERNAL, "... another port is another host");
	got_free(&a);

	/* redirects to another internal host: refused, allowed with allow_private */
	snprintf(url, sizeof url, "Redirect: http://localhost:%d/p.html\n", port);
	puts_file("tolocal.html.hdr", url);
	a = get(&l, "/tolocal.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_INTERNAL, "redirect to localhost:PORT refused");
	snprintf(want, sizeof want, "(loopback) of localhost:%d: init --allow-private allows it", port);
	OK(starts(a.error, "refused to connect to internal address ") && strstr(a.error, want),
	   "... named: '%s'", a.error);
	OK(!a.body || !strstr(a.body, "<title>P</title>"), "... the target's body never handed over");
	got_free(&a);
	snprintf(url, sizeof url, "Redirect: http://127.0.0.2:%d/p.html\n", port);
	puts_file("to2.html.hdr", url);
	a = get(&l, "/to2.html", NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_INTERNAL, "redirect to 127.0.0.2 refused");
	OK(starts(a.error, "refused to connect to internal address 127.0.0.2 (loopback)"), "... '%s'", a.error);
	got_free(&a);
	l.allow_private = 1;
	a = get(&l, "/tolocal.html", NULL, NULL);
	IS_INT(a.status, 200, "allow_private: the redirect to localhost followed");
	OK(a.body && strstr(a.body, "<title>P</title>"), "... its body read");
	got_free(&a);
	a = get_as(&l, "/p.html", NULL, NULL, NULL);
	IS_INT(a.status, 200, "allow_private: loopback with nothing else allowed");
	got_free(&a);
	l.allow_private = 0;

	/* written as addresses: refused before any socket, whatever the network */
	snprintf(url, sizeof url, "http://[::ffff:127.0.0.1]:%d/p.html", port);
	a = get_as(&l, url, NULL, NULL, NULL);
	OK(a.err == ANT_FETCH_ERR_INTERNAL && starts(a.error, "refused to connect to internal address "
		"::ffff:127.0.0.1 (loopback)"), "IPv4-mapped loopback refused: '%s'", a.error);
	got_free(&a);
	static const char *const lit[] = {
		"http://0.0.0.0:%d/", "http://10.0.0.1:%d/", "http://169.254.169.254:%d/latest/meta-data/",
		"http://[::]:%d/", "http://[fe80::1]:%d/", "http://[fd00::1]:%d/", "http://100.64.0.1:%d/",
		"http://0x7f.1:%d/",
	};
	for (size_t i = 0; i < sizeof lit / sizeof *lit; i++) {
		snprintf(url, sizeof url, lit[i], port);
		a = get_as(&l, url, NULL, NULL, NULL);
		OK(a.err == ANT_FETCH_ERR_INTERNAL, "%s refused: '%s'", url, a.error);
		got_free(&a);
	}
}

/* One connection, two transfers: the second, not allowed on loopback,
 * must not ride on the connection the first was allowed to open. */
static void t_internal_reuse(void)
{
	ant_fetch_limits l = limits();
	char url[128];
	ant_fetch_req r[2];
	got g[2];

	snprintf(url, sizeof url, "%s/p.html", base);
	r[0] = (ant_fetch_req){ url, NULL, NULL, (void *)(intptr_t)1, url };
	r[1] = (ant_fetch_req){ url, NULL, NULL, (void *)(intptr_t)2, NULL };
	memset(g, 0, sizeof g);
	l.jobs = 1;   /* one after the other, on one kept-alive connection */
	ant_fetch_run(&l, r, 2, on_done, g);
	IS_INT(g[0].status, 200, "reuse: the allowed transfer read the page");
	IS_INT(g[1].err, ANT_FETCH_ERR_INTERNAL, "reuse: the other refused on the kept connection");
	got_free(&g[0]);
	got_free(&g[1]);
}

/* One run's transfers one after the other on the handle the first left
 * (fetch.c keeps a run's options on it): each sends its own validators
 * and none of the one before, and the run's user agent every time. */
static void t_handle_reuse(void)
{
	ant_fetch_limits l = limits();
	char url[128];
	ant_fetch_req r[3];
	got g[3];

	snprintf(url, sizeof url, "%s/_control/echo", base);
	r[0] = (ant_fetch_req){ url, "\"first\"", "Tue, 14 Nov 2023 22:13:20 GMT", (void *)(intptr_t)1, url };
	r[1] = (ant_fetch_req){ url, NULL, NULL, (void *)(intptr_t)2, url };
	r[2] = (ant_fetch_req){ url, "\"third\"", NULL, (void *)(intptr_t)3, url };
	memset(g, 0, sizeof g);
	l.jobs = 1;
	l.user_agent = "handle-reuse-test/1";
	ant_fetch_run(&l, r, 3, on_done, g);
	OK(g[0].body && strstr(g[0].body, "If-None-Match: \"first\"\n") &&
	   strstr(g[0].body, "If-Modified-Since: "), "reused handle: the first sends its validators");
	OK(g[1].body && g[1].status == 200 && !strstr(g[1].body, "If-None-Match") &&
	   !strstr(g[1].body, "If-Modified-Since"), "reused handle: the second sends none of the first's");
	OK(g[2].body && strstr(g[2].body, "If-None-Match: \"third\"\n") && !strstr(g[2].body, "first") &&
	   !strstr(g[2].body, "If-Modified-Since"), "reused handle: the third its own only");
	OK(g[0].body && g[1].body && g[2].body && strstr(g[0].body, "User-Agent: handle-reuse-test/1\n") &&
	   strstr(g[1].body, "User-Agent: handle-reuse-test/1\n") &&
	   strstr(g[2].body, "User-Agent: handle-reuse-test/1\n"), "reused handle: the run's options kept");
	for (int i = 0; i < 3; i++)
		got_free(&g[i]);
}

/* Through a proxy (the test server, which answers an absolute-form
 * request with an HTTP error: it is no proxy, but it answers): the proxy's own loopback address is allowed, and
 * a URL whose host is an internal address is still refused. */
static void t_internal_proxy(void)
{
	ant_fetch_limits l = limits();
	got a;

	setenv("http_proxy", base, 1);
	unsetenv("no_proxy");
	unsetenv("NO_PROXY");
	l.connect_timeout = 2;
	a = get_as(&l, "http://192.0.2.1/x.html", NULL, NULL, NULL);
	OK(a.err == ANT_FETCH_OK && a.status >= 400, "proxy on loopback: a public URL asked through it "
	   "(status %ld, '%s')", a.status, a.error);
	got_free(&a);
	a = get_as(&l, "http://10.0.0.1/x.html", NULL, NULL, NULL);
	OK(a.err == ANT_FETCH_ERR_INTERNAL && strstr(a.error, "10.0.0.1 (private, RFC 1918) of 10.0.0.1:80 "
	   "through the proxy"), "proxy: a URL on 10.0.0.1 refused: '%s'", a.error);
	got_free(&a);
	a = get_as(&l, "http://localhost:9/", NULL, NULL, NULL);
	IS_INT(a.err, ANT_FETCH_ERR_INTERNAL, "proxy: a URL on localhost refused");
	got_free(&a);
	l.allow_private = 1;
	a = get_as(&l, "http://10.0.0.1/x.html", NULL, NULL, NULL);
	OK(a.err == ANT_FETCH_OK && a.status >= 400, "proxy, allow_private: asked through it (status %ld)",
	   a.status);
	got_free(&a);
	unsetenv("http_proxy");
}

/* Reads the server's "HOST/DIR/ MAX TOTAL" line for host and /d/. */
static long stat_max(const char *host)
{
	ant_fetch_limits l = limits();
	got s = get(&l, "/_control/stats", NULL, NULL);
	char want[96];
	long max = -1;

	snprintf(want, sizeof want, "%s:%d/d/ ", host, port);
	for (char *p = s.body; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (strncmp(p, want, strlen(want)) == 0)
			max = strtol(p + strlen(want), NULL, 10);
	got_free(&s);
	return max;
}

static void run_many(const ant_fetch_limits *l, const char *const *hosts, size_t nh, size_t n, got *g)
{
	ant_fetch_req *r = calloc(n, sizeof *r);
	char (*urls)[128] = calloc(n, sizeof *urls);

	for (size_t i = 0; i < n; i++) {
		snprintf(urls[i], sizeof urls[i], "http://%s:%d/d/%zu.html", hosts[i % nh], port, i);
		r[i].url = urls[i];
		r[i].allow_host = urls[i];
		r[i].user = (void *)(intptr_t)(i + 1);
	}
	ant_fetch_run(l, r, n, on_done, g);
	free(r);
	free(urls);
}

static void t_concurrency(void)
{
	static const char *const one[] = { "127.0.0.1" };
	static const char *const two[] = { "127.0.0.1", "localhost" };
	ant_fetch_limits l = limits();
	got g[20];
	char name[128];
	double t0, t;
	int ok = 1;

	mkdir(strcat(strcpy(name, dir), "/d"), 0755);
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof name, "d/%d.html", i);
		puts_file(name, "<title>d</title>\n");
		snprintf(name, sizeof name, "d/%d.html.hdr", i);
		puts_file(name, "Delay-Ms: 200\n");
	}
	control("/_control/reset");
	memset(g, 0, sizeof g);
	l.jobs = 16;
	l.per_host = 2;
	t0 = now_s();
	run_many(&l, one, 1, 8, g);
	t = now_s() - t0;
	for (int i = 0; i < 8; i++)
		ok &= g[i].calls == 1 && g[i].status == 200;
	OK(ok, "8 requests: each reported once, all 200");
	IS_INT(stat_max("127.0.0.1"), 2, "per_host 2: the server saw at most 2 at once");
	OK(t >= 0.75, "per_host 2: 8 x 200 ms took at least 4 rounds (%.2f s)", t);
	for (int i = 0; i < 8; i++)
		got_free(&g[i]);

	control("/_control/reset");
	l.per_host = 4;
	t0 = now_s();
	run_many(&l, two, 2, 20, g);
	t = now_s() - t0;
	ok = 1;
	for (int i = 0; i < 20; i++)
		ok &= g[i].calls == 1 && g[i].status == 200;
	OK(ok, "20 requests over 2 hosts: all 200");
	OK(t < 2.0, "20 x 200 ms concurrently: %.2f s, serially at least 4 s", t);
	OK(stat_max("127.0.0.1") <= 4 && stat_max("localhost") <= 4, "per_host 4 held for each host");
	for (int i = 0; i < 20; i++)
		got_free(&g[i]);
}

/* limits->done_aside: done() on one thread that is not the caller's,
 * never two at once, every answer whole; 200 answers through a stage of
 * ANT_FETCH_ASIDE_MAX (the loop waits for room), a slow done() too. */
struct aside {
	pthread_t caller, seen;
	atomic_int inside, overlap, calls, threads, bad;
	int slow;
};

static void on_aside(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct aside *a = ctx;
	char want[64];

	if (atomic_fetch_add(&a->inside, 1) != 0)
		atomic_fetch_add(&a->overlap, 1);
	if (atomic_fetch_add(&a->calls, 1) == 0)
		a->seen = pthread_self();
	else if (!pthread_equal(a->seen, pthread_self()))
		atomic_fetch_add(&a->threads, 1);
	if (pthread_equal(a->caller, pthread_self()))
		atomic_fetch_add(&a->threads, 1);
	snprintf(want, sizeof want, "<p>aside %d</p>\n", (int)(intptr_t)req->user);
	if (res->status != 200 || strcmp(res->body, want) != 0)
		atomic_fetch_add(&a->bad, 1);
	if (a->slow) {
		struct timespec ts = { 0, 2 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	atomic_fetch_sub(&a->inside, 1);
}

static void t_done_aside(void)
{
	enum { N = 200 };
	ant_fetch_limits l = limits();
	static ant_fetch_req r[N];
	static char urls[N][96];
	char name[64], body[64];

	mkdir(strcat(strcpy(name, dir), "/as"), 0755);
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "as/%d.html", i);
		snprintf(body, sizeof body, "<p>aside %d</p>\n", i);
		puts_file(name, body);
		snprintf(urls[i], sizeof urls[i], "%s/as/%d.html", base, i);
		r[i] = (ant_fetch_req){ urls[i], NULL, NULL, (void *)(intptr_t)i, urls[i] };
	}
	l.jobs = 32;
	l.per_host = 32;
	l.done_aside = 1;
	for (int slow = 0; slow < 2; slow++) {
		struct aside a;

		memset(&a, 0, sizeof a);
		a.caller = pthread_self();
		a.slow = slow;
		IS_INT(ant_fetch_run(&l, r, N, on_aside, &a), 0, "done_aside%s: the run succeeds",
		       slow ? " (a slow done)" : "");
		IS_INT(atomic_load(&a.calls), N, "done_aside%s: every answer told once, before the run returns",
		       slow ? " (a slow done)" : "");
		IS_INT(atomic_load(&a.bad), 0, "done_aside%s: every answer whole", slow ? " (a slow done)" : "");
		IS_INT(atomic_load(&a.overlap), 0, "done_aside%s: never two done() at once",
		       slow ? " (a slow done)" : "");
		if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
			IS_INT(atomic_load(&a.threads), 0, "done_aside%s: one thread, not the caller's",
			       slow ? " (a slow done)" : "");
		else
			OK(1, "done_aside: one core, told on the caller's thread # SKIP one core");
	}
}

/* Real Japanese text in Shift_JIS, charset only in the HTTP header. */
static void t_with_page(void)
{
	static const char utf8[] = "<html><head><title>日本語のページ</title></head><body>こんにちは</body></html>";
	ant_fetch_limits l = limits();
	char sjis[256], *in = (char *)utf8, *out = sjis;
	size_t inl = sizeof utf8 - 1, outl = sizeof sjis;
	iconv_t cd = iconv_open("SHIFT_JIS", "UTF-8");
	ant_page_info pi;
	got a;

	iconv(cd, &in, &inl, &out, &outl);
	iconv_close(cd);
	put("sj.html", sjis, (size_t)(out - sjis));
	puts_file("sj.html.hdr", "Content-Type: text/html; charset=Shift_JIS\n");
	a = get(&l, "/sj.html", NULL, NULL);
	IS_STR(a.content_type, "text/html; charset=Shift_JIS", "Content-Type with charset kept");
	OK(ant_page_analyze(a.body, a.len, a.content_type, NULL, &pi, NULL) == 0, "page_analyze on a fetched body");
	IS_STR(pi.title, "日本語のページ", "Shift_JIS title from the header charset");
	IS_STR(pi.charset_from, "header", "charset from the header");
	ant_page_info_release(&pi);
	got_free(&a);
}

int main(void)
{
	TAP_PLAN(75 + 24 + 2 + 4 + 10 + 1 + 4);
	snprintf(dir, sizeof dir, "/tmp/t_fetch.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	if (start_server() < 0) {
		OK(0, "testserver started");
		stop_server();
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		TAP_DONE();
	}
	t_basic_and_304();
	t_echo_unchanged();
	t_412();
	t_dynamic_date();
	t_errors();
	t_timeout();
	t_redirects();
	t_too_big();
	t_refused_and_file();
	t_internal();
	t_internal_reuse();
	t_handle_reuse();
	t_internal_proxy();
	t_concurrency();
	t_done_aside();
	t_with_page();
	IS_STR(ant_fetch_errkind_name(ANT_FETCH_ERR_TOO_BIG), "too-big", "error kind names");
	IS_INT(ant_fetch_run(NULL, NULL, 0, on_done, NULL), 0, "no requests: nothing to do");
	stop_server();
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	TAP_DONE();
}
