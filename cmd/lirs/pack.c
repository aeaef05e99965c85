/*
 * pack.c: `lirs pack` turns JSON Lines (the shape `lirs cat` writes) into a
 * LIRS file: EUC-JP and gzip by default.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lb_afile.h"
#include "cmds.h"
#include "common.h"
#include "lirs_jsonw.h"

static const char help[] =
	"usage: lirs pack [-o FILE] [--format lirs|di] [--charset CS] [--utf8|--euc-jp] [--no-gzip] [FILE]\n"
	"\n"
	"Read JSON Lines records (the shape 'lirs cat' writes; FILE - or no FILE is\n"
	"standard input) and write them as a LIRS 2.1 file: EUC-JP, gzip.\n"
	"Missing keys read as 0 or \"\"; unknown keys are ignored; a key given twice\n"
	"takes its last value; blank lines are skipped.  A line that is not a record object is reported as FILE:LINE:COL\n"
	"and skipped.\n"
	"\n"
	"  -o, --output FILE      write FILE atomically (temporary file + rename)\n"
	"                         instead of standard output\n"
	"  -f, --format FMT       lirs (default): LIRS 2.1, EUC-JP;\n"
	"                         di: HINA-DI 2.1, UTF-8 as tama wrote it (lirs(5))\n"
	"      --euc-jp           write EUC-JP (with --format di)\n"
	"      --charset CS       euc-jp (default: strict JIS X 0208/0212, NEC and IBM\n"
	"                         extensions as readable forms, ① as (1), 髙 as 高),\n"
	"                         euc-jp-ms (keep their vendor codes), utf-8\n"
	"      --utf8             write UTF-8 instead of EUC-JP (--charset utf-8)\n"
	"      --no-gzip          write plain text\n"
	"  -h, --help             show this help\n"
	"\n"
	"Characters EUC-JP cannot hold are written as U+3013, those it holds only as\n"
	"a look-alike (¥ as ￥, 〜 as ～; lirs(5)) as the look-alike, each counted in\n"
	"a warning.\n"
	"Exit status: 0 success, 1 some lines were skipped (the rest is written),\n"
	"2 usage error, unreadable input or a write error (FILE is left untouched).\n";

typedef struct pack {
	const char *name;          /* input, for diagnostics */
	const char *out;           /* -o FILE, NULL for standard output */
	lirs_writer *w;
	unsigned long records, bad;
} pack;

static void bad_line(pack *p, unsigned long line, unsigned long col, const char *msg)
{
	if (col)
		fprintf(stderr, "%s:%lu:%lu: error: %s\n", p->name, line, col, msg);
	else
		fprintf(stderr, "%s:%lu: error: %s\n", p->name, line, msg);
	p->bad++;
}

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r\n", s[i]))
			return 0;
	return 1;
}

/*
 * Parsing JSON is most of pack's work, as much as encoding and deflating
 * together, so it runs in a thread of its own: the parser thread turns
 * lines into records in batches, the main thread encodes them in order,
 * and the writer's thread deflates: a pipeline like `iconv | gzip`.
 * Batches go round a ring of PACK_SLOTS; records keep their order, and
 * the main thread prints the diagnostics, in line order.
 */
#define PACK_BATCH 256
#define PACK_SLOTS 4

typedef struct item {
	lirs_json_record jr;       /* when !blank && !bad */
	unsigned long line, col;
	char *err;                 /* when bad: the message (NULL: out of memory) */
	int blank, bad;
} item;

typedef struct batch {
	lb_buf raw;                  /* the batch's lines as read */
	size_t off[PACK_BATCH], len[PACK_BATCH], nraw;
	unsigned long first_line;
	item v[PACK_BATCH];
	size_t n;
	int last;                  /* the parser's last batch */
	int read_errno;            /* with last: why the input failed, or 0 */
} batch;

typedef struct ring {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	batch slot[PACK_SLOTS];
	int full[PACK_SLOTS];
	int stop;                  /* the main thread gave up: a write failed */
	unsigned long turn;        /* the batch whose lines are read next */
	/* the input: used only by the parser whose turn it is */
	FILE *in;
	char *line;
	size_t cap;
	unsigned long lineno;
	int eof, read_errno;
} ring;

/* PACK_PARSERS threads parse batches seq = k, k + PACK_PARSERS, ...; a
 * slot (seq % PACK_SLOTS) always belongs to the same parser, so what is
 * parsed into it is allocated and freed by that one thread. */
#define PACK_PARSERS 2

typedef struct parser {
	ring *r;
	unsigned long k;
	pthread_t th;
} parser;

/* Parses one line into it (in the parser thread). */
static void parse_line(lirs_json_parser *jp, item *it, const char *s, size_t n,
		       unsigned long line)
{
	char err[256];

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
	if (lirs_json_parse_record(jp, &it->jr, s, n, &it->col, err, sizeof err) < 0) {
		it->bad = 1;
		it->err = strdup(err);
	}
}

/* Waits until slot i is full (want 1) or empty (want 0); 0, or -1 when
 * told to stop. */
static int ring_wait(ring *r, size_t i, int want)
{
	int rc = 0;

	pthread_mutex_lock(&r->mu);
	while (r->full[i] != want && !r->stop)
		pthread_cond_wait(&r->cv, &r->mu);
	if (r->stop)
		rc = -1;
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
		return -1;
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

/* Encodes one parsed line (in the main thread); -1 when the writer failed. */
static int pack_item(pack *p, item *it)
{
	int rc;

	if (it->blank)
		return 0;
	if (it->bad) {
		bad_line(p, it->line, it->col, it->err ? it->err : "out of memory");
		return 0;
	}
	it->jr.rec.line = it->line;
	rc = lirs_writer_add(p->w, &it->jr.rec);
	if (rc < 0)
		return -1;
	p->records++;
	return 0;
}

/* Packs every line of in; CLI_OK, or CLI_FATAL after printing why. */
static int pack_stream(pack *p, FILE *in)
{
	ring *r = calloc(1, sizeof *r);
	parser ps[PACK_PARSERS];
	size_t i = 0, k, started = 0;
	int status = CLI_OK, last = 0, read_errno = 0;

	if (!r) {
		cli_error("%s", lirs_strerror(LIRS_ENOMEM));
		return CLI_FATAL;
	}
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->in = in;
	for (k = 0; k < PACK_PARSERS; k++) {
		ps[k].r = r;
		ps[k].k = k;
		if (pthread_create(&ps[k].th, NULL, parser_main, &ps[k]) != 0) {
			cli_error("cannot start a thread: %s", strerror(errno));
			status = CLI_FATAL;
			ring_set(r, 0, r->full[0], 1);
			break;
		}
		started++;
	}
	for (; !last && status == CLI_OK; i = (i + 1) % PACK_SLOTS) {
		batch *b = &r->slot[i];

		ring_wait(r, i, 1);
		for (k = 0; k < b->n && status == CLI_OK; k++)
			if (pack_item(p, &b->v[k]) < 0) {
				cli_write_error(p->out);
				status = CLI_FATAL;
			}
		last = b->last;
		read_errno = b->read_errno;
		ring_set(r, i, 0, status != CLI_OK);
	}
	for (k = 0; k < started; k++)
		pthread_join(ps[k].th, NULL);
	for (k = 0; k < PACK_SLOTS; k++)
		batch_drop(&r->slot[k], 1);
	if (status == CLI_OK && read_errno) {
		cli_error("cannot read '%s': %s", p->name, strerror(read_errno));
		status = CLI_FATAL;
	}
	free(r->line);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
	return status;
}

static int open_input(const char *path, FILE **in)
{
	if (!strcmp(path, "-")) {
		*in = stdin;
		return 0;
	}
	if (!(*in = fopen(path, "rb"))) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Writes everything to fp; returns the exit status. */
static int run(pack *p, lirs_writer_opts *wo, FILE *in, FILE *fp)
{
	int status;

	wo->sink = lirs_sink_stdio;
	wo->ctx = fp;
	if (!(p->w = lirs_writer_new(wo))) {
		cli_error("cannot start the LIRS writer: %s", lirs_strerror(LIRS_ENOMEM));
		return CLI_FATAL;
	}
	status = pack_stream(p, in);
	if (status == CLI_OK && lirs_writer_finish(p->w) < 0) {
		cli_write_error(p->out);
		status = CLI_FATAL;
	}
	lirscmd_writer_warnings(p->w);
	lirs_writer_free(p->w);
	if (status == CLI_OK && p->bad)
		status = LIRSCMD_PROBLEMS;
	return status;
}

static int run_to_file(pack *p, lirs_writer_opts *wo, FILE *in, const char *out)
{
	lb_afile af;
	int status;

	if (lb_afile_open(&af, out) < 0) {
		cli_error("cannot create '%s': %s", out, strerror(errno));
		return CLI_FATAL;
	}
	p->out = out;
	status = run(p, wo, in, af.fp);
	if (status == CLI_FATAL) {
		lb_afile_abort(&af);
	} else if (lb_afile_commit(&af) < 0) {
		cli_error("cannot write '%s': %s", out, strerror(errno));
		status = CLI_FATAL;
	}
	return status;
}

int cmd_pack(int argc, char **argv)
{
	enum { O_UTF8 = 256, O_NOGZIP, O_EUCJP, O_CHARSET };
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "utf8", no_argument, NULL, O_UTF8 },
		{ "euc-jp", no_argument, NULL, O_EUCJP },
		{ "no-gzip", no_argument, NULL, O_NOGZIP },
		{ "charset", required_argument, NULL, O_CHARSET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	lirs_writer_opts wo = { 0 };
	pack p = { 0 };
	const char *out = NULL, *path = "-";
	FILE *in;
	int opt, status, charset = -1;

	while ((opt = cli_getopt(argc, argv, "o:f:h", lopts, help)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'f':
			if (!strcmp(optarg, "di"))
				wo.format = LIRS_FORMAT_DI;
			else if (strcmp(optarg, "lirs") != 0)
				return cli_usage_error(help, "unknown format '%s'", optarg);
			break;
		case O_UTF8: charset = 1; wo.euc_jp_ms = 0; break;
		case O_EUCJP: charset = 0; wo.euc_jp_ms = 0; break;
		case O_NOGZIP: wo.no_gzip = 1; break;
		case O_CHARSET:
			if (lirscmd_parse_charset(help, optarg, &wo) < 0)
				return CLI_FATAL;
			charset = wo.utf8;
			break;
		case 'h': return cli_help(help);
		default: return CLI_FATAL;
		}
	}
	if (argc - optind > 1)
		return cli_usage_error(help, "at most one FILE");
	/* LIRS 2.1 §2 says EUC-JP; tama wrote its HINA-DI in UTF-8 */
	wo.utf8 = charset >= 0 ? charset : wo.format == LIRS_FORMAT_DI;
	if (wo.format == LIRS_FORMAT_DI)
		wo.date = (int64_t)time(NULL);
	if (optind < argc)
		path = argv[optind];
	p.name = cli_display_name(path);
	if (open_input(path, &in) < 0)
		return CLI_FATAL;
	if (out) {
		status = run_to_file(&p, &wo, in, out);
	} else {
		status = run(&p, &wo, in, stdout);
		if (cli_close_stdout() != CLI_OK)
			status = CLI_FATAL;
	}
	if (in != stdin)
		fclose(in);
	return status;
}
