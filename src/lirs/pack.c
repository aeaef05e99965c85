/*
 * pack.c: JSON Lines into a LIRS writer, parsed by a ring of threads
 * (lirs_pack.h).
 *
 * PACK_PARSERS threads turn lines into records in batches, the calling
 * thread encodes them in order, and the writer's thread deflates.  Batches
 * go round a ring of PACK_SLOTS; records keep their order, and the calling
 * thread reports the skipped lines, in line order.
 */
#include "lirs_pack.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"
#include "lirs_jsonw.h"

#define PACK_BATCH 256
#define PACK_SLOTS 4
/* Parsers take batches seq = k, k + PACK_PARSERS, ...; a slot (seq %
 * PACK_SLOTS) always belongs to the same parser, so what is parsed into it
 * is allocated and freed by that one thread. */
#define PACK_PARSERS 2

typedef struct item {
	lirs_json_record jr;       /* when !blank && !bad */
	unsigned long line, col;
	char *err;                 /* when bad: the message (NULL: out of memory) */
	int blank, bad;
} item;

typedef struct batch {
	lb_buf raw;                /* the batch's lines as read */
	size_t off[PACK_BATCH], len[PACK_BATCH], nraw;
	unsigned long first_line;
	item v[PACK_BATCH];
	size_t n;
	int last;                  /* the parsers' last batch */
	int read_errno;            /* with last: why the input failed, or 0 */
} batch;

typedef struct ring {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	batch slot[PACK_SLOTS];
	int full[PACK_SLOTS];
	int stop;                  /* the encoder gave up: a write failed */
	unsigned long turn;        /* the batch whose lines are read next */
	/* the input: used only by the parser whose turn it is */
	FILE *in;
	char *line;
	size_t cap;
	unsigned long lineno;
	int eof, read_errno;
} ring;

typedef struct parser {
	ring *r;
	unsigned long k;
	pthread_t th;
} parser;

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r\n", s[i]))
			return 0;
	return 1;
}

/* Parses one line into it (in a parser thread). */
static void parse_line(lirs_json_parser *jp, item *it, const char *s, size_t n,
		       unsigned long line)
{
	lb_error err = LB_ERROR_INIT;

	it->line = line;
	it->col = 0;
	it->err = NULL;
	it->bad = 0;
	/* A UTF-8 byte order mark some editors add. */
	if (line == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		s += 3;
		n -= 3;
	}
	if ((it->blank = blank(s, n)))
		return;
	if (!jp) {
		it->bad = 1;   /* out of memory, reported as such */
		return;
	}
	if (lirs_json_parse_record(jp, &it->jr, s, n, &err) < 0) {
		it->bad = 1;
		it->col = err.col;
		it->err = strdup(lb_error_msg(&err));
	}
}

/* Waits until slot i is full (want 1) or empty (want 0); 0, or LB_ESTOP
 * when told to stop. */
static int ring_wait(ring *r, size_t i, int want)
{
	int rc = 0;

	pthread_mutex_lock(&r->mu);
	while (r->full[i] != want && !r->stop)
		pthread_cond_wait(&r->cv, &r->mu);
	if (r->stop)
		rc = LB_ESTOP;
	pthread_mutex_unlock(&r->mu);
	return rc;
}

static void ring_set(ring *r, size_t i, int full, int stop)
{
	pthread_mutex_lock(&r->mu);
	r->full[i] = full;
	r->stop |= stop;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/* Frees what a batch holds.  The parser thread does it, before it refills
 * the slot: memory goes back to the thread that allocated it, because
 * glibc's free() of another thread's chunk costs a lock each time (it
 * made pack twice as slow).  all: also the line buffer. */
static void batch_drop(batch *b, int all)
{
	size_t k;

	for (k = 0; k < b->n; k++) {
		item *it = &b->v[k];
		if (it->blank)
			continue;
		if (it->bad)
			free(it->err);
		else
			lirs_json_record_release(&it->jr);
		it->blank = 1;
	}
	b->n = 0;
	if (all)
		lb_buf_release(&b->raw);
}

/* Reads the next batch's lines into b->raw, in input order: parsers take
 * turns (r->turn).  Returns 1 when the input ended, 0 when not, -1 when
 * told to stop. */
static int read_batch(ring *r, batch *b, unsigned long seq)
{
	ssize_t n = 0;
	int end;

	pthread_mutex_lock(&r->mu);
	while (r->turn != seq && !r->stop)
		pthread_cond_wait(&r->cv, &r->mu);
	if (r->stop) {
		pthread_mutex_unlock(&r->mu);
		return LB_ESTOP;
	}
	pthread_mutex_unlock(&r->mu);
	/* Only the parser whose turn it is touches the input. */
	lb_buf_reset(&b->raw);
	errno = 0;
	while (!r->eof && b->nraw < PACK_BATCH && (n = getline(&r->line, &r->cap, r->in)) >= 0) {
		b->off[b->nraw] = b->raw.len;
		b->len[b->nraw++] = (size_t)n;
		if (lb_buf_add(&b->raw, r->line, (size_t)n) < 0) {
			n = -1;
			errno = ENOMEM;
			break;
		}
	}
	if (!r->eof && n < 0) {
		r->eof = 1;
		r->read_errno = ferror(r->in) || errno == ENOMEM ? (errno ? errno : EIO) : 0;
	}
	end = r->eof;
	b->first_line = r->lineno + 1;
	r->lineno += b->nraw;
	pthread_mutex_lock(&r->mu);
	r->turn = seq + 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return end;
}

static void *parser_main(void *arg)
{
	parser *ps = arg;
	ring *r = ps->r;
	lirs_json_parser *jp = lirs_json_parser_new();
	unsigned long seq;
	size_t k;

	for (seq = ps->k; ; seq += PACK_PARSERS) {
		size_t i = seq % PACK_SLOTS;
		batch *b = &r->slot[i];
		int end;

		if (ring_wait(r, i, 0) < 0)
			break;
		batch_drop(b, 0);
		b->nraw = 0;
		if ((end = read_batch(r, b, seq)) < 0)
			break;
		for (k = 0; k < b->nraw; k++)
			parse_line(jp, &b->v[b->n++], b->raw.data + b->off[k], b->len[k],
				   b->first_line + k);
		b->last = end;
		b->read_errno = end ? r->read_errno : 0;
		ring_set(r, i, 1, 0);
		if (end)
			break;
	}
	lirs_json_parser_free(jp);
	return NULL;
}

/* Encodes one parsed line (in the calling thread); the writer's code when
 * it failed, else 0. */
static int pack_item(lirs_writer *w, item *it, const lirs_pack_opts *o, lirs_pack_stats *st)
{
	int rc;

	if (it->blank)
		return 0;
	if (it->bad) {
		if (o && o->on_bad)
			o->on_bad(o->ctx, it->line, it->col, it->err ? it->err : "out of memory");
		st->bad++;
		return 0;
	}
	it->jr.rec.line = it->line;
	if ((rc = lirs_writer_add(w, &it->jr.rec)) < 0)
		return rc;
	st->records++;
	if (it->jr.rec.last_modified == 0 || it->jr.rec.last_detected == 0) {
		if (st->untimed < LIRS_PACK_UNTIMED_SHOWN)
			st->untimed_line[st->untimed] = it->line;
		st->untimed++;
	}
	return 0;
}

/* Starts the parsers; the number started.  On failure the ring is told to
 * stop and err says why. */
static size_t start_parsers(ring *r, parser *ps, lb_error *err)
{
	size_t k;

	for (k = 0; k < PACK_PARSERS; k++) {
		ps[k].r = r;
		ps[k].k = k;
		int e = pthread_create(&ps[k].th, NULL, parser_main, &ps[k]);

		if (e != 0) {
			errno = e;   /* pthread_create() returns it */
			lb_err_sys(err, "cannot start a thread");
			if (err)
				err->code = LB_ENOMEM;
			ring_set(r, 0, r->full[0], 1);
			break;
		}
	}
	return k;
}

int lirs_pack(FILE *in, lirs_writer *w, const lirs_pack_opts *opts, lirs_pack_stats *stats,
	      lb_error *err)
{
	ring *r = calloc(1, sizeof *r);
	parser ps[PACK_PARSERS];
	lirs_pack_stats st = { 0 };
	size_t i = 0, k, started;
	int rc = 0, last = 0, read_errno = 0;

	if (!r)
		return lb_err_code(err, LB_ENOMEM);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->in = in;
	if ((started = start_parsers(r, ps, err)) < PACK_PARSERS)
		rc = LB_ENOMEM;
	for (; !last && rc == 0; i = (i + 1) % PACK_SLOTS) {
		batch *b = &r->slot[i];

		ring_wait(r, i, 1);
		for (k = 0; k < b->n && rc == 0; k++)
			if ((rc = pack_item(w, &b->v[k], opts, &st)) < 0 &&
			    lirs_writer_error(w, err) == 0)
				lb_err_code(err, rc);
		last = b->last;
		read_errno = b->read_errno;
		ring_set(r, i, 0, rc != 0);
	}
	for (k = 0; k < started; k++)
		pthread_join(ps[k].th, NULL);
	for (k = 0; k < PACK_SLOTS; k++)
		batch_drop(&r->slot[k], 1);
	if (rc == 0 && read_errno) {
		errno = read_errno;
		rc = lb_err_sys(err, "cannot read the input");
	}
	free(r->line);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
	if (stats)
		*stats = st;
	return rc;
}
