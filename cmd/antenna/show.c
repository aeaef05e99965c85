/*
 * show.c: antenna show URL: one page's (or source's) state, for people.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "antenna.h"
#include "ant_source_budget.h"

static const char help[] =
	"usage: antenna [-d FILE] show [URL]\n\n"
	"Without URL: the antenna's settings (as init set them) and its notification\n"
	"targets, each with its news pending, deliveries and last error.\n\n"
	"Show what the antenna knows of the page (or LIRS source) at URL: its update\n"
	"time and how that update was detected, the last check and its result, the\n"
	"validators, the schedule, and the parts of the page ignored automatically\n"
	"(their place, their text, since when and why).  A page not watched here that\n"
	"a relay source ('add --relay') gives: what each relay source said of it.\n"
	"Exit status 1 when URL is none of these.\n";


/* Whether the feed dated the page or only hinted (update_check.c keeps
 * feed_time only from a feed that speaks of the page). */
static const char *feed_use(const ant_store_page *p)
{
	if (p->st.feed_time > 0)
		return p->feed_by_user ? "dates the page (the page's own feed: set by user)" :
		       "dates the page (an entry whose link is the page, or the page is its home)";
	if (p->feed_error || !p->st.last_ok)
		return "none yet: the page's own rules decide";
	return "hint only (site-wide: no entry is about this page); the page's own text decides";
}

static const char *how(const ant_store_page *p)
{
	const char *r = p->st.detected_by;

	if (!p->st.last_modified)
		return "no update known yet";
	if (!r)
		return "first check (no trusted Last-Modified header)";
	if (!strcmp(r, "header"))
		return "header (a newer Last-Modified)";
	if (!strcmp(r, "text"))
		return "text (the page's text changed)";
	if (!strcmp(r, "size"))
		return "size (the page's length changed)";
	if (!strcmp(r, "feed"))
		return "feed (the page's feed has a newer entry)";
	/* a source dates a watched page only when we cannot check it, or its
	 * first check had no time of its own (ant_trust.h) */
	if (!strcmp(r, "atom"))
		return p->last_error ? "atom (the date is an Atom source's, not ours: our checks of the page fail)"
				     : "atom (the date is an Atom source's, not ours: our check could not refute it)";
	return p->last_error ? "lirs (the date is a LIRS source's, not ours: our checks of the page fail)"
			     : "lirs (the date is a LIRS source's, not ours: our check could not refute it)";
}


static void show_page(ant_store *s, const ant_store_page *p, int64_t tz)
{
	char b[128];

	printf("url:            %s\n", cli_t(p->url));
	antcmd_show_whereabouts(p, tz);
	printf("title:          %s%s\n", cli_t(p->title), p->title_set_by_user ? " (set by user)" : "");
	printf("author:         %s\n", cli_t(p->author));
	printf("group:          %s\n", cli_t(p->group));
	if (*p->ignore)
		printf("ignore:         %s\n", p->ignore);  /* one per line */
	if (*p->only)
		printf("only:           %s\n", p->only);    /* one per line */
	if (*p->force_charset)
		printf("force charset:  %s\n", p->force_charset);
	if (p->check_url)
		printf("check url:      %s\n", cli_t(p->check_url));
	if (p->no_auto_ignore)
		printf("auto ignore:    off (--no-auto-ignore)\n");
	if (p->render)
		printf("render:         headless chromium (--render)\n");
	if (*p->when)
		printf("when:           %s\n", p->when);   /* one per line */
	if (p->imported)
		printf("imported:       %s\n", antcmd_when(b, sizeof b, p->imported, tz));
	printf("last modified:  %s\n", antcmd_when(b, sizeof b, p->st.last_modified, tz));
	printf("detected by:    %s\n", how(p));
	printf("source url:     %s\n", cli_t(p->source_url));
	if (*p->excerpt)
		printf("excerpt:        %s\n", cli_t(p->excerpt));
	if (p->when_hit)
		printf("when matched:   %s (at the last update)\n", cli_t(p->when_hit));
	antcmd_show_taught(p);
	antcmd_show_learned(p, tz);
	if (p->feed_url) {
		printf("feed:           %s%s\n", cli_t(p->feed_url), p->feed_by_user ? " (set by user)" : "");
		printf("feed newest:    %s\n", antcmd_when(b, sizeof b, p->st.feed_time, tz));
		printf("feed error:     %s\n", p->feed_error ? cli_t(p->feed_error) : "none");
		/* the feed's newest entry is newer than the page's update: our
		 * own check found the body unchanged (a feed only dates a change
		 * the body shows: ant_detect.h), or 'when' took it as seen */
		if (p->st.feed_time > p->st.last_modified && p->st.last_ok)
			printf("feed use:       newer entry %s, %s\n", antcmd_when(b, sizeof b, p->st.feed_time, tz),
			       *p->when ? "not an update: the page unchanged, or not the words 'when' waits for"
					: "the page unchanged: not an update (a feed only dates a change the page shows)");
		else
			printf("feed use:       %s\n", feed_use(p));
	}
	printf("last detected:  %s\n", antcmd_when(b, sizeof b, p->st.last_detected, tz));
	printf("last check:     %s\n", antcmd_when(b, sizeof b, p->st.last_check, tz));
	printf("last success:   %s\n", antcmd_when(b, sizeof b, p->st.last_ok, tz));
	printf("last status:    %ld\n", p->st.last_status);
	printf("last error:     %s\n", p->last_error ? cli_t(p->last_error) : "none");
	antcmd_show_robots(s, p);
	antcmd_show_wait(s, p, tz);
	printf("errors in row:  %d\n", p->st.error_count);
	printf("etag:           %s\n", p->etag ? cli_t(p->etag) : "none");
	printf("last-modified:  %s\n", p->lm_header ? cli_t(p->lm_header) : "none");
	printf("charset:        %s\n", p->charset ? cli_t(p->charset) : "unknown");
	if (p->st.content_length >= 0)
		printf("length:         %lld\n", (long long)p->st.content_length);
	printf("interval:       %lld s\n", (long long)p->st.interval);
	printf("next check:     %s%s\n", p->st.next_check ? antcmd_when(b, sizeof b, p->st.next_check, tz) : "now",
	       p->st.recheck ? " (re-check asked by a source's hint)" : "");
}

/* The source's budgets and last read (ant_source_budget.h). */
static void show_budget(ant_store *s, const ant_store_source *x)
{
	ant_source_budget b;

	if (ant_store_budget_get(s, x->id, &b, NULL) < 0)
		return;
	if (x->relay)
		printf("pages relayed:  %lld\n", (long long)b.pages_relayed);
	printf("churn:          %s (%lld of %lld known records changed at the last read, "
	       "%lld such reads in a row)\n", ant_source_budget_churning(&b) ? "yes: churning" : "no",
	       (long long)b.changed, (long long)b.known, (long long)b.churn_reads);
	printf("news:           %lld made events, %lld over budget (today %lld)\n",
	       (long long)b.news, (long long)b.held, (long long)b.news_day);
	printf("body:           %lld bytes, %lld records%s; read again unchanged %lld time%s\n",
	       (long long)b.body_len, (long long)b.records, b.cut ? " (cut at --max-source-records)" : "",
	       (long long)b.unchanged, b.unchanged == 1 ? "" : "s");
}

static void show_source(ant_store *s, const ant_store_source *x, int64_t tz)
{
	char b[128];

	printf("%-16s%s\n", x->kind == ANT_STORE_SOURCE_ATOM ? "atom source:" : x->kind ==
	       ANT_STORE_SOURCE_SITEMAP ? "sitemap source:" : "lirs source:", cli_t(x->url));
	printf("relay:          %s\n", x->relay ? "yes: every page it lists is published, credited to it"
					     : "no: only the pages watched here are updated");
	printf("last fetch:     %s\n", antcmd_when(b, sizeof b, x->last_fetch, tz));
	printf("last success:   %s\n", antcmd_when(b, sizeof b, x->last_ok, tz));
	printf("last status:    %ld\n", x->last_status);
	printf("last error:     %s\n", x->last_error ? cli_t(x->last_error) : "none");
	printf("records read:   %lld\n", (long long)x->records_read);
	printf("%-16s%lld\n", x->kind == ANT_STORE_SOURCE_SITEMAP ? "hinted:" : "merged:",
	       (long long)x->records_merged);   /* a sitemap's: pages it made us check */
	printf("%s%lld\n", x->relay ? "relayed:        " : "not watched:    ",
	       (long long)x->records_ignored);
	show_budget(s, x);
	if (x->relay)
		printf("records held:   %lld (%s)\n", (long long)ant_store_srcrec_count(s, x->id, NULL),
		       x->kind == ANT_STORE_SOURCE_ATOM ? "its newest entries, keep_events of them"
						    : "dropped 8 hours after they were last detected");
	printf("skipped:        %lld\n", (long long)x->records_skipped);
	printf("etag:           %s\n", x->etag ? cli_t(x->etag) : "none");
	printf("last-modified:  %s\n", x->lm_header ? cli_t(x->lm_header) : "none");
	if (x->kind == ANT_STORE_SOURCE_ATOM) {
		printf("newest entry:   %s\n", antcmd_when(b, sizeof b, x->last_entry, tz));
		printf("prev-archive:   %s\n", x->archive_head ? cli_t(x->archive_head) : "none");
		printf("archives read:  %lld\n", (long long)ant_store_archive_count(s, x->id, NULL));
	}
	antcmd_trust_show(s, x, tz);
}

/* A page this antenna does not watch but publishes from its relay sources
 * ('add --relay'): what each said of it, newest first. */
struct relayed_ctx { int64_t tz; int n; };

static int show_relayed_one(void *ctx, const ant_store_srcrec *r)
{
	struct relayed_ctx *c = ctx;
	char b[128];

	if (!r->source_relay)
		return 0;
	if (!c->n++) {
		printf("url:            %s (not watched here: relayed)\n", cli_t(r->url));
		printf("title:          %s\n", cli_t(r->title));
		printf("author:         %s\n", cli_t(r->author));
	}
	printf("relayed by:     %s\n", cli_t(r->source_url));
	printf("  last modified: %s\n", antcmd_when(b, sizeof b, r->last_modified, c->tz));
	printf("  last detected: %s%s\n", antcmd_when(b, sizeof b, r->last_detected, c->tz),
	       r->source_kind == ANT_STORE_SOURCE_ATOM ? " (when read)" : "");
	if (r->content_length > 0)
		printf("  length:        %lld\n", (long long)r->content_length);
	return 0;
}

static int find_relayed(ant_store *s, const char *key, int64_t tz, lb_error *err)
{
	struct relayed_ctx c = { tz, 0 };
	int rc = ant_store_srcrec_each(s, key, show_relayed_one, &c, err);

	return rc < 0 ? rc : c.n > 0;
}

static int find_source(ant_store *s, const char *key, int64_t tz, lb_error *err)
{
	ant_store_source *x;
	size_t n, i;

	if (ant_store_sources_load(s, &x, &n, err) < 0)
		return -1;
	for (i = 0; i < n && strcmp(x[i].url_key, key) != 0; i++)
		;
	if (i < n)
		show_source(s, &x[i], tz);
	ant_store_sources_free(x, n);
	return i < n;
}

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ant_store *s;
	ant_store_page p;
	char *key;
	lb_error err = LB_ERROR_INIT;
	int c, rc;
	int64_t tz;

	while ((c = cli_getopt(argc, argv, "h", opts, help)) != -1)
		return c == 'h' ? cli_help(help) : CLI_FATAL;
	if (optind == argc)
		return antcmd_show_settings();   /* show_settings.c */
	if (optind + 1 != argc)
		return cli_usage_error(help, "one URL is needed");
	if (!(s = antcmd_open_url(argv[optind], &key)))
		return CLI_FATAL;
	tz = ant_setting_int(s, ANT_SET_TZ);
	rc = ant_store_page_get(s, key, &p, &err);
	if (rc > 0) {
		show_page(s, &p, tz);
		ant_store_page_release(&p);
	} else if (rc == 0 && (rc = find_source(s, key, tz, &err)) == 0) {
		rc = find_relayed(s, key, tz, &err);
	}
	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	else if (rc == 0)
		cli_error("'%s' is not watched", argv[optind]);
	free(key);
	ant_store_close(s);
	return rc < 0 ? CLI_FATAL : rc == 0 ? ANTCMD_NOTFOUND : CLI_OK;
}
