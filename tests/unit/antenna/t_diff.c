/* t_diff.c: the line and word diff (ant_diff.h), case by case: each case
 * two texts and the diff expected, written as lines "OP TEXT". */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "ant_diff.h"
#include "ant_difftext.h"
#include "ant_noise.h"
#include "lb_buf.h"
#include "lb_error.h"

static const struct lcase {
	const char *name, *a, *b;
	size_t context;
	const char *want;   /* "" no change; "!" too many */
} lcases[] = {
	{ "same texts", "a\nb\n", "a\nb\n", 3, "" },
	{ "both empty", "", "", 3, "" },
	{ "one line added at the end", "a\nb\n", "a\nb\nc\n", 3, "  a\n  b\n+ c\n" },
	{ "one line removed at the start", "a\nb\nc\n", "b\nc\n", 3, "- a\n  b\n  c\n" },
	{ "a line replaced", "a\nb\nc\n", "a\nB\nc\n", 3, "  a\n- b\n+ B\n  c\n" },
	{ "context cut, gaps marked", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n", 1,
	  "@ \n  4\n- 5\n+ X\n  6\n@ \n" },
	{ "two changes far apart: two hunks", "a\n1\n2\n3\n4\n5\nb\n", "A\n1\n2\n3\n4\n5\nB\n", 1,
	  "- a\n+ A\n  1\n@ \n  5\n- b\n+ B\n" },
	{ "two changes close: one hunk", "a\n1\nb\n", "A\n1\nB\n", 1, "- a\n+ A\n  1\n- b\n+ B\n" },
	{ "no last newline", "a\nb", "a\nc", 3, "  a\n- b\n+ c\n" },
	{ "everything new", "", "x\ny\n", 3, "+ x\n+ y\n" },
	{ "everything gone", "x\ny\n", "", 3, "- x\n- y\n" },
	{ "moved line: out and in", "a\nb\nc\n", "b\nc\na\n", 0, "- a\n@ \n+ a\n" },
	{ "Japanese lines", "今日は晴れ。\n明日は雨。\n", "今日は晴れ。\n明日は雪。\n", 3,
	  "  今日は晴れ。\n- 明日は雨。\n+ 明日は雪。\n" },
	{ "a number-only update has a diff (the key only narrows)", "訪問者 1234 人\n本文\n",
	  "訪問者 1299 人\n本文\n", 3, "- 訪問者 1234 人\n+ 訪問者 1299 人\n  本文\n" },
	{ "a diary's new dated heading is added, yesterday's is context",
	  "2026-11-27 晴れ\n昨日の話。\n", "2026-11-28 雨\n今日の話。\n2026-11-27 晴れ\n昨日の話。\n", 3,
	  "+ 2026-11-28 雨\n+ 今日の話。\n  2026-11-27 晴れ\n  昨日の話。\n" },
	{ "a new dated heading with the same words", "2026-11-27 日記\nA\n", "2026-11-28 日記\nB\n2026-11-27 日記\nA\n", 3,
	  "+ 2026-11-28 日記\n+ B\n  2026-11-27 日記\n  A\n" },
};

static const struct wcase {
	const char *name, *a, *b, *want;   /* pieces: [-del-] {+add+} same */
} wcases[] = {
	{ "one word replaced", "the cat sat", "the dog sat", "the [-cat-]{+dog+} sat" },
	{ "a word added", "hello world", "hello big world", "hello {+big +}world" },
	{ "Japanese by character", "明日は雨。", "明日は雪。", "明日は[-雨-]{+雪+}。" },
	{ "all different", "abc", "xyz", "[-abc-]{+xyz+}" },
	{ "empty old", "", "new", "{+new+}" },
	{ "numbers are words", "v 1.2.3", "v 1.2.4", "v 1.2.[-3-]{+4+}" },
};

/* The diff as "OP TEXT" lines. */
static char *render(const ant_diff *d)
{
	lb_buf b = LB_BUF_INIT;

	if (d->too_many)
		lb_buf_adds(&b, "!");
	for (size_t i = 0; i < d->n; i++)
		lb_buf_addf(&b, "%c %.*s\n", d->v[i].op, (int)d->v[i].len, d->v[i].s);
	return lb_buf_detach(&b, NULL);
}

static uint32_t noise_key(const char *s, size_t n)
{
	return ant_noise_hash(s, n);
}

static char *render_words(const ant_diff_word *w, size_t n)
{
	lb_buf b = LB_BUF_INIT;

	for (size_t i = 0; i < n; i++)
		lb_buf_addf(&b, w[i].op == ANT_DIFF_DEL ? "[-%.*s-]" : w[i].op == ANT_DIFF_ADD ? "{+%.*s+}" : "%.*s",
			    (int)w[i].len, w[i].s);
	return lb_buf_detach(&b, NULL);
}

/* A text of n lines "line K", every other one changed in b. */
static char *many(size_t n, int odd)
{
	lb_buf b = LB_BUF_INIT;

	for (size_t i = 0; i < n; i++)
		lb_buf_addf(&b, "line %zu%s\n", i, odd && i % 2 ? " x" : "");
	return lb_buf_detach(&b, NULL);
}

int main(void)
{
	size_t nl = sizeof lcases / sizeof *lcases, nw = sizeof wcases / sizeof *wcases;

	TAP_PLAN((int)(nl + nw + 21));
	for (size_t i = 0; i < nl; i++) {
		const struct lcase *c = &lcases[i];
		ant_diff d;
		char *got = NULL;

		if (ant_diff_lines(c->a, strlen(c->a), c->b, strlen(c->b), c->context, ANT_DIFF_MAX_CELLS,
				   noise_key, &d) == 0)
			got = render(&d);
		IS_STR(got, c->want, "lines: %s", c->name);
		free(got);
		ant_diff_release(&d);
	}
	for (size_t i = 0; i < nw; i++) {
		const struct wcase *c = &wcases[i];
		ant_diff_word *w;
		size_t n;
		char *got = NULL;

		if (ant_diff_words(c->a, strlen(c->a), c->b, strlen(c->b), ANT_DIFF_MAX_CELLS, &w, &n) == 0)
			got = render_words(w, n);
		IS_STR(got, c->want, "words: %s", c->name);
		free(got);
		free(w);
	}

	/* the bound on work: over it, "too many changes", never a slow diff */
	{
		char *a = many(3000, 0), *b = many(3000, 1);
		ant_diff d;
		int rc = ant_diff_lines(a, strlen(a), b, strlen(b), 3, ANT_DIFF_MAX_CELLS, NULL, &d);

		OK(rc == 0 && d.too_many && d.n == 0, "3,000 lines each changed: too many changes to show");
		ant_diff_release(&d);
		rc = ant_diff_lines(a, strlen(a), b, strlen(b), 3, (size_t)1 << 24, NULL, &d);
		OK(rc == 0 && !d.too_many && d.removed == 1500 && d.added == 1500,
		   "with a larger bound the same texts diff: %zu removed, %zu added", d.removed, d.added);
		ant_diff_release(&d);
		free(a);
		free(b);
	}
	{
		/* the common head and tail cost nothing: one change in 100,000 lines */
		char *a = many(100000, 0), *b = strdup(a);
		ant_diff d;
		char *p = strstr(b, "line 50000\n");

		p[0] = 'L';
		OK(ant_diff_lines(a, strlen(a), b, strlen(b), 1, ANT_DIFF_MAX_CELLS, NULL, &d) == 0 &&
		   !d.too_many && d.removed == 1 && d.added == 1 && d.n == 6,
		   "one change in 100,000 lines: head and tail cut, %zu lines shown", d.n);
		ant_diff_release(&d);
		free(a);
		free(b);
	}
	{
		ant_diff_word *w;
		size_t n;
		char big[5000];

		memset(big, 'a', sizeof big);
		for (size_t i = 1; i < sizeof big; i += 2)
			big[i] = ' ';
		OK(ant_diff_words(big, sizeof big, big + 1, sizeof big - 1, ANT_DIFF_MAX_CELLS, &w, &n) == LB_ETOOBIG,
		   "words over the bound: LB_ETOOBIG (the lines shown whole)");
		OK(ant_diff_words("a b", 3, "a c", 3, 4, &w, &n) == LB_ETOOBIG, "a tiny bound refuses");
	}
	{
		/* the stored form: serialised, packed, read back the same */
		const char *a = "a\nb\nc\n", *b = "a\nB\nc\nd\n";
		ant_diff d, back;
		lb_buf ser = LB_BUF_INIT, raw = LB_BUF_INIT, again = LB_BUF_INIT;
		unsigned char *blob;
		size_t blen;

		ant_diff_lines(a, strlen(a), b, strlen(b), 3, ANT_DIFF_MAX_CELLS, ant_difftext_key, &d);
		ant_difftext_serialise(&d, &ser);
		OK(ant_difftext_pack(ser.data, ser.len, ANT_DIFF_TEXT_MAX, &blob, &blen) == 0 && blen > 0,
		   "a diff packs (%zu bytes)", blen);
		OK(ant_difftext_read(blob, blen, &raw, &back) == 0 && back.n == d.n && back.removed == 1 &&
		   back.added == 2 && ant_difftext_serialise(&back, &again) == 0 && again.len == ser.len &&
		   memcmp(again.data, ser.data, ser.len) == 0, "read back: the same lines, ops and counts");
		ant_diff_release(&back);
		free(blob);
		OK(ant_difftext_pack(ser.data, ser.len, 4, &blob, &blen) == LB_ETOOBIG && !blob,
		   "over the per-page bound: LB_ETOOBIG (not kept)");
		OK(ant_difftext_unpack("\x78\x9c\x01\x02garbage", 12, &raw) == LB_EGZIP, "a corrupt blob: LB_EGZIP");
		OK(ant_difftext_parse("x line\n", 7, &back) == LB_EPARSE, "an unknown op: LB_EPARSE");
		ant_diff_release(&back);
		ant_diff_release(&d);
		lb_buf_release(&ser);
		lb_buf_release(&raw);
		lb_buf_release(&again);
	}
	{
		/* a zlib bomb stops at ANT_DIFF_INFLATE_MAX */
		size_t n = ANT_DIFF_INFLATE_MAX + 1;
		char *z = calloc(1, n);
		unsigned char *blob;
		size_t blen;
		lb_buf raw = LB_BUF_INIT;

		memset(z, 'a', n);
		OK(z && ant_difftext_pack(z, n, n, &blob, &blen) == 0 && ant_difftext_unpack(blob, blen, &raw) == LB_ETOOBIG,
		   "a blob inflating past %zu bytes: LB_ETOOBIG", (size_t)ANT_DIFF_INFLATE_MAX);
		free(blob);
		free(z);
		lb_buf_release(&raw);
	}
	{
		/* the codec (zlib's streams kept across blobs, update_diff.c):
		 * the blobs byte for byte ant_difftext_pack()'s, blob after blob */
		ant_difftext_codec *c = ant_difftext_codec_new();
		lb_buf out = LB_BUF_INIT, raw = LB_BUF_INIT, text = LB_BUF_INIT;
		int same = 1, back = 1;

		for (int k = 0; k < 40; k++) {
			unsigned char *blob = NULL;
			size_t blen = 0;

			lb_buf_reset(&text);
			for (int i = 0; i < k * 7; i++)
				lb_buf_addf(&text, "line %d of text %d: the quick brown fox %s\n", i, k,
					    i % 3 ? "jumps" : "sleeps");
			if (ant_difftext_pack(text.data, text.len, ANT_DIFF_TEXT_MAX, &blob, &blen) != 0 ||
			    ant_difftext_codec_pack(c, text.data, text.len, ANT_DIFF_TEXT_MAX, &out) != 0 ||
			    out.len != blen || memcmp(out.data, blob, blen) != 0)
				same = 0;
			if (ant_difftext_codec_unpack(c, out.data, out.len, &raw) != 0 || raw.len != text.len ||
			    memcmp(raw.data, text.data, text.len) != 0)
				back = 0;
			free(blob);
		}
		OK(c && same, "the codec's blobs are ant_difftext_pack()'s, byte for byte, 40 in a row");
		OK(back, "and unpack to the texts");
		OK(ant_difftext_codec_pack(c, text.data, text.len, 4, &out) == LB_ETOOBIG,
		   "the codec over the bound: LB_ETOOBIG");
		OK(ant_difftext_codec_unpack(c, "\x78\x9c\x01\x02garbage", 12, &raw) == LB_EGZIP,
		   "the codec on a corrupt blob: LB_EGZIP");
		OK(ant_difftext_codec_pack(c, "!\n", 2, 64, &out) == 0 &&
		   ant_difftext_codec_unpack(c, out.data, out.len, &raw) == 0 && raw.len == 2 &&
		   memcmp(raw.data, "!\n", 2) == 0, "and works again after an error");
		ant_difftext_codec_free(c);
		lb_buf_release(&out);
		lb_buf_release(&raw);
		lb_buf_release(&text);
	}
	{
		/* a pending diff (the earlier text kept, made when shown) reads
		 * as the diff made at once: the same lines, ops and counts */
		const char *a = "one\ntwo\nthree\nfour 12\n", *b = "one\nTWO\nthree\nfour 13\nfive\n";
		unsigned char *pa, *pb;
		size_t la, lb_;
		lb_buf ser = LB_BUF_INIT, raw = LB_BUF_INIT, pend = LB_BUF_INIT, again = LB_BUF_INIT;
		ant_diff d;

		ant_difftext_pack(a, strlen(a), ANT_DIFF_TEXT_MAX, &pa, &la);
		ant_difftext_pack(b, strlen(b), ANT_DIFF_TEXT_MAX, &pb, &lb_);
		lb_buf_addc(&pend, ANT_DIFFTEXT_PENDING);
		lb_buf_add(&pend, pa, la);
		OK(ant_difftext_pending(pend.data, pend.len) && !ant_difftext_pending(pa, la),
		   "a pending blob is told from a packed one by its first byte");
		OK(ant_difftext_make(NULL, a, strlen(a), b, strlen(b), ANT_DIFF_TEXT_MAX, &ser, NULL) == 1 &&
		   ant_difftext_read_kept(pend.data, pend.len, pb, lb_, ANT_DIFF_TEXT_MAX, &raw, &d) == 0 &&
		   ant_difftext_serialise(&d, &again) == 0 && again.len == ser.len &&
		   memcmp(again.data, ser.data, ser.len) == 0 && d.removed == 2 && d.added == 3,
		   "pending: made when read, the lines of the diff made at once (- 2, + 3: numbers count)");
		ant_diff_release(&d);
		OK(ant_difftext_read_kept(pend.data, pend.len, pa, la, ANT_DIFF_TEXT_MAX, &raw, &d) == 0 &&
		   d.n == 0 && !d.too_many, "pending on the same text: nothing to show");
		ant_diff_release(&d);
		OK(ant_difftext_read_kept(pend.data, pend.len, pb, lb_, 12, &raw, &d) == 0 && d.too_many,
		   "pending over the bound: too many changes to show, as when made at once");
		ant_diff_release(&d);
		OK(ant_difftext_read_kept(pend.data, pend.len, NULL, 0, ANT_DIFF_TEXT_MAX, &raw, &d) < 0,
		   "pending without the page's text: an error, not a page");
		ant_diff_release(&d);
		free(pa);
		free(pb);
		lb_buf_release(&ser);
		lb_buf_release(&raw);
		lb_buf_release(&pend);
		lb_buf_release(&again);
	}
	TAP_DONE();
}
