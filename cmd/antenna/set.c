/*
 * set.c: antenna set URL [OPTION]...: change a watched page's settings and
 * keep its history (update times, events, excerpt, schedule).
 *
 * Lists: the --ignore (or --only) patterns given replace the page's list;
 * --no-ignore, or --ignore '' alone, empties it; a list not mentioned is
 * kept.  A text option given as '' clears it (--title '' gives the title
 * back to the page's <title>; --feed '' gives the feed back to discovery;
 * --check-url '' fetches the URL itself).
 *
 * A change of what is compared (ignore, only, check URL, automatic
 * ignoring) makes the next check a quiet baseline (ANT_REBASE_TEXT): the
 * region changed, so the text changes, and that is no update of the page.
 * Another feed forgets what the old one said (ANT_REBASE_FEED).  Either
 * makes the page due at the next 'antenna update'.
 * --when, --render, --not-news, --forget-noise: not_news.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "lb_buf.h"
#include "ant_limits.h"


/* One repeatable list option: what was given. */
struct list_opt {
	const char *name;       /* "--ignore" */
	lb_buf pats;            /* the non-empty patterns given, one per line */
	int given;              /* --ignore seen (even '') */
	int cleared;            /* --no-ignore */
};

struct set_opts {
	const char *title, *author, *group, *feed, *check_url;
	struct list_opt ignore, only;
	int auto_ignore;        /* -1 not given, 0 --no-auto-ignore, 1 --auto-ignore */
	int robots;             /* -1 not given, 1 --ignore-robots, 0 --no-ignore-robots */
	struct antcmd_meaning m;
};

static int list_add(struct list_opt *l, const char *pat)
{
	l->given = 1;
	if (!*pat)
		return 0;
	return antcmd_add_pattern(&l->pats, l->name, pat);
}

/* The list's new value, or NULL when it is not changed. */
static const char *list_value(const struct list_opt *l)
{
	return l->given || l->cleared ? l->pats.data : NULL;
}

static int replace(char **dst, const char *v)
{
	char *n;

	if (!v)
		return 0;
	if (!(n = strdup(v)))
		return -1;
	free(*dst);
	*dst = n;
	return 0;
}

/* An optional URL: "" is none (NULL). */
static int replace_url(char **dst, const char *v)
{
	if (!v)
		return 0;
	if (!*v) {
		free(*dst);
		*dst = NULL;
		return 0;
	}
	return replace(dst, v);
}

static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Applies o to p; the names of the fields that changed go to ch, and
 * *rebase gets the ANT_REBASE_* the change needs.  -1 out of memory. */
static int apply(ant_store_page *p, const struct set_opts *o, lb_buf *ch, unsigned *rebase)
{
	const char *ign = list_value(&o->ignore), *only = list_value(&o->only);
	const char *url = p->url;

	*rebase = 0;
	if (o->title && (!same(p->title, o->title) || p->title_set_by_user != (*o->title != '\0'))) {
		if (replace(&p->title, o->title) < 0)
			return -1;
		p->title_set_by_user = *o->title != '\0';
		lb_buf_adds(ch, " title");
	}
	if (o->author && !same(p->author, o->author)) {
		if (replace(&p->author, o->author) < 0)
			return -1;
		lb_buf_adds(ch, " author");
	}
	if (o->group && !same(p->group, o->group)) {
		if (replace(&p->group, o->group) < 0)
			return -1;
		lb_buf_adds(ch, " group");
	}
	if (ign && !same(p->ignore, ign)) {
		if (replace(&p->ignore, ign) < 0)
			return -1;
		lb_buf_adds(ch, " ignore");
		*rebase |= ANT_REBASE_TEXT;
	}
	if (only && !same(p->only, only)) {
		if (replace(&p->only, only) < 0)
			return -1;
		lb_buf_adds(ch, " only");
		*rebase |= ANT_REBASE_TEXT;
	}
	if (o->check_url) {
		/* the page's own URL is no separate check URL */
		const char *v = strcmp(o->check_url, url) ? o->check_url : "";
		if (!same(p->check_url, v)) {
			if (replace_url(&p->check_url, v) < 0)
				return -1;
			lb_buf_adds(ch, " check-url");
			*rebase |= ANT_REBASE_TEXT;
		}
	}
	if (o->feed) {
		/* '' gives the feed back to discovery: the next check finds it */
		int by_user = *o->feed != '\0';
		if (by_user ? !same(p->feed_url, o->feed) || !p->feed_by_user : p->feed_by_user) {
			if (replace_url(&p->feed_url, o->feed) < 0)
				return -1;
			p->feed_by_user = by_user;
			lb_buf_adds(ch, " feed");
			*rebase |= ANT_REBASE_FEED;
		}
	}
	if (antcmd_set_meaning(p, &o->m, ch, rebase) < 0)
		return -1;
	if (o->auto_ignore >= 0 && p->no_auto_ignore != !o->auto_ignore) {
		p->no_auto_ignore = !o->auto_ignore;
		lb_buf_adds(ch, p->no_auto_ignore ? " no-auto-ignore" : " auto-ignore");
		*rebase |= ANT_REBASE_TEXT;
	}
	return 0;
}

static int check_list(const struct list_opt *l, const char *clear_name)
{
	if (l->cleared && l->pats.len) {
		cli_error("%s and %s PATTERN exclude each other", clear_name, l->name);
		return -1;
	}
	return 0;
}

int cmd_set(int argc, char **argv)
{
	static const struct option opts[] = {
		ANTCMD_PAGE_TEXT_OPTIONS,
		{ "no-ignore", no_argument, NULL, 'I' },
		{ "only", required_argument, NULL, 'o' },
		{ "range", required_argument, NULL, ANTCMD_OPT_RANGE },
		{ "no-only", no_argument, NULL, 'O' },
		{ "feed", required_argument, NULL, 'f' },
		{ "check-url", required_argument, NULL, 'c' },
		{ "no-auto-ignore", no_argument, NULL, 'N' },
		{ "auto-ignore", no_argument, NULL, 'U' },
		{ "ignore-robots", no_argument, NULL, 'R' },
		{ "no-ignore-robots", no_argument, NULL, 'r' },
		{ "server", required_argument, NULL, 'S' },
		{ "clear-wait", no_argument, NULL, 'W' },
		ANTCMD_MEANING_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct set_opts o = { .ignore = { "--ignore", LB_BUF_INIT, 0, 0 },
			      .only = { "--only", LB_BUF_INIT, 0, 0 }, .auto_ignore = -1, .robots = -1,
			      .m = ANTCMD_MEANING_INIT };
	ant_store *s = NULL;
	ant_store_page p;
	lb_buf ch = LB_BUF_INIT;
	char *key = NULL;
	const char *server = NULL;
	lb_error err = LB_ERROR_INIT;
	unsigned rebase = 0;
	int c, rc = CLI_FATAL, found = 0, allow_file, clear_wait = 0;

	ant_store_page_init(&p);
	while ((c = cli_getopt(argc, argv, "h", opts, antcmd_set_help)) != -1) {
		switch (c) {
		case 'h': rc = cli_help(antcmd_set_help); goto out;
		case 't': o.title = optarg; break;
		case 'a': o.author = optarg; break;
		case 'g': o.group = optarg; break;
		case 'i': if (list_add(&o.ignore, optarg) < 0) goto out; break;
		case 'I': o.ignore.cleared = 1; break;
		case 'o': if (list_add(&o.only, optarg) < 0) goto out; break;
		case ANTCMD_OPT_RANGE:   /* --only 'range:START...END' */
			if (antcmd_add_range(&o.only.pats, optarg) < 0) goto out;
			o.only.given = 1; break;
		case 'O': o.only.cleared = 1; break;
		case 'f': o.feed = optarg; break;
		case 'c': o.check_url = optarg; break;
		case 'R': case 'r': o.robots = c == 'R'; break;
		case 'S': server = optarg; break;
		case 'W': clear_wait = 1; break;
		case 'N':
		case 'U':
			if (o.auto_ignore >= 0 && o.auto_ignore != (c == 'U')) {
				cli_usage_error(antcmd_set_help, "--no-auto-ignore and --auto-ignore exclude each other");
				goto out;
			}
			o.auto_ignore = c == 'U';
			break;
		default: if (antcmd_meaning_opt(&o.m, c, optarg) <= 0) goto out; break;
		}
	}
	if (server || clear_wait) {   /* a server's wait, no page (wait.c) */
		rc = antcmd_clear_wait(argc, argv, server, clear_wait);
		goto out;
	}
	if (antcmd_one_url(argc, antcmd_set_help) < 0)
		goto out;
	if (check_list(&o.ignore, "--no-ignore") < 0 || check_list(&o.only, "--no-only") < 0 ||
	    antcmd_meaning_check(&o.m) < 0)
		goto out;
	if (!o.title && !o.author && !o.group && !list_value(&o.ignore) && !list_value(&o.only) &&
	    !o.feed && !o.check_url && o.auto_ignore < 0 && o.robots < 0 && !antcmd_meaning_given(&o.m)) {
		cli_usage_error(antcmd_set_help, "nothing to set");
		goto out;
	}
	if ((o.title && strchr(o.title, '\n')) || (o.author && strchr(o.author, '\n')) ||
	    (o.group && strchr(o.group, '\n'))) {
		cli_usage_error(antcmd_set_help, "a title, author or group cannot contain a newline");
		goto out;
	}
	antcmd_clip_texts(o.title, o.author);
	if (!(s = antcmd_open_url(argv[optind], &key)))
		goto out;
	allow_file = ant_setting_int(s, ANT_SET_ALLOW_FILE) != 0;
	if ((o.feed && *o.feed && antcmd_check_url(o.feed, allow_file) < 0) ||
	    (o.check_url && *o.check_url && antcmd_check_url(o.check_url, allow_file) < 0))
		goto out;
	/* An update running now would write its older view of the page back. */
	if (ant_store_lock(s, ANT_STORE_LOCK_WAIT, &err) < 0 ||
	    ant_store_begin(s, &err) < 0) {
		cli_error("%s", lb_error_msg(&err));
		goto out;
	}
	found = ant_store_page_get(s, key, &p, &err);
	if (found <= 0) {
		ant_store_rollback(s);
		if (found < 0)
			cli_error("%s", lb_error_msg(&err));
		else
			cli_error("'%s' is not watched", argv[optind]);
		rc = found < 0 ? CLI_FATAL : ANTCMD_NOTFOUND;
		goto out;
	}
	if (apply(&p, &o, &ch, &rebase) < 0) {
		ant_store_rollback(s);
		cli_error("out of memory");
		goto out;
	}
	if ((o.m.not_news && antcmd_not_news(s, &p, &o.m.said, &err) < 0) ||
	    (o.robots >= 0 && antcmd_robots_set(s, &p, o.robots, &ch, &err) < 0) ||
	    (ch.len && ant_store_page_set_config(s, &p, &err) < 0) ||
	    (rebase && ant_store_page_rebaseline(s, p.id, rebase, &err) < 0) ||
	    ant_store_commit(s, &err) < 0) {
		ant_store_rollback(s);
		cli_error("%s", lb_error_msg(&err));
		rc = err.code == LB_ENOTFOUND ? ANTCMD_NOTFOUND : CLI_FATAL;
		goto out;
	}
	if (o.m.said.len)
		printf("'%s': %s\n", cli_t(p.url), cli_t(o.m.said.data));
	if (!ch.len && !o.m.said.len)
		printf("'%s' unchanged\n", cli_t(p.url));
	else if (ch.len)
		printf("set '%s':%s%s\n", cli_t(p.url), cli_t(ch.data),
		       rebase & ANT_REBASE_TEXT ? " (the next check is a new baseline)" : "");
	rc = CLI_OK;
out:
	ant_store_page_release(&p);
	ant_store_close(s);
	free(key);
	lb_buf_release(&ch);
	lb_buf_release(&o.ignore.pats);
	lb_buf_release(&o.only.pats);
	antcmd_meaning_release(&o.m);
	return rc;
}
