/*
 * publish_site.c: the whole site from the database (ant_publish.h's
 * ant_publish_site()):
 *   DIR/index.html, DIR/lirs.gz,
 *   DIR/sites.di.gz                       the writers of publish.c
 *   DIR/index.atom, archive/N.atom,
 *   DIR/current.atom                      atom.h over the update events
 *                                         that 'update' recorded (evstore)
 * The time of each publish is kept (config "last_publish"), and the seq
 * of the newest update event then ("last_publish_seq"), so index.html
 * marks new the updates *found* since the previous publish: the events
 * added after it (an update that happened before the
 * previous publish but was found after it is new too).
 *
 * index.html and lirs.gz need only the pages, so a second thread loads
 * them (on a connection of its own) and writes them while this one writes
 * the Atom files from the events (50,000 pages into an empty DIR: 1,000
 * archives); only current.atom waits for the pages.  Each file is
 * replaced atomically on its own; a failure in either leaves last_publish
 * unchanged.
 *
 * History retention (config "keep_events"): the Atom files' events are
 * pruned in the transaction that records their archive as complete,
 * keeping at least that many of the newest (atom_evstore.h).
 */
#include "ant_limits.h"
#include "ant_publish.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lb_afile.h"
#include "lb_buf.h"
#include "atom.h"
#include "atom_evstore.h"
#include "lirs.h"

struct site_cfg {
	char *title, *base, *author, *lang;
	ant_pub_site site;
	ant_pub_lirs_counts counts;
	int64_t page_size;
	int64_t keep_events;     /* EVSTORE_KEEP_ALL or >= 0 */
	int64_t seq_now;         /* the newest event's seq before this publish */
};

/* An update found since the previous publish: an event added after it. */
struct found {
	char *url;
	int64_t lm;
};

int64_t ant_keep_events(ant_store *s)
{
	char *v = ant_store_config_get(s, ANT_CFG_KEEP_EVENTS);
	int64_t k = ANT_KEEP_EVENTS;

	if (v && strcmp(v, "all") == 0)
		k = EVSTORE_KEEP_ALL;
	else if (v)
		k = ant_store_config_int(s, ANT_CFG_KEEP_EVENTS, ANT_KEEP_EVENTS);
	free(v);
	return k < 0 ? EVSTORE_KEEP_ALL : k;
}

/* The lirs_charset setting (antenna init --charset): 1 for euc-jp-ms. */
static int lirs_charset_ms(ant_store *s)
{
	char *v = ant_store_config_get(s, ANT_CFG_LIRS_CHARSET);
	int ms = v && !strcmp(v, "euc-jp-ms");

	free(v);
	return ms;
}

static void cfg_load(ant_store *s, struct site_cfg *c, int64_t now)
{
	c->title = ant_store_config_get(s, ANT_CFG_TITLE);
	c->base = ant_store_config_get(s, ANT_CFG_BASE);
	c->author = ant_store_config_get(s, ANT_CFG_AUTHOR);
	c->lang = ant_store_config_get(s, ANT_CFG_LANG);
	ant_pub_site_defaults(&c->site);
	if (c->lang && ant_pub_lang_known(c->lang))
		c->site.lang = c->lang;
	c->site.title = c->title ? c->title : "antenna";
	c->site.base = c->base ? c->base : "http://localhost/";
	c->site.author = c->author ? c->author : "";
	c->site.now = now;
	c->site.prev_publish = ant_store_config_int(s, ANT_CFG_LAST_PUBLISH, 0);
	c->site.display_tz = ant_store_config_int(s, ANT_CFG_TZ, PUB_JST);
	c->site.visited_query = ant_store_config_int(s, ANT_CFG_VISITED, 1) != 0;
	c->site.max_age = ant_store_config_int(s, ANT_CFG_MAX_AGE, LIRS_DEFAULT_MAX_AGE);
	c->site.lirs_euc_jp_ms = lirs_charset_ms(s);
	memset(&c->counts, 0, sizeof c->counts);
	c->site.lirs_counts = &c->counts;
	c->page_size = ant_store_config_int(s, ANT_CFG_PAGE_SIZE, ATOM_DEFAULT_PAGE_SIZE);
	c->keep_events = ant_keep_events(s);
	c->seq_now = 0;
}

static void cfg_free(struct site_cfg *c)
{
	free(c->title);
	free(c->base);
	free(c->author);
	free(c->lang);
}

static int cmp_found(const void *pa, const void *pb)
{
	const struct found *a = pa, *b = pb;
	int c = strcmp(a->url, b->url);

	return c ? c : (a->lm > b->lm) - (a->lm < b->lm);
}

struct found_set {
	struct found *v;
	size_t n, cap;
	int known;               /* 0: no seq of a previous publish (older database) */
};

static int add_found(void *ctx, const atom_ev_event *e)
{
	struct found_set *f = ctx;
	struct found *nv;

	if (!(nv = lb_grow(f->v, &f->cap, f->n + 1, sizeof *nv, 64)))
		return LB_ENOMEM;
	f->v = nv;
	if (!(f->v[f->n].url = strdup(e->url ? e->url : "")))
		return LB_ENOMEM;
	f->v[f->n++].lm = e->last_modified;
	return 0;
}

static void found_free(struct found_set *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].url);
	free(f->v);
}

/*
 * The updates found since the previous publish: the events whose seq is
 * greater than the newest one then (read before the Atom writer, whose
 * retention may prune them); c->seq_now, the newest now, is kept for
 * the next publish.
 */
static int load_found(ant_store *s, struct site_cfg *c, struct found_set *f, lb_error *err)
{
	int64_t prev = ant_store_config_int(s, ANT_CFG_LAST_PUBLISH_SEQ, -1);
	atom_evstore *ev = NULL;
	int rc;

	if ((rc = atom_evstore_attach(&ev, ant_store_db(s), err)) == 0 &&
	    (rc = atom_evstore_max_seq(ev, &c->seq_now, err)) == 0 && prev >= 0) {
		f->known = 1;
		rc = atom_evstore_each_event(ev, prev + 1, -1, add_found, f, err);
		if (rc > 0 || rc == LB_ENOMEM)
			rc = lb_err_code(err, LB_ENOMEM);
		if (rc == 0 && f->n > 1) /* qsort(NULL, 0) is undefined */
			qsort(f->v, f->n, sizeof *f->v, cmp_found);
	}
	atom_evstore_close(ev);
	return rc;
}

static int was_found(const struct found_set *f, const ant_store_page *p)
{
	struct found k = { p->url, p->st.last_modified };

	if (!f->known)
		return 0;
	if (f->n == 0) /* bsearch(NULL, 0) is undefined */
		return -1;
	return bsearch(&k, f->v, f->n, sizeof *f->v, cmp_found) ? 1 : -1;
}

static void to_pub(ant_pub_page *v, const ant_store_page *p, int64_t tz)
{
	/* A title or author an older version kept whole is cut here too
	 * (ant_limits.h): no published file carries more. */
	ant_clip_inplace(p->title, ANT_MAX_TITLE);
	ant_clip_inplace(p->author, ANT_MAX_AUTHOR);
	*v = (ant_pub_page){
		.url = p->url, .title = p->title, .author = p->author, .group = p->group,
		.last_modified = p->st.last_modified, .last_detected = p->st.last_detected,
		.tz_offset = tz,
		.content_length = p->st.content_length > 0 ? p->st.content_length : 0,
		.detected_by = p->st.detected_by ? p->st.detected_by : "",
		.source_url = *p->source_url ? p->source_url : p->url,
		.last_error = p->last_error,
		.excerpt = p->excerpt,
	};
}

/* current.atom: one event per page with a fresh update. */
static size_t fresh_events(atom_ev_event *ev, const ant_pub_page *v, size_t n, const ant_pub_site *site)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!v[i].last_modified || !v[i].last_detected ||
		    v[i].last_detected < site->now - site->max_age)
			continue;
		ev[k++] = (atom_ev_event){
			.url = v[i].url, .last_modified = v[i].last_modified,
			.last_detected = v[i].last_detected, .tz_offset = v[i].tz_offset,
			.content_length = v[i].content_length, .title = v[i].title,
			.author = v[i].author, .source_url = v[i].source_url,
			.excerpt = v[i].excerpt,
		};
	}
	return k;
}

/* Archives of a pruned history whose file DIR lacks: they cannot be
 * written again, and must not be written differently (RFC 5005 §4). */
static void find_lost(atom_evstore *ev, const char *dir, ant_publish_result *res)
{
	int64_t pruned, n;
	char path[4096];
	struct stat sb;

	if (atom_evstore_pruned(ev, &pruned, NULL, NULL) != 0 || pruned == 0)
		return;
	for (n = 1; n <= pruned; n++) {
		snprintf(path, sizeof path, "%s/archive/%lld.atom", dir, (long long)n);
		if (stat(path, &sb) == 0)
			continue;
		if (!res->lost++)
			res->lost_first = n;
		res->lost_last = n;
	}
}

/*
 * The pages, loaded by the side thread on a connection of its own (WAL:
 * it reads beside the Atom writer's transaction), handed to the Atom
 * writer when it reaches current.atom: the archives and index.atom need
 * only the events, so their writing overlaps the loading (perf).
 */
struct side {
	const char *dir;
	const char *db;          /* the database's path, for the second connection */
	struct site_cfg *c;
	ant_store_page *p;
	ant_pub_page *v;
	struct found_set found;
	atom_ev_event *cur;
	size_t n, ncur;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ready;               /* 1: pages loaded, -1: loading failed */
	int rc;                  /* 0, or the code of err */
	lb_error err;
};

static void side_ready(struct side *w, int ready)
{
	pthread_mutex_lock(&w->mu);
	w->ready = ready;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* atom_cur_fn: current.atom's events, once the side thread has them. */
static int wait_pages(void *ctx, const atom_ev_event **v, size_t *n, lb_error *err)
{
	struct side *w = ctx;
	int ready;

	pthread_mutex_lock(&w->mu);
	while (!w->ready)
		pthread_cond_wait(&w->cv, &w->mu);
	ready = w->ready;
	pthread_mutex_unlock(&w->mu);
	if (ready < 0)
		return lb_err(err, w->rc, "%s", w->err.msg);
	*v = w->cur;
	*n = w->ncur;
	return 0;
}

static int load_pages(struct side *w)
{
	ant_store *s2 = NULL;
	int rc;

	if ((rc = ant_store_open(&s2, w->db, STORE_OPEN_EXISTING, &w->err)) < 0 ||
	    (rc = ant_store_pages_load(s2, &w->p, &w->n, &w->err)) < 0)
		goto out;
	if (!(w->v = malloc((w->n ? w->n : 1) * sizeof *w->v)) ||
	    !(w->cur = malloc((w->n ? w->n : 1) * sizeof *w->cur))) {
		rc = lb_err_code(&w->err, LB_ENOMEM);
		goto out;
	}
	for (size_t i = 0; i < w->n; i++) {
		to_pub(&w->v[i], &w->p[i], w->c->site.display_tz);
		w->v[i].found = was_found(&w->found, &w->p[i]);
	}
	w->ncur = fresh_events(w->cur, w->v, w->n, &w->c->site);
	rc = 0;
out:
	ant_store_close(s2);
	return rc;
}

/* The pages, then index.html, lirs.gz and sites.di.gz (thread). */
static void *write_side(void *arg)
{
	struct side *w = arg;

	if ((w->rc = load_pages(w)) < 0) {
		side_ready(w, -1);
		return NULL;
	}
	side_ready(w, 1);
	if ((w->rc = ant_publish_html(w->dir, &w->c->site, w->v, w->n, &w->err)) == 0 &&
	    (w->rc = ant_publish_lirs(w->dir, &w->c->site, w->v, w->n, &w->err)) == 0)
		w->rc = ant_publish_di(w->dir, &w->c->site, w->v, w->n, &w->err);
	return NULL;
}

static int write_atom(ant_store *s, const char *dir, const struct site_cfg *c,
		      struct side *w, ant_publish_result *res, lb_error *err)
{
	atom_evstore *ev = NULL;
	atom_cfg ac = { .base = c->site.base, .title = c->site.title,
			.author = *c->site.author ? c->site.author : NULL,
			.page_size = c->page_size, .now = c->site.now, .lang = c->site.lang };
	atom_stats stats;
	char path[4096];
	struct stat sb;
	int rc, fresh;

	snprintf(path, sizeof path, "%s/index.atom", dir);
	fresh = stat(path, &sb) != 0;    /* atom_publish() then writes every archive */
	if ((rc = atom_evstore_attach(&ev, ant_store_db(s), err)) == 0) {
		atom_evstore_set_retention(ev, c->keep_events);
		rc = atom_publish_later(ev, dir, &ac, NULL, 0, wait_pages, w, &stats, err);
		if (rc == 0 && fresh)
			find_lost(ev, dir, res);
	}
	atom_evstore_close(ev);
	return rc;
}

int ant_publish_site(ant_store *s, const char *dir, const ant_publish_opts *o,
		     ant_publish_result *res, lb_error *err)
{
	struct site_cfg c;
	struct side w = { .dir = dir, .db = ant_store_path(s), .c = &c };
	lb_error aerr = LB_ERROR_INIT;
	pthread_t th;
	int threaded, arc, rc = 0;

	memset(res, 0, sizeof *res);
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	cfg_load(s, &c, o->now);
	if (o->keep_events != ANT_KEEP_DEFAULT)
		c.keep_events = o->keep_events;
	res->keep_events = c.keep_events;
	/* DIR first, so the two writers do not race to create it */
	if (lb_mkdir_p(dir, 0755) < 0) {
		rc = lb_err_sys(err, "cannot create '%s'", dir);
		goto out;
	}
	if ((rc = load_found(s, &c, &w.found, err)) < 0)
		goto out;
	threaded = pthread_create(&th, NULL, write_side, &w) == 0;
	if (!threaded)
		write_side(&w);
	arc = write_atom(s, dir, &c, &w, res, &aerr);
	if (threaded)
		pthread_join(th, NULL);
	res->pages = w.n;
	res->counts = c.counts;
	if (w.rc < 0)
		rc = lb_err(err, w.rc, "%s", w.err.msg);
	else if (arc < 0)
		rc = lb_err(err, arc, "%s", aerr.msg);
	else if ((rc = ant_store_begin(s, err)) == 0) {
		if ((rc = ant_store_config_set_int(s, ANT_CFG_LAST_PUBLISH, o->now, err)) == 0 &&
		    (rc = ant_store_config_set_int(s, ANT_CFG_LAST_PUBLISH_SEQ, c.seq_now, err)) == 0)
			rc = ant_store_commit(s, err);
		if (rc < 0)
			ant_store_rollback(s);
	}
out:
	found_free(&w.found);
	free(w.cur);
	free(w.v);
	ant_store_pages_free(w.p, w.n);
	cfg_free(&c);
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
	return rc;
}
