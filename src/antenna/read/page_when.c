/*
 * page_when.c: the --when patterns (ant_when.h) over what an update
 * added, with the --ignore/--only expressions' bounds (page_pattern.c).
 */
#include "ant_when.h"
#include "ant_page.h"
#include "page_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is p "#name" or ".name", which --ignore reads as a selector?  Such a
 * pattern has no repetition: nothing to size-check. */
static int selector_like(const char *p)
{
	if ((p[0] != '#' && p[0] != '.') || !p[1])
		return 0;
	for (const unsigned char *q = (const unsigned char *)p + 1; *q; q++)
		if (!(isalnum(*q) || *q == '-' || *q == '_' || *q >= 0x80))
			return 0;
	return 1;
}

/*
 * One pattern compiled as an expression whatever it looks like: "#word"
 * is text here.  Another kind the --ignore patterns may know (a prefix
 * such as "css:") is compiled as the group "(pattern)", which matches
 * the same text and is size-checked as any expression.
 */
static int compile_one(ant_page_patterns *ps, const char *const *pat, lb_error *err)
{
	const char *grouped[1];
	char *g;
	int rc;

	if (selector_like(pat[0])) {
		memset(ps, 0, sizeof *ps);
		ps->re = calloc(1, sizeof *ps->re);
		ps->kind = calloc(1, 1);
		ps->ctx = calloc(1, 1);
		if (!ps->re || !ps->kind || !ps->ctx || regcomp(&ps->re[0], pat[0], REG_EXTENDED) != 0) {
			free(ps->re);
			free(ps->kind);
			free(ps->ctx);
			memset(ps, 0, sizeof *ps);
			return lb_err(err, LB_ENOMEM, "when pattern '%.200s': out of memory", pat[0]);
		}
		ps->pat = pat;
		ps->n = 1;
		ps->what = "when";
		ps->kind[0] = ANT_PAGE_PAT_REGEX;
		ps->nregex = 1;
		return 0;
	}
	if ((rc = ant_page_patterns_compile(ps, pat, 1, "when", err)) < 0 || ps->kind[0] == ANT_PAGE_PAT_REGEX)
		return rc;
	ant_page_patterns_release(ps);
	if (!(g = malloc(strlen(pat[0]) + 3)))
		return lb_err_code(err, LB_ENOMEM);
	sprintf(g, "(%s)", pat[0]);
	grouped[0] = g;
	rc = ant_page_patterns_compile(ps, grouped, 1, "when", err);
	ps->pat = pat;   /* messages name the pattern as given */
	free(g);
	if (rc == 0 && ps->kind[0] != ANT_PAGE_PAT_REGEX) {
		ant_page_patterns_release(ps);
		rc = lb_err(err, LB_EINVAL, "bad when pattern '%.200s'", pat[0]);
	}
	return rc;
}

int ant_when_check(const char *pattern, lb_error *err)
{
	ant_page_patterns ps;
	const char *pat[1] = { pattern };
	int rc;

	if (!pattern || !*pattern)
		return lb_err(err, LB_EINVAL, "empty when pattern");
	if (strchr(pattern, '\n'))
		return lb_err(err, LB_EINVAL, "a when pattern cannot contain a newline");
	if ((rc = compile_one(&ps, pat, err)) < 0)
		return rc;
	ant_page_patterns_release(&ps);
	return 0;
}

void ant_when_nth(const char *pats, size_t index, char *buf, size_t n)
{
	const char *s = pats ? pats : "";
	size_t len;

	for (; index && *s; index--) {
		const char *e = strchr(s, '\n');
		s = e ? e + 1 : s + strlen(s);
	}
	len = strcspn(s, "\n");
	if (len >= n)
		len = n - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
}

/* Does pattern (len bytes of a line) match in text?  1, 0, or < 0. */
static int one(const char *line, size_t llen, const char *text, size_t len, ant_page_budget *b,
	       lb_error *err)
{
	ant_page_patterns ps;
	ant_page_only_iter it;
	char *pat = malloc(llen + 1);
	const char *v[1];
	size_t so, eo;
	int rc;

	if (!pat)
		return lb_err_code(err, LB_ENOMEM);
	memcpy(pat, line, llen);
	pat[llen] = '\0';
	v[0] = pat;
	if ((rc = compile_one(&ps, v, err)) < 0) {
		free(pat);
		return rc;
	}
	if ((rc = ant_page_only_begin(&it, &ps, text, len)) == 0) {
		rc = ant_page_only_next(&it, b, &so, &eo, err);
		ant_page_only_end(&it);
	} else {
		rc = lb_err_code(err, rc);
	}
	ant_page_patterns_release(&ps);
	free(pat);
	return rc;
}

int ant_when_match(const char *pats, const char *text, size_t len, double seconds, size_t *hit,
		   lb_error *err)
{
	ant_page_budget b;
	const char *s = pats ? pats : "";
	size_t i = 0;

	if (len > ANT_WHEN_TEXT_MAX)
		len = ANT_WHEN_TEXT_MAX;
	ant_page_budget_start(&b, seconds);
	while (*s) {
		size_t llen = strcspn(s, "\n");
		int rc = llen ? one(s, llen, text ? text : "", text ? len : 0, &b, err) : 0;

		if (rc < 0)
			return rc;
		if (rc > 0) {
			*hit = i;
			return 1;
		}
		s += llen + (s[llen] == '\n');
		i++;
	}
	return 0;
}
