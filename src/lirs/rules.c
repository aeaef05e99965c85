/*
 * rules.c: the one table of diagnostics.  Every rule has a stable id that
 * users can grep for and that lirs(5) documents; keep the table, the enum
 * in lirs.h and man/lirs.5 in step.
 */
#include "lirs.h"
#include "diag.h"

#include <string.h>

static const struct {
	const char *id;
	lirs_severity sev;
	const char *summary;
} rules[LIRS_R__COUNT] = {
	[LIRS_R_NOT_GZIP] = { "not-gzip", LIRS_SEV_WARNING,
		"the input is not gzip-compressed (LIRS 2.1 §2)" },
	[LIRS_R_GZIP_CORRUPT] = { "gzip-corrupt", LIRS_SEV_ERROR,
		"the gzip data is corrupt; reading stops" },
	[LIRS_R_GZIP_TRUNCATED] = { "gzip-truncated", LIRS_SEV_ERROR,
		"the gzip data ends early; records before the damage are kept" },
	[LIRS_R_GZIP_TRAILING] = { "gzip-trailing", LIRS_SEV_WARNING,
		"bytes that are not gzip follow the last gzip member; ignored" },
	[LIRS_R_TOO_BIG] = { "too-big", LIRS_SEV_ERROR,
		"decoded data exceeds the decompression limit; reading stops" },
	[LIRS_R_INVALID_ENCODING] = { "invalid-encoding", LIRS_SEV_ERROR,
		"bytes that are neither EUC-JP nor UTF-8; replaced by U+FFFD" },
	[LIRS_R_UTF8_FALLBACK] = { "utf8-fallback", LIRS_SEV_WARNING,
		"a line that is not EUC-JP was decoded as UTF-8 (§7)" },
	[LIRS_R_LONE_CR] = { "lone-cr", LIRS_SEV_ERROR,
		"a CR not followed by LF (§2: CR MUST NOT be used alone); taken as a line end" },
	[LIRS_R_NUL_BYTE] = { "nul-byte", LIRS_SEV_ERROR,
		"a NUL byte in a line; replaced by U+FFFD" },
	[LIRS_R_LINE_TOO_LONG] = { "line-too-long", LIRS_SEV_ERROR,
		"a line longer than the line limit; skipped" },
	[LIRS_R_NO_PREFIX] = { "no-prefix", LIRS_SEV_ERROR,
		"a line that does not start with \"LIRS,\"; skipped" },
	[LIRS_R_TOO_FEW_FIELDS] = { "too-few-fields", LIRS_SEV_ERROR,
		"a record with fewer than 8 fields; skipped" },
	[LIRS_R_NO_EXTENSION] = { "no-extension", LIRS_SEV_WARNING,
		"a record with 8 fields: the extension field is missing (§3)" },
	[LIRS_R_EXTRA_FIELDS] = { "extra-fields", LIRS_SEV_WARNING,
		"a record with more than 9 fields; the extra fields are kept" },
	[LIRS_R_NO_TRAILING_COMMA] = { "no-trailing-comma", LIRS_SEV_WARNING,
		"a record that does not end with a comma (§2)" },
	[LIRS_R_BAD_NUMBER] = { "bad-number", LIRS_SEV_ERROR,
		"a time, time difference or length that is not an integer; skipped" },
	[LIRS_R_UNKNOWN_ESCAPE] = { "unknown-escape", LIRS_SEV_WARNING,
		"a backslash not followed by ',' or '\\'; kept as written (§2)" },
	[LIRS_R_BLANK_FIELD] = { "blank-field", LIRS_SEV_WARNING,
		"an empty field that SHOULD be written as 0 (§2)" },
	[LIRS_R_TZ_RANGE] = { "tz-range", LIRS_SEV_ERROR,
		"a time difference outside [-43200, 50400] seconds (§3.3)" },
	[LIRS_R_NEGATIVE] = { "negative", LIRS_SEV_ERROR,
		"a negative time or content length" },
	[LIRS_R_ZERO_TIME] = { "zero-time", LIRS_SEV_WARNING,
		"Last-Modified or Last-Detected is 0: the record is unusable (§3.1, §3.2)" },
	[LIRS_R_FUTURE] = { "future", LIRS_SEV_WARNING,
		"Last-Detected is later than now" },
	[LIRS_R_STALE] = { "stale", LIRS_SEV_WARNING,
		"last detected more than 8 hours (the maximum age) ago; readers discard it (§4)" },
	[LIRS_R_MODIFIED_AFTER_DETECTED] = { "modified-after-detected", LIRS_SEV_WARNING,
		"Last-Modified is later than Last-Detected" },
	[LIRS_R_BAD_URL] = { "bad-url", LIRS_SEV_ERROR,
		"the URL is not an absolute http or https URL (§3.5)" },
	[LIRS_R_DUPLICATE_URL] = { "duplicate-url", LIRS_SEV_ERROR,
		"the same URL appears twice in one file (§3.5)" },
	[LIRS_R_EXTENSION_ZERO] = { "extension-zero", LIRS_SEV_WARNING,
		"the extension is \"0\"; a blank extension SHOULD be empty (§3.9)" },
	[LIRS_R_FORMAT] = { "format", LIRS_SEV_NOTE,
		"the input is HINA-DI or hina.txt, read into the same records as LIRS" },
	[LIRS_R_DI_BAD_LINE] = { "di-bad-line", LIRS_SEV_WARNING,
		"a HINA-DI line that is not \"Field: value\"; ignored" },
	[LIRS_R_DI_NO_URL] = { "di-no-url", LIRS_SEV_ERROR,
		"a HINA-DI block without a URL field; skipped" },
	[LIRS_R_DI_BAD_DATE] = { "di-bad-date", LIRS_SEV_ERROR,
		"a HINA-DI date that is not an HTTP date; the block is skipped" },
	[LIRS_R_DI_CHARSET] = { "di-charset", LIRS_SEV_WARNING,
		"a HINA-DI charset other than UTF-8, EUC-JP or Shift_JIS; read as EUC-JP or UTF-8" },
	[LIRS_R_DI_TOO_MANY_EXTRA] = { "di-too-many-extra", LIRS_SEV_ERROR,
		"a HINA-DI block with more X-LIRS-Extra fields than the limit; skipped" },
	[LIRS_R_HINA_BAD_LINE] = { "hina-bad-line", LIRS_SEV_ERROR,
		"a hina.txt line that is not a HINA record; skipped" },
	[LIRS_R_BACKSLASH_SHIFT] = { "backslash-shift", LIRS_SEV_ERROR,
		"a record whose field count differs from the file's usual count by no more than "
		"its \"\\,\" (too few) or its fields ending in '\\' before a separator (too many) "
		"explain: a writer that did not double a backslash "
		"(or made one of '¥' after escaping) shifted every later field" },
	[LIRS_R_LAYOUT] = { "layout", LIRS_SEV_NOTE,
		"the file has the layout of a known writer (samidare, tama); the warnings that "
		"layout gives on every line are summarised" },
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

const char *lirs_severity_name(lirs_severity s)
{
	switch (s) {
	case LIRS_SEV_ERROR: return "error";
	case LIRS_SEV_WARNING: return "warning";
	default: return "note";
	}
}

const char *lirs_strerror(int err)
{
	return lb_strerror(err);
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
