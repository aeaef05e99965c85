/*
 * rules.c: the one table of diagnostics.  Every rule has a stable id that
 * users can grep for and that lirs(5) documents; keep the table, the enum
 * in lirs.h and man/lirs.5 in step.
 */
#include "lirs.h"
#include "diag.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *id;
	lirs_severity sev;
	lirs_class cls;
	const char *summary;
} rules[LIRS_R__COUNT] = {
	[LIRS_R_NOT_GZIP] = { "not-gzip", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"the input is not gzip-compressed (LIRS 2.1 §2)" },
	[LIRS_R_GZIP_CORRUPT] = { "gzip-corrupt", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"the gzip data is corrupt; reading stops" },
	[LIRS_R_GZIP_TRUNCATED] = { "gzip-truncated", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"the gzip data ends early; records before the damage are kept" },
	[LIRS_R_GZIP_TRAILING] = { "gzip-trailing", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"bytes that are not gzip follow the last gzip member; ignored" },
	[LIRS_R_TOO_BIG] = { "too-big", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"decoded data exceeds the decompression limit; reading stops" },
	[LIRS_R_INVALID_ENCODING] = { "invalid-encoding", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"bytes that are neither EUC-JP nor UTF-8; replaced by U+FFFD" },
	[LIRS_R_UTF8_FALLBACK] = { "utf8-fallback", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"a line that is not EUC-JP was decoded as UTF-8 (§7)" },
	[LIRS_R_LONE_CR] = { "lone-cr", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"a CR not followed by LF (§2: CR MUST NOT be used alone); taken as a line end" },
	[LIRS_R_NUL_BYTE] = { "nul-byte", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a NUL byte in a line; replaced by U+FFFD" },
	[LIRS_R_LINE_TOO_LONG] = { "line-too-long", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a line longer than the line limit; skipped" },
	[LIRS_R_NO_PREFIX] = { "no-prefix", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a line that does not start with \"LIRS,\"; skipped" },
	[LIRS_R_TOO_FEW_FIELDS] = { "too-few-fields", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a record with fewer than 8 fields; skipped" },
	[LIRS_R_NO_EXTENSION] = { "no-extension", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"a record with 8 fields: the extension field is missing (§3)" },
	[LIRS_R_EXTRA_FIELDS] = { "extra-fields", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"a record with more than 9 fields; the extra fields are kept" },
	[LIRS_R_NO_TRAILING_COMMA] = { "no-trailing-comma", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"a record that does not end with a comma (§2)" },
	[LIRS_R_BAD_NUMBER] = { "bad-number", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a time, time difference or length that is not an integer; skipped" },
	[LIRS_R_UNKNOWN_ESCAPE] = { "unknown-escape", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"a backslash not followed by ',' or '\\'; kept as written (§2)" },
	[LIRS_R_BLANK_FIELD] = { "blank-field", LIRS_SEV_WARNING, LIRS_CLASS_ADVICE,
		"an empty field that SHOULD be written as 0 (§2)" },
	[LIRS_R_TZ_RANGE] = { "tz-range", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a time difference outside [-43200, 50400] seconds (§3.3)" },
	[LIRS_R_NEGATIVE] = { "negative", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a negative time or content length" },
	[LIRS_R_ZERO_TIME] = { "zero-time", LIRS_SEV_WARNING, LIRS_CLASS_ADVICE,
		"Last-Modified or Last-Detected is 0: the record is unusable (§3.1, §3.2)" },
	[LIRS_R_FUTURE] = { "future", LIRS_SEV_WARNING, LIRS_CLASS_ADVICE,
		"Last-Detected is later than now" },
	[LIRS_R_STALE] = { "stale", LIRS_SEV_WARNING, LIRS_CLASS_ADVICE,
		"last detected more than 8 hours (the maximum age) ago; readers discard it (§4)" },
	[LIRS_R_MODIFIED_AFTER_DETECTED] = { "modified-after-detected", LIRS_SEV_WARNING, LIRS_CLASS_ADVICE,
		"Last-Modified is later than Last-Detected" },
	[LIRS_R_BAD_URL] = { "bad-url", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"the URL is not an absolute http or https URL (§3.5)" },
	[LIRS_R_DUPLICATE_URL] = { "duplicate-url", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"the same URL appears twice in one file (§3.5)" },
	[LIRS_R_EXTENSION_ZERO] = { "extension-zero", LIRS_SEV_WARNING, LIRS_CLASS_ADVICE,
		"the extension is \"0\"; a blank extension SHOULD be empty (§3.9)" },
	[LIRS_R_FORMAT] = { "format", LIRS_SEV_NOTE, LIRS_CLASS_NOTE,
		"the input is HINA-DI or hina.txt, read into the same records as LIRS" },
	[LIRS_R_DI_BAD_LINE] = { "di-bad-line", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"a HINA-DI line that is not \"Field: value\"; ignored" },
	[LIRS_R_DI_NO_URL] = { "di-no-url", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a HINA-DI block without a URL field; skipped" },
	[LIRS_R_DI_BAD_DATE] = { "di-bad-date", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a HINA-DI date that is not an HTTP date; the block is skipped" },
	[LIRS_R_DI_CHARSET] = { "di-charset", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"a HINA-DI charset other than UTF-8, EUC-JP or Shift_JIS; read as EUC-JP or UTF-8" },
	[LIRS_R_DI_TOO_MANY_EXTRA] = { "di-too-many-extra", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a HINA-DI block with more X-LIRS-Extra fields than the limit; skipped" },
	[LIRS_R_HINA_BAD_LINE] = { "hina-bad-line", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a hina.txt line that is not a HINA record; skipped" },
	[LIRS_R_BACKSLASH_SHIFT] = { "backslash-shift", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a record whose field count differs from the file's usual count by no more than "
		"its \"\\,\" (too few) or its fields ending in '\\' before a separator (too many) "
		"explain: a writer that did not double a backslash "
		"(or made one of '¥' after escaping) shifted every later field" },
	[LIRS_R_LAYOUT] = { "layout", LIRS_SEV_NOTE, LIRS_CLASS_NOTE,
		"the file has the layout of a known writer (samidare, tama); the warnings that "
		"layout gives on every line are summarised" },
	[LIRS_R_UNESCAPED_COMMA] = { "unescaped-comma", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"the source URL field holds text that is not a URL: a ',' not escaped as '\\,' "
		"in the title or author moved every later field (§2); lirs cat, merge and atom skip the record" },
	[LIRS_R_FUTURE_DROPPED] = { "future-dropped", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"Last-Modified or Last-Detected more than the tolerated clock skew (default 3600 s) "
		"after now: lirs merge, lirs atom and antennas drop the record" },
	[LIRS_R_SHIFT_JIS] = { "shift-jis", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a line in Shift_JIS (CP932), not EUC-JP (§2); bad bytes replaced by U+FFFD: "
		"convert with iconv -f CP932 -t EUC-JP, or read with --charset cp932; lirs cat, merge and "
		"atom skip the record" },
	[LIRS_R_NOT_LIRS] = { "not-lirs", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"the input is an HTML page, not LIRS (a 404 page saved as lirs.gz?); reading stops" },
	[LIRS_R_EMPTY_FILE] = { "empty-file", LIRS_SEV_WARNING, LIRS_CLASS_COPED,
		"the input is empty (0 bytes): no records, and not gzip (§2)" },
	[LIRS_R_BOM] = { "bom", LIRS_SEV_ERROR, LIRS_CLASS_LOST,
		"a UTF-8 byte order mark (EF BB BF) before the first line's \"LIRS,\": other "
		"readers skip that line; read as if it were not there" },
	[LIRS_R_CLASS] = { "class", LIRS_SEV_NOTE, LIRS_CLASS_NOTE,
		"what the file's problems amount to: nonconforming (readers cope) or error (data lost)" },
};

const char *lirs_rule_id(lirs_rule r)
{
	return (unsigned)r < LIRS_R__COUNT ? rules[r].id : "unknown";
}

lirs_severity lirs_rule_severity(lirs_rule r)
{
	return (unsigned)r < LIRS_R__COUNT ? rules[r].sev : LIRS_SEV_ERROR;
}

const char *lirs_rule_summary(lirs_rule r)
{
	return (unsigned)r < LIRS_R__COUNT ? rules[r].summary : "";
}

lirs_class lirs_rule_class(lirs_rule r)
{
	return (unsigned)r < LIRS_R__COUNT ? rules[r].cls : LIRS_CLASS_LOST;
}

const char *lirs_class_name(lirs_class c)
{
	switch (c) {
	case LIRS_CLASS_ADVICE: return "advice (SHOULD)";
	case LIRS_CLASS_COPED: return "nonconforming (readers cope)";
	case LIRS_CLASS_LOST: return "error (data lost)";
	default: return "note";
	}
}

/* Writes v's decimal digits before end; returns where they start. */
static char *digits(char *end, uint64_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

/* d as exactly w digits at p. */
static char *fixed(char *p, unsigned d, int w)
{
	for (int i = w - 1; i >= 0; i--, d /= 10)
		p[i] = (char)('0' + d % 10);
	return p + w;
}

/*
 * By hand, not snprintf(): a file of 100,000 stale records quotes 100,000
 * times, and snprintf() cost more than the rest of their diagnostic.
 */
char *lirs_time_str(char *buf, size_t n, int64_t t)
{
	/* 0000-01-01 .. 9999-12-31 23:59:59: the years four digits hold */
	static const int64_t lo = -62167219200LL, hi = 253402300799LL;
	char tmp[LIRS_TIME_STR], num[24], *p = tmp, *d;
	int64_t days, secs, z, era, y;
	unsigned doe, yoe, doy, mp, md, m;
	uint64_t mag = t < 0 ? (uint64_t)-(t + 1) + 1 : (uint64_t)t;

	if (t < 0)
		*p++ = '-';
	d = digits(num + sizeof num, mag);
	memcpy(p, d, (size_t)(num + sizeof num - d));
	p += num + sizeof num - d;
	if (t >= lo && t <= hi) {
		days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
		secs = t - days * 86400;
		/* civil_from_days (H. Hinnant): no libc time_t range limits the dates */
		z = days + 719468;
		era = (z >= 0 ? z : z - 146096) / 146097;
		doe = (unsigned)(z - era * 146097);
		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
		y = (int64_t)yoe + era * 400;
		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
		mp = (5 * doy + 2) / 153;
		md = doy - (153 * mp + 2) / 5 + 1;
		m = mp < 10 ? mp + 3 : mp - 9;
		y += m <= 2;
		*p++ = ' ';
		*p++ = '(';
		p = fixed(p, (unsigned)y, 4);
		*p++ = '-';
		p = fixed(p, m, 2);
		*p++ = '-';
		p = fixed(p, md, 2);
		*p++ = ' ';
		p = fixed(p, (unsigned)(secs / 3600), 2);
		*p++ = ':';
		p = fixed(p, (unsigned)(secs / 60 % 60), 2);
		*p++ = ':';
		p = fixed(p, (unsigned)(secs % 60), 2);
		memcpy(p, " UTC)", 5);
		p += 5;
	}
	*p = '\0';
	if (n) {
		size_t len = (size_t)(p - tmp) < n ? (size_t)(p - tmp) : n - 1;
		memcpy(buf, tmp, len);
		buf[len] = '\0';
	}
	return buf;
}

const char *lirs_severity_name(lirs_severity s)
{
	switch (s) {
	case LIRS_SEV_ERROR: return "error";
	case LIRS_SEV_WARNING: return "warning";
	default: return "note";
	}
}

void lirs_diag_fill(lirs_diag *d, const char *file, unsigned long line, unsigned long col,
		    lirs_rule rule, const char *field, const char *msg)
{
	memset(d, 0, sizeof *d);
	d->file = file;
	d->line = line;
	d->col = col;
	d->rule = rule;
	d->severity = lirs_rule_severity(rule);
	d->field = field;
	d->message = msg;
}
