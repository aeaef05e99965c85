/*
 * testserver: the loopback HTTP server the tests and benchmarks script.
 *
 *   testserver --root DIR [--port N] [--port-file FILE] [--max-seconds S] [--verbose]
 *
 * Binds 127.0.0.1 only (port 0 = any free one, the default), writes the
 * port number to --port-file (atomically: temporary file + rename), stops
 * after --max-seconds (default 600) or on SIGTERM/SIGINT.  One thread per
 * connection, so a slow answer never holds up the others.
 *
 * Files: GET /PATH serves DIR/PATH ("/" and ".../" mean index.html).
 * Content is read on every request, so a test changes a page by rewriting
 * its file.  ETag is a quoted FNV-1a hash of the content, Last-Modified is
 * the file's mtime; a request whose If-None-Match holds the ETag, or that
 * has no If-None-Match and whose If-Modified-Since equals Last-Modified
 * (compared as strings: the client must echo them unchanged), gets 304.
 * Every answer has a Date header made at the same moment as the rest.
 *
 * Directives: an optional sidecar DIR/PATH.hdr, one per line
 * (the file itself need not exist when the sidecar does):
 *   Status: 404 Not Found       answer with this status (any code)
 *   Content-Type: text/html; charset=Shift_JIS
 *                               default by extension, no charset
 *   Last-Modified: <date>       sent as written instead of the mtime
 *   Last-Modified: now          the time of the answer (with Date: now,
 *   Date: now                   a dynamic page: Last-Modified == Date)
 *   Date: <date>                sent as written instead of "now"
 *   Date: none                  no Date header at all
 *   Big-Header: NAME BYTES      a header NAME whose value is BYTES of 'x'
 *                               (a 1 MB line, a 500 KB ETag)
 *   No-Validators: 1            no ETag, no Last-Modified, never 304
 *   Precondition-Failed: 1      412 to any conditional request
 *   Delay-Ms: 5000              wait this long before answering
 *   Redirect: /other            302 to this location
 *   Retry-After: 120            sent as written (use with Status 429/503)
 *   Gzip-Bomb: 1                gzip body inflating to 1 GiB of zeros,
 *                               deflated on the fly as the client reads
 *   Size: 104857600             a generated body of this many bytes,
 *                               streamed with its Content-Length
 *   Gzip: 1                     the file, gzip Content-Encoded
 *   Token: WORD                 each WORD in the file replaced, in every
 *                               answer, by a new word of 12 letters (a
 *                               per-request token, a random id): the
 *                               ETag changes with it
 *   Token-Kinds: N              with Token, the new word is one of N
 *                               words, in turn (a quote drawn per request
 *                               from a few)
 *   Any-Other-Name: value       sent as a response header as written
 *
 * Built-in routes:
 *   /bench/N.html              a generated ~1.5 KB page for N; its content
 *                              (its version line's number and word: a real
 *                              edit, not a number alone, which the antenna
 *                              holds a check), ETag and Last-Modified change
 *                              with each bump that covers N
 *   /benchf/N.html, N.rss      the same page advertising its RSS 2.0 feed,
 *                              whose newest item is dated by the last bump
 *   /noise/K.html              page K of the noise corpus (tests/unit/
 *                              noise_corpus.h) at the current check, its
 *                              widgets moved on by each request; no validators
 *   /words/K.html              page K of tests/unit/words_corpus.h (markup
 *                              and per-request words) at the noise check
 *   /_control/noise?check=N    the noise corpus's check (default 0)
 *   /_control/bump?every=K     pages with N % K == 0 change (K default 2)
 *   /_control/stats            one line per Host header and directory seen
 *                              ("127.0.0.1:8080/d/" for /d/x.html):
 *                              "HOST/DIR/ MAX_CONCURRENT TOTAL_REQUESTS"
 *                              (a request counts from its headers until
 *                              its answer is sent)
 *   /_control/reset            sets every maximum to the current count
 *                              and every total to 0
 *   /_control/echo             the request headers, "Name: value" lines
 * Control requests are not counted.  --verbose logs each request to
 * standard error: "testserver: GET /PATH user-agent 'AGENT'".
 */
#include "lb_buf.h"

#include "ant_page.h"
#include "../unit/noise_corpus.h"
#include "../unit/words_corpus.h"
#include <microhttpd.h>
#include <zlib.h>

#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BOMB_SIZE ((uint64_t)1 << 30)
#define MAX_HOSTS 64
#define MAX_BUMPS 4096

static const char *root = ".";
static int verbose;
static volatile sig_atomic_t stopping;
static time_t started;

/* ---- per-host concurrency counters --------------------------------------- */

typedef struct host_stat {
	char name[96];
	long cur, max, total;
} host_stat;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static host_stat hosts[MAX_HOSTS];
static int nhosts;
static struct { long every; time_t when; } bumps[MAX_BUMPS];
static int nbumps;

typedef struct request {
	int slot;   /* into hosts[], -1 when not counted */
} request;

static int host_slot(const char *name)
{
	int i;

	for (i = 0; i < nhosts; i++)
		if (strcmp(hosts[i].name, name) == 0)
			return i;
	if (nhosts == MAX_HOSTS)
		return -1;
	snprintf(hosts[nhosts].name, sizeof hosts[nhosts].name, "%s", name);
	return nhosts++;
}

/* Counted per host and directory, so that a slow page elsewhere does not
 * blur what one test measures. */
static void count_start(request *r, const char *host, const char *url)
{
	const char *slash = strrchr(url, '/');
	char key[sizeof hosts[0].name];

	snprintf(key, sizeof key, "%s%.*s", host ? host : "-", (int)(slash ? slash - url + 1 : 0), url);
	pthread_mutex_lock(&lock);
	r->slot = host_slot(key);
	if (r->slot >= 0) {
		host_stat *h = &hosts[r->slot];

		h->total++;
		if (++h->cur > h->max)
			h->max = h->cur;
	}
	pthread_mutex_unlock(&lock);
}

static void count_end(request *r)
{
	pthread_mutex_lock(&lock);
	if (r->slot >= 0)
		hosts[r->slot].cur--;
	pthread_mutex_unlock(&lock);
}

/* ---- small helpers ------------------------------------------------------- */

static void http_date(time_t t, char *buf, size_t n)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

static void sleep_ms(long ms)
{
	while (ms > 0 && !stopping) {
		long step = ms < 20 ? ms : 20;
		struct timespec ts = { 0, step * 1000000L };

		nanosleep(&ts, NULL);
		ms -= step;
	}
}

static int read_file(const char *path, lb_buf *out, struct stat *st)
{
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;

	if (!f)
		return -1;
	if (st && fstat(fileno(f), st) < 0) {
		fclose(f);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		if (lb_buf_add(out, buf, n) < 0)
			break;
	fclose(f);
	return 0;
}

static int gzip_encode(const lb_buf *in, lb_buf *out)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	if (lb_buf_grow(out, deflateBound(&z, in->len) + 64) < 0) {
		deflateEnd(&z);
		return -1;
	}
	z.next_in = (Bytef *)in->data;
	z.avail_in = (uInt)in->len;
	z.next_out = (Bytef *)out->data;
	z.avail_out = (uInt)(out->cap - 1);
	rc = deflate(&z, Z_FINISH);
	out->len = z.total_out;
	out->data[out->len] = '\0';
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

/* ---- responses ----------------------------------------------------------- */

static enum MHD_Result send_response(struct MHD_Connection *c, unsigned status,
				     struct MHD_Response *r, time_t now)
{
	char date[64];
	enum MHD_Result rc;

	const char *given;

	if (!r)
		return MHD_NO;
	/* a sidecar's "Date: <date>" came in with the other headers; "none" sends none */
	given = MHD_get_response_header(r, MHD_HTTP_HEADER_DATE);
	if (given && strcasecmp(given, "none") == 0) {
		char *v = strdup(given);
		MHD_del_response_header(r, MHD_HTTP_HEADER_DATE, v);
		free(v);
	} else if (!given) {
		http_date(now, date, sizeof date);
		MHD_add_response_header(r, MHD_HTTP_HEADER_DATE, date);
	}
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *type,
				 const char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);

	if (r && type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	return send_response(c, status, r, time(NULL));
}

/* ---- generated bodies ---------------------------------------------------- */

typedef struct bomb {
	z_stream z;
	uint64_t fed;
	int done;
} bomb;

static unsigned char zeros[1 << 16];

/* Deflates zeros only as fast as the client reads them. */
static ssize_t bomb_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	bomb *b = cls;

	if (b->done || stopping)
		return MHD_CONTENT_READER_END_OF_STREAM;
	b->z.next_out = (Bytef *)buf;
	b->z.avail_out = (uInt)(max > (1u << 30) ? (1u << 30) : max);
	while (b->z.avail_out && !b->done) {
		int flush = Z_NO_FLUSH, rc;
		uInt before = b->z.avail_out;

		if (b->z.avail_in == 0) {
			if (b->fed < BOMB_SIZE) {
				b->z.next_in = zeros;
				b->z.avail_in = sizeof zeros;
				b->fed += sizeof zeros;
			} else {
				flush = Z_FINISH;
			}
		}
		rc = deflate(&b->z, flush);
		if (rc == Z_STREAM_END)
			b->done = 1;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		if (b->z.avail_out < before)
			break;   /* some output: hand it over */
	}
	return (ssize_t)((char *)b->z.next_out - buf);
}

static void bomb_free(void *cls)
{
	bomb *b = cls;

	deflateEnd(&b->z);
	free(b);
}

static struct MHD_Response *bomb_response(void)
{
	bomb *b = calloc(1, sizeof *b);
	struct MHD_Response *r;

	if (!b || deflateInit2(&b->z, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(b);
		return NULL;
	}
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32768, bomb_read, b, bomb_free);
	if (!r) {
		bomb_free(b);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	return r;
}

static ssize_t filler_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	static const char line[] = "<p>filler filler filler filler filler filler filler</p>\n";
	uint64_t size = *(uint64_t *)cls;

	if (pos >= size || stopping)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (max > size - pos)
		max = (size_t)(size - pos);
	for (size_t i = 0; i < max; i++)
		buf[i] = line[(pos + i) % (sizeof line - 1)];
	return (ssize_t)max;
}

static struct MHD_Response *filler_response(uint64_t size)
{
	uint64_t *cls = malloc(sizeof *cls);
	struct MHD_Response *r;

	if (!cls)
		return NULL;
	*cls = size;
	r = MHD_create_response_from_callback(size, 65536, filler_read, cls, free);
	if (!r)
		free(cls);
	return r;
}

/* ---- sidecar directives -------------------------------------------------- */

typedef struct script {
	unsigned status;
	char *content_type, *last_modified, *redirect, *token;
	unsigned token_kinds;
	int lm_now, no_validators, precondition_failed, gzip_bomb, gzip;
	long delay_ms;
	uint64_t size;
	lb_buf extra;   /* other header lines, "Name\0value\0" pairs */
} script;

static void script_release(script *s)
{
	free(s->content_type);
	free(s->last_modified);
	free(s->redirect);
	free(s->token);
	lb_buf_release(&s->extra);
}

static void script_line(script *s, char *line)
{
	char *colon = strchr(line, ':'), *v;

	if (!colon || colon == line)
		return;
	*colon = '\0';
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	if (strcasecmp(line, "Status") == 0)
		s->status = (unsigned)strtoul(v, NULL, 10);
	else if (strcasecmp(line, "Content-Type") == 0)
		free(s->content_type), s->content_type = strdup(v);
	else if (strcasecmp(line, "Last-Modified") == 0) {
		if (strcasecmp(v, "now") == 0)
			s->lm_now = 1;
		else
			free(s->last_modified), s->last_modified = strdup(v);
	} else if (strcasecmp(line, "Date") == 0 && strcasecmp(v, "now") == 0)
		; /* every answer's Date is "now" already */
	else if (strcasecmp(line, "Big-Header") == 0) {
		char name[64];
		unsigned long n = 0;
		char *big;

		if (sscanf(v, "%63s %lu", name, &n) == 2 && n < (64ul << 20) && (big = malloc(n + 1))) {
			memset(big, 'x', n);
			big[n] = '\0';
			lb_buf_add(&s->extra, name, strlen(name) + 1);
			lb_buf_add(&s->extra, big, n + 1);
			free(big);
		}
	}
	else if (strcasecmp(line, "No-Validators") == 0)
		s->no_validators = atoi(v);
	else if (strcasecmp(line, "Precondition-Failed") == 0)
		s->precondition_failed = atoi(v);
	else if (strcasecmp(line, "Delay-Ms") == 0)
		s->delay_ms = atol(v);
	else if (strcasecmp(line, "Redirect") == 0)
		free(s->redirect), s->redirect = strdup(v);
	else if (strcasecmp(line, "Gzip-Bomb") == 0)
		s->gzip_bomb = atoi(v);
	else if (strcasecmp(line, "Gzip") == 0)
		s->gzip = atoi(v);
	else if (strcasecmp(line, "Token") == 0)
		free(s->token), s->token = *v ? strdup(v) : NULL;
	else if (strcasecmp(line, "Token-Kinds") == 0)
		s->token_kinds = (unsigned)strtoul(v, NULL, 10);
	else if (strcasecmp(line, "Size") == 0)
		s->size = strtoull(v, NULL, 10);
	else {
		lb_buf_add(&s->extra, line, strlen(line) + 1);
		lb_buf_add(&s->extra, v, strlen(v) + 1);
	}
}

static int script_load(const char *path, script *s)
{
	lb_buf b = LB_BUF_INIT;
	char *p, *save = NULL;

	memset(s, 0, sizeof *s);
	lb_buf_init(&s->extra);
	s->status = 200;
	if (read_file(path, &b, NULL) < 0)
		return -1;
	for (p = strtok_r(b.data, "\r\n", &save); p; p = strtok_r(NULL, "\r\n", &save))
		if (*p != '#')
			script_line(s, p);
	lb_buf_release(&b);
	return 0;
}

static void add_extra(struct MHD_Response *r, const script *s)
{
	for (size_t i = 0; i < s->extra.len;) {
		const char *name = s->extra.data + i, *v = name + strlen(name) + 1;

		MHD_add_response_header(r, name, v);
		i = (size_t)(v + strlen(v) + 1 - s->extra.data);
	}
}

/* ---- conditional requests ------------------------------------------------ */

static const char *req_header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* RFC 9110 §13.1.2: If-None-Match is a list of entity tags or "*". */
static int etag_listed(const char *list, const char *etag)
{
	size_t n = strlen(etag);

	if (strcmp(list, "*") == 0)
		return 1;
	for (const char *p = list; (p = strstr(p, etag)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == ',') && (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
			return 1;
	return 0;
}

static int not_modified(struct MHD_Connection *c, const char *etag, const char *lm)
{
	const char *inm = req_header(c, MHD_HTTP_HEADER_IF_NONE_MATCH);
	const char *ims = req_header(c, MHD_HTTP_HEADER_IF_MODIFIED_SINCE);

	if (inm)
		return etag && etag_listed(inm, etag);
	return ims && lm && strcmp(ims, lm) == 0;
}

static int conditional(struct MHD_Connection *c)
{
	return req_header(c, MHD_HTTP_HEADER_IF_NONE_MATCH) ||
	       req_header(c, MHD_HTTP_HEADER_IF_MODIFIED_SINCE);
}

/* A 200 with validators, or a 304 when the client already has it. */
static enum MHD_Result send_page(struct MHD_Connection *c, unsigned status, const lb_buf *body,
				 const char *type, const char *etag, const char *lm, time_t now,
				 const script *s)
{
	struct MHD_Response *r;

	if (status == 200 && not_modified(c, etag, lm)) {
		r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_NOT_MODIFIED;
	} else {
		r = MHD_create_response_from_buffer(body->len, body->data, MHD_RESPMEM_MUST_COPY);
		if (r && type)
			MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
		if (r && s && s->gzip)
			MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	}
	if (r && etag)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
	if (r && lm)
		MHD_add_response_header(r, MHD_HTTP_HEADER_LAST_MODIFIED, lm);
	if (r && s)
		add_extra(r, s);
	return send_response(c, status, r, now);
}

/* ---- files --------------------------------------------------------------- */

static const char *type_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && (strcmp(dot, ".html") == 0 || strcmp(dot, ".htm") == 0))
		return "text/html";
	if (dot && strcmp(dot, ".lirs") == 0)
		return "text/plain";
	if (dot && strcmp(dot, ".rss") == 0)
		return "application/rss+xml";
	if (dot && strcmp(dot, ".atom") == 0)
		return "application/atom+xml";
	if (dot && strcmp(dot, ".xml") == 0)
		return "application/xml";
	if (dot && strcmp(dot, ".gz") == 0)
		return "application/gzip";
	if (dot && strcmp(dot, ".txt") == 0)
		return "text/plain";
	if (dot && strcmp(dot, ".json") == 0)
		return "application/json";
	return "application/octet-stream";
}

static int path_ok(const char *url)
{
	return url[0] == '/' && !strstr(url, "/../") && strcmp(url + strlen(url) - (strlen(url) >= 3 ? 3 : 0), "/..") != 0;
}

/* Streams and redirects: the directives that replace the file. */
static enum MHD_Result send_special(struct MHD_Connection *c, const script *s, time_t now)
{
	struct MHD_Response *r;

	if (s->redirect) {
		r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, s->redirect);
		return send_response(c, s->status == 200 ? 302 : s->status, r, now);
	}
	r = s->gzip_bomb ? bomb_response() : filler_response(s->size);
	if (r) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					s->content_type ? s->content_type : "text/html");
		add_extra(r, s);
	}
	return send_response(c, s->status, r, now);
}

/* Each word in body replaced by a per-request token: 12 letters made from
 * a count of the answers (every answer its own, as a form token's), or
 * with kinds, from that count modulo kinds (one of a few words in turn). */
static void token_fill(lb_buf *body, const char *word, unsigned kinds)
{
	static unsigned long long served;
	lb_buf out = LB_BUF_INIT;
	size_t wl = strlen(word), i = 0;
	unsigned long long n = __atomic_add_fetch(&served, 1, __ATOMIC_RELAXED);
	unsigned long long x = (kinds ? n % kinds + 1 : n) * 0x9e3779b97f4a7c15ull;
	char tok[13];

	for (int k = 0; k < 12; k++, x = x * 6364136223846793005ull + 1442695040888963407ull)
		tok[k] = (char)('a' + (x >> 33) % 26);
	tok[12] = '\0';
	while (i < body->len) {
		const char *hit = wl ? memmem(body->data + i, body->len - i, word, wl) : NULL;

		if (!hit) {
			lb_buf_add(&out, body->data + i, body->len - i);
			break;
		}
		lb_buf_add(&out, body->data + i, (size_t)(hit - body->data) - i);
		lb_buf_adds(&out, tok);
		i = (size_t)(hit - body->data) + wl;
	}
	lb_buf_release(body);
	*body = out;
}

static enum MHD_Result serve_file(struct MHD_Connection *c, const char *url)
{
	lb_buf path = LB_BUF_INIT, hdr = LB_BUF_INIT, body = LB_BUF_INIT, lirs_gz = LB_BUF_INIT;
	char etag[40], lm[64];
	struct stat st;
	script s;
	int have_file, have_script;
	time_t now;
	enum MHD_Result rc;

	lb_buf_addf(&path, "%s%s%s", root, url, url[strlen(url) - 1] == '/' ? "index.html" : "");
	lb_buf_addf(&hdr, "%s.hdr", path.data);
	have_script = script_load(hdr.data, &s) == 0;
	have_file = read_file(path.data, &body, &st) == 0;
	if (!have_file && !have_script) {
		rc = send_text(c, 404, "text/plain", "not found\n", 10);
		goto out;
	}
	if (s.delay_ms > 0)
		sleep_ms(s.delay_ms);
	now = time(NULL);
	if (s.redirect || s.gzip_bomb || s.size) {
		rc = send_special(c, &s, now);
		goto out;
	}
	if (s.precondition_failed && conditional(c)) {
		rc = send_text(c, 412, "text/plain", "precondition failed\n", 20);
		goto out;
	}
	if (s.token && have_file)
		token_fill(&body, s.token, s.token_kinds);
	snprintf(etag, sizeof etag, "\"%016llx\"", (unsigned long long)ant_page_hash64(body.data, body.len));
	if (s.last_modified)
		snprintf(lm, sizeof lm, "%s", s.last_modified);
	else
		http_date(s.lm_now || !have_file ? now : st.st_mtime, lm, sizeof lm);
	if (s.gzip && gzip_encode(&body, &lirs_gz) == 0) {
		lb_buf_release(&body);
		body = lirs_gz;
		lb_buf_init(&lirs_gz);
	}
	rc = send_page(c, s.status, &body, s.content_type ? s.content_type : type_of(path.data),
		       s.no_validators ? NULL : etag, s.no_validators ? NULL : lm, now, &s);
out:
	if (have_script)
		script_release(&s);
	lb_buf_release(&path);
	lb_buf_release(&hdr);
	lb_buf_release(&body);
	lb_buf_release(&lirs_gz);
	return rc;
}

/* ---- benchmark pages ----------------------------------------------------- */

/* /benchf/N.rss: ten items, the newest dated when page N last changed. */
static void bench_rss(lb_buf *body, unsigned long n, long version, time_t changed)
{
	char d[64];

	lb_buf_addf(body, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel>"
		  "<title>Bench feed %lu</title><link>/benchf/%lu.html</link>\n", n, n);
	for (int i = 0; i < 10; i++) {
		http_date(changed - i * 3600, d, sizeof d);
		lb_buf_addf(body, "<item><title>Version %ld, item %d</title><link>/benchf/%lu.html#%d</link>"
			  "<pubDate>%s</pubDate></item>\n", version - i, i, n, i, d);
	}
	lb_buf_adds(body, "</channel></rss>\n");
}

static enum MHD_Result serve_bench(struct MHD_Connection *c, const char *url)
{
	int feed = strncmp(url, "/benchf/", 8) == 0;
	int words = strncmp(url, "/benchd/", 8) == 0;   /* its text changes in words too */
	static const char *const word[] = { "alpha", "bravo", "charlie", "delta", "echo", "foxtrot" };
	unsigned long n = strtoul(url + strlen(feed || words ? "/benchf/" : "/bench/"), NULL, 10);
	const char *dot = strrchr(url, '.');
	long version = 0;
	time_t changed = started, now = time(NULL);
	lb_buf body = LB_BUF_INIT;
	char etag[64], lm[64];
	enum MHD_Result rc;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < nbumps; i++)
		if (n % (unsigned long)bumps[i].every == 0) {
			version++;
			changed = bumps[i].when;
		}
	pthread_mutex_unlock(&lock);
	if (feed && dot && strcmp(dot, ".rss") == 0) {
		bench_rss(&body, n, version, changed);
		snprintf(etag, sizeof etag, "\"f%lu-%ld\"", n, version);
		http_date(changed, lm, sizeof lm);
		rc = send_page(c, 200, &body, "application/rss+xml", etag, lm, now, NULL);
		lb_buf_release(&body);
		return rc;
	}
	lb_buf_addf(&body, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		  "<title>Bench page %lu</title>", n);
	if (feed)
		lb_buf_addf(&body, "<link rel=\"alternate\" type=\"application/rss+xml\" href=\"%lu.rss\">", n);
	/* the changed line is the page's own words (its number in it): a line
	 * every page shows alike would be their site's template */
	lb_buf_addf(&body, "</head>\n<body><h1>Bench page %lu</h1>\n<p>version %ld of page %lu: %s</p>\n", n, version,
		    n, word[version % 6]);
	if (words)   /* the diff pages' bench (bench/db-size.sh): a new sentence each version */
		lb_buf_addf(&body, "<p>This version of page %lu is called %s.</p>\n", n, word[version % 6]);
	for (int i = 0; i < 20; i++)
		lb_buf_addf(&body, "<p>Paragraph %d of page %lu: the quick brown fox jumps.</p>\n", i, n);
	lb_buf_adds(&body, "</body></html>\n");
	snprintf(etag, sizeof etag, "\"b%lu-%ld\"", n, version);
	http_date(changed, lm, sizeof lm);
	rc = send_page(c, 200, &body, "text/html; charset=utf-8", etag, lm, now, NULL);
	lb_buf_release(&body);
	return rc;
}

/* ---- the noise corpus (tests/unit/noise_corpus.h) ------------------------- */

static int noise_check;
static unsigned noise_requests[NOISE_PAGES];

static enum MHD_Result serve_noise(struct MHD_Connection *c, const char *url)
{
	long k = strtol(url + strlen("/noise/"), NULL, 10);
	lb_buf body = LB_BUF_INIT;
	enum MHD_Result rc;
	unsigned r;
	int check;

	if (k < 0 || k >= NOISE_PAGES)
		return send_text(c, 404, "text/plain", "no such page\n", 13);
	pthread_mutex_lock(&lock);
	r = noise_requests[k]++;
	check = noise_check;
	pthread_mutex_unlock(&lock);
	noise_page(&body, (int)k, check, r);
	rc = send_page(c, 200, &body, "text/html; charset=utf-8", NULL, NULL, time(NULL), NULL);
	lb_buf_release(&body);
	return rc;
}

/* /words/K.html: words_corpus.h's page K at the noise corpus's check. */
static enum MHD_Result serve_words(struct MHD_Connection *c, const char *url)
{
	static unsigned requests[WORDS_PAGES];
	long k = strtol(url + strlen("/words/"), NULL, 10);
	lb_buf body = LB_BUF_INIT;
	enum MHD_Result rc;
	unsigned r;
	int check;

	if (k < 0 || k >= WORDS_PAGES)
		return send_text(c, 404, "text/plain", "no such page\n", 13);
	pthread_mutex_lock(&lock);
	r = requests[k]++;
	check = noise_check;
	pthread_mutex_unlock(&lock);
	words_page(&body, (int)k, check, r);
	rc = send_page(c, 200, &body, "text/html; charset=utf-8", NULL, NULL, time(NULL), NULL);
	lb_buf_release(&body);
	return rc;
}

/* ---- control routes ------------------------------------------------------ */

static enum MHD_Result add_header_line(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
	lb_buf_addf(cls, "%s: %s\n", k, v ? v : "");
	return MHD_YES;
}

static enum MHD_Result serve_control(struct MHD_Connection *c, const char *url)
{
	lb_buf b = LB_BUF_INIT;
	enum MHD_Result rc;

	pthread_mutex_lock(&lock);
	if (strcmp(url, "/_control/stats") == 0) {
		for (int i = 0; i < nhosts; i++)
			lb_buf_addf(&b, "%s %ld %ld\n", hosts[i].name, hosts[i].max, hosts[i].total);
	} else if (strcmp(url, "/_control/reset") == 0) {
		for (int i = 0; i < nhosts; i++)
			hosts[i].max = hosts[i].cur, hosts[i].total = 0;
		lb_buf_adds(&b, "reset\n");
	} else if (strcmp(url, "/_control/bump") == 0) {
		const char *e = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "every");
		long every = e ? atol(e) : 2;

		if (every > 0 && nbumps < MAX_BUMPS) {
			bumps[nbumps].every = every;
			bumps[nbumps].when = time(NULL);
			nbumps++;
		}
		lb_buf_addf(&b, "bumps %d\n", nbumps);
	} else if (strcmp(url, "/_control/noise") == 0) {
		const char *e = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "check");

		noise_check = e ? atoi(e) : 0;
		lb_buf_addf(&b, "check %d\n", noise_check);
	} else if (strcmp(url, "/_control/echo") == 0) {
		MHD_get_connection_values(c, MHD_HEADER_KIND, add_header_line, &b);
	} else {
		pthread_mutex_unlock(&lock);
		lb_buf_release(&b);
		return send_text(c, 404, "text/plain", "no such control\n", 16);
	}
	pthread_mutex_unlock(&lock);
	rc = send_text(c, 200, "text/plain", b.data, b.len);
	lb_buf_release(&b);
	return rc;
}

/* ---- MHD callbacks ------------------------------------------------------- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_cls)
{
	request *r = *req_cls;

	if (!r) {  /* first call: headers only */
		r = calloc(1, sizeof *r);
		if (!r)
			return MHD_NO;
		r->slot = -1;
		*req_cls = r;
		if (strncmp(url, "/_control/", 10) != 0)
			count_start(r, req_header(c, "Host"), url);
		return MHD_YES;
	}
	if (verbose) {
		const char *ua = req_header(c, "User-Agent");

		fprintf(stderr, "testserver: %s %s user-agent '%s'\n", method, url, ua ? ua : "");
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return send_text(c, 405, "text/plain", "method not allowed\n", 19);
	if (!path_ok(url))
		return send_text(c, 400, "text/plain", "bad path\n", 9);
	if (strncmp(url, "/_control/", 10) == 0)
		return serve_control(c, url);
	if (strncmp(url, "/bench/", 7) == 0 || strncmp(url, "/benchf/", 8) == 0 ||
	    strncmp(url, "/benchd/", 8) == 0)
		return serve_bench(c, url);
	if (strncmp(url, "/noise/", 7) == 0)
		return serve_noise(c, url);
	if (strncmp(url, "/words/", 7) == 0)
		return serve_words(c, url);
	return serve_file(c, url);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	request *r = *req_cls;

	if (!r)
		return;
	count_end(r);
	free(r);
	*req_cls = NULL;
}

/* ---- main ---------------------------------------------------------------- */

static int write_port_file(const char *file, unsigned port)
{
	lb_buf tmp = LB_BUF_INIT;
	FILE *f;
	int ok;

	lb_buf_addf(&tmp, "%s.tmp.%ld", file, (long)getpid());
	f = fopen(tmp.data, "w");
	if (!f) {
		lb_buf_release(&tmp);
		return -1;
	}
	fprintf(f, "%u\n", port);
	ok = fclose(f) == 0 && rename(tmp.data, file) == 0;
	lb_buf_release(&tmp);
	return ok ? 0 : -1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: testserver --root DIR [--port N] [--port-file FILE] "
		   "[--max-seconds S] [--verbose]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "port", required_argument, NULL, 'p' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "max-seconds", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *port_file = NULL;
	long port = 0, max_seconds = 600;
	struct sockaddr_in sa;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	sigset_t sigs;
	struct timespec ts;
	int o;

	while ((o = getopt_long(argc, argv, "r:p:f:m:vh", opts, NULL)) != -1) {
		switch (o) {
		case 'r': root = optarg; break;
		case 'p': port = atol(optarg); break;
		case 'f': port_file = optarg; break;
		case 'm': max_seconds = atol(optarg); break;
		case 'v': verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	started = time(NULL);
	/* Every thread MHD starts inherits this mask; main waits for them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			     MHD_USE_SUPPRESS_DATE_NO_CLOCK | (verbose ? MHD_USE_ERROR_LOG : 0),
			     0, NULL, NULL, on_request, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)4000,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
			     /* room for a Big-Header's answer (the default is 32 KiB) */
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(4u << 20),
			     MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 << 10),
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "testserver: cannot listen on 127.0.0.1:%ld\n", port);
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	if (!info || (port_file && write_port_file(port_file, info->port) < 0)) {
		fprintf(stderr, "testserver: cannot write port file '%s'\n", port_file ? port_file : "");
		MHD_stop_daemon(d);
		return 1;
	}
	if (verbose || !port_file)
		fprintf(stderr, "testserver: listening on 127.0.0.1:%u\n", info->port);
	ts.tv_sec = max_seconds;
	ts.tv_nsec = 0;
	while (sigtimedwait(&sigs, NULL, &ts) < 0 && errno == EINTR)
		;
	stopping = 1;
	MHD_stop_daemon(d);
	return 0;
}
