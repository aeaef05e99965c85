/*
 * update_robots.c: robots.txt in the update run (RFC 9309).  Before a
 * batch's pages are fetched, the robots.txt of each origin they are on
 * is known: from the database when fetched less than robots_max_age ago
 * and usable, else fetched (once per origin and run, all of a batch's at
 * once, at most ANT_ROBOTS_MAX_REDIRECTS redirects, the run's timeouts
 * and --max-body) and kept there.  Then each page is let through or
 * kept out:
 *   2xx      the rules (robots.c) decide for the URL fetched (its check URL);
 *   4xx      everything allowed (§2.3.1.3), and after too many redirects
 *            (§2.3.1.2);
 *   5xx      nothing allowed until an answer (§2.3.1.4): the page is kept
 *            out and robots.txt asked again at the next run;
 *   other    (too big, a broken answer): as 5xx;
 *   no answer (DNS, connection, timeout, TLS; or an internal address not
 *            allowed, ant_fetch.h): the server is unreachable,
 *            so the page is not asked either; it fails with that error,
 *            as its own fetch would have (its error count, its back-off).
 * A page kept out is not fetched: its last_error says why
 * (ANT_ROBOTS_ERROR_PREFIX), its kind is ANT_FAIL_ROBOTS, and detect.c
 * (ant_detect_keep_out) has it considered again after ANT_ROBOTS_RECHECK.  Pages the operator set --ignore-robots on, and
 * URLs that are not http(s), pass.  A page's feed on an origin whose
 * robots.txt the run knows (the page's own, mostly) is fetched only when
 * it allows the feed's path (ant_upd_robots_feed).
 */
#include "ant_robots.h"
#include "ant_pagestate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "update_int.h"

struct origin {
	char *name;              /* "scheme://host:port" */
	char *allow;             /* a page's URL on this origin as the operator
				    added it, or NULL (ant_fetch_req.allow_host:
				    only then may it be an internal address) */
	ant_robots *rules;       /* NULL: unreachable (err, errtext) */
	int verdict;             /* ANT_ROBOTS_* */
	long status;
	ant_fetch_errkind err;
	char errtext[256];
};

struct upd_robots {
	struct origin *v;        /* sorted by name */
	size_t n, cap;
	int64_t *ignored;        /* page ids, ascending */
	size_t nignored;
	int loaded;
};

static int cmp_origin(const void *a, const void *b)
{
	return strcmp(((const struct origin *)a)->name, ((const struct origin *)b)->name);
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The origin name among the first n (sorted), or NULL. */
static struct origin *find(struct upd_robots *r, size_t n, const char *name)
{
	struct origin key = { .name = (char *)name };

	return n ? bsearch(&key, r->v, n, sizeof *r->v, cmp_origin) : NULL;
}

/* Among the origins added since first (not sorted yet): at most a batch's
 * new origins, each compared once per page of the batch that is new too. */
static struct origin *find_new(struct upd_robots *r, size_t first, const char *name)
{
	for (size_t k = first; k < r->n; k++)
		if (!strcmp(r->v[k].name, name))
			return &r->v[k];
	return NULL;
}

static const char *url_of(const ant_store_page *p)
{
	return p->check_url ? p->check_url : p->url;
}

/* Is the page's own URL (as added) on origin name?  A check URL elsewhere
 * is not: its robots.txt is asked under the same rule as the check URL
 * itself (ant_fetch.h, internal addresses). */
static int own_origin(const ant_store_page *p, const char *name)
{
	char mine[512];

	return ant_robots_origin(p->url, mine, sizeof mine, NULL) == 0 && !strcmp(mine, name);
}

static int ignored(const struct upd_robots *r, int64_t id)
{
	return r->nignored && bsearch(&id, r->ignored, r->nignored, sizeof id, cmp_id);
}

/* The rules of a cached or fetched answer. */
static void take(struct upd *u, struct origin *o, const ant_robots_cached *c)
{
	size_t max = u->o->robots_max_bytes ? u->o->robots_max_bytes : ANT_ROBOTS_MAX_BYTES;

	o->verdict = c->verdict;
	o->status = c->status;
	if (c->verdict == ANT_ROBOTS_RULES)
		ant_robots_parse(c->body ? c->body : "", c->len, NULL, max, &o->rules, NULL);
	else
		o->rules = ant_robots_all(c->verdict == ANT_ROBOTS_ALLOW_ALL);
	if (c->error)
		snprintf(o->errtext, sizeof o->errtext, "%s", c->error);
}

/* An answer to robots.txt, as ant_fetch_done_fn: classified, kept in the
 * database, its rules taken.  An answer that is no answer keeps nothing. */
static void robots_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	struct origin *o = req->user;
	size_t max = u->o->robots_max_bytes ? u->o->robots_max_bytes : ANT_ROBOTS_MAX_BYTES;
	ant_robots_cached c = { .fetched = u->now, .status = res->status };
	char b[64];

	if (res->err == ANT_FETCH_OK && res->status >= 200 && res->status < 300) {
		c.verdict = ANT_ROBOTS_RULES;
		c.body = res->body;
		c.len = res->len > max ? max + 1 : res->len;   /* +1: a cut is seen */
	} else if ((res->err == ANT_FETCH_OK && res->status >= 400 && res->status < 500) ||
		   res->err == ANT_FETCH_ERR_REDIRECTS) {
		c.verdict = ANT_ROBOTS_ALLOW_ALL;
	} else if (res->err == ANT_FETCH_ERR_DNS || res->err == ANT_FETCH_ERR_CONNECT ||
		   res->err == ANT_FETCH_ERR_TIMEOUT || res->err == ANT_FETCH_ERR_TLS ||
		   res->err == ANT_FETCH_ERR_INTERNAL) {
		o->err = res->err;
		o->verdict = ANT_ROBOTS_DISALLOW_ALL;
		snprintf(o->errtext, sizeof o->errtext, "%s", ant_upd_error_text(res, b, sizeof b));
		return;
	} else {
		c.verdict = ANT_ROBOTS_DISALLOW_ALL;
		c.error = (char *)ant_upd_error_text(res, b, sizeof b);
	}
	/* committed with the batch's first pages: not counted as a check's write */
	if (ant_upd_tx_need(u) == 0 && ant_store_robots_put(u->s, o->name, &c, &u->err) < 0)
		u->failed_db = 1;
	take(u, o, &c);   /* c.body is the fetch's, borrowed */
}

/* The origins of the batch's due pages not known yet in this run, added
 * to r (sorted again) with no rules; *first is where they start. */
static int add_new(struct upd *u, struct upd_robots *r, const unsigned char *due, size_t *first)
{
	char name[512];
	struct origin *o;

	*first = r->n;
	for (size_t i = 0; i < u->npages; i++) {
		ant_store_page *p = &u->pages[i];
		if (!due[i] || ignored(r, p->id) || ant_robots_origin(url_of(p), name, sizeof name, NULL) < 0)
			continue;
		if ((o = find(r, *first, name)) || (o = find_new(r, *first, name))) {
			if (!o->allow && own_origin(p, name) && !(o->allow = strdup(ant_pagestate_allow_url(p))))
				return LB_ENOMEM;
			continue;
		}
		if (r->n == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 64;
			struct origin *nv = realloc(r->v, cap * sizeof *nv);
			if (!nv)
				return LB_ENOMEM;
			r->v = nv;
			r->cap = cap;
		}
		r->v[r->n] = (struct origin){ .name = strdup(name), .verdict = ANT_ROBOTS_ALLOW_ALL,
					      .allow = own_origin(p, name) ? strdup(ant_pagestate_allow_url(p)) : NULL };
		if (!r->v[r->n].name || (own_origin(p, name) && !r->v[r->n].allow))
			return LB_ENOMEM;
		r->n++;
	}
	return 0;
}

/* Fetches robots.txt of the origins [first, r->n) that the database has
 * no fresh answer for. */
static int resolve(struct upd *u, struct upd_robots *r, size_t first)
{
	int64_t max_age = u->o->robots_max_age ? u->o->robots_max_age : ANT_ROBOTS_MAX_AGE;
	ant_fetch_limits lim = u->lim;   /* the run's pool: its connections, its politeness */
	size_t n = 0, cnt = r->n - first;
	ant_fetch_req *reqs = calloc(cnt ? cnt : 1, sizeof *reqs);
	char **urls = calloc(cnt ? cnt : 1, sizeof *urls);
	int rc = 0;

	if (!reqs || !urls)
		rc = LB_ENOMEM;
	for (size_t i = first; i < r->n && rc == 0; i++) {
		struct origin *o = &r->v[i];
		ant_robots_cached c;
		int got = ant_store_robots_get(u->s, o->name, &c, &u->err);
		if (got < 0) {
			u->failed_db = 1;
			rc = got;
			break;
		}
		if (got && c.verdict != ANT_ROBOTS_DISALLOW_ALL && c.fetched <= u->now &&
		    u->now - c.fetched < max_age) {
			take(u, o, &c);
			ant_robots_cached_release(&c);
			continue;
		}
		ant_robots_cached_release(&c);
		if (!(urls[n] = malloc(strlen(o->name) + sizeof "/robots.txt")))
			rc = LB_ENOMEM;
		else {
			sprintf(urls[n], "%s/robots.txt", o->name);
			/* the operator added a page on this origin: its robots.txt
			 * may be on an internal address as the page is */
			reqs[n] = (ant_fetch_req){ urls[n], NULL, NULL, o, o->allow };
			n++;
		}
	}
	lim.max_redirects = ANT_ROBOTS_MAX_REDIRECTS;
	if (rc == 0 && n)
		rc = u->o->fetcher ? u->o->fetcher->run(u->o->fetcher->self, &lim, reqs, n, robots_done, u)
				   : ant_fetch_run(&lim, reqs, n, robots_done, u);
	for (size_t i = 0; urls && i < n; i++)
		free(urls[i]);
	free(urls);
	free(reqs);
	u->st.robots_fetched += (unsigned)n;
	return rc;
}

int ant_upd_robots_prepare(struct upd *u, const unsigned char *due)
{
	struct upd_robots *r = u->robots;
	size_t first;
	int rc;

	if (!r && !(r = u->robots = calloc(1, sizeof *r)))
		return LB_ENOMEM;
	if (!r->loaded) {
		if ((rc = ant_store_robots_ignored(u->s, &r->ignored, &r->nignored, &u->err)) < 0) {
			u->failed_db = 1;
			return rc;
		}
		r->loaded = 1;
	}
	if ((rc = add_new(u, r, due, &first)) < 0 || (rc = resolve(u, r, first)) < 0)
		return rc;
	if (r->n > 1)   /* (qsort of no array is undefined) */
		qsort(r->v, r->n, sizeof *r->v, cmp_origin);
	return 0;
}

/* Keeps p out: not fetched, its last_error saying why. */
static void keep_out(struct upd *u, ant_store_page *p, const struct origin *o, const ant_robots_rule *why)
{
	char msg[512];
	int dated;

	if (o->verdict == ANT_ROBOTS_DISALLOW_ALL)
		snprintf(msg, sizeof msg, ANT_ROBOTS_ERROR_PREFIX "%s/robots.txt did not answer (%s): "
			 "nothing is fetched until it does", o->name, o->errtext);
	else
		snprintf(msg, sizeof msg, ANT_ROBOTS_ERROR_PREFIX "disallowed by %s/robots.txt line %zu"
			 " (Disallow: %s)", o->name, why->line, why->pattern);
	ant_upd_set_str(&p->last_error, msg);
	p->fail_kind = ANT_FAIL_ROBOTS;
	ant_detect_keep_out(&p->st, u->now, ANT_ROBOTS_RECHECK);
	u->st.robots_excluded++;
	/* a page we may not check: a believed source's date (update_trust.c) */
	dated = ant_upd_trust_date(u, p, 0);
	ant_upd_save_page(u, p, dated);
	if (u->o->on_page)
		u->o->on_page(u->o->ctx, p, &(ant_detect_outcome){ .updated = dated,
				.rule = dated ? p->st.detected_by : NULL });
}

int ant_upd_robots_gate(struct upd *u, ant_store_page *p)
{
	struct upd_robots *r = u->robots;
	const char *path;
	char name[512];
	struct origin *o;
	ant_robots_rule why;

	if (!r || ignored(r, p->id) || ant_robots_origin(url_of(p), name, sizeof name, &path) < 0 ||
	    !(o = find(r, r->n, name)))
		return 1;
	if (!o->rules) {
		if (o->err == ANT_FETCH_OK)
			return 1;   /* out of memory parsing: no verdict */
		/* unreachable: the page fails as its own fetch would have */
		ant_fetch_result res = { .err = o->err, .body = (char *)"", .content_length = -1 };
		snprintf(res.error, sizeof res.error, "%s", o->errtext);
		ant_upd_page_done(u, &(ant_fetch_req){ url_of(p), NULL, NULL, p, ant_pagestate_allow_url(p) }, &res);
		return 0;
	}
	if (ant_robots_allowed(o->rules, path, &why))
		return 1;
	keep_out(u, p, o, &why);
	return 0;
}

int ant_upd_robots_feed(struct upd *u, ant_store_page *p)
{
	struct upd_robots *r = u->robots;
	const char *path;
	char name[512], msg[600];
	struct origin *o;
	ant_robots_rule why;

	if (!r || !p->feed_url || ignored(r, p->id) ||
	    ant_robots_origin(p->feed_url, name, sizeof name, &path) < 0 ||
	    !(o = find(r, r->n, name)) || !o->rules || ant_robots_allowed(o->rules, path, &why))
		return 1;
	snprintf(msg, sizeof msg, ANT_ROBOTS_ERROR_PREFIX "the feed is disallowed by %s/robots.txt"
		 " line %zu (Disallow: %s)", o->name, why.line, why.pattern);
	ant_upd_set_str(&p->feed_error, msg);
	return 0;
}

int ant_upd_robots_url(struct upd *u, const char *url)
{
	struct upd_robots *r = u->robots;
	const char *path;
	char name[512];
	struct origin *o;

	return r && ant_robots_origin(url, name, sizeof name, &path) == 0 && (o = find(r, r->n, name)) &&
	       o->rules && ant_robots_allowed(o->rules, path, NULL);
}

void ant_upd_robots_free(struct upd *u)
{
	struct upd_robots *r = u->robots;

	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].allow);
		ant_robots_free(r->v[i].rules);
	}
	free(r->v);
	free(r->ignored);
	free(r);
	u->robots = NULL;
}
