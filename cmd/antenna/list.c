/*
 * list.c: antenna list: the watched pages (or, with --sources, the LIRS
 * and Atom sources; with --relayed, the pages relay sources give) as text
 * for people or JSON Lines for programs.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "antenna.h"
#include "ant_source_budget.h"
#include "ant_export.h"
#include "ant_pagestate.h"
#include "lb_buf.h"
#include "lb_term.h"
#include "lirs.h"
#include "lirs_jsonw.h"


/* Text from outside, made safe for a terminal (lb_term.h). */
static int tadd(lb_buf *o, const char *s)
{
	return lb_term_add(o, s, strlen(s));
}

/* " [ERROR]" after a line's URL, when there is one. */
static int error_tail(lb_buf *o, const char *e)
{
	if (!e)
		return 0;
	return lb_buf_adds(o, "  [") < 0 || tadd(o, e) < 0 ? -1 : lb_buf_addc(o, ']');
}

static int page_text(lb_buf *o, const ant_store_page *p, int64_t tz)
{
	char t[64];

	antcmd_time(t, sizeof t, p->st.last_modified, tz);
	if (lb_buf_addf(o, "%s  %-6s  ", t, p->st.detected_by ? p->st.detected_by : "-") < 0 ||
	    tadd(o, *p->title ? p->title : "(no title)") < 0 || lb_buf_adds(o, "  <") < 0 ||
	    tadd(o, p->url) < 0 || lb_buf_addc(o, '>') < 0 || error_tail(o, p->last_error) < 0)
		return -1;
	return lb_buf_addc(o, '\n');
}

/* The text format's first line: what each column is ("-" padded as
 * antcmd_time() pads an unknown time, so the columns line up). */
static int header(lb_buf *o, int64_t tz, const char *rest)
{
	char t[64];
	size_t w;

	antcmd_time(t, sizeof t, 0, tz);
	w = strlen(t);
	return lb_buf_addf(o, "%-*s  %-6s  %s\n", (int)w, "last update", "by", rest);
}

/* A relay source's count is of pages (URLs it relays), the others' of
 * records; churn and a cut body said (ant_source_budget.h). */
static int source_line(lb_buf *o, ant_store *s, const ant_store_source *x, const ant_source_budget *b,
		       int json)
{
	int churn = ant_source_budget_churning(b);

	if (!json)
		return tadd(o, x->url) < 0 ||
		       lb_buf_addf(o, "%s  read %lld, %s %lld, %s %lld, skipped %lld%s%s",
				   x->relay ? "  (relay)" : x->kind == ANT_STORE_SOURCE_SITEMAP ? "  (sitemap)" : "",
				   (long long)x->records_read,
				   x->kind == ANT_STORE_SOURCE_SITEMAP ? "hinted" : "merged",
				   (long long)x->records_merged, x->relay ? "relayed" : "not watched",
				   (long long)(x->relay ? b->pages_relayed : x->records_ignored),
				   (long long)x->records_skipped, churn ? ", churning" : "",
				   b->cut ? ", cut" : "") < 0 ||
		       antcmd_trust_text(o, s, x) < 0 || error_tail(o, x->last_error) < 0 ? -1 : lb_buf_addc(o, '\n');
	if (lb_buf_addc(o, '{') < 0 || lb_json_key(o, "url") < 0 || lb_json_strz(o, x->url) < 0 ||
	    lb_json_next_int(o, "last_fetch", x->last_fetch) < 0 || lb_json_next_int(o, "last_ok", x->last_ok) < 0 ||
	    lb_json_next_strz_or_null(o, "last_error", x->last_error) < 0 ||
	    lb_json_next_int(o, "records_read", x->records_read) < 0 ||
	    lb_json_next_int(o, "records_merged", x->records_merged) < 0 ||
	    lb_json_next_int(o, "records_ignored", x->records_ignored) < 0 ||
	    lb_json_next_int(o, "records_skipped", x->records_skipped) < 0 ||
	    lb_json_next_strz_or_null(o, "kind", ant_store_source_kind_name(x->kind)) < 0 ||
	    lb_json_next_int(o, "pages_relayed", x->relay ? b->pages_relayed : 0) < 0 ||
	    lb_buf_adds(o, ",\"churning\":") < 0 || lb_buf_adds(o, churn ? "true" : "false") < 0 ||
	    lb_json_next_int(o, "news_held", b->held) < 0 || lb_json_next_int(o, "cut", b->cut) < 0 ||
	    lb_buf_adds(o, ",\"relay\":") < 0 || lb_buf_adds(o, x->relay ? "true" : "false") < 0 ||
	    lb_json_next_int(o, "records_relayed", x->relay ? x->records_ignored : 0) < 0 ||
	    antcmd_trust_json(o, s, x) < 0)
		return -1;
	return lb_buf_adds(o, "}\n");
}

#define LIST_CHUNK 65536

struct lister {
	lb_buf *o;
	int json;
	int64_t tz;
	size_t n;            /* lines written */
	int gone;            /* text: 0 the pages not gone (counting them in ngone), 1 those */
	size_t ngone;
};

/* What o holds, handed to stdout once it reaches LIST_CHUNK bytes. */
static int chunk_out(struct lister *l)
{
	if (l->o->len >= LIST_CHUNK) {
		if (fwrite(l->o->data, 1, l->o->len, stdout) != l->o->len)
			return LB_ESINK;
		lb_buf_reset(l->o);
	}
	return 0;
}

/* One line into o, handed to stdout every LIST_CHUNK bytes. */
static int list_page(void *ctx, const ant_store_page *p)
{
	struct lister *l = ctx;
	int gone = ant_page_state_of(p) == ANT_PAGE_STATE_GONE;

	if (!l->json && gone != l->gone) {   /* gone pages are listed apart, after */
		l->ngone += gone;
		return 0;
	}
	if (!l->json && !l->n++ && header(l->o, l->tz, "title  <url>  [last error]") < 0)
		return LB_ENOMEM;
	if ((l->json ? ant_export_page_json(l->o, p, ANT_EXPORT_JSON_STATE) : page_text(l->o, p, l->tz)) < 0)
		return LB_ENOMEM;
	return chunk_out(l);
}

/* A relayed page, as 'antenna publish' lists it (ant_store_published_each),
 * written as list_page() writes a page. */
static int relayed_row(void *ctx, const ant_store_pubrow *r)
{
	struct lister *l = ctx;
	char t[64];
	int bad;

	if (!r->relayed)
		return 0;
	if (!l->json) {
		antcmd_time(t, sizeof t, r->last_modified, l->tz);
		bad = (!l->n++ && header(l->o, l->tz, "title  <url>  via source") < 0) ||
		      lb_buf_addf(l->o, "%s  %-6s  ", t, r->detected_by ? r->detected_by : "-") < 0 ||
		      tadd(l->o, *r->title ? r->title : "(no title)") < 0 || lb_buf_adds(l->o, "  <") < 0 ||
		      tadd(l->o, r->url) < 0 || lb_buf_adds(l->o, ">  via ") < 0 ||
		      tadd(l->o, r->source_url) < 0 || lb_buf_addc(l->o, '\n') < 0;
	} else {
		bad = lb_buf_addc(l->o, '{') < 0 || lb_json_key(l->o, "url") < 0 ||
		      lb_json_strz(l->o, r->url) < 0 || lb_json_next_strz_or_null(l->o, "title", r->title) < 0 ||
		      lb_json_next_strz_or_null(l->o, "author", r->author) < 0 ||
		      lb_json_next_int(l->o, "last_modified", r->last_modified) < 0 ||
		      lb_json_next_int(l->o, "last_detected", r->last_detected) < 0 ||
		      lb_json_next_int(l->o, "content_length", r->content_length) < 0 ||
		      lb_json_next_strz_or_null(l->o, "detected_by", r->detected_by) < 0 ||
		      lb_json_next_strz_or_null(l->o, "source_url", r->source_url) < 0 ||
		      lb_buf_adds(l->o, "}\n") < 0;
	}
	if (bad)
		return LB_ENOMEM;
	return chunk_out(l);
}

static int list_relayed(ant_store *s, int json, lb_buf *o, lb_error *err)
{
	struct lister l = { o, json, ant_setting_int(s, ANT_SET_TZ), 0, 0, 0 };
	ant_store_pubq q = { .order = ANT_PUBQ_RECENT, .fresh_only = 1, .found_after = -1,
			     .fresh_since = antcmd_now(0) -
					    ant_setting_int(s, ANT_SET_MAX_AGE) };
	int rc = ant_store_published_each(s, &q, relayed_row, &l, err);

	if (rc == LB_ENOMEM || rc == LB_ESINK)
		lb_err(err, rc, "%s", rc == LB_ENOMEM ? lb_strerror(rc) : "cannot write to standard output");
	return rc < 0 ? -1 : 0;
}

/* No page is watched: said on stderr (stdout stays empty for scripts),
 * with where a hub's pages are. */
static void none_watched(ant_store *s)
{
	ant_store_source *x;
	size_t n = 0;
	lb_error err = LB_ERROR_INIT;

	if (ant_store_sources_load(s, &x, &n, &err) < 0)
		return;
	ant_store_sources_free(x, n);
	if (n)
		cli_error("no page is watched here; the %zu source%s this antenna reads: 'antenna list "
			  "--sources'; the pages its relay sources give: 'antenna list --relayed'",
			  n, n == 1 ? "" : "s");
	else
		cli_error("no page is watched: 'antenna add URL' adds one");
}

/* One page in memory at a time (ant_store_pages_each), the lines written
 * as they come: a million pages list in bounded memory. */
static int list_pages(ant_store *s, int json, lb_buf *o, lb_error *err)
{
	struct lister l = { o, json, ant_setting_int(s, ANT_SET_TZ), 0, 0, 0 };
	int rc = ant_store_pages_each(s, list_page, &l, err);

	if (rc >= 0 && l.ngone && lb_buf_addf(o, "\ngone (no answer for days; checked once a day):\n") == 0) {
		l.gone = 1;
		rc = ant_store_pages_each(s, list_page, &l, err);
	}

	if (rc == LB_ENOMEM || rc == LB_ESINK)
		lb_err(err, rc, "%s", rc == LB_ENOMEM ? lb_strerror(rc) : "cannot write to standard output");
	if (rc >= 0 && !json && !l.n)
		none_watched(s);
	return rc < 0 ? -1 : 0;
}

static int list_sources(ant_store *s, int json, lb_buf *o, lb_error *err)
{
	ant_store_source *x;
	size_t n;

	if (ant_store_sources_load(s, &x, &n, err) < 0)
		return -1;
	if (!json && n && lb_buf_addf(o, "%s\n", "source  records  [last error]") < 0)
		return lb_err_code(err, LB_ENOMEM);
	for (size_t i = 0; i < n; i++) {
		ant_source_budget b;
		int rc = ant_store_budget_get(s, x[i].id, &b, err);

		if (rc < 0 || source_line(o, s, &x[i], &b, json) < 0) {
			ant_store_sources_free(x, n);
			return rc < 0 ? rc : lb_err_code(err, LB_ENOMEM);
		}
	}
	ant_store_sources_free(x, n);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "sources", no_argument, NULL, 's' },
		{ "relayed", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, json = 0, sources = 0, relayed = 0, rc;
	ant_store *s;
	lb_buf o = LB_BUF_INIT;
	lb_error err = LB_ERROR_INIT;

	while ((c = cli_getopt(argc, argv, "h", opts, antcmd_list_help)) != -1) {
		switch (c) {
		case 'h': return cli_help(antcmd_list_help);
		case 's': sources = 1; break;
		case 'r': relayed = 1; break;
		case 'f':
			if (!strcmp(optarg, "jsonl"))
				json = 1;
			else if (!strcmp(optarg, "text"))
				json = 0;
			else
				return cli_usage_error(antcmd_list_help, "--format: '%s' is not text or jsonl", optarg);
			break;
		default: return CLI_FATAL;
		}
	}
	if (sources && relayed)
		return cli_usage_error(antcmd_list_help, "--sources and --relayed exclude each other");
	if (!(s = antcmd_open_no_operand(argc, argv, antcmd_list_help)))
		return CLI_FATAL;
	rc = sources ? list_sources(s, json, &o, &err)
	     : relayed ? list_relayed(s, json, &o, &err)
		       : list_pages(s, json, &o, &err);
	ant_store_close(s);
	if (rc < 0) {
		cli_error("%s", lb_error_msg(&err));
		lb_buf_release(&o);
		return CLI_FATAL;
	}
	fwrite(o.data, 1, o.len, stdout);
	lb_buf_release(&o);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cannot write to standard output");
		return CLI_FATAL;
	}
	return CLI_OK;
}
