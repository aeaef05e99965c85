/*
 * robots.c: the robots.txt parser and matcher (RFC 9309), no I/O.
 *
 * One pass over the lines keeps only the rules of the groups that name our
 * product token, and of the '*' groups apart, so memory is the rules that
 * apply (at most max_bytes of them).  Patterns are normalised once
 * (§2.2.2) and split at '*' when matched: each literal piece is found
 * leftmost after the one before (memmem), which is exact for patterns
 * whose only wildcard is '*', in time linear in the path per rule, so a
 * hostile file of 500 KiB of stars costs no more than reading it.
 */
#include "ant_robots.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lb_buf.h"
#include "lb_url.h"

struct rule {
	char *pat;               /* normalised */
	size_t len;
	size_t line;
	int allow;
};

struct rules {
	struct rule *v;
	size_t n, cap;
};

struct ant_robots {
	struct rules r;
	int all;                 /* -1 rules, 1 allow all, 0 disallow all */
};

/* ---- normalisation (§2.2.2) --------------------------------------------- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int unreserved(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

char *ant_robots_normalise(const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	lb_buf b = LB_BUF_INIT;
	int bad = 0;

	for (size_t i = 0; i < n && !bad; i++) {
		unsigned char c = (unsigned char)s[i];
		int h = -1, l = -1;
		if (c == '%' && n - i > 2 && (h = hexval(s[i + 1])) >= 0 && (l = hexval(s[i + 2])) >= 0) {
			/* an unreserved octet encoded is the same URL written plainly */
			char e[3] = { '%', hex[h], hex[l] };
			bad = unreserved(h * 16 + l) ? lb_buf_addc(&b, h * 16 + l) : lb_buf_add(&b, e, 3);
			i += 2;
		} else if (c <= 0x20 || c >= 0x7f) {
			/* UTF-8 (and any other octet) is compared percent-encoded */
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			bad = lb_buf_add(&b, e, 3);
		} else
			bad = lb_buf_addc(&b, c);
	}
	if (bad || lb_buf_grow(&b, 1) < 0) {
		lb_buf_release(&b);
		return NULL;
	}
	return lb_buf_detach(&b, NULL);
}

/* ---- the rules ------------------------------------------------------------ */

static int rules_add(struct rules *r, const char *v, size_t n, size_t line, int allow)
{
	struct rule *x;
	char *pat;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		if (!(x = realloc(r->v, cap * sizeof *x)))
			return LB_ENOMEM;
		r->v = x;
		r->cap = cap;
	}
	/* A pattern is a path (§2.2.2: it starts with "/"); one written
	 * without, "Disallow: private", is read as the crawlers read it. */
	if (*v != '/' && *v != '*') {
		char *t = malloc(n + 2);
		if (!t)
			return LB_ENOMEM;
		t[0] = '/';
		memcpy(t + 1, v, n);
		pat = ant_robots_normalise(t, n + 1);
		free(t);
	} else
		pat = ant_robots_normalise(v, n);
	if (!pat)
		return LB_ENOMEM;
	r->v[r->n++] = (struct rule){ pat, strlen(pat), line, allow };
	return 0;
}

static void rules_release(struct rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].pat);
	free(r->v);
	memset(r, 0, sizeof *r);
}

ant_robots *ant_robots_all(int allow)
{
	ant_robots *r = calloc(1, sizeof *r);

	if (r)
		r->all = allow ? 1 : 0;
	return r;
}

void ant_robots_free(ant_robots *r)
{
	if (!r)
		return;
	rules_release(&r->r);
	free(r);
}

/* ---- parsing (§2.2) -------------------------------------------------------- */

struct parse {
	const char *agent;
	size_t alen;
	struct rules ours, star;
	int in_agents;           /* the last record line was a user-agent */
	int cur_ours, cur_star;  /* the current group applies */
	int seen_ours, seen_star;
	ant_robots_info info;
};

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* Does the user-agent value v[0..n) name our product token?  Its token is
 * the leading identifier (§2.2.1: ALPHA, "-" and "_"), so "lirs-antenna/1.0"
 * names it too, matched case-insensitively. */
static int names_us(const struct parse *p, const char *v, size_t n)
{
	size_t k = 0;

	while (k < n && (isalpha((unsigned char)v[k]) || v[k] == '-' || v[k] == '_'))
		k++;
	return k == p->alen && strncasecmp(v, p->agent, k) == 0;
}

static int key_is(const char *k, size_t n, const char *want)
{
	return n == strlen(want) && strncasecmp(k, want, n) == 0;
}

/* One line s[0..n), comment and all; line is its 1-based number. */
static int parse_line(struct parse *p, const char *s, size_t n, size_t line)
{
	const char *hash = memchr(s, '#', n), *colon, *v;
	size_t kn, vn;

	if (hash)
		n = (size_t)(hash - s);
	if (!(colon = memchr(s, ':', n)))
		return 0;   /* an empty line, a comment, or not a record */
	while (n && is_blank(*s))
		s++, n--;
	colon = memchr(s, ':', n);
	for (kn = (size_t)(colon - s); kn && is_blank(s[kn - 1]); kn--)
		;
	v = colon + 1;
	vn = n - (size_t)(v - s);
	while (vn && is_blank(*v))
		v++, vn--;
	while (vn && is_blank(v[vn - 1]))
		vn--;
	if (key_is(s, kn, "user-agent")) {
		if (!p->in_agents) {
			p->info.groups++;
			p->cur_ours = p->cur_star = 0;
		}
		p->in_agents = 1;
		if (vn && *v == '*')
			p->cur_star = p->seen_star = 1;
		else if (names_us(p, v, vn))
			p->cur_ours = p->seen_ours = 1;
		return 0;
	}
	if (key_is(s, kn, "allow") || key_is(s, kn, "disallow")) {
		int allow = kn == 5, rc = 0;
		p->in_agents = 0;
		/* an empty pattern matches nothing (§2.2.2) */
		if (!vn)
			return 0;
		if (p->cur_ours)
			rc = rules_add(&p->ours, v, vn, line, allow);
		if (rc == 0 && p->cur_star)
			rc = rules_add(&p->star, v, vn, line, allow);
		return rc;
	}
	return 0;   /* other records (sitemap, crawl-delay, unknown): §2.2.4 */
}

/* How much of body to read: at most max bytes, and then not the line the
 * limit cuts (half a "Disallow: /private" would disallow more). */
static size_t parsed_len(const char *body, size_t len, size_t max, int *truncated)
{
	*truncated = len > max;
	if (len <= max)
		return len;
	if (body[max] == '\n' || body[max] == '\r')
		return max;
	while (max && body[max - 1] != '\n' && body[max - 1] != '\r')
		max--;
	return max;
}

int ant_robots_parse(const char *body, size_t len, const char *agent, size_t max_bytes,
		     ant_robots **out, ant_robots_info *info)
{
	struct parse p = { .agent = agent ? agent : ANT_ROBOTS_PRODUCT };
	size_t i = 0, line = 0, end;
	int rc = 0;

	*out = NULL;
	p.alen = strlen(p.agent);
	end = parsed_len(body, len, max_bytes ? max_bytes : ANT_ROBOTS_MAX_BYTES, &p.info.truncated);
	if (end >= 3 && memcmp(body, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	while (i < end && rc == 0) {
		size_t j = i;
		while (j < end && body[j] != '\n' && body[j] != '\r')
			j++;
		rc = parse_line(&p, body + i, j - i, ++line);
		/* CRLF is one line end, CR alone and LF alone too */
		if (j < end && body[j] == '\r' && j + 1 < end && body[j + 1] == '\n')
			j++;
		i = j + 1;
	}
	p.info.lines = line;
	if (rc == 0 && !(*out = calloc(1, sizeof **out)))
		rc = LB_ENOMEM;
	if (rc < 0) {
		rules_release(&p.ours);
		rules_release(&p.star);
		return rc;
	}
	/* §2.2.1: the groups naming our token, else the '*' groups, combined */
	(*out)->all = -1;
	(*out)->r = p.seen_ours ? p.ours : p.star;
	rules_release(p.seen_ours ? &p.star : &p.ours);
	p.info.matched = p.seen_ours ? 1 : p.seen_star ? 0 : -1;
	p.info.rules = (*out)->r.n;
	if (info)
		*info = p.info;
	return 0;
}

/* ---- matching (§2.2.2) ------------------------------------------------------ */

/* Does pattern pat[0..plen) ('*' any octets, a final '$' the end) match
 * the start of path[0..n)?  Each piece between stars is found leftmost
 * after the previous one: the leftmost place leaves the most room for
 * the rest, so this finds a match whenever there is one. */
static int match(const char *pat, size_t plen, const char *path, size_t n)
{
	int end = plen && pat[plen - 1] == '$';
	const char *star, *pe;
	size_t pos, k;

	if (end)
		plen--;
	pe = pat + plen;
	star = memchr(pat, '*', plen);
	k = star ? (size_t)(star - pat) : plen;
	if (k > n || memcmp(pat, path, k) != 0)
		return 0;
	if (!star)
		return !end || k == n;
	pos = k;
	for (pat = star + 1; (star = memchr(pat, '*', (size_t)(pe - pat))); pat = star + 1) {
		const char *f;
		k = (size_t)(star - pat);
		if (!k)
			continue;
		if (!(f = memmem(path + pos, n - pos, pat, k)))
			return 0;
		pos = (size_t)(f - path) + k;
	}
	/* the last piece */
	k = (size_t)(pe - pat);
	if (end)
		return n - pos >= k && memcmp(path + n - k, pat, k) == 0;
	return !k || memmem(path + pos, n - pos, pat, k) != NULL;
}

int ant_robots_allowed(const ant_robots *r, const char *path, ant_robots_rule *why)
{
	const struct rule *best = NULL;
	size_t n = strcspn(path, "#");
	char *norm;

	if (why)
		*why = (ant_robots_rule){ 1, 0, "" };
	if (r->all >= 0) {
		if (why)
			why->allow = r->all;
		return r->all;
	}
	if (n == 11 && memcmp(path, "/robots.txt", 11) == 0)
		return 1;
	if (*path != '/') {
		/* "" and "?q": the path of a URL without one is "/" */
		char *t = malloc(n + 2);
		if (t) {
			t[0] = '/';
			memcpy(t + 1, path, n);
			norm = ant_robots_normalise(t, n + 1);
			free(t);
		} else
			norm = NULL;
	} else
		norm = ant_robots_normalise(path, n);
	if (!norm)
		return 1;   /* out of memory: no verdict, the page is fetched */
	n = strlen(norm);
	for (size_t i = 0; i < r->r.n; i++) {
		const struct rule *x = &r->r.v[i];
		if (best && (x->len < best->len || (x->len == best->len && !x->allow)))
			continue;
		if (match(x->pat, x->len, norm, n))
			best = x;
	}
	free(norm);
	if (!best)
		return 1;
	if (why)
		*why = (ant_robots_rule){ best->allow, best->line, best->pat };
	return best->allow;
}

/* ---- origins ---------------------------------------------------------------- */

int ant_robots_origin(const char *url, char *out, size_t n, const char **path)
{
	size_t pre = lb_url_http_prefix(url), hl, i;
	const char *auth, *end, *host, *colon;
	unsigned port;

	if (!pre || !lb_url_is_http(url))
		return LB_EINVAL;
	auth = url + pre;
	end = auth + strcspn(auth, "/?#");
	/* userinfo is not part of the origin */
	host = auth;
	for (const char *q = auth; q < end; q++)
		if (*q == '@')
			host = q + 1;
	colon = NULL;
	for (const char *q = end; q > host; q--)
		if (q[-1] == ':') {
			colon = q - 1;
			break;
		} else if (q[-1] == ']')
			break;
	port = colon && colon + 1 < end ? (unsigned)strtoul(colon + 1, NULL, 10)
					: lb_url_http_port(url, pre - 3);
	hl = (size_t)((colon ? colon : end) - host);
	if (pre + hl + 7 > n)   /* ":", 5 digits, NUL */
		return LB_ETOOBIG;
	for (i = 0; i < pre; i++)
		out[i] = (char)tolower((unsigned char)url[i]);
	for (size_t k = 0; k < hl; k++)
		out[i++] = (char)tolower((unsigned char)host[k]);
	snprintf(out + i, n - i, ":%u", port);
	if (path)
		*path = end;
	return 0;
}

int ant_robots_excluded(ant_fail_kind kind)
{
	return kind == ANT_FAIL_ROBOTS;
}
