/*
 * publish.c: antenna publish DIR: the static site from the database.
 *   DIR/index.html, DIR/lirs.gz,
 *   DIR/sites.di.gz                       publish.h
 *   DIR/index.atom, archive/N.atom,
 *   DIR/current.atom                      atom.h over the update events
 *                                         that 'update' recorded (evstore)
 * The time of each publish is kept (config "last_publish") so index.html
 * marks the updates that came after the previous one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "atom.h"
#include "evstore.h"
#include "lirs.h"
#include "publish.h"

static const char help[] =
	"usage: antenna [-d FILE] publish [--now EPOCH] DIR\n\n"
	"Write the antenna's site into DIR (created when missing): index.html,\n"
	"lirs.gz (every page with a fresh update), sites.di.gz (the same as\n"
	"HINA-DI), index.atom, archive/N.atom and\n"
	"current.atom.  Each file is replaced atomically.\n\n"
	"  --now EPOCH  the time of this publish (default: the clock)\n";

struct site_cfg {
	char *title, *base, *author;
	pub_site site;
	pub_lirs_counts counts;
	int64_t page_size;
};

/* The lirs_charset setting (antenna init --charset): 1 for euc-jp-ms. */
static int lirs_charset_ms(store *s)
{
	char *v = store_config_get(s, CFG_LIRS_CHARSET);
	int ms = v && !strcmp(v, "euc-jp-ms");

	free(v);
	return ms;
}

/* What lirs.gz holds that is not exactly the pages' text (lirs(5)). */
static void lirs_warnings(const pub_lirs_counts *n)
{
	if (n->replaced)
		ant_error("warning: lirs.gz: %lu characters EUC-JP cannot hold were written as U+3013",
			  n->replaced);
	if (n->approximated)
		ant_error("warning: lirs.gz: %lu characters written as their nearest EUC-JP "
			  "equivalent (e.g. ¥ as ￥)", n->approximated);
	if (n->substituted)
		ant_error("warning: lirs.gz: %lu vendor characters (NEC/IBM extensions) written as "
			  "their readable forms (e.g. ① as (1), 髙 as 高; 'antenna init --charset "
			  "euc-jp-ms' keeps them)", n->substituted);
}

static void cfg_load(store *s, struct site_cfg *c, int64_t now)
{
	c->title = store_config_get(s, CFG_TITLE);
	c->base = store_config_get(s, CFG_BASE);
	c->author = store_config_get(s, CFG_AUTHOR);
	pub_site_defaults(&c->site);
	c->site.title = c->title ? c->title : "antenna";
	c->site.base = c->base ? c->base : "http://localhost/";
	c->site.author = c->author ? c->author : "";
	c->site.now = now;
	c->site.prev_publish = store_config_int(s, CFG_LAST_PUBLISH, 0);
	c->site.display_tz = store_config_int(s, CFG_TZ, PUB_JST);
	c->site.visited_query = store_config_int(s, CFG_VISITED, 1) != 0;
	c->site.max_age = store_config_int(s, CFG_MAX_AGE, LIRS_DEFAULT_MAX_AGE);
	c->site.lirs_euc_jp_ms = lirs_charset_ms(s);
	memset(&c->counts, 0, sizeof c->counts);
	c->site.lirs_counts = &c->counts;
	c->page_size = store_config_int(s, CFG_PAGE_SIZE, ATOM_DEFAULT_PAGE_SIZE);
}

static void cfg_free(struct site_cfg *c)
{
	free(c->title);
	free(c->base);
	free(c->author);
}

static void to_pub(pub_page *v, const store_page *p, int64_t tz)
{
	*v = (pub_page){
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
static size_t fresh_events(ev_event *ev, const pub_page *v, size_t n, const pub_site *site)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!v[i].last_modified || !v[i].last_detected ||
		    v[i].last_detected < site->now - site->max_age)
			continue;
		ev[k++] = (ev_event){
			.url = v[i].url, .last_modified = v[i].last_modified,
			.last_detected = v[i].last_detected, .tz_offset = v[i].tz_offset,
			.content_length = v[i].content_length, .title = v[i].title,
			.author = v[i].author, .source_url = v[i].source_url,
			.excerpt = v[i].excerpt,
		};
	}
	return k;
}

static int write_atom(store *s, const char *dir, const struct site_cfg *c,
		      const pub_page *v, size_t n, char *err, size_t errlen)
{
	evstore *ev = NULL;
	ev_event *cur = malloc((n ? n : 1) * sizeof *cur);
	atom_cfg ac = { .base = c->site.base, .title = c->site.title,
			.author = *c->site.author ? c->site.author : NULL,
			.page_size = c->page_size, .now = c->site.now };
	atom_stats stats;
	int rc = -1;

	if (!cur)
		return snprintf(err, errlen, "out of memory"), -1;
	if (evstore_attach(&ev, store_db(s), err, errlen) == 0)
		rc = atom_publish(ev, dir, &ac, NULL, 0, cur, fresh_events(cur, v, n, &c->site),
				  &stats, err, errlen);
	evstore_close(ev);
	free(cur);
	return rc;
}

static int publish(store *s, const char *dir, int64_t now, char *err, size_t errlen)
{
	struct site_cfg c;
	store_page *p = NULL;
	pub_page *v = NULL;
	size_t n = 0;
	int rc = -1;

	cfg_load(s, &c, now);
	if (store_pages_load(s, &p, &n, err, errlen) < 0)
		goto out;
	if (!(v = malloc((n ? n : 1) * sizeof *v))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		to_pub(&v[i], &p[i], c.site.display_tz);
	if (publish_html(dir, &c.site, v, n, err, errlen) < 0 ||
	    publish_lirs(dir, &c.site, v, n, err, errlen) < 0 ||
	    publish_di(dir, &c.site, v, n, err, errlen) < 0 ||
	    write_atom(s, dir, &c, v, n, err, errlen) < 0 ||
	    store_config_set_int(s, CFG_LAST_PUBLISH, now, err, errlen) < 0)
		goto out;
	lirs_warnings(&c.counts);
	printf("published %zu page%s: %s/index.html\n", n, n == 1 ? "" : "s", dir);
	rc = 0;
out:
	free(v);
	store_pages_free(p, n);
	cfg_free(&c);
	return rc;
}

int cmd_publish(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "now", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int64_t now = 0;
	int c, rc;
	store *s;
	char err[512];

	while ((c = ant_getopt(argc, argv, "h", opts, help)) != -1) {
		if (c == 'h')
			return ant_help(help);
		if (c != 'n' || ant_parse_int64("--now", optarg, 1, INT64_MAX / 2, &now) < 0)
			return ANT_FATAL;
	}
	if (optind + 1 != argc)
		return ant_usage_error(help, "one DIR is needed");
	if (!(s = ant_open(STORE_OPEN_EXISTING)))
		return ANT_FATAL;
	rc = publish(s, argv[optind], ant_now(now), err, sizeof err);
	if (rc < 0)
		ant_error("%s", err);
	store_close(s);
	return rc < 0 ? ANT_FATAL : ANT_OK;
}
