/*
 * page_pattern.c: the operator's --ignore and --only patterns
 * (ant_page.h): compiling and size-checking them, the selectors, and
 * running the regular expressions over the text (page_int.h).
 *
 * The expressions run in time linear in the text, bounded in all:
 *   - each regexec() gets the text's length (REG_STARTEND), never a
 *     strlen() of the rest of the page per match (that alone made
 *     --ignore '[0-9]+' over 8 MB of numbers take ten minutes);
 *   - it looks first at a window of PAGE_REGEX_WINDOW bytes from where the
 *     search starts, widened 4 times until the match found ends at least
 *     PAGE_REGEX_MARGIN bytes before the window does (or the window holds
 *     the rest of the text), so that one call does not scan the whole page
 *     for a match a few bytes ahead, and the clock can be read between
 *     calls;
 *   - an --only expression's next match is remembered and looked for
 *     again only when the text before it has been passed, not once per
 *     match of any expression (--only a --only b on 1 MB took minutes);
 *   - one page's analysis may run its expressions until
 *     ANT_PAGE_MAX_REGEX_SECONDS after it began (ant_page_budget), and a
 *     call on a widened window is not started when 16 times the last call
 *     (the cost of a quadratic expression on a window 4 times as wide)
 *     would go over: the analysis fails with LB_ETOOBIG instead of holding
 *     the store's lock for minutes.
 * What is matched is what a search over the whole rest of the text finds,
 * except where a longer or earlier match would reach more than
 * PAGE_REGEX_MARGIN bytes past the end of the one found in a window
 * (`z(y*x)?` over "z", then over 4 KiB of y's, then x, where the window
 * ends among the y's): then the one found is taken.
 */
#include "page_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/xpath.h>
#include <libxml/xmlerror.h>

/* "#name" and ".name" are selectors only when name is all name
 * characters; ".*foo" and "#[0-9]+" stay regular expressions.  A prefix
 * names the other kinds (a bare "span[itemprop=price]" is a regular
 * expression too); "json:" starts a JSON path (page_jsonpath.c). */
static int pattern_kind(const char *p)
{
	if (strncmp(p, "json:", 5) == 0)
		return ANT_PAGE_PAT_JSON;
	if (strncmp(p, "css:", 4) == 0)
		return ANT_PAGE_PAT_CSS;
	if (strncmp(p, "xpath:", 6) == 0)
		return ANT_PAGE_PAT_XPATH;
	if (strncmp(p, "range:", 6) == 0)
		return ANT_PAGE_PAT_RANGE;
	if ((p[0] == '#' || p[0] == '.') && p[1]) {
		for (const unsigned char *s = (const unsigned char *)p + 1; *s; s++)
			if (!(isalnum(*s) || *s == '-' || *s == '_' || *s >= 0x80))
				return ANT_PAGE_PAT_REGEX;
		return p[0] == '#' ? ANT_PAGE_PAT_ID : ANT_PAGE_PAT_CLASS;
	}
	return ANT_PAGE_PAT_REGEX;
}

/*
 * glibc's regcomp() copies a repeated expression once per repetition, so
 * "(a{999}){999}" or "a++++..." asks for gigabytes: the size of the
 * expression after those copies is estimated first (sequences add,
 * repetitions multiply) and refused past PAGE_REGEX_MAX_NODES.
 */
#define PAGE_REGEX_MAX_NODES 100000

static double regex_size(const char **pp, int depth);

/* One atom: a character, an escape, a bracket expression or a group. */
static double regex_atom(const char **pp, int depth)
{
	const char *p = *pp;
	double n = 1;

	if (*p == '(') {
		p++;
		n = depth > 100 ? 1e12 : regex_size(&p, depth + 1);
		if (*p == ')')
			p++;
	} else if (*p == '[') {
		p++;
		if (*p == '^') p++;
		if (*p == ']') p++;
		while (*p && *p != ']') {
			if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
				const char *e = strstr(p + 2, p[1] == ':' ? ":]" : p[1] == '.' ? ".]" : "=]");
				p = e ? e + 2 : p + 1;
			} else {
				p++;
			}
		}
		if (*p) p++;
	} else if (*p == '\\' && p[1]) {
		p += 2;
	} else {
		p++;
	}
	*pp = p;
	return n;
}

/* The factor of the repetitions that follow an atom.  Repetitions
 * stacked on one atom ("a+*+*...", which POSIX leaves undefined) each
 * double it at least: glibc's closure computation grows about 5 times
 * with each pair (24 of them took 6 s, fuzz_selector found it). */
static double regex_repeats(const char **pp)
{
	const char *p = *pp;
	double f = 1;
	int stacked = 0;

	for (;; stacked++) {
		if (stacked && (*p == '*' || *p == '?' || *p == '+' || *p == '{'))
			f *= 2;
		if (*p == '*' || *p == '?') {
			p++;
		} else if (*p == '+') {
			f *= 2;
			p++;
		} else if (*p == '{' && (p[1] >= '0' && p[1] <= '9')) {
			unsigned long m = strtoul(p + 1, (char **)&p, 10), n = m;
			if (*p == ',') {
				p++;
				n = *p >= '0' && *p <= '9' ? strtoul(p, (char **)&p, 10) : m + 1;
			}
			if (*p == '}') p++;
			f *= (double)(n > m ? n : m) + 1;
		} else {
			break;
		}
	}
	*pp = p;
	return f;
}

static double regex_size(const char **pp, int depth)
{
	double total = 0;

	while (**pp && **pp != ')') {
		if (**pp == '|') {
			(*pp)++;
			continue;
		}
		double a = regex_atom(pp, depth);
		total += a * regex_repeats(pp);
		if (total > 1e12)
			total = 1e12;
	}
	return total;
}

/* Compiles a regex pattern into re; 0, or LB_EINVAL with a message that
 * names what the pattern is for ("ignore", "only"). */
static int regex_compile(regex_t *re, const char *pattern, const char *what, lb_error *err)
{
	const char *p = pattern;
	double size = 0;
	int rc;

	while (*p) {   /* an unmatched ')' is regcomp's to report */
		size += regex_size(&p, 0);
		if (*p)
			p++;
	}
	if (size > PAGE_REGEX_MAX_NODES) {
		return lb_err(err, LB_EINVAL, "%s pattern '%.200s' repeats too much (over %d copies)",
			      what, pattern, PAGE_REGEX_MAX_NODES);
	}
	rc = regcomp(re, pattern, REG_EXTENDED);

	if (rc != 0) {
		char msg[128];

		regerror(rc, re, msg, sizeof msg);
		return lb_err(err, LB_EINVAL, "bad %s pattern '%s': %s", what, pattern, msg);
	}
	return 0;
}

/* ---- css:, xpath:, range: ------------------------------------------------------ */

/* libxml2 reports XPath errors to its context's handler: kept, not printed. */
static void xpath_error(void *data, xmlErrorPtr e)
{
	(void)data;
	(void)e;
}

/* Does libxml2 compile expr?  0, or LB_EINVAL naming pattern and the
 * error libxml2 found. */
static int xpath_compile_check(const char *expr, const char *pattern, const char *what, lb_error *err)
{
	xmlXPathContextPtr ctx;
	xmlXPathCompExprPtr comp;
	int rc = 0;

	xmlInitParser();
	if (!(ctx = xmlXPathNewContext(NULL)))
		return lb_err(err, LB_ENOMEM, "%s pattern '%.200s': out of memory", what, pattern);
	ctx->error = xpath_error;
	if (!(comp = xmlXPathCtxtCompile(ctx, (const xmlChar *)expr))) {
		const char *m = ctx->lastError.message ? ctx->lastError.message : "cannot compile\n";

		rc = lb_err(err, LB_EINVAL, "bad %s pattern '%.200s': %.*s", what, pattern,
			    (int)strcspn(m, "\n"), m);
	}
	xmlXPathFreeCompExpr(comp);
	xmlResetError(&ctx->lastError);
	xmlXPathFreeContext(ctx);
	return rc;
}

/* A kind made ready by sel_compile()? */
static int is_sel(int kind)
{
	return kind == ANT_PAGE_PAT_CSS || kind == ANT_PAGE_PAT_XPATH || kind == ANT_PAGE_PAT_RANGE;
}

static void sel_release(ant_page_sel *s)
{
	free(s->xpath);
	free(s->start);
	free(s->end);
	memset(s, 0, sizeof *s);
}

/* A range marker, whitespace collapsed as the text is, trimmed. */
static char *marker(const char *s, size_t n)
{
	lb_buf b = LB_BUF_INIT;
	int space = 1;

	if (ant_page_add_collapsed(&b, s, n, &space) < 0 || lb_buf_addc(&b, '\0') < 0) {
		lb_buf_release(&b);
		return NULL;
	}
	b.len--;
	while (b.len && b.data[b.len - 1] == ' ')
		b.data[--b.len] = '\0';
	return lb_buf_detach(&b, NULL);
}

/* A css:, xpath: or range: pattern made ready (sel, released by the
 * caller also after a failure): 0, LB_EINVAL naming the bad part, or
 * LB_ENOMEM. */
static int sel_compile(ant_page_sel *sel, const char *pattern, int kind, const char *what, lb_error *err)
{
	memset(sel, 0, sizeof *sel);
	if (strlen(pattern) > ANT_PAGE_MAX_SELECTOR + 6)
		return lb_err(err, LB_EINVAL, "%s pattern '%.60s...' is too long (over %d bytes)", what,
			      pattern, ANT_PAGE_MAX_SELECTOR);
	if (kind == ANT_PAGE_PAT_RANGE) {
		const char *r = pattern + 6, *dots = strstr(r, "...");

		if (!dots)
			return lb_err(err, LB_EINVAL, "bad %s pattern '%.200s': a range is START...END", what,
				      pattern);
		sel->start = marker(r, (size_t)(dots - r));
		sel->end = marker(dots + 3, strlen(dots + 3));
		if (!sel->start || !sel->end)
			return lb_err(err, LB_ENOMEM, "%s pattern '%.200s': out of memory", what, pattern);
		if (!*sel->start && !*sel->end)
			return lb_err(err, LB_EINVAL, "bad %s pattern '%.200s': a range needs a START or an END",
				      what, pattern);
		return 0;
	}
	if (kind == ANT_PAGE_PAT_CSS) {
		lb_buf x = LB_BUF_INIT;
		int rc = ant_page_css_xpath(pattern + 4, what, &x, err);

		if (rc == 0 && !(sel->xpath = lb_buf_detach(&x, NULL)))
			rc = lb_err(err, LB_ENOMEM, "%s pattern '%.200s': out of memory", what, pattern);
		lb_buf_release(&x);
		if (rc < 0)
			return rc;
	} else {
		const char *e = pattern + 6;

		while (isspace((unsigned char)*e))
			e++;
		if (!*e)
			return lb_err(err, LB_EINVAL, "empty %s pattern '%s'", what, pattern);
		if (!(sel->xpath = strdup(e)))
			return lb_err(err, LB_ENOMEM, "%s pattern '%.200s': out of memory", what, pattern);
	}
	return xpath_compile_check(sel->xpath, pattern, what, err);
}

static int pattern_check(const char *pattern, const char *what, lb_error *err)
{
	regex_t re;
	int rc, kind;

	if (!pattern || !*pattern)
		return lb_err(err, LB_EINVAL, "empty %s pattern", what);
	kind = pattern_kind(pattern);
	if (kind == ANT_PAGE_PAT_JSON) {
		ant_page_jpath jp;

		if ((rc = ant_page_jpath_compile(&jp, pattern, what, err)) < 0)
			return rc;
		ant_page_jpath_release(&jp);
		return 0;
	}
	if (is_sel(kind)) {
		ant_page_sel sel;

		rc = sel_compile(&sel, pattern, kind, what, err);
		sel_release(&sel);
		return rc;
	}
	if (kind != ANT_PAGE_PAT_REGEX)
		return 0;
	if ((rc = regex_compile(&re, pattern, what, err)) < 0)
		return rc;
	regfree(&re);
	return 0;
}

int ant_page_pattern_check(const char *pattern, lb_error *err)
{
	return pattern_check(pattern, "ignore", err);
}

int ant_page_only_check(const char *pattern, lb_error *err)
{
	return pattern_check(pattern, "only", err);
}


/* Does the expression look at the byte before its match (GNU's word
 * edges \< \> \b \B, buffer edges \` \')?  Then a search that starts
 * later can find what an earlier one could not. */
static int looks_back(const char *p)
{
	for (; *p; p++)
		if (*p == '\\' && p[1] && strchr("<>bB`'", *++p))
			return 1;
	return 0;
}

void ant_page_patterns_release(ant_page_patterns *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		if (ps->kind && ps->kind[i] == ANT_PAGE_PAT_REGEX)
			regfree(&ps->re[i]);
		else if (ps->kind && ps->kind[i] == ANT_PAGE_PAT_JSON)
			ant_page_jpath_release(&ps->jp[i]);
	}
	for (size_t i = 0; ps->sel && i < ps->nalloc; i++)
		sel_release(&ps->sel[i]);
	free(ps->sel);
	free(ps->re);
	free(ps->jp);
	free(ps->kind);
	free(ps->ctx);
	memset(ps, 0, sizeof *ps);
}

int ant_page_patterns_compile(ant_page_patterns *ps, const char *const *pat, size_t n,
			      const char *what, lb_error *err)
{
	int rc;

	memset(ps, 0, sizeof *ps);
	ps->pat = pat;
	ps->what = what;
	if (!n)
		return 0;
	ps->re = calloc(n, sizeof *ps->re);
	ps->kind = calloc(n, 1);
	ps->ctx = calloc(n, 1);
	ps->jp = calloc(n, sizeof *ps->jp);
	ps->sel = calloc(n, sizeof *ps->sel);
	ps->nalloc = n;
	if (!ps->re || !ps->kind || !ps->ctx || !ps->jp || !ps->sel) {
		ant_page_patterns_release(ps);
		return lb_err_code(err, LB_ENOMEM);
	}
	for (size_t i = 0; i < n; i++) {
		if (!pat[i] || !*pat[i]) {
			rc = lb_err(err, LB_EINVAL, "empty %s pattern", what);
			goto fail;
		}
		ps->kind[i] = (unsigned char)pattern_kind(pat[i]);
		if (ps->kind[i] == ANT_PAGE_PAT_REGEX && (rc = regex_compile(&ps->re[i], pat[i], what, err)) < 0)
			goto fail;
		if (ps->kind[i] == ANT_PAGE_PAT_JSON && (rc = ant_page_jpath_compile(&ps->jp[i], pat[i], what, err)) < 0)
			goto fail;
		if (is_sel(ps->kind[i]) &&
		    (rc = sel_compile(&ps->sel[i], pat[i], ps->kind[i], what, err)) < 0)
			goto fail;
		ps->n = i + 1;
		if (ps->kind[i] == ANT_PAGE_PAT_REGEX) {
			ps->ctx[i] = (unsigned char)looks_back(pat[i]);
			ps->nregex++;
		}
		ps->njson += ps->kind[i] == ANT_PAGE_PAT_JSON;
		ps->nrange += ps->kind[i] == ANT_PAGE_PAT_RANGE;
		ps->ntree += ps->kind[i] == ANT_PAGE_PAT_CSS || ps->kind[i] == ANT_PAGE_PAT_XPATH;
		ps->nsel += ps->kind[i] == ANT_PAGE_PAT_ID || ps->kind[i] == ANT_PAGE_PAT_CLASS ||
			    ps->kind[i] == ANT_PAGE_PAT_CSS || ps->kind[i] == ANT_PAGE_PAT_XPATH;
	}
	return 0;
fail:
	ant_page_patterns_release(ps);   /* frees the ps->n patterns compiled so far */
	return rc;
}

/* Is this a class token of the space-separated list? */
static int has_class(const char *list, const char *cls)
{
	size_t n = strlen(cls);

	for (const char *p = list; *p;) {
		size_t k;

		while (*p && isspace((unsigned char)*p))
			p++;
		k = strcspn(p, " \t\r\n\f");
		if (k == n && strncmp(p, cls, n) == 0)
			return 1;
		p += k;
	}
	return 0;
}

int ant_page_selector_hit(const ant_page_patterns *ps, const char *id, const char *cls)
{
	for (size_t i = 0; i < ps->n; i++) {
		if (ps->kind[i] == ANT_PAGE_PAT_ID && id && strcmp(id, ps->pat[i] + 1) == 0)
			return 1;
		if (ps->kind[i] == ANT_PAGE_PAT_CLASS && cls && has_class(cls, ps->pat[i] + 1))
			return 1;
	}
	return 0;
}

/* ---- text ---------------------------------------------------------------- */


/* ---- running the expressions --------------------------------------------------- */

/* Where a search looks first (see the top of the file), widened 4 times
 * until the match found ends PAGE_REGEX_MARGIN before the window does. */
#define PAGE_REGEX_WINDOW 8192
#define PAGE_REGEX_MARGIN 4096
/* Calls on a first window between two readings of the clock. */
#define PAGE_REGEX_CLOCK 256

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int over_budget(const ant_page_patterns *ps, size_t i, const ant_page_budget *b,
		       lb_error *err)
{
	return lb_err(err, LB_ETOOBIG,
		      "%s pattern '%.200s' takes over %g s on this page (ANT_PAGE_MAX_REGEX_SECONDS)",
		      ps->what, ps->pat[i], b->limit);
}

void ant_page_budget_start(ant_page_budget *b, double limit)
{
	b->limit = limit > 0 ? limit : ANT_PAGE_MAX_REGEX_SECONDS;
	b->start = b->clock = now();
	b->calls = 0;
}

/* Reads the clock: the time since the last reading into *last; LB_ETOOBIG
 * when the page's expressions are over their time. */
static int tick(ant_page_budget *b, double *last)
{
	double t = now();

	*last = t - b->clock;
	b->clock = t;
	return t - b->start > b->limit ? LB_ETOOBIG : 0;
}

/*
 * The leftmost-longest match of pattern i in s[0..n), s being where the
 * search starts (as the start of the string: '^' only without notbol).
 * 1 with [*so, *eo) relative to s, 0 when there is none, LB_ETOOBIG (the
 * budget) or LB_ENOMEM (regexec's REG_ESPACE) with err.  The clock is read
 * after a call that leads to a wider window, after each call on one, and
 * every PAGE_REGEX_CLOCK calls (a page of numbers makes millions of calls,
 * and reading the clock around each cost as much as they did); the time
 * since the last reading stands for the last call's, an overestimate.
 */
static int find(const ant_page_patterns *ps, size_t i, const char *s, size_t n, int notbol,
		ant_page_budget *b, size_t *so, size_t *eo, lb_error *err)
{
	size_t w = PAGE_REGEX_WINDOW;
	double last = 0;

	for (;;) {
		size_t len = w < n ? w : n;
		int whole = len == n, wide = w > PAGE_REGEX_WINDOW, rc, found;
		regmatch_t m = { 0, (regoff_t)len };

		/* a quadratic expression takes 16 times as long on a window 4 times as wide */
		if (wide && b->clock - b->start + 16 * last > b->limit)
			return over_budget(ps, i, b, err);
		/* a '$' matches at the text's end only, not at a window's */
		rc = regexec(&ps->re[i], s, 1, &m,
			     REG_STARTEND | (notbol ? REG_NOTBOL : 0) | (whole ? 0 : REG_NOTEOL));
		if (rc != 0 && rc != REG_NOMATCH)
			return lb_err(err, LB_ENOMEM, "%s pattern '%.200s': out of memory", ps->what,
				      ps->pat[i]);
		found = rc == 0 && (whole || (size_t)m.rm_eo + PAGE_REGEX_MARGIN <= len);
		if ((wide || (!found && !whole) || ++b->calls % PAGE_REGEX_CLOCK == 0) &&
		    tick(b, &last) < 0)
			return over_budget(ps, i, b, err);
		if (found) {
			*so = (size_t)m.rm_so;
			*eo = (size_t)m.rm_eo;
			return 1;
		}
		if (whole)
			return 0;
		w *= 4;
	}
}

/* Removes every match of expression i from text into out (emptied first),
 * re-collapsed.  An empty match removes nothing and keeps the byte after
 * it, so that the search moves on. */
static int remove_one(const lb_buf *text, const ant_page_patterns *ig, size_t i, lb_buf *out,
		      ant_page_budget *b, lb_error *err)
{
	const char *s = text->data;
	size_t n = text->len, p = 0, so, eo;
	int space = 1, notbol = 0, rc;

	lb_buf_reset(out);
	while (p < n && (rc = find(ig, i, s + p, n - p, notbol, b, &so, &eo, err)) != 0) {
		if (rc < 0)
			return rc;
		if (ant_page_add_collapsed(out, s + p, so, &space) < 0)
			return lb_err(err, LB_ENOMEM, "cannot analyze page: out of memory");
		if (eo == so) {
			if (p + eo == n)
				break;
			if (ant_page_add_collapsed(out, s + p + eo, 1, &space) < 0)
				return lb_err(err, LB_ENOMEM, "cannot analyze page: out of memory");
			p += eo + 1;
		} else {
			p += eo;
		}
		notbol = 1;
	}
	if (ant_page_add_collapsed(out, s + p, n - p, &space) < 0)
		return lb_err(err, LB_ENOMEM, "cannot analyze page: out of memory");
	return 0;
}

int ant_page_remove_regex(lb_buf *text, const ant_page_patterns *ig, lb_buf *tmp,
			  ant_page_budget *b, lb_error *err)
{
	for (size_t i = 0; i < ig->n; i++) {
		lb_buf swap;
		int rc;

		if (ig->kind[i] != ANT_PAGE_PAT_REGEX)
			continue;
		if ((rc = remove_one(text, ig, i, tmp, b, err)) < 0)
			return rc;
		swap = *text;
		*text = *tmp;
		*tmp = swap;
	}
	return 0;
}

/* ---- --only matches -------------------------------------------------------------- */

enum { NEXT_UNKNOWN, NEXT_AT, NEXT_NONE };

int ant_page_only_begin(ant_page_only_iter *it, const ant_page_patterns *only,
			const char *s, size_t n)
{
	memset(it, 0, sizeof *it);
	it->only = only;
	it->s = s;
	it->n = n;
	if (only->n && !(it->next = calloc(only->n, sizeof *it->next)))
		return LB_ENOMEM;
	return 0;
}

void ant_page_only_end(ant_page_only_iter *it)
{
	free(it->next);
	it->next = NULL;
}

/* Expression i's next match at or after it->pos, searched for again only
 * when the one remembered starts before it->pos (or the expression looks
 * at the byte before its match, which a later start changes). */
static int next_of(ant_page_only_iter *it, size_t i, ant_page_budget *b, lb_error *err)
{
	struct ant_page_next *x = &it->next[i];
	size_t so, eo;
	int rc;

	if (x->state == NEXT_NONE && !it->only->ctx[i])
		return 0;
	if (x->state == NEXT_AT && x->so >= it->pos && !it->only->ctx[i])
		return 0;
	rc = find(it->only, i, it->s + it->pos, it->n - it->pos, it->started, b, &so, &eo, err);
	if (rc < 0)
		return rc;
	x->state = rc ? NEXT_AT : NEXT_NONE;
	x->so = it->pos + so;
	x->eo = it->pos + eo;
	return 0;
}

int ant_page_only_next(ant_page_only_iter *it, ant_page_budget *b, size_t *so, size_t *eo,
		       lb_error *err)
{
	while (it->pos < it->n) {
		const struct ant_page_next *best = NULL;
		int rc;

		for (size_t i = 0; i < it->only->n; i++) {
			const struct ant_page_next *x = &it->next[i];

			if (it->only->kind[i] != ANT_PAGE_PAT_REGEX)
				continue;
			if ((rc = next_of(it, i, b, err)) < 0)
				return rc;
			if (x->state == NEXT_AT &&
			    (!best || x->so < best->so || (x->so == best->so && x->eo > best->eo)))
				best = x;
		}
		if (!best)
			break;
		it->started = 1;
		if (best->eo > best->so) {
			*so = best->so;
			*eo = best->eo;
			it->pos = best->eo;
			return 1;
		}
		if (best->eo == it->n)   /* an empty match: move on a byte */
			break;
		it->pos = best->eo + 1;
	}
	it->pos = it->n;
	return 0;
}
