/*
 * t_validate.c: the checker's duplicate-url table (exact under forced hash
 * collisions, with the keys in memory and in a scratch file) and the
 * backslash-shift rule and layout through the real reader; every rule's
 * class, the dates diagnostics quote, and future against future-dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lb_buf.h"
#include "lirs.h"
#include "lirs_merge.h"
#include "tap.h"

/* ---- duplicate-url ------------------------------------------------------ */

#define NREC 6000

typedef struct dctx {
	unsigned long dup_of[NREC + 1];   /* line -> the earlier line reported */
	unsigned long ndup, other;
} dctx;

static void dup_diag(void *ctx, const lirs_diag *d)
{
	dctx *x = ctx;
	const char *p;

	if (d->rule != LIRS_R_DUPLICATE_URL) {
		x->other++;
		return;
	}
	x->ndup++;
	if ((p = strstr(d->message, "on line ")) && d->line <= NREC)
		x->dup_of[d->line] = strtoul(p + 8, NULL, 10);
}

/* The i-th URL: mostly new, every 7th repeats an earlier one (every 21st
 * with another case of host and a default port: the same key). */
static void url_of(char *out, size_t n, unsigned i, const char *big)
{
	unsigned j = i % 7 == 0 ? i / 3 : i;

	if (i == 5)
		snprintf(out, n, "http://big.example/%s", big);
	else if (i % 7 == 0 && i % 21 == 0)
		snprintf(out, n, "HTTP://Host%u.Example:80/p/%u", j % 97, j);
	else
		snprintf(out, n, "http://host%u.example/p/%u", j % 97, j);
}

/* What a plain quadratic search over the keys says. */
static void reference(char **keys, unsigned long *want, unsigned long *nwant)
{
	*nwant = 0;
	for (unsigned i = 1; i <= NREC; i++) {
		want[i] = 0;
		for (unsigned k = 1; k < i; k++)
			if (strcmp(keys[k], keys[i]) == 0) {
				want[i] = k;
				(*nwant)++;
				break;
			}
	}
}

/* Checks the first n records with the hash cut to bits (0 = 64). */
static void run_dups(unsigned bits, int use_file, unsigned n, char **urls,
		     const unsigned long *want)
{
	static dctx x;
	lirs_check_opts o = { .now = 1000000000, .on_diag = dup_diag, .ctx = &x,
			      .test_hash_bits = bits };
	lirs_record r = { 999999000, 999999500, 32400, 10, "", "", "", "", "", NULL, 0, 0, { 0 }, 0, 0, 0, 0, { 0 }, { 0 } };
	lirs_checker *c;
	FILE *tmp = NULL;
	unsigned long wrong = 0, nwant = 0;

	memset(&x, 0, sizeof x);
	if (use_file) {
		tmp = tmpfile();
		o.spill = 1;
		o.spill_fd = fileno(tmp);
	}
	c = lirs_checker_new(&o);
	for (unsigned i = 1; i <= n; i++) {
		r.url = urls[i];
		r.line = i;
		lirs_checker_check(c, &r);
	}
	IS_INT(lirs_checker_finish(c), 0, "dups (%u hash bits, keys in %s): finish", bits,
	       use_file ? "a file" : "memory");
	for (unsigned i = 1; i <= n; i++) {
		wrong += x.dup_of[i] != want[i];
		nwant += want[i] != 0;
	}
	IS_INT(x.ndup, nwant, "dups (%u hash bits, keys in %s): every duplicate, no other", bits,
	       use_file ? "a file" : "memory");
	IS_INT(wrong, 0, "dups (%u hash bits, keys in %s): each names its first line", bits,
	       use_file ? "a file" : "memory");
	IS_INT(x.other, 0, "dups (%u hash bits): no other diagnostic", bits);
	IS_INT(lirs_checker_failed(c), 0, "dups (%u hash bits): nothing lost", bits);
	lirs_checker_free(c);
	if (tmp)
		fclose(tmp);
}

static void test_duplicates(void)
{
	static char *urls[NREC + 1], *keys[NREC + 1];
	static unsigned long want[NREC + 1];
	unsigned long nwant;
	/* Longer than the table rebuild's read chunk (1 MiB). */
	size_t bigsz = (size_t)3 << 19;
	char *big = malloc(bigsz + 1), buf[128];
	lb_buf k = LB_BUF_INIT;

	memset(big, 'x', bigsz);
	big[bigsz] = '\0';
	for (unsigned i = 1; i <= NREC; i++) {
		char *u;
		if (i == 5) {
			u = malloc(bigsz + 64);
			url_of(u, bigsz + 64, i, big);
		} else {
			url_of(buf, sizeof buf, i, big);
			u = strdup(buf);
		}
		urls[i] = u;
		lb_buf_reset(&k);
		lb_url_key(&k, u);
		keys[i] = strdup(k.data);
	}
	free(urls[NREC]);
	free(keys[NREC]);
	urls[NREC] = urls[5];   /* the long key, repeated: read back whole */
	keys[NREC] = keys[5];
	reference(keys, want, &nwant);
	OK(nwant > NREC / 12, "dups: the data holds %lu duplicates", nwant);
	/* Full hashes; 12 bits (about 1.5 keys per hash value); 4 and 1 bit:
	 * every lookup meets many equal hashes of other keys. */
	for (int f = 0; f < 2; f++) {
		run_dups(0, f, NREC, urls, want);
		run_dups(12, f, NREC, urls, want);
		run_dups(4, f, 700, urls, want);
	}
	run_dups(1, 1, 300, urls, want);
	for (unsigned i = 1; i < NREC; i++) {
		free(urls[i]);
		free(keys[i]);
	}
	free(big);
	lb_buf_release(&k);
}

/* ---- backslash-shift and layout through the reader ------------------------ */

typedef struct sctx {
	lirs_checker *c;
	unsigned long shift, shift_line[8], shift_col[8];
	char shift_msg[512];
} sctx;

static void shift_diag(void *ctx, const lirs_diag *d)
{
	sctx *x = ctx;

	if (d->rule != LIRS_R_BACKSLASH_SHIFT)
		return;
	if (x->shift < 8) {
		x->shift_line[x->shift] = d->line;
		x->shift_col[x->shift] = d->col;
	}
	snprintf(x->shift_msg, sizeof x->shift_msg, "%s", d->message);
	x->shift++;
}

static int shift_rec(void *ctx, const lirs_record *r)
{
	lirs_checker_check(((sctx *)ctx)->c, r);
	return 0;
}

/* Reads text through the reader and the checker; fills x and *lay. */
static void read_text(sctx *x, const char *text, lirs_layout *lay)
{
	lirs_check_opts co = { .now = 1700000100, .on_diag = shift_diag, .ctx = x };
	lirs_reader_opts ro = { .on_record = shift_rec, .on_diag = shift_diag, .ctx = x };
	lirs_reader *rd;

	memset(x, 0, sizeof *x);
	x->c = lirs_checker_new(&co);
	rd = lirs_reader_new(&ro);
	lirs_reader_feed(rd, text, strlen(text));
	lirs_reader_finish(rd);
	lirs_checker_finish(x->c);
	lirs_checker_layout(x->c, lay);
	lirs_reader_free(rd);
	lirs_checker_free(x->c);
}

#define TAMA_OK "LIRS,1700000000,1700000060,32400,1234,http://example.jp/%d,clean %d,0,http://example.jp/antenna/,,http://example.jp/%d,HEAD,T,tama\n"
#define TAMA_BAD "LIRS,1700000000,1700000060,32400,1234,http://example.jp/f,ends with \\,y,http://example.jp/antenna/,,,,,HEAD\n"
#define SAMI_OK "LIRS,1700000000,1700000060,32400,0,http://s.example/%d,t %d,a,http://s.example/%d,\n"

static void test_shift(void)
{
	sctx x;
	lirs_layout l;
	lb_buf b = LB_BUF_INIT;

	/* tama's example (a title ending in '\'): after one clean 13-field line. */
	lb_buf_addf(&b, TAMA_OK, 1, 1, 1);
	lb_buf_adds(&b, TAMA_BAD);
	read_text(&x, b.data, &l);
	IS_INT(x.shift, 1, "shift: tama's example is caught");
	IS_INT(x.shift_line[0], 2, "shift: on line 2");
	IS_INT(x.shift_col[0], 69, "shift: at the backslash");
	OK(strstr(x.shift_msg, "12 fields where this file has 13") != NULL, "shift: says the counts");
	OK(strstr(x.shift_msg, "double a backslash") != NULL, "shift: names the likely cause");
	IS_STR(l.name, "tama", "layout: tama");
	IS_INT(l.nfields, 13, "layout: 13 fields");
	IS_INT(l.trailing_comma, 0, "layout: no trailing comma");
	IS_INT(l.nusual, 2, "layout: tama's two usual warnings");

	/* The suspect comes first: judged when the count is known. */
	lb_buf_reset(&b);
	lb_buf_adds(&b, TAMA_BAD);
	for (int i = 0; i < 30; i++)
		lb_buf_addf(&b, TAMA_OK, i, i, i);
	lb_buf_adds(&b, TAMA_BAD);
	read_text(&x, b.data, &l);
	IS_INT(x.shift, 2, "shift: before and after the layout is decided");
	IS_INT(x.shift_line[0], 1, "shift: the first line, judged later");
	IS_INT(x.shift_line[1], 32, "shift: the last line");
	IS_INT(l.records, 30, "layout: counts the records of the usual shape");

	/* An escaped comma in a record of the usual count is fine. */
	lb_buf_reset(&b);
	for (int i = 0; i < 20; i++)
		lb_buf_addf(&b, "LIRS,1700000000,1700000060,32400,0,http://c.example/%d,A\\, B,0,0,,\n", i);
	lb_buf_adds(&b, "LIRS,1700000000,1700000060,32400,0,http://c.example/x,ends \\\\,0,0,,\n");
	read_text(&x, b.data, &l);
	IS_INT(x.shift, 0, "shift: '\\,' and '\\\\' at the usual count are no shift");
	IS_STR(l.name, "lirs-2.1", "layout: LIRS 2.1");
	IS_INT(l.nusual, 0, "layout: LIRS 2.1 has no usual warnings");

	/* samidare: '¥' after escaping is an unescaped backslash.  "¥," became
	 * "\\\\," (one more field); "¥" alone became "\\," (one fewer). */
	lb_buf_reset(&b);
	for (int i = 0; i < 3; i++)
		lb_buf_addf(&b, SAMI_OK, i, i, i);
	lb_buf_adds(&b, "LIRS,1700000000,1700000060,32400,0,http://s.example/y,a \\\\,b,a,http://s.example/y,\n");
	lb_buf_adds(&b, "LIRS,1700000000,1700000060,32400,0,http://s.example/z,100\\,a,http://s.example/z,\n");
	read_text(&x, b.data, &l);
	IS_INT(x.shift, 2, "shift: samidare's '¥' both ways");
	/* The reader knows at once that 7 fields are off; the checker judges
	 * line 4 when the layout is decided (here: at the end). */
	IS_INT(x.shift_line[0], 5, "shift: one field fewer, below 8 (from the reader)");
	IS_INT(x.shift_line[1], 4, "shift: one field more (once the layout is known)");
	IS_STR(l.name, "samidare", "layout: samidare");
	IS_INT(l.usual[0], LIRS_R_NO_EXTENSION, "layout: samidare's usual warning");

	/* samidare writes extension fields correctly escaped: `x,y\z` and
	 * `second` as "x\,y\\z,second," in a file of 8-field records.  Ten
	 * fields, but no separator a missing '\' doubling could have moved
	 * back to 8: no shift. */
	lb_buf_reset(&b);
	for (int i = 0; i < 6; i++)
		lb_buf_addf(&b, SAMI_OK, i, i, i);
	lb_buf_adds(&b, "LIRS,1700000000,1700000060,32400,0,http://s.example/e,t,a,0,x\\,y\\\\z,second,\n");
	lb_buf_adds(&b, "LIRS,1700000000,1700000060,32400,0,http://s.example/f,t,a,0,ends \\\\,\n");
	read_text(&x, b.data, &l);
	IS_INT(x.shift, 0, "shift: samidare's escaped extension fields are no shift");
	IS_STR(l.name, "samidare", "layout: samidare with extension fields");
	/* The same count with a split comma that explains it is one. */
	lb_buf_reset(&b);
	for (int i = 0; i < 6; i++)
		lb_buf_addf(&b, SAMI_OK, i, i, i);
	lb_buf_adds(&b, "LIRS,1700000000,1700000060,32400,0,http://s.example/g,a\\\\,b,a,0,\n");
	read_text(&x, b.data, &l);
	IS_INT(x.shift, 1, "shift: one split comma and one field too many");
	IS_INT(x.shift_col[0], 56, "shift: at the split comma's backslashes");

	/* A count off without a backslash is not this rule's. */
	lb_buf_reset(&b);
	lb_buf_addf(&b, TAMA_OK, 1, 1, 1);
	lb_buf_adds(&b, "LIRS,1700000000,1700000060,32400,1234,http://example.jp/g,x,y,0,,,HEAD\n");
	read_text(&x, b.data, &l);
	IS_INT(x.shift, 0, "shift: needs the backslash");

	read_text(&x, "", &l);
	IS_INT(l.records, 0, "layout: none for an empty file");
	OK(l.name == NULL, "layout: no name for an empty file");
	lb_buf_release(&b);
}

/* ---- classes, dates, future-dropped ---------------------------------------- */

/* Every error is data lost and only errors are; notes are notes. */
static void test_classes(void)
{
	int bad = 0;

	for (int r = 0; r < LIRS_R__COUNT; r++) {
		lirs_severity sev = lirs_rule_severity((lirs_rule)r);
		lirs_class cls = lirs_rule_class((lirs_rule)r);
		if ((sev == LIRS_SEV_ERROR) != (cls == LIRS_CLASS_LOST) ||
		    (sev == LIRS_SEV_NOTE) != (cls == LIRS_CLASS_NOTE)) {
			printf("#   rule %s: severity %s, class %s\n", lirs_rule_id((lirs_rule)r),
			     lirs_severity_name(sev), lirs_class_name(cls));
			bad++;
		}
	}
	IS_INT(bad, 0, "classes: error <=> data lost, note <=> note, for all %d rules", LIRS_R__COUNT);
	IS_INT(lirs_rule_class(LIRS_R_NOT_GZIP), LIRS_CLASS_COPED, "classes: not-gzip is coped with");
	IS_INT(lirs_rule_class(LIRS_R_STALE), LIRS_CLASS_ADVICE, "classes: stale is advice");
	IS_STR(lirs_class_name(LIRS_CLASS_COPED), "nonconforming (readers cope)", "classes: the name");
}

static void test_time_str(void)
{
	char b[LIRS_TIME_STR];

	IS_STR(lirs_time_str(b, sizeof b, 1700000000), "1700000000 (2023-11-14 22:13:20 UTC)", "time: an epoch");
	IS_STR(lirs_time_str(b, sizeof b, 0), "0 (1970-01-01 00:00:00 UTC)", "time: 0");
	IS_STR(lirs_time_str(b, sizeof b, -5), "-5 (1969-12-31 23:59:55 UTC)", "time: before 1970");
	IS_STR(lirs_time_str(b, sizeof b, 951782400), "951782400 (2000-02-29 00:00:00 UTC)", "time: a leap day");
	IS_STR(lirs_time_str(b, sizeof b, 253402300799LL), "253402300799 (9999-12-31 23:59:59 UTC)", "time: the last");
	IS_STR(lirs_time_str(b, sizeof b, 253402300800LL), "253402300800", "time: past year 9999, the epoch alone");
	IS_STR(lirs_time_str(b, sizeof b, INT64_MIN), "-9223372036854775808", "time: INT64_MIN");
}

typedef struct fctx {
	unsigned long n[LIRS_R__COUNT];
	char msg[512];
} fctx;

static void fut_diag(void *ctx, const lirs_diag *d)
{
	fctx *x = ctx;

	x->n[d->rule]++;
	if (d->rule == LIRS_R_FUTURE_DROPPED)
		snprintf(x->msg, sizeof x->msg, "%s", d->message);
}

/* The line between future (advice) and future-dropped (error) is the one
 * merge drops by: more than max_future after now. */
static void test_future(void)
{
	static fctx x;
	lirs_check_opts o = { .now = 1000000000, .on_diag = fut_diag, .ctx = &x };
	lirs_record r = { .last_modified = 999999000, .url = "http://a/", .title = "", .author = "",
			  .source_url = "", .extension = "", .line = 1 };
	lirs_checker *c = lirs_checker_new(&o);

	r.last_detected = 1000003600;
	lirs_checker_check(c, &r);
	IS_INT(x.n[LIRS_R_FUTURE] * 10 + x.n[LIRS_R_FUTURE_DROPPED], 10, "future: 3600 s ahead is advice");
	IS_INT(lirs_merge_check(&r, 1000000000, 0), LIRS_MERGE_USABLE, "future: ...and merge keeps it");
	r.last_detected = 1000003601;
	r.url = "http://b/";
	lirs_checker_check(c, &r);
	IS_INT(x.n[LIRS_R_FUTURE] * 10 + x.n[LIRS_R_FUTURE_DROPPED], 11, "future: 3601 s ahead is future-dropped");
	IS_INT(lirs_merge_check(&r, 1000000000, 0), LIRS_MERGE_FUTURE, "future: ...and merge drops it");
	IS_STR(x.msg, "last_detected: 1000003601 (2001-09-09 02:46:41 UTC) is 3601 seconds after now, "
	       "1000000000 (2001-09-09 01:46:40 UTC), over the 3600 seconds of clock skew tolerated: "
	       "lirs merge, lirs atom and antennas drop this record", "future: the message says who drops it");
	r.last_detected = 999999900;
	r.last_modified = 1000086400;
	r.url = "http://c/";
	lirs_checker_check(c, &r);
	IS_INT(x.n[LIRS_R_FUTURE_DROPPED], 2, "future: a Last-Modified a day ahead too");
	lirs_checker_free(c);
}

int main(void)
{
	TAP_PLAN(81);
	test_duplicates();
	test_shift();
	test_classes();
	test_time_str();
	test_future();
	TAP_DONE();
}
