/*
 * reader.c: the LIRS 2.1 push parser.
 *
 * bytes -> gz (gunzip or pass-through, size cap) -> line splitter (LF,
 * CRLF, lone CR; a CR at the end of one chunk waits for the next) -> per
 * line charset decoding (ASCII lines skip it) -> field splitter -> record.
 *
 * Memory is bounded by max_line: a complete line inside an inflated chunk
 * is parsed in place; only a line cut by a chunk boundary is copied, and a
 * line over the limit is skipped to its line end without being kept.  Every
 * buffer lives in the reader and is reused, so the record handed to
 * on_record points into reader-owned storage.
 */
#include "lirs.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lb_buf.h"
#include "lb_utf8.h"
#include "lirs_charset.h"
#include "di.h"
#include "diag.h"
#include "gz.h"

/* rd->skipping: inside a line over max_line, and whether the last chunk
 * ended in a CR that an LF at the start of the next one makes a CRLF. */
enum { SKIP_NONE = 0, SKIP_LINE, SKIP_CR };

/* Unknown-escape warnings reported per line before they are summed up. */
#define MAX_ESCAPE_DIAGS 10

static const char *const field_names[] = {
	"last_modified", "last_detected", "tz_offset", "content_length",
	"url", "title", "author", "source_url", "extension",
};

/* A diagnostic waiting for its line to be decided (delivered or skipped). */
struct pdiag {
	unsigned long col;
	lirs_rule rule;
	const char *field;
	size_t msg;              /* offset into rd->msgs */
};

struct field {
	size_t off;              /* into rd->fbuf */
	size_t pos;              /* start in the decoded line */
	unsigned long col;       /* the same as a 1-based character column */
};

struct lirs_reader {
	lirs_reader_opts o;
	lirs_gz z;
	lirs_cs_conv cs;
	lirs_reader_stats st;
	int err;                 /* sticky fatal error */
	int finished;
	lb_buf part;               /* a line cut by a chunk boundary */
	int cr_pending;          /* part ended with CR: LF may follow */
	int skipping;            /* inside a line over max_line: SKIP_* */
	lb_buf dec;                /* the decoded line when it needed decoding */
	lb_buf nul;                /* the line with NUL bytes replaced */
	lb_buf fbuf;               /* unescaped fields, NUL-separated */
	struct field *f;
	size_t fcap;
	char **extra;
	size_t xcap;
	struct pdiag *pd;
	size_t npd, pdcap;
	lb_buf msgs;
	unsigned bs_field;       /* split_fields(): see lirs_record.bs_field */
	unsigned long bs_col;
	lirs_bs_marks bs_comma, bs_sep;
	int nomem;
	char empty[1];
	/* HINA-DI and hina.txt (di.c): the format is chosen by the first line */
	int sniffed;
	int di_body;             /* past the DI header block */
	int di_cs;               /* enum lirs_di_charset */
	iconv_t sjis;            /* CP932 -> UTF-8, opened when a header asks */
	lirs_di_block blk;
	unsigned long sjis_line; /* the first line found in Shift_JIS, 0 = none */
};

/* ---- diagnostics ------------------------------------------------------ */

static void emit(lirs_reader *rd, unsigned long line, unsigned long col, lirs_rule rule,
		 const char *field, const char *msg, int skipped)
{
	lirs_diag d;

	lirs_diag_fill(&d, rd->o.filename, line, col, rule, field, msg);
	d.skipped = skipped;
	if (d.severity == LIRS_SEV_ERROR)
		rd->st.errors++;
	else if (d.severity == LIRS_SEV_WARNING)
		rd->st.warnings++;
	if (rd->o.on_diag)
		rd->o.on_diag(rd->o.ctx, &d);
}

static void emitf(lirs_reader *rd, unsigned long line, lirs_rule rule, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void emitf(lirs_reader *rd, unsigned long line, lirs_rule rule, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(rd, line, 0, rule, NULL, msg, rule == LIRS_R_LINE_TOO_LONG);
}

static void queue(lirs_reader *rd, unsigned long col, lirs_rule rule, const char *field,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void queue(lirs_reader *rd, unsigned long col, lirs_rule rule, const char *field,
		  const char *fmt, ...)
{
	struct pdiag *p;
	va_list ap;
	char msg[512];

	if (!(p = lb_grow(rd->pd, &rd->pdcap, rd->npd + 1, sizeof *p, 16))) {
		rd->nomem = 1;
		return;
	}
	rd->pd = p;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p = &rd->pd[rd->npd];
	p->col = col;
	p->rule = rule;
	p->field = field;
	p->msg = rd->msgs.len;
	if (lb_buf_add(&rd->msgs, msg, strlen(msg) + 1) < 0) {
		rd->nomem = 1;
		return;
	}
	rd->npd++;
}

static void flush_queue(lirs_reader *rd, unsigned long line, int skipped)
{
	size_t i;

	for (i = 0; i < rd->npd; i++)
		emit(rd, line, rd->pd[i].col, rd->pd[i].rule, rd->pd[i].field,
		     rd->msgs.data + rd->pd[i].msg, skipped);
	rd->npd = 0;
	lb_buf_reset(&rd->msgs);
}

/* 1-based character column of byte offset off in UTF-8 text s. */
static unsigned long col_of(const char *s, size_t off)
{
	unsigned long col = 1;
	size_t i;

	for (i = 0; i < off; i++)
		col += ((unsigned char)s[i] & 0xc0) != 0x80;
	return col;
}

/* Copies at most max bytes of s into out as a quotable snippet, cut at a
 * character boundary. */
static void snippet(char *out, size_t outsz, const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n > max)
		n = lb_utf8_clip(s, max);
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, s, n);
	out[n] = '\0';
	if (n < strlen(s) && n + 4 <= outsz - 1)
		strcpy(out + n, "...");
}

/* ---- fields ------------------------------------------------------------ */

static const char *field_name(size_t i)
{
	return i < 9 ? field_names[i] : "extra";
}

/* Optional sign, then decimal digits that fit in int64_t. */
static int parse_int(const char *s, int64_t *v)
{
	uint64_t acc = 0, lim;
	int neg = 0;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (!*s)
		return LB_EPARSE;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *s; s++) {
		unsigned d = (unsigned)(unsigned char)*s - '0';
		if (d > 9 || acc > (lim - d) / 10)
			return LB_EPARSE;
		acc = acc * 10 + d;
	}
	*v = neg ? (acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
	return 0;
}

static int grow_fields(lirs_reader *rd, size_t need)
{
	struct field *f;
	size_t cap;

	if (need <= rd->fcap)
		return 0;
	cap = rd->fcap ? rd->fcap : 16;
	while (cap < need)
		cap *= 2;
	if (!(f = realloc(rd->f, cap * sizeof(*f))))
		return LB_ENOMEM;
	rd->f = f;
	rd->fcap = cap;
	return 0;
}

/* Reports an unknown escape at s[i] (the backslash) of field fi. */
static void bad_escape(lirs_reader *rd, const char *s, size_t len, size_t i, size_t fi,
		       unsigned long *nesc)
{
	const char *fn = field_name(fi);
	size_t k = 1;

	if (++*nesc > MAX_ESCAPE_DIAGS)
		return;
	if (i + 1 >= len) {
		queue(rd, col_of(s, i), LIRS_R_UNKNOWN_ESCAPE, fn,
		      "%s: backslash at the end of the line; kept", fn);
		return;
	}
	while (i + 1 + k < len && ((unsigned char)s[i + 1 + k] & 0xc0) == 0x80 && k < 4)
		k++;
	queue(rd, col_of(s, i), LIRS_R_UNKNOWN_ESCAPE, fn,
	      "%s: unknown escape '\\%.*s'; kept as written", fn, (int)k, s + i + 1);
}

/* A byte of w equal to the byte c (times 0x01 in every lane) sets its lane's
 * top bit; no bit is set when there is none. */
#define HAS_BYTE(w, c) ((((w) ^ (c)) - UINT64_C(0x0101010101010101)) & ~((w) ^ (c)) & \
			UINT64_C(0x8080808080808080))

/* One per byte lane of w that is a UTF-8 continuation byte (10xxxxxx). */
#define CONT_LANES(w) (((w) & ~((w) << 1) & UINT64_C(0x8080808080808080)) >> 7)

/* The sum of the eight byte lanes of a (each at most 255). */
static size_t lane_sum(uint64_t a)
{
	a = (a & UINT64_C(0x00ff00ff00ff00ff)) + ((a >> 8) & UINT64_C(0x00ff00ff00ff00ff));
	return (size_t)((a * UINT64_C(0x0001000100010001)) >> 48);
}

/*
 * The first j >= i with s[j] ',' or '\', or len: eight bytes at a time
 * while no word holds either (most of a line).  Adds the UTF-8
 * continuation bytes of s[i..j) to *cont, so that the field columns cost
 * no second pass over the line.
 */
static size_t run_end(const char *s, size_t i, size_t len, size_t *cont)
{
	const uint64_t comma = UINT64_C(0x2c2c2c2c2c2c2c2c), bs = UINT64_C(0x5c5c5c5c5c5c5c5c);
	uint64_t w, acc = 0;
	unsigned k = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		if (HAS_BYTE(w, comma) | HAS_BYTE(w, bs))
			break;
		acc += CONT_LANES(w);
		if (++k == 255) {   /* before a lane can overflow */
			*cont += lane_sum(acc);
			acc = 0;
			k = 0;
		}
	}
	*cont += lane_sum(acc);
	for (; i < len && s[i] != ',' && s[i] != '\\'; i++)
		*cont += ((unsigned char)s[i] & 0xc0) == 0x80;
	return i;
}

/* Counts one mark of backslash-shift; remembers the first's place. */
static void bs_mark(lirs_bs_marks *m, size_t nf, size_t col0)
{
	if (!m->n++) {
		m->field = (unsigned)nf + 1;
		m->col = (unsigned long)col0 + 1;
	}
}

/*
 * LIRS 2.1 §2: fields are separated by ',', "\," is a comma and "\\" a
 * backslash.  Splits s[start..len) into rd->fbuf; returns the field count
 * or -1 when out of memory.  *trailing is 1 when the record ended in ','.
 */
static long split_fields(lirs_reader *rd, const char *s, size_t start, size_t len, int *trailing)
{
	size_t i = start, nf = 0, cont = 0;   /* cont: continuation bytes before i */
	unsigned long nesc = 0;
	char *o;

	rd->bs_field = 0;
	rd->bs_col = 0;
	memset(&rd->bs_comma, 0, sizeof rd->bs_comma);
	memset(&rd->bs_sep, 0, sizeof rd->bs_sep);
	/* Unescaping never lengthens a field; each field adds one NUL. */
	lb_buf_reset(&rd->fbuf);
	if (lb_buf_grow(&rd->fbuf, 2 * (len - start) + 2) < 0)
		return LB_ENOMEM;
	o = rd->fbuf.data;
	*trailing = 1;
	while (i < len) {
		if (grow_fields(rd, nf + 1) < 0)
			return LB_ENOMEM;
		rd->f[nf].off = (size_t)(o - rd->fbuf.data);
		rd->f[nf].pos = i;
		rd->f[nf].col = (unsigned long)(i + 1 - cont);
		for (;;) {
			/* copy the run up to the next ',' or '\' in one go */
			size_t j = run_end(s, i, len, &cont);
			memcpy(o, s + i, j - i);
			o += j - i;
			i = j;
			if (i == len) {
				*trailing = 0;
				break;
			}
			if (s[i] == ',') {
				i++;
				break;
			}
			if (i + 1 < len && (s[i + 1] == ',' || s[i + 1] == '\\')) {
				/* "\," anywhere, or "\\" that ends the field: what
				 * an undoubled backslash leaves (backslash-shift). */
				if (!rd->bs_field && (s[i + 1] == ',' || i + 2 == len || s[i + 2] == ',')) {
					rd->bs_field = (unsigned)nf + 1;
					rd->bs_col = (unsigned long)(i + 1 - cont);
				}
				/* The line's last ',' moves no field whichever it is. */
				if (s[i + 1] == ',' && i + 2 < len)
					bs_mark(&rd->bs_comma, nf, i - cont);
				else if (s[i + 1] == '\\' && i + 3 < len && s[i + 2] == ',')
					bs_mark(&rd->bs_sep, nf, i - cont);
				*o++ = s[i + 1];
				i += 2;
				continue;
			}
			bad_escape(rd, s, len, i, nf, &nesc);
			if (!rd->bs_field && i + 1 == len) {
				rd->bs_field = (unsigned)nf + 1;
				rd->bs_col = (unsigned long)(i + 1 - cont);
			}
			*o++ = s[i++];
		}
		*o++ = '\0';
		nf++;
	}
	if (nesc > MAX_ESCAPE_DIAGS)
		queue(rd, 0, LIRS_R_UNKNOWN_ESCAPE, NULL,
		      "%lu more unknown escapes on this line; kept as written",
		      nesc - MAX_ESCAPE_DIAGS);
	rd->fbuf.len = (size_t)(o - rd->fbuf.data);
	return (long)nf;
}

/* r->col[]: where each of the 9 fields starts (split_fields() counted
 * the characters on its way), 0 for a missing one. */
static void field_cols(const lirs_reader *rd, size_t nf, lirs_record *r)
{
	size_t i;

	for (i = 0; i < 9; i++)
		r->col[i] = i < nf ? rd->f[i].col : 0;
}

/* Fills r from the split fields (r->col already set); returns 0, or -1
 * when the record must be skipped (a bad number; already queued). */
static int build_record(lirs_reader *rd, size_t nf, lirs_record *r)
{
	int64_t *nums[4] = { &r->last_modified, &r->last_detected, &r->tz_offset,
			     &r->content_length };
	char **texts[5] = { &r->url, &r->title, &r->author, &r->source_url, &r->extension };
	char snip[64];
	size_t i;
	int bad = 0;

	for (i = 0; i < 4; i++) {
		char *v = rd->fbuf.data + rd->f[i].off;
		*nums[i] = 0;
		if (!*v) {
			queue(rd, r->col[i], LIRS_R_BLANK_FIELD, field_names[i],
			      "%s: empty field; a blank number SHOULD be 0", field_names[i]);
		} else if (parse_int(v, nums[i]) < 0) {
			snippet(snip, sizeof(snip), v, 40);
			queue(rd, r->col[i], LIRS_R_BAD_NUMBER, field_names[i],
			      "%s: not an integer '%s'", field_names[i], snip);
			bad = 1;
		}
	}
	for (i = 4; i < 9; i++) {
		char *v = i < nf ? rd->fbuf.data + rd->f[i].off : rd->empty;
		*texts[i - 4] = v;
		if (i == 8)
			break;
		if (!*v)
			queue(rd, r->col[i], LIRS_R_BLANK_FIELD, field_names[i],
			      "%s: empty field; a blank field SHOULD be 0", field_names[i]);
		else if (v[0] == '0' && !v[1])
			v[0] = '\0';   /* §2: "0" is the blank field */
	}
	r->nextra = nf > 9 ? nf - 9 : 0;
	r->extra = NULL;
	if (r->nextra) {
		if (r->nextra > rd->xcap) {
			char **x = realloc(rd->extra, r->nextra * sizeof(*x));
			if (!x) {
				rd->nomem = 1;
				return LB_ENOMEM;
			}
			rd->extra = x;
			rd->xcap = r->nextra;
		}
		for (i = 0; i < r->nextra; i++)
			rd->extra[i] = rd->fbuf.data + rd->f[9 + i].off;
		r->extra = rd->extra;
	}
	return bad ? LB_EPARSE : 0;
}

/* "scheme://...": what a source URL field holds (§3.8), whatever the scheme. */
static int url_like(const char *v)
{
	size_t i = 0;

	if (!isalpha((unsigned char)v[0]))
		return 0;
	while (isalnum((unsigned char)v[i]) || v[i] == '+' || v[i] == '-' || v[i] == '.')
		i++;
	return v[i] == ':' && v[i + 1] == '/' && v[i + 2] == '/';
}

/*
 * LIRS 2.1 §2: a ',' in a field MUST be written "\,".  One left bare in
 * the title or the author splits it, and every later field moves: the
 * source URL field then holds a piece of text.  The record is delivered
 * as read (cat shows what the file says) right after an error naming the
 * fix (lirs merge and lirs atom skip the record that follows it).  The first later field that
 * looks like a source URL ("0", empty, scheme://) says how far the fields
 * moved, so the message can show the title as it probably was.  A "\\,"
 * that may be a comma split by an undoubled backslash is backslash-shift's
 * (validate.c), not this.
 */
static void unescaped_comma(lirs_reader *rd, size_t nf, lirs_record *r)
{
	char src[64], title[160], author[64];
	size_t a, k;

	if (!r->source_url[0] || url_like(r->source_url) || rd->bs_sep.n)
		return;
	snippet(src, sizeof src, r->source_url, 40);
	for (a = 8; a < nf; a++) {
		const char *v = rd->fbuf.data + rd->f[a].off;
		if (!*v || (v[0] == '0' && !v[1]) || url_like(v))
			break;
	}
	if (a == nf) {
		queue(rd, r->col[7], LIRS_R_UNESCAPED_COMMA, "source_url",
		      "source_url: '%s' is not a URL: a ',' not escaped as '\\,' in the title or the "
		      "author moved the fields after the URL? (LIRS 2.1 §2)", src);
		return;
	}
	/* Fields 6 .. a-1 (1-based) are the title split k times, then the author. */
	k = a - 7;
	title[0] = '\0';
	for (size_t i = 5; i < 5 + k + 1 && strlen(title) + 1 < sizeof title; i++) {
		char part[64];
		snippet(part, sizeof part, rd->fbuf.data + rd->f[i].off, 40);
		if (i > 5)
			strcat(title, ",");
		strncat(title, part, sizeof title - strlen(title) - 1);
	}
	snippet(author, sizeof author, rd->fbuf.data + rd->f[a - 1].off, 40);
	queue(rd, r->col[7], LIRS_R_UNESCAPED_COMMA, "source_url",
	      "source_url: '%s' is not a URL: a ',' not escaped as '\\,' in the title? fields 6 to "
	      "%zu read as one title give '%s' and the author '%s'; write each ',' in a field as "
	      "'\\,' (LIRS 2.1 §2)", src, a - 1, title, author);
}

/* ---- lines ------------------------------------------------------------- */

static int is_blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

/* A NUL byte in the decoded line becomes U+FFFD (queued). */
static int no_nul(lirs_reader *rd, const char **ps, size_t *pn)
{
	const char *s = *ps, *z;
	size_t n = *pn, i;

	if (!(z = memchr(s, '\0', n)))
		return 0;
	queue(rd, col_of(s, (size_t)(z - s)), LIRS_R_NUL_BYTE, NULL,
	      "NUL byte in the line; replaced by U+FFFD");
	lb_buf_reset(&rd->nul);
	for (i = 0; i < n; i++)
		if (s[i] ? lb_buf_addc(&rd->nul, s[i]) : lb_buf_add(&rd->nul, LB_UTF8_FFFD, 3))
			return LB_ENOMEM;
	*ps = rd->nul.data;
	*pn = rd->nul.len;
	return 0;
}

/* A HINA-DI line in the charset its header declared (UTF-8, Shift_JIS). */
static int decode_declared(lirs_reader *rd, const char **ps, size_t *pn)
{
	size_t bad = 0;
	int r = rd->di_cs == DI_CS_SJIS
		? lirs_di_decode_iconv(rd->sjis, *ps, *pn, &rd->dec, &bad)
		: lirs_di_decode_utf8(*ps, *pn, &rd->dec, &bad);

	if (r < 0)
		return LB_ENOMEM;
	/* Read as asked, but still not what LIRS 2.1 §2 says: once per file. */
	if (rd->o.charset == LIRS_CHARSET_CP932 && rd->st.format == LIRS_FORMAT_LIRS &&
	    !rd->sjis_line) {
		rd->sjis_line = rd->st.lines;
		queue(rd, 0, LIRS_R_SHIFT_JIS, NULL, "file is Shift_JIS (CP932), read so as asked "
		      "(--charset cp932); LIRS 2.1 §2 says EUC-JP and other readers lose the text: "
		      "convert it with iconv -f CP932 -t EUC-JP in > out");
	}
	if (r > 0)
		queue(rd, col_of(rd->dec.data, bad), LIRS_R_INVALID_ENCODING, NULL,
		      "line is not %s as %s; bad bytes replaced by U+FFFD",
		      rd->di_cs == DI_CS_SJIS ? "Shift_JIS" : "UTF-8",
		      rd->st.format == LIRS_FORMAT_DI ? "the header says" : "asked (--charset cp932)");
	*ps = rd->dec.data;
	*pn = rd->dec.len;
	return no_nul(rd, ps, pn);
}

/*
 * A line that is neither EUC-JP nor UTF-8 but Shift_JIS throughout: a
 * file saved by a Windows editor.  Named with the command that converts
 * it (the first time; later lines point back to it).
 */
static void sjis_found(lirs_reader *rd, unsigned long col)
{
	if (!rd->sjis_line) {
		rd->sjis_line = rd->st.lines;
		queue(rd, col, LIRS_R_SHIFT_JIS, NULL,
		      "line is Shift_JIS (CP932), not EUC-JP (LIRS 2.1 §2); bad bytes replaced by "
		      "U+FFFD: convert the file with iconv -f CP932 -t EUC-JP in > out, "
		      "or read it with --charset cp932");
		return;
	}
	queue(rd, col, LIRS_R_SHIFT_JIS, NULL,
	      "line is Shift_JIS (CP932), not EUC-JP, as line %lu; bad bytes replaced by U+FFFD",
	      rd->sjis_line);
}

/* Decodes the line to UTF-8, replacing NUL bytes; queues what it found. */
static int decode(lirs_reader *rd, const char **ps, size_t *pn)
{
	const char *s = *ps;
	size_t n = *pn, bad = 0;
	int r = LIRS_CS_ASCII;

	if (rd->di_cs != DI_CS_AUTO && !lirs_cs_is_ascii(s, n))
		return decode_declared(rd, ps, pn);
	if (!lirs_cs_is_ascii(s, n))
		r = lirs_cs_decode_line(&rd->cs, s, n, &rd->dec, &bad);
	if (r < 0)
		return LB_ENOMEM;
	if (r == LIRS_CS_EUCJP || r == LIRS_CS_INVALID) {
		s = rd->dec.data;
		n = rd->dec.len;
	}
	if (r == LIRS_CS_UTF8)
		queue(rd, 0, LIRS_R_UTF8_FALLBACK, NULL,
		      "line is not EUC-JP; decoded as UTF-8");
	else if (r == LIRS_CS_INVALID && lirs_cs_is_sjis(*ps, *pn))
		sjis_found(rd, col_of(s, bad));
	else if (r == LIRS_CS_INVALID)
		queue(rd, col_of(s, bad), LIRS_R_INVALID_ENCODING, NULL,
		      "line is neither EUC-JP nor UTF-8; bad bytes replaced by U+FFFD");
	*ps = s;
	*pn = n;
	return no_nul(rd, ps, pn);
}

static int deliver(lirs_reader *rd, lirs_record *r, unsigned long ln)
{
	flush_queue(rd, ln, 0);
	rd->st.records++;
	r->line = ln;
	if (rd->o.on_record && rd->o.on_record(rd->o.ctx, r))
		return rd->err = LB_ESTOP;
	return 0;
}

/* ---- HINA-DI and hina.txt (di.c does the fields) ------------------------ */

static void report(lirs_reader *rd, const lirs_di_problem *p, unsigned long ln, int skipped)
{
	emit(rd, p->line ? p->line : ln, 0, p->rule, p->field, p->msg, skipped);
}

/* 1 when s[0..n) starts, after a UTF-8 BOM and blanks, with "<!DOCTYPE
 * html" or "<html" (any case): a web page, most often an error page a
 * server sent with status 200 and someone saved as lirs.gz. */
static int is_html(const char *s, size_t n)
{
	static const char *const starts[] = { "<!doctype html", "<html" };
	size_t i = 0;

	if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	for (size_t k = 0; k < 2; k++) {
		size_t len = strlen(starts[k]);
		if (n - i >= len && strncasecmp(s + i, starts[k], len) == 0 &&
		    (n - i == len || !isalnum((unsigned char)s[i + len])))
			return 1;
	}
	return 0;
}

/* The first line that is not blank or a comment picks the format. */
static void sniff(lirs_reader *rd, const char *s, size_t n, unsigned long ln)
{
	rd->sniffed = 1;
	if (is_html(s, n)) {
		/* One error, not one per line of the page; reading stops. */
		emit(rd, ln, 0, LIRS_R_NOT_LIRS, NULL, lirs_gz_is_gzip(&rd->z)
		     ? "this is a gzip file holding an HTML page, not LIRS: a 404 page saved as lirs.gz?"
		     : "this is an HTML page, not LIRS: a 404 page saved as lirs.gz?", 1);
		rd->st.skipped++;
		rd->err = LB_EPARSE;
		return;
	}
	if (n >= 5 && memcmp(s, "HINA/", 5) == 0)
		rd->st.format = LIRS_FORMAT_DI;
	else if (n >= 4 && memcmp(s, "<!--", 4) == 0)
		rd->st.format = LIRS_FORMAT_HINA;
	else
		return;
	emit(rd, ln, 0, LIRS_R_FORMAT, NULL, rd->st.format == LIRS_FORMAT_DI
	     ? "input is HINA-DI; read as records like LIRS"
	     : "input is hina.txt; read as records like LIRS (Last-Detected assumed, see lirs(5))", 0);
}

/* A blank line: the DI header ends, or the block does (delivered then). */
static int di_blank(lirs_reader *rd)
{
	lirs_record rec;
	lirs_di_problem p;
	int r;

	if (!rd->di_body) {
		rd->di_body = 1;
		return 0;
	}
	if (!rd->blk.first)
		return 0;
	r = lirs_di_block_record(&rd->blk, &rec, &p);
	if (r == LB_ENOMEM)
		return rd->err = LB_ENOMEM;
	if (r < 0) {
		rd->st.skipped++;
		report(rd, &p, rd->blk.first, 1);
		lirs_di_block_reset(&rd->blk);
		return 0;
	}
	r = deliver(rd, &rec, rd->blk.first);
	lirs_di_block_reset(&rd->blk);
	return r;
}

/* A header line: Content-Type may name the charset of what follows. */
static int di_header(lirs_reader *rd, const char *s, size_t n, unsigned long ln)
{
	char unknown[64];

	if (lirs_di_header_line(s, n, &rd->di_cs, unknown, sizeof unknown))
		emitf(rd, ln, LIRS_R_DI_CHARSET, "unknown charset '%s'; read as EUC-JP or UTF-8",
		      unknown);
	if (rd->di_cs == DI_CS_SJIS && rd->sjis == (iconv_t)-1 &&
	    (rd->sjis = iconv_open("UTF-8", "CP932")) == (iconv_t)-1)
		return rd->err = LB_EICONV;
	return 0;
}

/* A non-blank line of a DI input (lines were decoded by the caller). */
static int di_line(lirs_reader *rd, const char *s, size_t n, unsigned long ln)
{
	lirs_di_problem p;
	int r;

	if (!rd->di_body)
		return ln == 1 ? 0 : di_header(rd, s, n, ln);
	if (decode(rd, &s, &n) < 0)
		return rd->err = LB_ENOMEM;
	flush_queue(rd, ln, 0);
	if ((r = lirs_di_block_line(&rd->blk, s, n, ln, &p)) < 0)
		return rd->err = LB_ENOMEM;
	if (r > 0)
		report(rd, &p, ln, 0);
	return 0;
}

/* One hina.txt line: a record, or skipped with a diagnostic. */
static int hina_do_line(lirs_reader *rd, const char *s, size_t n, unsigned long ln)
{
	lirs_record rec;
	lirs_di_problem p;
	int r;

	if (decode(rd, &s, &n) < 0)
		return rd->err = LB_ENOMEM;
	if ((r = lirs_hina_line(s, n, &rd->fbuf, rd->o.fetched, &rec, &p)) < 0)
		return rd->err = LB_ENOMEM;
	if (r > 0) {
		rd->st.skipped++;
		flush_queue(rd, ln, 1);
		report(rd, &p, ln, 1);
		return 0;
	}
	return deliver(rd, &rec, ln);
}

/* One complete line (without its line end); lone_cr: it ended in a lone CR. */
static int do_line(lirs_reader *rd, const char *s, size_t n, int lone_cr)
{
	unsigned long ln = ++rd->st.lines;
	lirs_record rec;
	size_t nf;
	long k;
	int trailing, skip = 0;

	rd->npd = 0;
	lb_buf_reset(&rd->msgs);
	/* A UTF-8 byte order mark some editors put first: read past, and
	 * named before a record (other readers see a line that does not
	 * start with "LIRS,"); before an HTML page it is no news */
	if (ln == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		if (n >= 8 && memcmp(s + 3, "LIRS,", 5) == 0)
			emit(rd, ln, 1, LIRS_R_BOM, NULL, "a byte order mark before LIRS,: save "
			     "without BOM (other readers skip this line); read as if it were "
			     "not there", 0);
		s += 3;
		n -= 3;
	}
	if (!rd->sniffed && n && !is_blank(s, n) && s[0] != '#') {
		sniff(rd, s, n, ln);
		if (rd->err)
			return rd->err;
	}
	if (rd->st.format == LIRS_FORMAT_DI) {
		if (lone_cr)
			emit(rd, ln, 0, LIRS_R_LONE_CR, NULL, "CR not followed by LF; taken as a line end", 0);
		return n == 0 || is_blank(s, n) ? di_blank(rd) : di_line(rd, s, n, ln);
	}
	if (rd->st.format == LIRS_FORMAT_HINA && n && !is_blank(s, n) && s[0] != '#')
		return hina_do_line(rd, s, n, ln);
	if (n == 0 || is_blank(s, n) || s[0] == '#') {
		if (n && s[0] == '#')
			rd->st.comments++;
		if (lone_cr)
			queue(rd, col_of(s, n), LIRS_R_LONE_CR, NULL, "CR not followed by LF; taken as a line end");
		flush_queue(rd, ln, 0);
		return 0;
	}
	if (decode(rd, &s, &n) < 0)
		return rd->err = LB_ENOMEM;
	if (n < 5 || memcmp(s, "LIRS,", 5) != 0) {
		queue(rd, 1, LIRS_R_NO_PREFIX, NULL, "line does not start with \"LIRS,\"; skipped");
		skip = 1;
		goto out;
	}
	if ((k = split_fields(rd, s, 5, n, &trailing)) < 0)
		return rd->err = LB_ENOMEM;
	nf = (size_t)k;
	if (nf < 8) {
		queue(rd, col_of(s, n), LIRS_R_TOO_FEW_FIELDS, NULL,
		      "record has %zu fields, fewer than 8; skipped", nf);
		/* Every layout has 8 or more fields: the count is off for sure,
		 * and the shift explains it when enough "\," may be separators. */
		if (rd->bs_comma.n >= 8 - nf)
			queue(rd, rd->bs_comma.col, LIRS_R_BACKSLASH_SHIFT, field_name(rd->bs_comma.field - 1),
			      "%s: '\\' before a field separator and only %zu fields: %s",
			      field_name(rd->bs_comma.field - 1), nf, LIRS_SHIFT_CAUSE);
		skip = 1;
		goto out;
	}
	if (nf == 8)
		queue(rd, col_of(s, n), LIRS_R_NO_EXTENSION, "extension",
		      "record has 8 fields; the extension is missing");
	else if (nf > 9)
		queue(rd, col_of(s, rd->f[9].pos), LIRS_R_EXTRA_FIELDS, "extra",
		      "record has %zu fields; the %zu after the 9th are kept", nf, nf - 9);
	if (!trailing)
		queue(rd, col_of(s, n) , LIRS_R_NO_TRAILING_COMMA, NULL,
		      "record does not end with ','");
	field_cols(rd, nf, &rec);
	rec.nfields = (unsigned)nf;
	rec.trailing_comma = (unsigned char)trailing;
	rec.bs_field = rd->bs_field;
	rec.bs_col = rd->bs_col;
	rec.bs_comma = rd->bs_comma;
	rec.bs_sep = rd->bs_sep;
	if (build_record(rd, nf, &rec) < 0)
		skip = 1;
	else
		unescaped_comma(rd, nf, &rec);
out:
	if (lone_cr)
		queue(rd, col_of(s, n), LIRS_R_LONE_CR, NULL, "CR not followed by LF; taken as a line end");
	if (rd->nomem)
		return rd->err = LB_ENOMEM;
	if (skip) {
		rd->st.skipped++;
		flush_queue(rd, ln, 1);
		return 0;
	}
	return deliver(rd, &rec, ln);
}

static void too_long(lirs_reader *rd)
{
	rd->st.skipped++;
	emitf(rd, rd->st.lines + 1, LIRS_R_LINE_TOO_LONG,
	      "line longer than %zu bytes; skipped", rd->o.max_line);
}

/* The end of a line too_long() reported.  Its column is unknown: the line
 * was never decoded.  LIRS 2.1 §2: CR MUST NOT be used alone. */
static void too_long_end(lirs_reader *rd, int lone_cr)
{
	if (lone_cr)
		emit(rd, rd->st.lines + 1, 0, LIRS_R_LONE_CR, NULL,
		     "CR not followed by LF; taken as a line end", 1);
	rd->skipping = SKIP_NONE;
	rd->st.lines++;
}

/* A line ends after the bytes in rd->part plus s[0..n). */
static int end_line(lirs_reader *rd, const char *s, size_t n, int lone_cr)
{
	int r;

	if (rd->part.len) {
		if (n > rd->o.max_line - rd->part.len) {
			too_long(rd);
			too_long_end(rd, lone_cr);
			lb_buf_reset(&rd->part);
			return 0;
		}
		if (lb_buf_add(&rd->part, s, n) < 0)
			return rd->err = LB_ENOMEM;
		r = do_line(rd, rd->part.data, rd->part.len, lone_cr);
		lb_buf_reset(&rd->part);
		return r;
	}
	if (n > rd->o.max_line) {
		too_long(rd);
		too_long_end(rd, lone_cr);
		return 0;
	}
	return do_line(rd, s, n, lone_cr);
}

/* Keeps the start of a line that continues in the next chunk. */
static int keep(lirs_reader *rd, const char *s, size_t n)
{
	if (n > rd->o.max_line - rd->part.len) {
		too_long(rd);
		lb_buf_reset(&rd->part);
		rd->skipping = SKIP_LINE;
		return 0;
	}
	return lb_buf_add(&rd->part, s, n) < 0 ? (rd->err = LB_ENOMEM) : 0;
}

/*
 * Inside a line over max_line: drops bytes up to its line end, which is
 * found the same way as for any other line (LF, CRLF or a lone CR, a CR
 * at a chunk end waiting for the next chunk), so the records after it
 * do not depend on where the chunks were cut.  Returns where to go on.
 */
static const char *skip(lirs_reader *rd, const char *s, const char *end)
{
	const char *lf, *cr;

	if (rd->skipping == SKIP_CR) {
		too_long_end(rd, *s != '\n');
		return s + (*s == '\n');
	}
	lf = memchr(s, '\n', (size_t)(end - s));
	cr = memchr(s, '\r', (size_t)((lf ? lf : end) - s));
	if (cr && cr + 1 == end) {
		rd->skipping = SKIP_CR;
		return end;
	}
	if (cr) {
		too_long_end(rd, cr[1] != '\n');
		return cr + 1 + (cr[1] == '\n');
	}
	if (lf) {
		too_long_end(rd, 0);
		return lf + 1;
	}
	return end;
}

/* gz output: decoded bytes, split into lines.  LIRS 2.1 §2: LF or CRLF. */
static int on_bytes(void *ctx, const char *s, size_t n)
{
	lirs_reader *rd = ctx;
	const char *lf, *cr, *end = s + n;
	int r = 0;

	rd->st.bytes_decoded += n;
	while (s < end && r == 0) {
		if (rd->skipping) {
			s = skip(rd, s, end);
			continue;
		}
		if (rd->cr_pending) {
			rd->cr_pending = 0;
			r = end_line(rd, s, 0, *s != '\n');
			s += *s == '\n';
			continue;
		}
		if (*s == '\n' && !rd->part.len) {
			/* Empty lines cost a count each, nothing more: a gzip bomb
			 * of newlines must reach the size cap as fast as zeros do. */
			const char *p = s;
			while (p < end && *p == '\n')
				p++;
			rd->st.lines += (unsigned long)(p - s);
			s = p;
			if (rd->st.format == LIRS_FORMAT_DI)
				r = di_blank(rd);
			continue;
		}
		lf = memchr(s, '\n', (size_t)(end - s));
		cr = memchr(s, '\r', (size_t)((lf ? lf : end) - s));
		if (cr && cr + 1 == end) {
			r = keep(rd, s, (size_t)(cr - s));
			if (rd->skipping)
				rd->skipping = SKIP_CR;
			else
				rd->cr_pending = 1;
			s = end;
		} else if (cr) {
			r = end_line(rd, s, (size_t)(cr - s), cr[1] != '\n');
			s = cr + 1 + (cr[1] == '\n');
		} else if (lf) {
			r = end_line(rd, s, (size_t)(lf - s), 0);
			s = lf + 1;
		} else {
			r = keep(rd, s, (size_t)(end - s));
			s = end;
		}
	}
	return r < 0 ? r : rd->err;
}

static void on_event(void *ctx, enum lirs_gz_event ev)
{
	lirs_reader *rd = ctx;

	if (ev == GZ_EV_PLAIN)
		emitf(rd, 0, LIRS_R_NOT_GZIP, "input is not gzip-compressed");
	else
		emitf(rd, 0, LIRS_R_GZIP_TRAILING,
		      "bytes that are not gzip follow the last gzip member; ignored");
}

/* ---- the public face --------------------------------------------------- */

lirs_reader *lirs_reader_new(const lirs_reader_opts *opts)
{
	lirs_reader *rd = calloc(1, sizeof(*rd));

	if (!rd)
		return NULL;
	rd->o = *opts;
	if (!rd->o.max_decoded)
		rd->o.max_decoded = LIRS_DEFAULT_MAX_DECODED;
	if (!rd->o.max_line)
		rd->o.max_line = LIRS_DEFAULT_MAX_LINE;
	lb_buf_init(&rd->part);
	lb_buf_init(&rd->dec);
	lb_buf_init(&rd->nul);
	lb_buf_init(&rd->fbuf);
	lb_buf_init(&rd->msgs);
	lirs_di_block_init(&rd->blk);
	rd->sjis = (iconv_t)-1;
	if (lirs_cs_open(&rd->cs, 1) < 0) {
		free(rd);
		return NULL;
	}
	/* --charset cp932: every line through the Shift_JIS path HINA-DI's
	 * header opens (decode_declared()). */
	if (rd->o.charset == LIRS_CHARSET_CP932) {
		rd->di_cs = DI_CS_SJIS;
		if ((rd->sjis = iconv_open("UTF-8", "CP932")) == (iconv_t)-1) {
			lirs_cs_close(&rd->cs);
			free(rd);
			return NULL;
		}
	}
	if (lirs_gz_init(&rd->z, rd->o.max_decoded, on_bytes, on_event, rd) < 0) {
		lirs_cs_close(&rd->cs);
		lirs_gz_release(&rd->z);
		free(rd);
		return NULL;
	}
	return rd;
}

/* A fatal error from gz (or passed up through it): report it once. */
static int fatal(lirs_reader *rd, int r)
{
	unsigned long ln = rd->st.lines + 1;

	if (rd->err)
		return rd->err;
	rd->err = r;
	if (r == LB_EGZIP)
		emitf(rd, ln, LIRS_R_GZIP_CORRUPT, "corrupt gzip data after %llu decoded bytes: %s",
		      (unsigned long long)rd->st.bytes_decoded,
		      rd->z.zs.msg ? rd->z.zs.msg : "bad data");
	else if (r == LB_ETRUNC)
		emitf(rd, ln, LIRS_R_GZIP_TRUNCATED, "gzip data ends early after %llu decoded bytes",
		      (unsigned long long)rd->st.bytes_decoded);
	else if (r == LB_ETOOBIG)
		emitf(rd, ln, LIRS_R_TOO_BIG, "decoded data exceeds the limit of %llu bytes; stopped",
		      (unsigned long long)rd->o.max_decoded);
	return r;
}

int lirs_reader_feed(lirs_reader *rd, const void *buf, size_t len)
{
	int r;

	if (rd->err)
		return rd->err;
	if (rd->finished)
		return LB_EINVAL;
	rd->st.bytes_in += len;
	if ((r = lirs_gz_feed(&rd->z, buf, len)) < 0)
		return fatal(rd, r);
	rd->st.gzip = lirs_gz_is_gzip(&rd->z);
	return 0;
}

int lirs_reader_finish(lirs_reader *rd)
{
	int r;

	if (rd->err)
		return rd->err;
	if (rd->finished)
		return LB_EINVAL;
	rd->finished = 1;
	r = lirs_gz_finish(&rd->z);
	rd->st.gzip = lirs_gz_is_gzip(&rd->z);
	if (r < 0)
		return fatal(rd, r);   /* a cut last line is damaged: not delivered */
	if (rd->cr_pending) {
		rd->cr_pending = 0;
		r = end_line(rd, NULL, 0, 1);
	} else if (rd->part.len && !rd->skipping) {
		r = end_line(rd, NULL, 0, 0);
	} else if (rd->skipping) {
		too_long_end(rd, rd->skipping == SKIP_CR);
	}
	if (r == 0 && !rd->err && rd->st.format == LIRS_FORMAT_DI)
		r = di_blank(rd);   /* the last block needs no blank line after it */
	if (r == 0 && !rd->err && rd->st.bytes_in == 0)
		emitf(rd, 0, LIRS_R_EMPTY_FILE, "the file is empty (0 bytes): no records; "
		      "an upload or a download that failed?");
	return r < 0 ? r : rd->err;
}

const lirs_reader_stats *lirs_reader_get_stats(const lirs_reader *rd)
{
	return &rd->st;
}

void lirs_reader_free(lirs_reader *rd)
{
	if (!rd)
		return;
	lirs_gz_release(&rd->z);
	lirs_cs_close(&rd->cs);
	lb_buf_release(&rd->part);
	lb_buf_release(&rd->dec);
	lb_buf_release(&rd->nul);
	lb_buf_release(&rd->fbuf);
	lb_buf_release(&rd->msgs);
	free(rd->f);
	free(rd->extra);
	free(rd->pd);
	lirs_di_block_release(&rd->blk);
	if (rd->sjis != (iconv_t)-1)
		iconv_close(rd->sjis);
	free(rd);
}
