/*
 * lirsgen: a deterministic generator of LIRS 2.1 test and benchmark data.
 *
 *   lirsgen [-n N] [--seed S] [--now EPOCH] [--stale PCT] [--start ID]
 *           [--file K --overlap PCT] [--format lirs|jsonl] [-z] [-o FILE]
 *
 * Writes N records.  The same options always give the same bytes.
 *  - Titles mix JIS X 0208 kanji (level 1 only), hiragana, katakana,
 *    half-width katakana (SS2) and ASCII; some titles and authors hold ','
 *    and '\' so the writer escapes them (\, and \\, LIRS 2.1 §2).
 *    Only plain EUC-JP is used (no NEC/IBM extensions, no JIS X 0212), so
 *    `iconv -f EUC-JP` accepts every byte: the benchmark baseline is valid.
 *  - PCT percent of the records (default 20) are stale: Last-Detected more
 *    than 8 hours (LIRS 2.1 §4) before --now; the others are fresh.
 *  - URLs are unique within a file.  With --file K --overlap PCT, PCT percent
 *    of the records of every file K share their URLs (same URL set in every
 *    file, other timestamps), the rest are private to file K: that is the
 *    merge benchmark's "10 files, 50% overlap".  --start offsets the URL ids
 *    so a later batch holds only new URLs.
 *  - --format jsonl writes the records as `lirs cat --format jsonl` would
 *    (UTF-8, fields unescaped, "0" blanks as ""); -z gzips (level 6).
 *
 * 1,000,000 records: about 140 MB of EUC-JP text, about 26 MB gzipped.
 */
#include <errno.h>
#include <iconv.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifndef TITLE_MIN
#define TITLE_MIN 1
#define TITLE_SPREAD 3
#endif

typedef struct { char *p; size_t n, cap; } sbuf;

static void sb_need(sbuf *b, size_t more)
{
	if (b->n + more + 1 <= b->cap)
		return;
	while (b->n + more + 1 > b->cap)
		b->cap = b->cap ? b->cap * 2 : 1024;
	b->p = realloc(b->p, b->cap);
	if (!b->p) {
		fprintf(stderr, "lirsgen: out of memory\n");
		exit(2);
	}
}
static void sb_put(sbuf *b, const void *s, size_t n)
{
	sb_need(b, n);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}
static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }
static void sb_ch(sbuf *b, int c) { char ch = (char)c; sb_put(b, &ch, 1); }
static void sb_num(sbuf *b, int64_t v)
{
	char t[32];
	sb_put(b, t, (size_t)snprintf(t, sizeof t, "%" PRId64, v));
}

/* splitmix64: tiny, good enough, and the same on every platform. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static unsigned rndn(unsigned n) { return (unsigned)(rnd() % n); }

/* ---- EUC-JP pieces (JIS X 0208 rows as EUC bytes 0xA1+row-1) ---------- */
static void kanji(sbuf *b)
{
	/* Level 1 kanji, rows 16-46 (0xB0-0xCE): every cell is assigned. */
	sb_ch(b, 0xB0 + rndn(0xCE - 0xB0 + 1));
	sb_ch(b, 0xA1 + rndn(94));
}
static void hiragana(sbuf *b) { sb_ch(b, 0xA4); sb_ch(b, 0xA1 + rndn(0xF3 - 0xA1 + 1)); }
static void katakana(sbuf *b) { sb_ch(b, 0xA5); sb_ch(b, 0xA1 + rndn(0xF6 - 0xA1 + 1)); }
static void hankaku(sbuf *b) { sb_ch(b, 0x8E); sb_ch(b, 0xA6 + rndn(0xDF - 0xA6 + 1)); }

static const char *const ascii_words[] = {
	"Diary", "blog", "Web", "NOTE", "2nd", "log", "page", "R&D", "<b>", "info",
};
/* Common words in EUC-JP: 日記 (diary), の, 雑記 (notes), ページ (page). */
static const char *const euc_words[] = {
	"\xC6\xFC\xB5\xAD", "\xA4\xCE", "\xBB\xA8\xB5\xAD", "\xA5\xDA\xA1\xBC\xA5\xB8",
	"\xA1\xA1", "\xA1\xD6", "\xA1\xD7",
};

/* A LIRS-escaped piece that needs escaping: ',' or '\' (spec §2). */
static void escaped_piece(sbuf *b, int jsonl)
{
	static const char *const lirs[] = { "\\,", "\\\\", "a\\,b", "C:\\\\x" };
	static const char *const json[] = { ",", "\\\\", "a,b", "C:\\\\x" };
	unsigned i = rndn(4);
	sb_str(b, jsonl ? json[i] : lirs[i]);
}

/* One vocabulary word in EUC-JP: a run of one script, or a stock piece. */
static void word(sbuf *b, int jsonl_escapes)
{
	unsigned k;
	switch (rndn(10)) {
	case 0: case 1: case 2:
		for (k = 1 + rndn(3); k; k--) kanji(b);
		break;
	case 3: case 4:
		for (k = 1 + rndn(3); k; k--) hiragana(b);
		break;
	case 5:
		for (k = 2 + rndn(3); k; k--) katakana(b);
		break;
	case 6:
		sb_str(b, euc_words[rndn(sizeof euc_words / sizeof *euc_words)]);
		break;
	case 7:
		if (rndn(3) == 0)
			for (k = 2 + rndn(4); k; k--) hankaku(b);
		else
			kanji(b);
		break;
	case 8:
		sb_str(b, ascii_words[rndn(sizeof ascii_words / sizeof *ascii_words)]);
		break;
	default:
		if (rndn(3) == 0)
			escaped_piece(b, jsonl_escapes);
		else
			hiragana(b);
	}
}

/*
 * Titles are drawn from a fixed vocabulary with a skewed (Zipf-like)
 * choice, as real titles repeat words: that, not random characters, gives
 * a real file's gzip ratio (about 5:1).
 */
#ifndef VOCAB
#define VOCAB 512
#define PHRASE 4
#endif
static char *vocab[VOCAB];

static void vocab_init(int jsonl_escapes)
{
	sbuf w = { 0 };
	unsigned i;
	for (i = 0; i < VOCAB; i++) {
		unsigned k = 1 + rndn(PHRASE);
		w.n = 0;
		while (k--)
			word(&w, jsonl_escapes);
		vocab[i] = strdup(w.p);
	}
	free(w.p);
}

static const char *pick(void)
{
	return vocab[rndn(rndn(VOCAB) + 1)];
}

static void title(sbuf *b)
{
	unsigned pieces = TITLE_MIN + rndn(TITLE_SPREAD), i;
	for (i = 0; i < pieces; i++)
		sb_str(b, pick());
}

static void author(sbuf *b, int jsonl_escapes)
{
	switch (rndn(8)) {
	case 0:
		sb_str(b, "user");
		sb_num(b, rndn(10000));
		break;
	case 1:
		sb_str(b, "0");             /* unknown author: a blank field */
		break;
	case 2:
		kanji(b);
		escaped_piece(b, jsonl_escapes);
		break;
	default:
		sb_str(b, vocab[rndn(256)]);
	}
}

/* ---- records --------------------------------------------------------- */
typedef struct {
	int64_t lm, ld, tz, len;
	char url[96], src[96];
	sbuf title, author;         /* EUC-JP, LIRS-escaped */
	int tz_plus;                /* write "+32400" */
} rec;

typedef struct {
	unsigned long n, start;
	uint64_t seed;
	int64_t now;
	unsigned stale, overlap;
	long file;                  /* -1: no overlap scheme */
	int jsonl, lirs_gz;
	const char *out;
} opts;

static void make_url(char *dst, size_t cap, const opts *o, unsigned long j)
{
	unsigned long id = o->start + j;
	if (o->file >= 0 && j % 100 >= o->overlap)
		snprintf(dst, cap, "http://f%ld.example.jp/~u%lu/", o->file, id);
	else
		snprintf(dst, cap, "http://%s.example.jp/~user%lu/nikki/", id % 7 ? "www" : "home", id);
}

static void make_rec(rec *r, const opts *o, unsigned long j)
{
	/*
	 * Newest first over 30 days, as antennas write them; only records
	 * modified more than 8 hours ago can be stale.
	 */
	const int64_t fresh_from = o->now - 28800 + 60, stale_to = o->now - 28800 - 60;
	int stale = rndn(100) < o->stale;
	make_url(r->url, sizeof r->url, o, j);
	r->lm = o->now - (int64_t)((double)j / (double)o->n * 30 * 86400) - (int64_t)rndn(120);
	if (stale && r->lm < stale_to)
		r->ld = r->lm + (int64_t)rndn((unsigned)(stale_to - r->lm < 86400 ? stale_to - r->lm : 86400));
	else if (r->lm >= fresh_from)
		r->ld = r->lm + (int64_t)rndn((unsigned)(o->now - r->lm + 1));
	else
		/* Detected by a cron run every 10 minutes (NOTES: antennas ran from cron). */
		r->ld = o->now - 600 * (int64_t)rndn(47) - (int64_t)rndn(30);
	r->tz = rndn(20) ? 32400 : (rndn(2) ? 0 : -18000);
	r->tz_plus = r->tz == 32400 && rndn(10) == 0;
	r->len = 500 + rndn(60000);
	switch (rndn(10)) {
	case 0: strcpy(r->src, "0"); break;
	case 1: strcpy(r->src, "http://antenna.example.jp/lirs.gz"); break;
	default: strcpy(r->src, r->url);
	}
	r->title.n = r->author.n = 0;
	sb_need(&r->title, 0);
	sb_need(&r->author, 0);
	r->title.p[0] = r->author.p[0] = 0;
	title(&r->title);
	author(&r->author, o->jsonl);
}

static void emit_lirs(sbuf *b, const rec *r)
{
	sb_str(b, "LIRS,");
	sb_num(b, r->lm); sb_ch(b, ',');
	sb_num(b, r->ld); sb_ch(b, ',');
	if (r->tz_plus) sb_ch(b, '+');
	sb_num(b, r->tz); sb_ch(b, ',');
	sb_num(b, r->len); sb_ch(b, ',');
	sb_str(b, r->url); sb_ch(b, ',');
	sb_str(b, r->title.p); sb_ch(b, ',');
	sb_str(b, r->author.p); sb_ch(b, ',');
	sb_str(b, r->src); sb_str(b, ",,\n");
}

/* EUC-JP text (already unescaped for JSON: only '\\' remains) -> JSON string. */
static void json_str(sbuf *b, iconv_t cd, const char *euc)
{
	char utf[1024], *in = (char *)euc, *out = utf;
	size_t inl = strlen(euc), outl = sizeof utf - 1;
	if (!strcmp(euc, "0"))
		inl = 0;                    /* a "0" blank reads as "" */
	iconv(cd, NULL, NULL, NULL, NULL);
	if (iconv(cd, &in, &inl, &out, &outl) == (size_t)-1) {
		fprintf(stderr, "lirsgen: iconv: %s\n", strerror(errno));
		exit(2);
	}
	*out = 0;
	sb_ch(b, '"');
	for (out = utf; *out; out++) {
		if (*out == '"')
			sb_str(b, "\\\"");
		else
			sb_ch(b, *out);         /* '\\' arrives already doubled */
	}
	sb_ch(b, '"');
}

static void emit_jsonl(sbuf *b, const rec *r, iconv_t cd)
{
	sb_str(b, "{\"last_modified\":"); sb_num(b, r->lm);
	sb_str(b, ",\"last_detected\":"); sb_num(b, r->ld);
	sb_str(b, ",\"tz_offset\":"); sb_num(b, r->tz);
	sb_str(b, ",\"content_length\":"); sb_num(b, r->len);
	sb_str(b, ",\"url\":"); json_str(b, cd, r->url);
	sb_str(b, ",\"title\":"); json_str(b, cd, r->title.p);
	sb_str(b, ",\"author\":"); json_str(b, cd, r->author.p);
	sb_str(b, ",\"source_url\":"); json_str(b, cd, r->src);
	sb_str(b, ",\"extension\":\"\"}\n");
}

static int64_t num_arg(const char *name, const char *v)
{
	char *end;
	long long x;
	errno = 0;
	x = strtoll(v ? v : "", &end, 10);
	if (!v || errno || *end || end == v) {
		fprintf(stderr, "lirsgen: bad number for '%s': '%s'\n", name, v ? v : "");
		exit(2);
	}
	return x;
}

static void usage(void)
{
	fputs("usage: lirsgen [-n N] [--seed S] [--now EPOCH] [--stale PCT] [--start ID]\n"
	      "               [--file K --overlap PCT] [--format lirs|jsonl] [-z] [-o FILE]\n",
	      stderr);
	exit(2);
}

static void parse(opts *o, int argc, char **argv)
{
	int i;
	*o = (opts){ .n = 1000, .seed = 1, .now = 1700000000, .stale = 20, .file = -1 };
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-z")) { o->lirs_gz = 1; continue; }
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) usage();
		if (!v) usage();
		i++;
		if (!strcmp(a, "-n")) o->n = (unsigned long)num_arg(a, v);
		else if (!strcmp(a, "--seed")) o->seed = (uint64_t)num_arg(a, v);
		else if (!strcmp(a, "--now")) o->now = num_arg(a, v);
		else if (!strcmp(a, "--stale")) o->stale = (unsigned)num_arg(a, v);
		else if (!strcmp(a, "--start")) o->start = (unsigned long)num_arg(a, v);
		else if (!strcmp(a, "--file")) o->file = (long)num_arg(a, v);
		else if (!strcmp(a, "--overlap")) o->overlap = (unsigned)num_arg(a, v);
		else if (!strcmp(a, "-o")) o->out = v;
		else if (!strcmp(a, "--format")) {
			if (!strcmp(v, "jsonl")) o->jsonl = 1;
			else if (strcmp(v, "lirs")) usage();
		} else
			usage();
	}
}

int main(int argc, char **argv)
{
	opts o;
	rec r = { 0 };
	sbuf b = { 0 };
	gzFile lirs_gz = NULL;
	FILE *f = stdout;
	iconv_t cd = (iconv_t)-1;
	unsigned long j;

	parse(&o, argc, argv);
	/* The vocabulary depends on the seed only: every file shares it. */
	rng_state = o.seed * 0x2545F4914F6CDD1DULL;
	vocab_init(o.jsonl);
	rng_state = o.seed * 0x2545F4914F6CDD1DULL + (uint64_t)(o.file + 2);
	if (o.out && !(f = fopen(o.out, "wb"))) {
		fprintf(stderr, "lirsgen: cannot open '%s': %s\n", o.out, strerror(errno));
		return 2;
	}
	if (o.lirs_gz) {
		lirs_gz = gzdopen(fileno(f), "wb6");
		if (!lirs_gz) {
			fprintf(stderr, "lirsgen: gzdopen failed\n");
			return 2;
		}
		gzbuffer(lirs_gz, 1 << 18);
	}
	if (o.jsonl && (cd = iconv_open("UTF-8", "EUC-JP")) == (iconv_t)-1) {
		fprintf(stderr, "lirsgen: iconv_open: %s\n", strerror(errno));
		return 2;
	}
	if (!o.jsonl)
		sb_str(&b, "# generated by lirsgen\n");
	for (j = 0; j < o.n; j++) {
		make_rec(&r, &o, j);
		if (o.jsonl)
			emit_jsonl(&b, &r, cd);
		else
			emit_lirs(&b, &r);
		if (b.n >= (1 << 16) || j + 1 == o.n) {
			if (lirs_gz ? gzwrite(lirs_gz, b.p, (unsigned)b.n) != (int)b.n
			       : fwrite(b.p, 1, b.n, f) != b.n) {
				fprintf(stderr, "lirsgen: write error\n");
				return 2;
			}
			b.n = 0;
		}
	}
	if (lirs_gz ? gzclose(lirs_gz) != Z_OK : fclose(f) != 0) {
		fprintf(stderr, "lirsgen: write error\n");
		return 2;
	}
	if (o.jsonl)
		iconv_close(cd);
	for (j = 0; j < VOCAB; j++)
		free(vocab[j]);
	free(b.p);
	free(r.title.p);
	free(r.author.p);
	return 0;
}
