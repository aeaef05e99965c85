/*
 * writer.c: records -> LIRS 2.1 lines -> EUC-JP -> gzip -> sink.
 * EUC-JP is strict (JIS X 0201/0208/0212) unless euc_jp_ms: charset.c.
 *
 * Lines are encoded into a batch buffer; full batches are compressed.
 * With gzip on, deflate runs in a second thread on one batch while the
 * caller fills the next (double buffering), so encoding and compression
 * overlap.  The sink is then called from that thread, never from two
 * threads at once, and never after lirs_writer_finish() returns.
 */
#include "lirs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"
#include "lb_utf8.h"
#include "lirs_charset.h"
#include "di.h"
#include "gz.h"

#define BATCH ((size_t)256 << 10)

struct lirs_writer {
	lirs_writer_opts o;
	lirs_cs_conv cs;
	lb_buf line;               /* the record being serialised, UTF-8 */
	lb_buf batch;              /* encoded lines waiting for compression */
	unsigned long replaced;
	unsigned long undecoded; /* of them, U+FFFD (lirs_writer_undecoded) */
	unsigned long approx;    /* written as a look-alike (lirs_writer_approximated) */
	unsigned long skipped;   /* DI: records without a URL, left out */
	unsigned long too_long;  /* records with a line over LIRS_DEFAULT_MAX_LINE, left out */
	unsigned long subst;     /* vendor characters as readable forms (lirs_writer_substituted) */
	int err;                 /* sticky */
	int finished;
	lirs_gzw gz;             /* gzip (gz.c), unless no_gzip */
	int zinit;
	/* the deflate thread */
	int threaded;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	lb_buf job;                /* owned by the thread while has_job */
	int has_job, quit;
	int werr;                /* the thread's error */
	int sink_errno;          /* errno of the failed sink call (errno is per thread) */
};

/* ---- output ----------------------------------------------------------- */

/* May run in the deflate thread: its errno is kept for the caller's. */
static int sink(lirs_writer *w, const void *p, size_t n)
{
	if (n && w->o.sink(w->o.ctx, p, n) < 0) {
		w->sink_errno = errno ? errno : EIO;
		return LB_ESINK;
	}
	return 0;
}

/* What the public functions return.  The sink's errno is read only after
 * the thread's error was seen under the mutex, or from this thread
 * (lirs_writer_error() hands it over in an lb_error); errno is set too,
 * for the callers that report with strerror(errno). */
static int done(lirs_writer *w, int r)
{
	if (r == LB_ESINK)
		errno = w->sink_errno;
	else if (r == LB_ENOMEM)
		errno = ENOMEM;
	return r;
}

/* gz.c's output callback: compressed bytes to the sink. */
static int gz_sink(void *ctx, const char *p, size_t n)
{
	return sink(ctx, p, n);
}

static void *worker(void *arg)
{
	lirs_writer *w = arg;
	int r;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->has_job && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->has_job)
			break;
		pthread_mutex_unlock(&w->mu);
		r = w->werr ? 0 : lirs_gzw_write(&w->gz, w->job.data, w->job.len);
		pthread_mutex_lock(&w->mu);
		if (r < 0)
			w->werr = r;
		lb_buf_reset(&w->job);
		w->has_job = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Waits until the thread is idle; returns its error. */
static int wait_idle(lirs_writer *w)
{
	int r;

	pthread_mutex_lock(&w->mu);
	while (w->has_job)
		pthread_cond_wait(&w->cv, &w->mu);
	r = w->werr;
	pthread_mutex_unlock(&w->mu);
	return r;
}

/* Sends the batch on: to the thread, to deflate here, or to the sink. */
static int push(lirs_writer *w)
{
	lb_buf t;
	int r = 0;

	if (!w->batch.len)
		return 0;
	if (w->o.no_gzip) {
		r = sink(w, w->batch.data, w->batch.len);
	} else if (!w->threaded) {
		r = lirs_gzw_write(&w->gz, w->batch.data, w->batch.len);
	} else {
		if ((r = wait_idle(w)) < 0)
			return w->err = r;
		pthread_mutex_lock(&w->mu);
		t = w->job;
		w->job = w->batch;
		w->batch = t;
		w->has_job = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
	lb_buf_reset(&w->batch);
	return r < 0 ? (w->err = r) : 0;
}

/* ---- serialising ------------------------------------------------------ */

static int put_int(lb_buf *b, int64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		*--p = '-';
	if (lb_buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p)) < 0)
		return LB_ENOMEM;
	return lb_buf_addc(b, ',');
}

/* LIRS 2.1 §2: '\' and ',' escaped, no CR or LF, blank written as "0". */
static int put_text(lb_buf *b, const char *s, int zero_if_blank)
{
	size_t n = s ? strlen(s) : 0, i;
	char *o;

	if (!n)
		return zero_if_blank ? lb_buf_add(b, "0,", 2) : lb_buf_addc(b, ',');
	if (lb_buf_grow(b, 2 * n + 1) < 0)
		return LB_ENOMEM;
	o = b->data + b->len;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\' || c == ',')
			*o++ = '\\';
		else if (c == '\r' || c == '\n')
			c = ' ';
		*o++ = c;
	}
	*o++ = ',';
	*o = '\0';
	b->len = (size_t)(o - b->data);
	return 0;
}

/* The U+FFFD in s[0..n): bytes a reader could not decode. */
static unsigned long count_fffd(const char *s, size_t n)
{
	unsigned long k = 0;
	const char *p;

	while (n >= 3 && (p = memmem(s, n, LB_UTF8_FFFD, 3))) {
		k++;
		n -= (size_t)(p + 3 - s);
		s = p + 3;
	}
	return k;
}

/* Appends w->line, in the output charset, to the batch.  0, or LB_ENOMEM. */
static int encode_line(lirs_writer *w)
{
	int r;

	if (w->o.utf8) {
		r = lb_buf_add(&w->batch, w->line.data, w->line.len);
	} else {
		unsigned long before = w->replaced;
		r = lirs_cs_encode_counted(&w->cs, w->line.data, w->line.len, &w->batch,
				      &w->replaced, &w->approx, &w->subst);
		if (w->replaced != before)
			w->undecoded += count_fffd(w->line.data, w->line.len);
	}
	return r < 0 ? (w->err = LB_ENOMEM) : 0;
}

/* Encodes w->line into the batch; pushes the batch when it is full. */
static int emit_line(lirs_writer *w)
{
	if (encode_line(w) < 0)
		return w->err;
	return w->batch.len >= BATCH ? push(w) : 0;
}

/* The longest line (without its LF or CRLF, as the reader counts it) in s[0..n). */
static size_t longest_line(const char *s, size_t n)
{
	size_t max = 0;

	while (n) {
		const char *lf = memchr(s, '\n', n);
		size_t k = lf ? (size_t)(lf - s) : n;
		size_t len = lf && k && s[k - 1] == '\r' ? k - 1 : k;

		if (len > max)
			max = len;
		if (!lf)
			break;
		n -= k + 1;
		s = lf + 1;
	}
	return max;
}

/*
 * emit_line() for a record: a record with a line (as encoded) our reader
 * would skip (over max_line, by default LIRS_DEFAULT_MAX_LINE: line-too-long)
 * is left out and counted instead, so that every record written is read
 * back whole.
 */
static int emit_record(lirs_writer *w)
{
	size_t start = w->batch.len;

	if (encode_line(w) < 0)
		return w->err;
	if (longest_line(w->batch.data + start, w->batch.len - start) >
	    (w->o.max_line ? w->o.max_line : LIRS_DEFAULT_MAX_LINE)) {
		w->batch.len = start;
		w->batch.data[start] = '\0';
		w->too_long++;
		return 0;
	}
	return w->batch.len >= BATCH ? push(w) : 0;
}

/* ---- the public face --------------------------------------------------- */

lirs_writer *lirs_writer_new(const lirs_writer_opts *opts)
{
	lirs_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->o = *opts;
	if (w->o.level <= 0 || w->o.level > 9)
		w->o.level = 6;
	lb_buf_init(&w->line);
	lb_buf_init(&w->batch);
	lb_buf_init(&w->job);
	if (lirs_cs_open(&w->cs, w->o.utf8 ? 0 : 2) < 0) {
		free(w);
		return NULL;
	}
	w->cs.ms = w->o.euc_jp_ms;
	if (!w->o.no_gzip) {
		if (lirs_gzw_init(&w->gz, w->o.level, gz_sink, w) < 0) {
			lirs_cs_close(&w->cs);
			free(w);
			return NULL;
		}
		w->zinit = 1;
		pthread_mutex_init(&w->mu, NULL);
		pthread_cond_init(&w->cv, NULL);
		w->threaded = pthread_create(&w->th, NULL, worker, w) == 0;
	}
	if (w->o.format == LIRS_FORMAT_DI &&
	    (lirs_di_write_header(&w->line, w->o.utf8, w->o.date) < 0 || emit_line(w) < 0)) {
		lirs_writer_free(w);
		return NULL;
	}
	return w;
}

int lirs_writer_comment(lirs_writer *w, const char *text)
{
	size_t i, start;

	if (w->err)
		return done(w, w->err);
	if (w->finished)
		return LB_EINVAL;
	if (w->o.format == LIRS_FORMAT_DI)
		return 0;   /* HINA-DI has no comments (lirs(5)) */
	lb_buf_reset(&w->line);
	if (lb_buf_adds(&w->line, *text ? "# " : "#") < 0)
		return done(w, w->err = LB_ENOMEM);
	start = w->line.len;
	if (lb_buf_adds(&w->line, text) < 0 || lb_buf_addc(&w->line, '\n') < 0)
		return done(w, w->err = LB_ENOMEM);
	for (i = start; i + 1 < w->line.len; i++)
		if (w->line.data[i] == '\r' || w->line.data[i] == '\n')
			w->line.data[i] = ' ';
	return done(w, emit_line(w));
}

int lirs_writer_add(lirs_writer *w, const lirs_record *r)
{
	lb_buf *b = &w->line;
	size_t i;
	int bad;

	if (w->err)
		return done(w, w->err);
	if (w->finished)
		return LB_EINVAL;
	lb_buf_reset(b);
	if (w->o.format == LIRS_FORMAT_DI) {
		if ((bad = lirs_di_write_record(b, r)) < 0)
			return done(w, w->err = LB_ENOMEM);
		w->skipped += bad;
		return bad ? 0 : done(w, emit_record(w));
	}
	bad = lb_buf_add(b, "LIRS,", 5) | put_int(b, r->last_modified) |
	      put_int(b, r->last_detected) | put_int(b, r->tz_offset) |
	      put_int(b, r->content_length) | put_text(b, r->url, 1) |
	      put_text(b, r->title, 1) | put_text(b, r->author, 1) |
	      put_text(b, r->source_url, 1) | put_text(b, r->extension, 0);
	/* tama-style extra fields go back after the extension, in order */
	for (i = 0; i < r->nextra; i++)
		bad |= put_text(b, r->extra[i], 0);
	bad |= lb_buf_addc(b, '\n');
	if (bad)
		return done(w, w->err = LB_ENOMEM);
	return done(w, emit_record(w));
}

int lirs_writer_finish(lirs_writer *w)
{
	int r;

	if (w->err)
		return done(w, w->err);
	if (w->finished)
		return LB_EINVAL;
	w->finished = 1;
	if (w->o.no_gzip)
		return done(w, push(w));
	if (w->threaded && (r = wait_idle(w)) < 0)
		return done(w, w->err = r);
	/* The last batch and the trailer are compressed here. */
	r = lirs_gzw_finish(&w->gz, w->batch.data, w->batch.len);
	lb_buf_reset(&w->batch);
	return done(w, r < 0 ? (w->err = r) : 0);
}

int lirs_writer_error(const lirs_writer *w, lb_error *err)
{
	if (w->err != LB_ESINK)
		return w->err ? lb_err_code(err, w->err) : 0;
	lb_err(err, LB_ESINK, "%s: %s", lb_strerror(LB_ESINK), strerror(w->sink_errno));
	if (err)
		err->sys = w->sink_errno;
	return LB_ESINK;
}

unsigned long lirs_writer_replaced(const lirs_writer *w)
{
	return w->replaced;
}

unsigned long lirs_writer_undecoded(const lirs_writer *w)
{
	return w->undecoded;
}

unsigned long lirs_writer_approximated(const lirs_writer *w)
{
	return w->approx;
}

unsigned long lirs_writer_skipped(const lirs_writer *w)
{
	return w->skipped;
}

unsigned long lirs_writer_too_long(const lirs_writer *w)
{
	return w->too_long;
}

unsigned long lirs_writer_substituted(const lirs_writer *w)
{
	return w->subst;
}

void lirs_writer_free(lirs_writer *w)
{
	if (!w)
		return;
	if (w->threaded) {
		pthread_mutex_lock(&w->mu);
		w->quit = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->th, NULL);
	}
	if (w->zinit) {
		lirs_gzw_release(&w->gz);
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
	}
	lirs_cs_close(&w->cs);
	lb_buf_release(&w->line);
	lb_buf_release(&w->batch);
	lb_buf_release(&w->job);
	free(w);
}

int lirs_sink_stdio(void *ctx, const void *buf, size_t len)
{
	errno = 0;   /* not a stale one, if fwrite fails without a word */
	if (fwrite(buf, 1, len, (FILE *)ctx) != len) {
		if (!errno)
			errno = EIO;
		return LB_ESINK;
	}
	return 0;
}
