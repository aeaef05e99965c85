/*
 * page_jsonpath.c: the JSON paths of `--only json:...` and `--ignore
 * json:...` (ant_page.h): compiled into steps, and matched while the JSON
 * reader (page_json.c) walks the document, one node at a time.
 *
 * The subset of JSONPath (RFC 9535) taken:
 *   $            the document (every path starts with it)
 *   .key ['key'] ["key"]   a member of an object (in quotes: any name,
 *                a backslash escapes the quote or itself)
 *   [n]          an element of an array; [-1] is its last
 *   [*] .*       every member or element
 *   ..key ..*  ..[n] ..['key']   the same at any depth below
 * Filters ([?...]), slices ([0:2]) and unions ([0,1]) are refused with a
 * message, never read as something else.
 *
 * A path is a little automaton over the names on the way from the root to
 * a node: the states after a node are a bit set (bit i: the first i steps
 * are matched), the child's computed from its parent's and its own name
 * in one pass over the steps.  A descendant step (..) keeps its state
 * while the walk goes down, so `..` costs nothing more than any step:
 * time linear in the document times the steps, whatever the paths.
 */
#include "page_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { STEP_KEY, STEP_INDEX, STEP_ANY };

static int fail(lb_error *err, const char *what, const char *pattern, size_t at, const char *why)
{
	return lb_err(err, LB_EINVAL,
		      "bad %s pattern '%.200s': %s at byte %zu (a JSON path takes $ .key ['key'] [n] [*] ..key)",
		      what, pattern, why, at + 1);
}

/* A name after '.' or '..': up to the next '.', '[' or space. */
static size_t dot_name_len(const char *p)
{
	size_t n = 0;

	while (p[n] && p[n] != '.' && p[n] != '[' && !isspace((unsigned char)p[n]))
		n++;
	return n;
}

/* A quoted name in brackets at p (after the quote q) into names; the
 * length of the source read through the closing quote, 0 when unclosed. */
static size_t quoted_name(const char *p, char q, char *names, size_t *used)
{
	size_t i = 0;

	for (; p[i] && p[i] != q; i++) {
		if (p[i] == '\\' && (p[i + 1] == q || p[i + 1] == '\\'))
			i++;
		names[(*used)++] = p[i];
	}
	return p[i] == q ? i + 1 : 0;
}

/* One bracket "[...]" at p[0] == '[' into st; the bytes read, or 0 with err. */
static size_t bracket(const char *pat, const char *p, ant_page_jstep *st, char *names, size_t *used,
		      const char *what, lb_error *err)
{
	const char *q = p + 1;

	if (*q == '*' && q[1] == ']') {
		st->kind = STEP_ANY;
		return 3;
	}
	if (*q == '\'' || *q == '"') {
		size_t start = *used, k = quoted_name(q + 1, *q, names, used);

		if (!k || q[1 + k] != ']') {
			fail(err, what, pat, (size_t)(q - pat), "unclosed quoted name");
			return 0;
		}
		names[(*used)++] = '\0';
		st->kind = STEP_KEY;
		st->name = names + start;   /* made absolute by the caller */
		st->len = *used - 1 - start;
		return (size_t)(q + 1 + k + 1 - p);
	}
	if (*q == '-' || isdigit((unsigned char)*q)) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(q, &end, 10);
		if (end == q || (*q == '-' && end == q + 1) || errno == ERANGE || *end != ']') {
			fail(err, what, pat, (size_t)(end - pat),
			     *end == ':' ? "slices are not supported" : *end == ',' ? "unions are not supported"
									: "bad index");
			return 0;
		}
		st->kind = STEP_INDEX;
		st->index = v;
		return (size_t)(end + 1 - p);
	}
	fail(err, what, pat, (size_t)(q - pat), *q == '?' ? "filters are not supported" : "bad bracket");
	return 0;
}

void ant_page_jpath_release(ant_page_jpath *jp)
{
	free(jp->step);
	free(jp->names);
	memset(jp, 0, sizeof *jp);
}

int ant_page_jpath_compile(ant_page_jpath *jp, const char *pattern, const char *what, lb_error *err)
{
	const char *pat = pattern + 5, *p;   /* after "json:" */
	size_t used = 0;
	int rc = LB_EINVAL;

	memset(jp, 0, sizeof *jp);
	if (*pat != '$')
		return fail(err, what, pattern, 5, "a JSON path starts with '$'");
	jp->step = calloc(ANT_PAGE_JSON_MAX_STEPS, sizeof *jp->step);
	jp->names = malloc(strlen(pat) + 1 + ANT_PAGE_JSON_MAX_STEPS);
	if (!jp->step || !jp->names) {
		ant_page_jpath_release(jp);
		return lb_err_code(err, LB_ENOMEM);
	}
	for (p = pat + 1; *p;) {
		ant_page_jstep *st = &jp->step[jp->n];
		size_t k;

		if (jp->n == ANT_PAGE_JSON_MAX_STEPS) {
			fail(err, what, pattern, (size_t)(p - pattern), "too many steps (ANT_PAGE_JSON_MAX_STEPS)");
			goto out;
		}
		memset(st, 0, sizeof *st);
		if (p[0] == '.' && p[1] == '.') {
			st->desc = 1;
			p += 2;
			if (*p == '[')
				goto brk;
		} else if (*p == '.') {
			p++;
		} else if (*p == '[') {
brk:
			if (!(k = bracket(pattern, p, st, jp->names, &used, what, err)))
				goto out;
			p += k;
			jp->n++;
			continue;
		} else {
			fail(err, what, pattern, (size_t)(p - pattern), "expected '.' or '['");
			goto out;
		}
		if (*p == '*') {
			st->kind = STEP_ANY;
			p++;
		} else if ((k = dot_name_len(p)) > 0) {
			st->kind = STEP_KEY;
			st->name = jp->names + used;
			st->len = k;
			memcpy(jp->names + used, p, k);
			used += k;
			jp->names[used++] = '\0';
			p += k;
		} else {
			fail(err, what, pattern, (size_t)(p - pattern), "a name or '*' expected");
			goto out;
		}
		jp->n++;
	}
	return 0;
out:
	ant_page_jpath_release(jp);
	return rc;
}

/* Does step st take the child named key[0..klen) (key NULL: element
 * index of an array of alen)? */
static int step_takes(const ant_page_jstep *st, const char *key, size_t klen, size_t index, size_t alen)
{
	switch (st->kind) {
	case STEP_ANY:
		return 1;
	case STEP_KEY:
		return key && klen == st->len && memcmp(key, st->name, klen) == 0;
	default:
		if (key)
			return 0;
		return st->index >= 0 ? (unsigned long long)st->index == index
				      : (unsigned long long)-st->index <= alen &&
					index == alen - (size_t)-st->index;
	}
}

uint64_t ant_page_jpath_step(const ant_page_jpath *jp, uint64_t states, const char *key, size_t klen,
			     size_t index, size_t alen)
{
	uint64_t next = 0;

	for (size_t i = 0; i < jp->n; i++) {
		if (!(states & ((uint64_t)1 << i)))
			continue;
		if (jp->step[i].desc)   /* '..' looks on further down */
			next |= (uint64_t)1 << i;
		if (step_takes(&jp->step[i], key, klen, index, alen))
			next |= (uint64_t)1 << (i + 1);
	}
	return next;
}

int ant_page_jpath_matches(const ant_page_jpath *jp, uint64_t states)
{
	return (states >> jp->n) & 1;
}
