/*
 * page_charset.c: which charset a page is in, and its bytes as UTF-8
 * (page_int.h).
 *
 * Charset, first that applies (the WHATWG "encoding sniffing" order, so
 * a BOM beats a wrong server default):
 *   0. the operator's (antenna import, samidare's ForceCharset)  "forced"
 *   1. a byte order mark (UTF-8, UTF-16LE/BE)           charset_from "bom"
 *   2. the charset parameter of the HTTP Content-Type   "header"
 *   3. <meta charset> or <meta http-equiv=Content-Type> in the first
 *      PAGE_META_SCAN bytes                              "meta"
 *   4. detection: valid UTF-8 is UTF-8; otherwise uchardet, kept only when
 *      it names a Japanese encoding; otherwise whichever of CP932 and
 *      EUC-JP-MS decodes with fewer errors                "detected"
 *   5. UTF-8                                             "default"
 * Shift_JIS is decoded as CP932 and EUC-JP as EUC-JP-MS, supersets that
 * also hold the NEC/IBM extensions (①, ㈱) real pages carry.
 */
#include "page_int.h"
#include "lb_utf8.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <uchardet.h>


/* How far into the page <meta charset> is looked for (HTML says 1024;
 * real Japanese pages put long comments first). */
#define PAGE_META_SCAN 4096
/* How much of the page uchardet sees: enough to decide, bounded in time. */
#define PAGE_DETECT_SCAN (256u << 10)

/* ---- charset names ------------------------------------------------------- */

typedef struct cs_alias {
	const char *name;   /* lowercased label */
	const char *report; /* ant_page_info.charset */
	const char *iconv;  /* what iconv_open gets */
} cs_alias;

static const cs_alias aliases[] = {
	{ "utf-8", "UTF-8", "UTF-8" },
	{ "utf8", "UTF-8", "UTF-8" },
	{ "unicode-1-1-utf-8", "UTF-8", "UTF-8" },
	{ "ascii", "UTF-8", "UTF-8" },
	{ "us-ascii", "UTF-8", "UTF-8" },
	{ "shift_jis", "SHIFT_JIS", "CP932" },
	{ "shift-jis", "SHIFT_JIS", "CP932" },
	{ "sjis", "SHIFT_JIS", "CP932" },
	{ "x-sjis", "SHIFT_JIS", "CP932" },
	{ "ms_kanji", "SHIFT_JIS", "CP932" },
	{ "csshiftjis", "SHIFT_JIS", "CP932" },
	{ "windows-31j", "SHIFT_JIS", "CP932" },
	{ "cp932", "SHIFT_JIS", "CP932" },
	{ "euc-jp", "EUC-JP", "EUC-JP-MS" },
	{ "eucjp", "EUC-JP", "EUC-JP-MS" },
	{ "x-euc-jp", "EUC-JP", "EUC-JP-MS" },
	{ "euc-jp-ms", "EUC-JP", "EUC-JP-MS" },
	{ "cseucpkdfmtjapanese", "EUC-JP", "EUC-JP-MS" },
	{ "iso-2022-jp", "ISO-2022-JP", "ISO-2022-JP" },
	{ "csiso2022jp", "ISO-2022-JP", "ISO-2022-JP" },
	{ "utf-16le", "UTF-16LE", "UTF-16LE" },
	{ "utf-16be", "UTF-16BE", "UTF-16BE" },
};

int ant_page_charset_resolve(const char *label, size_t n, ant_page_charset *cs)
{
	char low[32];
	iconv_t cd;

	while (n && isspace((unsigned char)*label))
		label++, n--;
	while (n && (isspace((unsigned char)label[n - 1]) || label[n - 1] == '"' || label[n - 1] == '\''))
		n--;
	while (n && (*label == '"' || *label == '\''))
		label++, n--;
	if (n == 0 || n >= sizeof low)
		return LB_EICONV;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)label[i]);
	low[n] = '\0';
	/* HTML: a document that reached us as bytes is not UTF-16 because it
	 * says so in ASCII; treat it as UTF-8. */
	if (strcmp(low, "utf-16") == 0 || strcmp(low, "utf-16le") == 0 || strcmp(low, "utf-16be") == 0)
		snprintf(low, sizeof low, "utf-8");
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (strcmp(low, aliases[i].name) == 0) {
			snprintf(cs->report, sizeof cs->report, "%s", aliases[i].report);
			snprintf(cs->iconv, sizeof cs->iconv, "%s", aliases[i].iconv);
			return 0;
		}
	for (size_t i = 0; i < n; i++)
		low[i] = (char)toupper((unsigned char)low[i]);
	cd = iconv_open("UTF-8", low);
	if (cd == (iconv_t)-1)
		return LB_EICONV;
	iconv_close(cd);
	snprintf(cs->report, sizeof cs->report, "%s", low);
	snprintf(cs->iconv, sizeof cs->iconv, "%s", low);
	return 0;
}

/* The charset parameter of a Content-Type value, or NULL. */
static const char *find_charset_param(const char *s, const char *end, size_t *n)
{
	static const char key[] = "charset";

	for (const char *p = s; p + sizeof key - 1 < end; p++) {
		const char *v, *e;

		if (strncasecmp(p, key, sizeof key - 1) != 0)
			continue;
		v = p + sizeof key - 1;
		while (v < end && isspace((unsigned char)*v))
			v++;
		if (v >= end || *v != '=')
			continue;
		v++;
		while (v < end && (isspace((unsigned char)*v) || *v == '"' || *v == '\''))
			v++;
		for (e = v; e < end && !strchr(" \t\r\n;\"'>/", *e); e++)
			;
		if (e > v) {
			*n = (size_t)(e - v);
			return v;
		}
	}
	return NULL;
}

static int from_header(const char *content_type, ant_page_charset *cs)
{
	const char *v;
	size_t n;

	if (!content_type)
		return LB_ENOTFOUND;
	v = find_charset_param(content_type, content_type + strlen(content_type), &n);
	return v ? ant_page_charset_resolve(v, n, cs) : LB_ENOTFOUND;
}

static size_t from_bom(const unsigned char *b, size_t len, ant_page_charset *cs)
{
	if (len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
		ant_page_charset_resolve("utf-8", 5, cs);
		return 3;
	}
	if (len >= 2 && b[0] == 0xFF && b[1] == 0xFE) {
		snprintf(cs->report, sizeof cs->report, "UTF-16LE");
		snprintf(cs->iconv, sizeof cs->iconv, "UTF-16LE");
		return 2;
	}
	if (len >= 2 && b[0] == 0xFE && b[1] == 0xFF) {
		snprintf(cs->report, sizeof cs->report, "UTF-16BE");
		snprintf(cs->iconv, sizeof cs->iconv, "UTF-16BE");
		return 2;
	}
	return 0;
}

/* <meta charset=X> and <meta http-equiv="Content-Type" content="...; charset=X">:
 * both carry "charset" followed by '=' inside a <meta ...> tag. */
static int from_meta(const char *b, size_t len, ant_page_charset *cs)
{
	const char *end = b + (len < PAGE_META_SCAN ? len : PAGE_META_SCAN);

	for (const char *p = b; p + 5 < end; p++) {
		const char *tag_end, *v;
		size_t n;

		if (*p != '<' || strncasecmp(p + 1, "meta", 4) != 0 ||
		    !(isspace((unsigned char)p[5]) || p[5] == '/'))
			continue;
		tag_end = memchr(p, '>', (size_t)(end - p));
		if (!tag_end)
			return LB_ENOTFOUND;
		v = find_charset_param(p, tag_end, &n);
		if (v && ant_page_charset_resolve(v, n, cs) == 0)
			return 0;
		p = tag_end;
	}
	return LB_ENOTFOUND;
}

/* ---- UTF-8 and conversion ------------------------------------------------ */

/* Appends b[0..len) of UTF-8 to out, each invalid byte and each NUL as
 * U+FFFD (lb_utf8_repair); *bad counts them.  0 or LB_ENOMEM. */
static int repair(const char *b, size_t len, lb_buf *out, size_t *bad)
{
	size_t r;

	if (lb_buf_grow(out, len) < 0)   /* every byte of every page passes here: room once */
		return LB_ENOMEM;
	r = lb_utf8_repair(out, b, len, LB_UTF8_NUL, NULL);
	if (r == (size_t)-1)
		return LB_ENOMEM;
	*bad += r;
	return 0;
}

/* Converts with iconv, each undecodable byte replaced with U+FFFD; *bad
 * counts the replacements.  0, LB_EICONV (iconv cannot open the charset)
 * or LB_ENOMEM. */
static int convert(const char *b, size_t len, const char *from, lb_buf *out, size_t *bad)
{
	iconv_t cd;
	lb_buf tmp = LB_BUF_INIT;
	char *in = (char *)b;
	size_t inleft = len;
	int oom = 0, rc;

	*bad = 0;
	if (strcmp(from, "UTF-8") == 0)
		return repair(b, len, out, bad);
	cd = iconv_open("UTF-8", from);
	if (cd == (iconv_t)-1)
		return LB_EICONV;
	while (!oom) {
		size_t room, r;
		char *o;

		if (lb_buf_grow(&tmp, inleft * 3 + 64) < 0) {
			oom = 1;
			break;
		}
		room = tmp.cap - tmp.len - 1;
		o = tmp.data + tmp.len;
		r = iconv(cd, inleft ? &in : NULL, &inleft, &o, &room);
		tmp.len = (size_t)(o - tmp.data);
		if (r != (size_t)-1 && inleft == 0)
			break;
		if (r == (size_t)-1 && errno == E2BIG)
			continue;
		if (r == (size_t)-1 && (errno == EILSEQ || errno == EINVAL)) {
			int truncated = errno == EINVAL;

			/* Skip one byte and go on: a stateful decoder
			 * (ISO-2022-JP) resynchronises at the next escape. */
			oom |= lb_buf_add(&tmp, LB_UTF8_FFFD, 3) < 0;
			(*bad)++;
			if (truncated) {
				in += inleft;
				inleft = 0;
			} else {
				in++;
				inleft--;
			}
			if (!inleft)
				break;
			continue;
		}
		break;
	}
	iconv_close(cd);
	/* iconv's UTF-8 is valid, but UTF-16 may hold U+0000. */
	rc = oom ? LB_ENOMEM : repair(tmp.data, tmp.len, out, bad);
	lb_buf_release(&tmp);
	return rc;
}

int ant_page_to_utf8(const char *body, size_t len, const char *iconv_name, lb_buf *out)
{
	size_t bad;

	return convert(body, len, iconv_name, out, &bad);
}

/* The bytes `from` cannot decode ((size_t)-1 when it cannot be opened). */
static size_t decode_errors(const char *b, size_t len, const char *from)
{
	lb_buf out = LB_BUF_INIT;
	size_t bad;
	int rc = convert(b, len, from, &out, &bad);

	lb_buf_release(&out);
	return rc < 0 ? (size_t)-1 : bad;
}

/* ISO-2022-JP is 7-bit, so it is also valid UTF-8: tell it by its
 * escape sequences into JIS X 0208 / 0212 (RFC 1468). */
static int iso2022jp_like(const char *b, size_t len)
{
	int esc = 0;

	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)b[i] >= 0x80)
			return 0;
		if (b[i] == 0x1B && i + 2 < len && b[i + 1] == '$' &&
		    (b[i + 2] == 'B' || b[i + 2] == '@' || b[i + 2] == '('))
			esc = 1;
	}
	return esc;
}

static int from_detection(const char *b, size_t len, ant_page_charset *cs)
{
	size_t n = len < PAGE_DETECT_SCAN ? len : PAGE_DETECT_SCAN;
	uchardet_t ud;
	const char *name;
	int rc = LB_ENOTFOUND;

	if (iso2022jp_like(b, n))
		return ant_page_charset_resolve("iso-2022-jp", 11, cs);
	if (lb_utf8_valid(b, len))
		return ant_page_charset_resolve("utf-8", 5, cs);
	ud = uchardet_new();
	if (ud) {
		if (uchardet_handle_data(ud, b, n) == 0) {
			uchardet_data_end(ud);
			name = uchardet_get_charset(ud);
			if (name && (strcasecmp(name, "SHIFT_JIS") == 0 || strcasecmp(name, "EUC-JP") == 0 ||
				     strcasecmp(name, "ISO-2022-JP") == 0))
				rc = ant_page_charset_resolve(name, strlen(name), cs);
		}
		uchardet_delete(ud);
	}
	if (rc == 0)
		return 0;
	/* Not UTF-8 and uchardet not sure of a Japanese one (short pages):
	 * the Japanese legacy encoding that fits best. */
	if (decode_errors(b, n, "EUC-JP-MS") < decode_errors(b, n, "CP932"))
		return ant_page_charset_resolve("euc-jp", 6, cs);
	return ant_page_charset_resolve("shift_jis", 9, cs);
}

/* ---- ignore and only patterns -------------------------------------------------- */
/* ---- the entry point ----------------------------------------------------- */

void ant_page_pick_charset(const char *body, size_t len, const char *content_type,
			   const char *forced, ant_page_info *out, size_t *skip,
			   ant_page_charset *cs)
{
	*skip = 0;
	if (forced && *forced && ant_page_charset_resolve(forced, strlen(forced), cs) == 0)
		out->charset_from = "forced";   /* the operator's word beats everything */
	else if ((*skip = from_bom((const unsigned char *)body, len, cs)))
		out->charset_from = "bom";
	else if (from_header(content_type, cs) == 0)
		out->charset_from = "header";
	else if (from_meta(body, len, cs) == 0)
		out->charset_from = "meta";
	else if (len && from_detection(body, len, cs) == 0)
		out->charset_from = "detected";
	else {
		ant_page_charset_resolve("utf-8", 5, cs);
		out->charset_from = "default";
	}
	snprintf(out->charset, sizeof out->charset, "%s", cs->report);
}

int ant_page_charset_check(const char *label, lb_error *err)
{
	ant_page_charset cs;

	if (ant_page_charset_resolve(label, strlen(label), &cs) == 0)
		return 0;
	return lb_err(err, LB_EINVAL, "unknown charset '%s'", label);
}
