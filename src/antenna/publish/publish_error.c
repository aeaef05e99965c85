/*
 * publish_error.c: a page's last error in the words of index.html's
 * language (priv/publish_error.h).
 *
 * update stores what went wrong in full ("cannot resolve host: Could not
 * resolve host: example.jp", "TLS handshake failed: OpenSSL/3.0.19:
 * error:0A00010B..."): the operator needs it, in 'antenna show'.  A visitor
 * needs to know only that the page could not be read, and roughly why, in
 * the page's language.  The stored text begins with the words fetch.c
 * gives each kind of failure (ANT_FETCH_ERR_*, its kind_text() and
 * say_what_happened()), so the kind is read back from that beginning.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "publish_error.h"

/* One row per kind: the beginnings of the texts fetch.c writes for it,
 * then the phrase in each language ("%s" in TOO_BIG's: the limit, "8 MiB"). */
static const struct {
	const char *prefix[6];
	const char *ja, *en;
} phrase_tab[] = {
	{ { "gone " }, "ページがなくなりました", "the page is gone" },   /* ant_pagestate.h */
	{ { "cannot resolve host" }, "サーバが見つかりません", "server not found" },
	{ { "connection refused", "host unreachable", "cannot connect" },
	  "接続できません", "cannot connect" },
	{ { "timed out" }, "時間切れ", "timed out" },
	{ { "TLS ", "tls error" }, "TLS エラー", "TLS error" },
	{ { "body too big" }, "%s を超えました", "over %s" },
	{ { "response header too large" }, "ヘッダが大きすぎます", "header too large" },
	{ { "too many redirects" }, "転送が多すぎます", "too many redirects" },
	{ { "protocol not allowed" }, "扱えない URL です", "URL scheme not allowed" },
	{ { "empty reply", "connection broken", "answer cut short", "not an HTTP answer",
	    "cannot decode the Content-Encoding", "HTTP/2 protocol error" },
	  "読み込みに失敗しました", "transfer failed" },
	{ { "transfer failed", "malformed URL" }, "読み込みに失敗しました", "transfer failed" },
	{ { "deferred" }, "サーバの求めにより待機中です", "waiting, as the server asked" },
};

/* "over 8388608 bytes" in the text: the limit as "8 MiB" (KiB below a
 * MiB, bytes below a KiB; one decimal when not whole), into m. */
static void limit_size(char *m, size_t n, const char *error)
{
	const char *o = strstr(error, "over ");
	unsigned long long v = o ? strtoull(o + 5, NULL, 10) : 0;
	unsigned long long u = v >= 1024 * 1024 ? 1024 * 1024 : v >= 1024 ? 1024 : 1;
	const char *unit = u == 1 ? "bytes" : u == 1024 ? "KiB" : "MiB";

	if (v % u == 0)
		snprintf(m, n, "%llu %s", v / u, unit);
	else
		snprintf(m, n, "%.1f %s", (double)v / (double)u, unit);
}

const char *ant_pub_error_phrase(char *b, size_t n, const char *error, const char *lang)
{
	int ja = !lang || strcmp(lang, "en") != 0;
	char size[48];

	for (size_t i = 0; i < sizeof phrase_tab / sizeof *phrase_tab; i++)
		for (size_t j = 0; j < 6 && phrase_tab[i].prefix[j]; j++) {
			const char *p = phrase_tab[i].prefix[j];
			if (strncmp(error, p, strlen(p)) != 0)
				continue;
			limit_size(size, sizeof size, error);
			/* the format is the table's own, one "%s" at most */
			snprintf(b, n, ja ? phrase_tab[i].ja : phrase_tab[i].en, size);
			return b;
		}
	return error;   /* "404 Not Found", "HTTP status 599", or our own words */
}
