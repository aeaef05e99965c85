/*
 * jsonw.c: JSON writing (hand-made, on the hot path of `lirs cat`) and
 * the record <-> JSON mapping.  Parsing is jansson's job.
 */
#include "jsonw.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes that can be copied into a JSON string unchanged (printable ASCII). */
static unsigned char plain[256];
static int plain_ready;

static void plain_init(void)
{
	for (int c = 0x20; c < 0x7f; c++)
		plain[c] = 1;
	plain['"'] = plain['\\'] = 0;
	plain_ready = 1;
}

/*
 * Length of the valid UTF-8 sequence starting at s (at most n bytes), or 0
 * when it is not one.  RFC 3629 §4: no overlongs, no surrogates, <= U+10FFFF.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];

	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		if (n < 3 || s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		if (n < 4 || s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

/* Writes the escape for an ASCII byte that is not plain; returns bytes written. */
static size_t esc_ascii(char *o, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '"': o[0] = '\\'; o[1] = '"'; return 2;
	case '\\': o[0] = '\\'; o[1] = '\\'; return 2;
	case '\n': o[0] = '\\'; o[1] = 'n'; return 2;
	case '\r': o[0] = '\\'; o[1] = 'r'; return 2;
	case '\t': o[0] = '\\'; o[1] = 't'; return 2;
	case '\b': o[0] = '\\'; o[1] = 'b'; return 2;
	case '\f': o[0] = '\\'; o[1] = 'f'; return 2;
	default:
		memcpy(o, "\\u00", 4);
		o[4] = hex[c >> 4];
		o[5] = hex[c & 15];
		return 6;
	}
}

int jsonw_str(lbuf *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	char *o;

	if (!plain_ready)
		plain_init();
	/* Worst case 6 output bytes per input byte (\u00XX), plus quotes. */
	if (len > ((size_t)-1 - 2) / 6 || lbuf_grow(out, len * 6 + 2) < 0)
		return -1;
	o = out->data + out->len;
	*o++ = '"';
	while (i < len) {
		size_t run = i, k;

		while (run < len && plain[s[run]])
			run++;
		memcpy(o, s + i, run - i);
		o += run - i;
		i = run;
		if (i == len)
			break;
		if (s[i] < 0x80) {
			o += esc_ascii(o, s[i++]);
		} else if ((k = utf8_len(s + i, len - i)) > 0) {
			memcpy(o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);   /* U+FFFD */
			o += 3;
			i++;
		}
	}
	*o++ = '"';
	out->len = (size_t)(o - out->data);
	out->data[out->len] = '\0';
	return 0;
}

int jsonw_strz(lbuf *out, const char *s)
{
	return s ? jsonw_str(out, s, strlen(s)) : lbuf_add(out, "\"\"", 2);
}

int jsonw_int(lbuf *out, int64_t v)
{
	char tmp[24], *p = tmp + sizeof tmp;
	/* Work in unsigned so INT64_MIN negates without overflow. */
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	return lbuf_add(out, p, (size_t)(tmp + sizeof tmp - p));
}

int jsonw_key(lbuf *out, const char *key)
{
	if (jsonw_strz(out, key) < 0)
		return -1;
	return lbuf_addc(out, ':');
}

/* ,"key":value pairs; the literal keys need no escaping. */
static int kv_int(lbuf *out, const char *lit, int64_t v)
{
	return lbuf_adds(out, lit) < 0 ? -1 : jsonw_int(out, v);
}

static int kv_str(lbuf *out, const char *lit, const char *s)
{
	return lbuf_adds(out, lit) < 0 ? -1 : jsonw_strz(out, s);
}

int lirs_record_to_json(lbuf *out, const lirs_record *r)
{
	if (kv_int(out, "{\"last_modified\":", r->last_modified) < 0 ||
	    kv_int(out, ",\"last_detected\":", r->last_detected) < 0 ||
	    kv_int(out, ",\"tz_offset\":", r->tz_offset) < 0 ||
	    kv_int(out, ",\"content_length\":", r->content_length) < 0 ||
	    kv_str(out, ",\"url\":", r->url) < 0 ||
	    kv_str(out, ",\"title\":", r->title) < 0 ||
	    kv_str(out, ",\"author\":", r->author) < 0 ||
	    kv_str(out, ",\"source_url\":", r->source_url) < 0 ||
	    kv_str(out, ",\"extension\":", r->extension) < 0)
		return -1;
	if (r->nextra > 0) {
		if (lbuf_adds(out, ",\"extra\":[") < 0)
			return -1;
		for (size_t i = 0; i < r->nextra; i++)
			if ((i && lbuf_addc(out, ',') < 0) || jsonw_strz(out, r->extra[i]) < 0)
				return -1;
		if (lbuf_addc(out, ']') < 0)
			return -1;
	}
	return lbuf_addc(out, '}');
}

/* ---- reading ------------------------------------------------------------ */

static const char *const int_keys[] = {
	"last_modified", "last_detected", "tz_offset", "content_length",
};
static const char *const str_keys[] = {
	"url", "title", "author", "source_url", "extension",
};

static int64_t *int_slot(lirs_record *r, size_t i)
{
	int64_t *slots[] = { &r->last_modified, &r->last_detected,
			     &r->tz_offset, &r->content_length };
	return slots[i];
}

static char **str_slot(lirs_record *r, size_t i)
{
	char **slots[] = { &r->url, &r->title, &r->author, &r->source_url,
			   &r->extension };
	return slots[i];
}

static int get_ints(lirs_record *r, json_t *root, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof int_keys / sizeof *int_keys; i++) {
		json_t *v = json_object_get(root, int_keys[i]);
		if (!v || json_is_null(v))
			continue;
		if (!json_is_integer(v)) {
			snprintf(err, errlen, "'%s' is not an integer", int_keys[i]);
			return -1;
		}
		*int_slot(r, i) = (int64_t)json_integer_value(v);
	}
	return 0;
}

static int get_strs(lirs_record *r, json_t *root, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof str_keys / sizeof *str_keys; i++) {
		json_t *v = json_object_get(root, str_keys[i]);
		if (!v || json_is_null(v))
			continue;
		if (!json_is_string(v)) {
			snprintf(err, errlen, "'%s' is not a string", str_keys[i]);
			return -1;
		}
		*str_slot(r, i) = (char *)json_string_value(v);
	}
	return 0;
}

static int get_extra(lirs_json_record *jr, json_t *root, char *err, size_t errlen)
{
	json_t *a = json_object_get(root, "extra");
	size_t n;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a)) {
		snprintf(err, errlen, "'extra' is not an array");
		return -1;
	}
	n = json_array_size(a);
	if (n == 0)
		return 0;
	jr->extra_ = calloc(n, sizeof *jr->extra_);
	if (!jr->extra_) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(a, i);
		if (!json_is_string(v)) {
			snprintf(err, errlen, "'extra' item %zu is not a string", i + 1);
			return -1;
		}
		jr->extra_[i] = (char *)json_string_value(v);
	}
	jr->rec.extra = jr->extra_;
	jr->rec.nextra = n;
	return 0;
}

int lirs_record_from_json(lirs_json_record *jr, const char *text, size_t len,
			  unsigned long *col, char *err, size_t errlen)
{
	static char empty[1];
	json_error_t je;
	json_t *root;

	memset(jr, 0, sizeof *jr);
	*col = 0;
	for (size_t i = 0; i < sizeof str_keys / sizeof *str_keys; i++)
		*str_slot(&jr->rec, i) = empty;
	/* A key given twice: the last one wins, as in jq and most JSON tools
	 * (RFC 8259 §4 leaves it open).  JSON_REJECT_DUPLICATES would refuse
	 * it, but costs `lirs pack` a tenth of its time. */
	root = json_loadb(text, len, 0, &je);
	if (!root) {
		*col = je.column > 0 ? (unsigned long)je.column : 0;
		snprintf(err, errlen, "invalid JSON: %s", je.text);
		return -1;
	}
	jr->doc_ = root;
	if (!json_is_object(root)) {
		snprintf(err, errlen, "not a JSON object");
		goto fail;
	}
	if (get_ints(&jr->rec, root, err, errlen) < 0 ||
	    get_strs(&jr->rec, root, err, errlen) < 0 ||
	    get_extra(jr, root, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	lirs_json_record_release(jr);
	return -1;
}

void lirs_json_record_release(lirs_json_record *jr)
{
	if (jr->doc_)
		json_decref((json_t *)jr->doc_);
	free(jr->extra_);
	memset(jr, 0, sizeof *jr);
}
