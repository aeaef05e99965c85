/*
 * t_notify: the notifications' messages (ant_notify.h) from hostile
 * digests: which targets are taken; a mail whose titles and excerpts hold
 * CR, LF, other controls and malformed UTF-8 keeps its header block
 * exactly (no line a title could add), every line within RFC 5322's 78,
 * each encoded word within RFC 2047's 75, a body that decodes to valid
 * UTF-8 with the excerpt clipped; decoded, the Subject (RFC 2047) and the
 * body hold no control byte and no line a title began (CR/LF in a title
 * kept would not show in the encoded header block); the webhook's JSON
 * holds no raw control, and read back with json-c gives an excerpt with
 * '"', '\\' and controls exactly.
 */
#include "ant_notify.h"
#include "lb_utf8.h"
#include "tap.h"
#include "ant_settings.h"

#include <json.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *t; int kind; } targets[] = {
	{ "mailto:me@example.org", ANT_TARGET_MAIL },
	{ "mailto:a.b+tag@mail.example.jp", ANT_TARGET_MAIL },
	{ "mailto:", LB_EINVAL },
	{ "mailto:me", LB_EINVAL },
	{ "mailto:@example.org", LB_EINVAL },
	{ "mailto:me@", LB_EINVAL },
	{ "mailto:a@b@c", LB_EINVAL },
	{ "mailto:Me <me@example.org>", LB_EINVAL },
	{ "mailto:a@example.org,b@example.org", LB_EINVAL },
	{ "mailto:a@example.org?bcc=b@example.org", LB_EINVAL },
	{ "mailto:a@example.org\r\nBcc:b@example.org", LB_EINVAL },
	{ "mailto:a@example.org\n", LB_EINVAL },
	{ "http://127.0.0.1:8080/hook", ANT_TARGET_WEBHOOK },
	{ "https://chat.example/hooks/x?token=1", ANT_TARGET_WEBHOOK },
	{ "http://", LB_EINVAL },
	{ "http:///path", LB_EINVAL },
	{ "https://ex ample/", LB_EINVAL },
	{ "https://example/\r\nX: y", LB_EINVAL },
	{ "ftp://example/", LB_EINVAL },
	{ "me@example.org", LB_EINVAL },
};

static int64_t decode64(const char *s, size_t n, unsigned char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned v = 0, bits = 0;
	int64_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const char *p = strchr(a, s[i]);
		if (s[i] == '\r' || s[i] == '\n' || s[i] == '=')
			continue;
		if (!p || !s[i])
			return -1;
		v = v << 6 | (unsigned)(p - a);
		if ((bits += 6) >= 8) {
			out[k++] = (unsigned char)(v >> (bits - 8));
			bits -= 8;
		}
	}
	return k;
}

/* The header block: each line a known field or a continuation (" ...");
 * all within 78; every encoded word within 75.  The fields, in order. */
static void check_headers(const char *m, size_t hdr_len)
{
	static const char *const want[] = { "From", "To", "Subject", "Date", "Message-ID",
					    "MIME-Version", "Content-Type",
					    "Content-Transfer-Encoding", "Auto-Submitted" };
	size_t nf = 0, longest = 0, longest_ew = 0;
	int bad = 0;

	for (const char *l = m; l < m + hdr_len;) {
		const char *e = strstr(l, "\r\n"), *w;
		size_t n = (size_t)(e - l);
		if (n > longest)
			longest = n;
		if (*l != ' ') {
			if (nf < 9 && !strncmp(l, want[nf], strlen(want[nf])) && l[strlen(want[nf])] == ':')
				nf++;
			else
				bad = 1;
		}
		for (w = l; (w = strstr(w, "=?")) && w < e;) {
			const char *end = strstr(w + 10, "?=");
			if (end && (size_t)(end + 2 - w) > longest_ew)
				longest_ew = (size_t)(end + 2 - w);
			w = end ? end + 2 : e;
		}
		l = e + 2;
	}
	OK(!bad && nf == 9, "the header block is the 9 fields in order, nothing added by a title");
	OK(longest <= 78, "header lines within 78 (longest %zu)", longest);
	OK(longest_ew > 0 && longest_ew <= 75, "encoded words within 75 (longest %zu)", longest_ew);
}

/* The header field name's value decoded: its encoded words "=?UTF-8?B?...?="
 * over its continuation lines, joined, into out (NUL-terminated); the
 * length, -1 if none. */
static int64_t decode_field(const char *m, size_t hdr_len, const char *name, unsigned char *out)
{
	size_t nl = strlen(name);
	int64_t k = -1;

	for (const char *l = m; l < m + hdr_len;) {
		const char *e = strstr(l, "\r\n");
		if (!strncmp(l, name, nl) && l[nl] == ':') {
			k = 0;
			do {
				for (const char *w = l; (w = strstr(w, "=?UTF-8?B?")) && w < e;) {
					const char *end = strstr(w + 10, "?=");
					int64_t n = end ? decode64(w + 10, (size_t)(end - w - 10), out + k) : -1;
					if (n < 0)
						return -1;
					k += n;
					w = end + 2;
				}
				l = e + 2;
				e = strstr(l, "\r\n");
			} while (*l == ' ');
			out[k] = '\0';
			return k;
		}
		l = e + 2;
	}
	return k;
}

/* No control byte in s but CRLF pairs (crlf) or none at all; no line of
 * it that begins with a header a title tried to add. */
static int clean_text(const char *s, int crlf)
{
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (crlf && c == '\r' && p[1] == '\n') {
			p++;
			if (!strncmp(p + 1, "Subject:", 8) || !strncmp(p + 1, "Bcc:", 4) ||
			    !strncmp(p + 1, "X-Evil:", 7))
				return 0;
			continue;
		}
		if (c < ' ' || c == 0x7f)
			return 0;
	}
	return 1;
}

static void check_mail(const ant_notify_opts *o, const ant_notify_digest *d)
{
	lb_buf m = LB_BUF_INIT;
	const char *sep;
	unsigned char *body;
	int64_t n;
	size_t longest = 0;

	IS_INT(ant_notify_mail(&m, o, d, "me@example.org"), 0, "the mail is built");
	sep = strstr(m.data, "\r\n\r\n");
	OK(sep != NULL, "a header block, then the body");
	if (!sep)
		return;
	check_headers(m.data, (size_t)(sep - m.data) + 2);
	{
		unsigned char *subj = malloc(m.len);
		int64_t k = decode_field(m.data, (size_t)(sep - m.data) + 2, "Subject", subj);

		OK(k > 0 && lb_utf8_valid((const char *)subj, (size_t)k) &&
		   strstr((char *)subj, "Bcc: evil@example.org") && strstr((char *)subj, "更新 100 件"),
		   "the Subject decodes (RFC 2047) to the title and the count");
		OK(k > 0 && clean_text((char *)subj, 0) && !memchr(subj, '\0', (size_t)k),
		   "... with no CR, LF or other control byte from the title");
		k = decode_field(m.data, (size_t)(sep - m.data) + 2, "From", subj);
		OK(k > 0 && clean_text((char *)subj, 0), "the From name decodes with no control byte");
		free(subj);
	}
	for (const char *l = sep + 4; *l;) {
		const char *e = strstr(l, "\r\n");
		if (!e)
			break;
		if ((size_t)(e - l) > longest)
			longest = (size_t)(e - l);
		l = e + 2;
	}
	OK(longest <= 76, "base64 lines within 76 (longest %zu)", longest);
	OK(!strchr(sep + 4, '\n') || strstr(sep + 4, "\r\n"), "CRLF line ends");
	body = malloc(m.len);
	n = decode64(sep + 4, strlen(sep + 4), body);
	OK(n > 0 && lb_utf8_valid((const char *)body, (size_t)n), "the body decodes to valid UTF-8");
	if (n > 0) {
		body[n] = '\0';   /* n < m.len: base64 decodes shorter */
		OK(clean_text((char *)body, 1) && strstr((char *)body, "Subject: injected"),
		   "the body: a title's CR/LF as spaces, no control byte, no line it began");
		body[n - 1] = '\0';
		OK(strstr((char *)body, "ほか 90 件") != NULL, "ja: the rest counted (ほか 90 件)");
		OK(strstr((char *)body, "…") != NULL, "a long excerpt clipped, the cut marked");
		OK(strlen((char *)body) < 10 * (2100 + 3 * ANT_NOTIFY_EXCERPT_CHARS + 200),
		   "the body is bounded by the items listed (%zu bytes)", strlen((char *)body));
	}
	free(body);
	lb_buf_release(&m);
}

int main(void)
{
	enum { N = 10 };
	ant_notify_item items[N];
	char title[600], *excerpt = malloc(30001);
	ant_notify_digest d = { items, N, 90, 100 };
	ant_notify_opts o = { .now = 1795000000, .tz = ANT_TZ_JST, .lang = "ja",
			      .title = "日記\r\nBcc: evil@example.org アンテナ\x01\x7f\xff",
			      .base = "https://example.jp/a/", .from = "antenna@example.jp",
			      .max_listed = N };
	lb_buf j = LB_BUF_INIT;
	int raw = 0;

	TAP_PLAN(sizeof targets / sizeof *targets + 21);
	for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
		int k = ant_target_kind(targets[i].t, NULL);
		IS_INT(k < 0 ? LB_EINVAL : k, targets[i].kind, "target %zu taken as it should", i);
	}
	/* titles 512 bytes with CR/LF and malformed bytes, excerpts of 10000 characters */
	memset(title, 'x', sizeof title);
	memcpy(title, "猫\r\nSubject: injected\r\n\r\n\xc3\x28", 28);
	title[512] = '\0';
	for (int i = 0; i < 10000; i++)
		memcpy(excerpt + 3 * i, "あ", 3);
	excerpt[30000] = '\0';
	for (int i = 0; i < N; i++)
		items[i] = (ant_notify_item){ .url = "https://example.jp/\r\nX-Evil: 1", .title = title,
					      .excerpt = excerpt, .source = "https://example.jp/",
					      .method = "text", .last_modified = 1795000000 - i,
					      .last_detected = 1795000000 };
	check_mail(&o, &d);
	/* an antenna without a title: From is the address alone */
	o.title = "";
	IS_INT(ant_notify_mail(&j, &o, &d, "me@example.org"), 0, "a mail from an antenna with no title");
	{
		static const char want[] = "From: <antenna@example.jp>\r\nTo: <me@example.org>\r\n"
					   "Subject: =?UTF-8?B?";
		OK(!strncmp(j.data, want, sizeof want - 1), "... From: is the address alone, the subject encoded");
	}
	lb_buf_reset(&j);
	o.title = "日記アンテナ";
	IS_INT(ant_notify_json(&j, &o, &d), 0, "the webhook's JSON is built");
	for (size_t i = 0; i < j.len - 1; i++)
		raw |= (unsigned char)j.data[i] < ' ';
	OK(!raw && lb_utf8_valid(j.data, j.len), "the JSON holds no raw control byte and is valid UTF-8");
	/* an excerpt with '"', '\\' and controls, read back by json-c */
	{
		static char hostile[] = "say \"hi\" \\ back\\\"\r\nX: 1\t\x01\x1f\x7f end";
		json_object *doc, *u, *it, *ex;

		items[0].excerpt = hostile;
		d.n = 1;
		lb_buf_reset(&j);
		IS_INT(ant_notify_json(&j, &o, &d), 0, "a JSON with a hostile excerpt is built");
		doc = json_tokener_parse(j.data);
		OK(doc && json_object_object_get_ex(doc, "updates", &u) &&
		   (it = json_object_array_get_idx(u, 0)) && json_object_object_get_ex(it, "excerpt", &ex) &&
		   !strcmp(json_object_get_string(ex), hostile),
		   "... json-c parses it and gives the excerpt back exactly");
		json_object_put(doc);
	}
	lb_buf_release(&j);
	free(excerpt);
	TAP_DONE();
}
