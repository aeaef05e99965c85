/*
 * json.c: the one JSON writer (lb_json.h), hand-made because it is on the
 * hot path of `lirs cat --format jsonl`.
 */
#include "lb_json.h"

#include <string.h>

#include "lb_error.h"
#include "lb_utf8.h"

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

int lb_json_str(lb_buf *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	char *o;

	if (!plain_ready)
		plain_init();
	/* Worst case 6 output bytes per input byte (\u00XX), plus quotes. */
	if (len > ((size_t)-1 - 2) / 6 || lb_buf_grow(out, len * 6 + 2) < 0)
		return LB_ENOMEM;
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
		} else if ((k = lb_utf8_len(str + i, len - i)) > 0) {
			memcpy(o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(o, LB_UTF8_FFFD, 3);
			o += 3;
			i++;
		}
	}
	*o++ = '"';
	out->len = (size_t)(o - out->data);
	out->data[out->len] = '\0';
	return 0;
}

int lb_json_strz(lb_buf *out, const char *s)
{
	return s ? lb_json_str(out, s, strlen(s)) : lb_buf_add(out, "\"\"", 2);
}

int lb_json_int(lb_buf *out, int64_t v)
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
	return lb_buf_add(out, p, (size_t)(tmp + sizeof tmp - p));
}

int lb_json_strz_or_null(lb_buf *out, const char *s)
{
	return s ? lb_json_strz(out, s) : lb_buf_adds(out, "null");
}

int lb_json_key(lb_buf *out, const char *key)
{
	if (lb_json_strz(out, key) < 0)
		return LB_ENOMEM;
	return lb_buf_addc(out, ':');
}

int lb_json_lines(lb_buf *out, const char *v)
{
	if (lb_buf_addc(out, '[') < 0)
		return LB_ENOMEM;
	for (int first = 1; v && *v; first = 0) {
		size_t n = strcspn(v, "\n");
		if ((!first && lb_buf_addc(out, ',') < 0) || lb_json_str(out, v, n) < 0)
			return LB_ENOMEM;
		v += n + (v[n] == '\n');
	}
	return lb_buf_addc(out, ']');
}

int lb_json_next_key(lb_buf *out, const char *key)
{
	return lb_buf_addc(out, ',') < 0 ? LB_ENOMEM : lb_json_key(out, key);
}

int lb_json_next_int(lb_buf *out, const char *key, int64_t v)
{
	return lb_json_next_key(out, key) < 0 ? LB_ENOMEM : lb_json_int(out, v);
}

int lb_json_next_bool(lb_buf *out, const char *key, int v)
{
	return lb_json_next_key(out, key) < 0 ? LB_ENOMEM : lb_buf_adds(out, v ? "true" : "false");
}

int lb_json_next_strz_or_null(lb_buf *out, const char *key, const char *s)
{
	return lb_json_next_key(out, key) < 0 ? LB_ENOMEM : lb_json_strz_or_null(out, s);
}

int lb_json_next_lines(lb_buf *out, const char *key, const char *s)
{
	return lb_json_next_key(out, key) < 0 ? LB_ENOMEM : lb_json_lines(out, s);
}
