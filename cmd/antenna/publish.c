/*
 * publish.c: antenna publish DIR: the static site from the database.
 *   DIR/index.html, DIR/lirs.gz,
 *   DIR/sites.di.gz                       publish.h
 *   DIR/index.atom, archive/N.atom,
 *   DIR/current.atom                      atom.h over the update events
 *                                         that 'update' recorded (evstore)
 * The time of each publish is kept (config "last_publish") so index.html
 * marks the updates that came after the previous one.
 *
 * index.html and lirs.gz need only the pages, so a second thread loads
 * them (on a connection of its own) and writes them while this one writes
 * the Atom files from the events (50,000 pages into an empty DIR: 1,000
 * archives); only current.atom waits for the pages.  Each file is
 * replaced atomically on its own; a failure in either leaves last_publish
 * unchanged.
 *
 * History retention (config "keep_events", --keep-events): the Atom
 * files' events are pruned in the transaction that records their archive
 * as complete, keeping at least that many of the newest (evstore.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lb_afile.h"
#include "antenna.h"
#include "atom.h"
#include "atom_evstore.h"
#include "lirs.h"
#include "ant_publish.h"

static const char help[] =
	"usage: antenna [-d FILE] publish [--now EPOCH] [--keep-events N|all] DIR\n\n"
	"Write the antenna's site into DIR (created when missing): index.html,\n"
	"lirs.gz (every page with a fresh update), sites.di.gz (the same as\n"
	"HINA-DI), index.atom, archive/N.atom and\n"
	"current.atom.  Each file is replaced atomically.\n\n"
	"  --now EPOCH        the time of this publish (default: the clock)\n"
	"  --keep-events N    keep at least the N newest update events of archives\n"
	"                     already written, 'all' to keep every one (default: the\n"
	"                     database's, see 'antenna init --keep-events')\n";

struct site_cfg {
	char *title, *base, *author;
	ant_pub_site site;
	ant_pub_lirs_counts counts;
	int64_t page_size;
	int64_t keep_events;     /* EVSTORE_KEEP_ALL or >= 0 */
};

/* The lirs_charset setting (antenna init --charset): 1 for euc-jp-ms. */
static int lirs_charset_ms(ant_store *s)
{
	char *v = ant_store_config_get(s, CFG_LIRS_CHARSET);
	int ms = v && !strcmp(v, "euc-jp-ms");

	free(v);
	return ms;
}

/* What lirs.gz holds that is not exactly the pages' text (lirs(5)). */
static void lirs_warnings(const ant_pub_lirs_counts *n)
{
	if (n->replaced)
		cli_error("warning: lirs.gz: %lu characters EUC-JP cannot hold were written as U+3013",
			  n->replaced);
	if (n->approximated)
		cli_error("warning: lirs.gz: %lu characters written as their nearest EUC-JP "
			  "equivalent (e.g. ¥ as ￥)", n->approximated);
	if (n->substituted)
		cli_error("warning: lirs.gz: %lu vendor characters (NEC/IBM extensions) written as "
			  "their readable forms (e.g. ① as (1), 髙 as 高; 'antenna init --charset "
			  "euc-jp-ms' keeps them)", n->substituted);
}

static void cfg_load(ant_store *s, struct site_cfg *c, int64_t now)
{
	c->title = ant_store_config_get(s, CFG_TITLE);
	c->base = ant_store_config_get(s, CFG_BASE);
	c->author = ant_store_config_get(s, CFG_AUTHOR);
	ant_pub_site_defaults(&c->site);
	c->site.title = c->title ? c->title : "antenna";
	c->site.base = c->base ? c->base : "http://localhost/";
	c->site.author = c->author ? c->author : "";
	c->site.now = now;
	c->site.prev_publish = ant_store_config_int(s, CFG_LAST_PUBLISH, 0);
	c->site.display_tz = ant_store_config_int(s, CFG_TZ, PUB_JST);
	c->site.visited_query = ant_store_config_int(s, CFG_VISITED, 1) != 0;
	c->site.max_age = ant_store_config_int(s, CFG_MAX_AGE, LIRS_DEFAULT_MAX_AGE);
	c->site.lirs_euc_jp_ms = lirs_charset_ms(s);
	memset(&c->counts, 0, sizeof c->counts);
	c->site.lirs_counts = &c->counts;
	c->page_size = ant_store_config_int(s, CFG_PAGE_SIZE, ATOM_DEFAULT_PAGE_SIZE);
	c->keep_events = antcmd_keep_events(s);
}

static void cfg_free(struct site_cfg *c)
{
	free(c->title);
	free(c->base);
	free(c->author);
}

static void to_pub(ant_pub_page *v, const ant_store_page *p, int64_t tz)
{
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
static int warn_lost(atom_evstore *ev, const char *dir, const struct site_cfg *c)
{
	int64_t pruned, n, first = 0, last = 0, lost = 0;
	char err[512], path[4096], keep[32];
	struct stat sb;

	if (atom_evstore_pruned(ev, &pruned, NULL, err, sizeof err) != 0 || pruned == 0)
		return 0;
	for (n = 1; n <= pruned; n++) {
		snprintf(path, sizeof path, "%s/archive/%lld.atom", dir, (long long)n);
		if (stat(path, &sb) == 0)
			continue;
		if (!lost++)
			first = n;
		last = n;
	}
	if (!lost)
		return 0;
	if (c->keep_events < 0)
		snprintf(keep, sizeof keep, "all");
	else
		snprintf(keep, sizeof keep, "%lld", (long long)c->keep_events);
	cli_error("warning: %lld archive%s from '%s/archive/%lld.atom' to '%lld.atom' "
		  "cannot be written again: their events were pruned (retention now: keep-events %s); "
		  "copy them from the old directory or a backup (archives never change)",
		  (long long)lost, lost == 1 ? "" : "s", dir, (long long)first, (long long)last, keep);
	return 1;
}

/*
 * The pages, loaded by the side thread on a connection of its own (WAL:
 * it reads beside the Atom writer's transaction), handed to the Atom
 * writer when it reaches current.atom: the archives and index.atom need
 * only the events, so their writing overlaps the loading (perf, issue 10).
 */
struct side {
	const char *dir;
	const char *db;          /* the database's path, for the second connection */
	struct site_cfg *c;
	ant_store_page *p;
	ant_pub_page *v;
	atom_ev_event *cur;
	size_t n, ncur;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ready;               /* 1: pages loaded, -1: loading failed */
	int rc;
	char err[512];
};

static void side_ready(struct side *w, int ready)
{
	pthread_mutex_lock(&w->mu);
	w->ready = ready;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* atom_cur_fn: current.atom's events, once the side thread has them. */
static int wait_pages(void *ctx, const atom_ev_event **v, size_t *n, char *err, size_t errlen)
{
	struct side *w = ctx;
	int ready;

	pthread_mutex_lock(&w->mu);
	while (!w->ready)
		pthread_cond_wait(&w->cv, &w->mu);
	ready = w->ready;
	pthread_mutex_unlock(&w->mu);
	if (ready < 0)
		return snprintf(err, errlen, "%s", w->err), -1;
	*v = w->cur;
	*n = w->ncur;
	return 0;
}

static int load_pages(struct side *w)
{
	ant_store *s2 = NULL;
	int rc = -1;

	if (ant_store_open(&s2, w->db, STORE_OPEN_EXISTING, w->err, sizeof w->err) < 0 ||
	    ant_store_pages_load(s2, &w->p, &w->n, w->err, sizeof w->err) < 0)
		goto out;
	if (!(w->v = malloc((w->n ? w->n : 1) * sizeof *w->v)) ||
	    !(w->cur = malloc((w->n ? w->n : 1) * sizeof *w->cur))) {
		snprintf(w->err, sizeof w->err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < w->n; i++)
		to_pub(&w->v[i], &w->p[i], w->c->site.display_tz);
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

	if (load_pages(w) < 0) {
		w->rc = -1;
		side_ready(w, -1);
		return NULL;
	}
	side_ready(w, 1);
	w->rc = ant_publish_html(w->dir, &w->c->site, w->v, w->n, w->err, sizeof w->err) < 0 ||
		ant_publish_lirs(w->dir, &w->c->site, w->v, w->n, w->err, sizeof w->err) < 0 ||
		ant_publish_di(w->dir, &w->c->site, w->v, w->n, w->err, sizeof w->err) < 0 ? -1 : 0;
	return NULL;
}

static int write_atom(ant_store *s, const char *dir, const struct site_cfg *c,
		      struct side *w, int *lost, char *err, size_t errlen)
{
	atom_evstore *ev = NULL;
	atom_cfg ac = { .base = c->site.base, .title = c->site.title,
			.author = *c->site.author ? c->site.author : NULL,
			.page_size = c->page_size, .now = c->site.now };
	atom_stats stats;
	char path[4096];
	struct stat sb;
	int rc = -1, fresh;

	snprintf(path, sizeof path, "%s/index.atom", dir);
	fresh = stat(path, &sb) != 0;    /* atom_publish() then writes every archive */
	if (atom_evstore_attach(&ev, ant_store_db(s), err, errlen) == 0) {
		atom_evstore_set_retention(ev, c->keep_events);
		rc = atom_publish_later(ev, dir, &ac, NULL, 0, wait_pages, w, &stats, err, errlen);
		if (rc == 0 && fresh)
			*lost = warn_lost(ev, dir, c);
	}
	atom_evstore_close(ev);
	return rc;
}

static int publish(ant_store *s, const char *dir, int64_t now, int64_t keep, int *lost,
		   char *err, size_t errlen)
{
	struct site_cfg c;
	struct side w = { .dir = dir, .db = ant_store_path(s), .c = &c };
	pthread_t th;
	int threaded, arc, rc = -1;

	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	cfg_load(s, &c, now);
	if (keep != ANTCMD_KEEP_DEFAULT)
		c.keep_events = keep;
	/* DIR first, so the two writers do not race to create it */
	if (lb_mkdir_p(dir, 0755) < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	threaded = pthread_create(&th, NULL, write_side, &w) == 0;
	if (!threaded)
		write_side(&w);
	arc = write_atom(s, dir, &c, &w, lost, err, errlen);
	if (threaded)
		pthread_join(th, NULL);
	if (w.rc < 0)
		snprintf(err, errlen, "%s", w.err);
	if (w.rc < 0 || arc < 0 ||
	    ant_store_config_set_int(s, CFG_LAST_PUBLISH, now, err, errlen) < 0)
		goto out;
	lirs_warnings(&c.counts);
	printf("published %zu page%s: %s/index.html\n", w.n, w.n == 1 ? "" : "s", dir);
	rc = 0;
out:
	free(w.cur);
	free(w.v);
	ant_store_pages_free(w.p, w.n);
	cfg_free(&c);
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
	return rc;
}

int cmd_publish(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "now", required_argument, NULL, 'n' },
		{ "keep-events", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int64_t now = 0, keep = ANTCMD_KEEP_DEFAULT;
	int c, rc, lost = 0;
	ant_store *s;
	char err[512];

	while ((c = cli_getopt(argc, argv, "h", opts, help)) != -1) {
		if (c == 'h')
			return cli_help(help);
		if (c == 'k') {
			if (antcmd_parse_keep("--keep-events", optarg, &keep) < 0)
				return CLI_FATAL;
			continue;
		}
		if (c != 'n' || cli_parse_int64("--now", optarg, 1, INT64_MAX / 2, &now) < 0)
			return CLI_FATAL;
	}
	if (optind + 1 != argc)
		return cli_usage_error(help, "one DIR is needed");
	if (!(s = antcmd_open(STORE_OPEN_EXISTING)))
		return CLI_FATAL;
	rc = publish(s, argv[optind], antcmd_now(now), keep, &lost, err, sizeof err);
	if (rc < 0)
		cli_error("%s", err);
	ant_store_close(s);
	/* 1: published, but archives lost with the directory stay lost */
	return rc < 0 ? CLI_FATAL : lost ? ANTCMD_NOTFOUND : CLI_OK;
}
