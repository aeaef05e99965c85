/*
 * add.c: antenna add: watch a page, or subscribe to a LIRS source.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "antenna.h"
#include "lb_buf.h"
#include "lb_url.h"
#include "ant_limits.h"
#include "ant_page.h"
#include "ant_target.h"

static const char help[] =
	"usage: antenna [-d FILE] add [--title T] [--author A] [--group G] [--ignore PATTERN]...\n"
	"                             [--only PATTERN]... [--range START...END]...\n"
	"                             [--feed FEED] [--check-url CURL]\n"
	"                             [--no-auto-ignore] [--when TEXT]... [--render] URL\n"
	"       antenna [-d FILE] add --lirs URL [--relay]\n"
	"       antenna [-d FILE] add --atom URL [--relay]\n"
	"       antenna [-d FILE] add --sitemap URL\n\n"
	"Watch the page at URL, or (--lirs) read another antenna's LIRS file at URL,\n"
	"or (--atom) its archived Atom feed, and relay its updates of the pages this\n"
	"antenna watches (with --relay: of every page it lists).\n\n"
	"  --title T         the page's title (otherwise taken from its <title>)\n"
	"  --author A        the page's author\n"
	"  --group G         list the page under group G\n"
	"  --ignore PATTERN  leave a part of the page out of the text checksum (repeatable):\n"
	"                    '#id' an element by id, '.class' elements by class,\n"
	"                    'css:SELECTOR' elements by a CSS selector, 'xpath:EXPR'\n"
	"                    elements by XPath 1.0, 'range:START...END' the text between\n"
	"                    two markers, 'json:$.items[*].price' values of a JSON page\n"
	"                    (a JSONPath subset: $ .key ['key'] [n] [*] ..key), anything\n"
	"                    else a POSIX extended regular expression over the text\n"
	"  --only PATTERN    watch only that part of the page (repeatable; the same\n"
	"                    patterns): a change elsewhere is no update, a change there\n"
	"                    is announced in its own check, numbers included; a css:,\n"
	"                    xpath: or range: part missing from the page fails the check\n"
	"  --range START...END  watch only the text between START and END (Hatena's\n"
	"                    range): the same as --only 'range:START...END'\n"
	"  --no-auto-ignore  learn no volatile parts of this page: every change counts\n"
	"  --when TEXT       announce an update only when what it added matches TEXT\n"
	"                    (repeatable, any of them; a POSIX extended regular\n"
	"                    expression); a change without it is seen, not news\n"
	"  --render          fetch the page with headless chromium (a page its scripts\n"
	"                    build)\n"
	"  --check-url CURL  fetch CURL to check the page (tama's Check-URL); URL is\n"
	"                    what the antenna shows and links\n"
	"  --feed FEED       the page's RSS or Atom feed (otherwise the one its HTML\n"
	"                    advertises): its newest entry dates the page's updates\n"
	"  --lirs            URL is a LIRS source, not a page (HINA-DI and\n"
	"                    hina.txt too, found from the body)\n"
	"  --atom            URL is an archived Atom feed's subscription document\n"
	"                    (RFC 5005; another antenna's index.atom): relay its\n"
	"                    entries' updates, reading its archives once\n"
	"  --sitemap         URL is a sitemap (sitemap.xml, a sitemap index, gzip too):\n"
	"                    a <lastmod> newer than what we know of a watched page it\n"
	"                    lists makes us check that page now (a hint, never its date)\n"
	"  --relay           with --lirs or --atom: publish every record of the\n"
	"                    source as a relayed page, credited to it and never\n"
	"                    checked here (a hub: the antenna of antennas)\n"
	"  --allow-file      accept a file:///... URL (also allowed by 'init --allow-file')\n\n"
	"URL must be an absolute http or https URL.\n";

struct add_opts {
	const char *title, *author, *group;
	lb_buf ignore;     /* patterns, one per line */
	lb_buf only;
	lb_buf when;       /* --when patterns, one per line */
	int render;
	int lirs, atom, sitemap, relay, allow_file, no_auto_ignore;
	const char *feed, *check_url;
};

static int add_page(ant_store *s, const char *url, char *key, struct add_opts *o)
{
	ant_store_page p;
	lb_error err = LB_ERROR_INIT;
	int rc;

	ant_store_page_init(&p);
	p.url = (char *)url;
	p.url_key = key;
	p.title = (char *)(o->title ? o->title : "");
	p.title_set_by_user = o->title != NULL;
	p.author = (char *)(o->author ? o->author : "");
	p.group = (char *)(o->group ? o->group : "");
	p.ignore = o->ignore.data;
	p.source_url = (char *)url;
	p.created = time(NULL);
	p.feed_url = (char *)o->feed;
	p.feed_by_user = o->feed != NULL;
	p.only = o->only.data;
	p.no_auto_ignore = o->no_auto_ignore;
	p.when = o->when.data;
	p.render = o->render;
	/* the page's own URL is no separate check URL */
	p.check_url = (char *)(o->check_url && strcmp(o->check_url, url) ? o->check_url : NULL);
	rc = ant_store_page_add(s, &p, &err);
	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	else if (rc > 0)
		cli_error("'%s' is already watched: 'antenna set URL OPTION...' changes its settings",
			  url);
	else
		printf("watching '%s'\n", cli_t(url));
	/* what the sources said of it when they were read: as if it had been
	 * watched then */
	if (rc == 0 && (rc = antcmd_recall(s, key, time(NULL), &err)) < 0)
		cli_error("%s", lb_error_msg(&err));
	return rc == 0 ? CLI_OK : CLI_FATAL;
}

static int add_source(ant_store *s, const char *url, char *key, int kind, int relay)
{
	ant_store_source src;
	lb_error err = LB_ERROR_INIT;
	int rc;

	ant_store_source_init(&src);
	src.url = (char *)url;
	src.url_key = key;
	src.created = time(NULL);
	src.kind = kind;
	src.relay = relay;
	rc = ant_store_source_add(s, &src, &err);
	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	else if (rc > 0)
		cli_error("'%s' is already a source", url);
	else
		printf("reading %s source '%s'%s\n", kind == ANT_STORE_SOURCE_ATOM ? "Atom" :
		       kind == ANT_STORE_SOURCE_SITEMAP ? "sitemap" : "LIRS", cli_t(url),
		       relay ? ", relaying every page it lists" : "");
	return rc == 0 ? CLI_OK : CLI_FATAL;
}

/* A URL whose name says it is a LIRS file, an Atom feed or a sitemap is
 * refused as a page (it would never make sense as one): the message gives
 * the command that reads it as what it is.  With --feed it is a page
 * watched through a feed: the operator said what it is. */
static int page_is_source(const char *url)
{
	int f = ant_target_url_format(url);
	char cmd[ANT_MAX_URL + 64];

	if (!f)
		return 0;
	ant_target_format_add(f, url, cmd, sizeof cmd);
	cli_error("'%s' is %s by its name, not a page: %s", url, ant_target_format_name(f), cmd);
	return 1;
}

int cmd_add(int argc, char **argv)
{
	static const struct option opts[] = {
		ANTCMD_PAGE_TEXT_OPTIONS,
		{ "only", required_argument, NULL, 'o' },
		{ "range", required_argument, NULL, ANTCMD_OPT_RANGE },
		{ "no-auto-ignore", no_argument, NULL, 'N' },
		{ "check-url", required_argument, NULL, 'c' },
		{ "lirs", no_argument, NULL, 'l' },
		{ "atom", no_argument, NULL, 'A' },
		{ "sitemap", no_argument, NULL, 'S' },
		{ "relay", no_argument, NULL, 'r' },
		{ "feed", required_argument, NULL, 'f' },
		{ "allow-file", no_argument, NULL, 'F' },
		{ "when", required_argument, NULL, ANTCMD_OPT_WHEN },
		{ "render", no_argument, NULL, ANTCMD_OPT_RENDER },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct add_opts o = { .ignore = LB_BUF_INIT, .only = LB_BUF_INIT, .when = LB_BUF_INIT };
	ant_store *s = NULL;
	char *key = NULL;
	int c, rc = CLI_FATAL;

	while ((c = cli_getopt(argc, argv, "h", opts, help)) != -1) {
		switch (c) {
		case 'h': rc = cli_help(help); goto out;
		case 't': o.title = optarg; break;
		case 'a': o.author = optarg; break;
		case 'g': o.group = optarg; break;
		case 'i': if (antcmd_add_pattern(&o.ignore, "--ignore", optarg) < 0) goto out; break;
		case 'o': if (antcmd_add_pattern(&o.only, "--only", optarg) < 0) goto out; break;
		case ANTCMD_OPT_RANGE: if (antcmd_add_range(&o.only, optarg) < 0) goto out; break;
		case 'N': o.no_auto_ignore = 1; break;
		case 'c': o.check_url = optarg; break;
		case 'l': o.lirs = 1; break;
		case 'A': o.atom = 1; break;
		case 'S': o.sitemap = 1; break;
		case 'r': o.relay = 1; break;
		case 'f': o.feed = optarg; break;
		case 'F': o.allow_file = 1; break;
		case ANTCMD_OPT_WHEN: if (antcmd_add_when(&o.when, optarg) < 0) goto out; break;
		case ANTCMD_OPT_RENDER: o.render = 1; break;
		default: goto out;
		}
	}
	if (antcmd_one_url(argc, help) < 0)
		goto out;
	if ((o.lirs || o.atom || o.sitemap) && (o.title || o.author || o.group || o.ignore.len || o.feed ||
				   o.only.len || o.no_auto_ignore || o.check_url || o.when.len || o.render)) {
		cli_usage_error(help, o.lirs ? "--lirs takes no page options" : o.atom ?
				"--atom takes no page options" : "--sitemap takes no page options");
		goto out;
	}
	if (o.relay && o.sitemap) {
		cli_usage_error(help, "--relay does not go with --sitemap: its dates are hints for the "
				"pages watched here");
		goto out;
	}
	if (o.relay && !o.lirs && !o.atom) {
		cli_usage_error(help, "--relay goes with --lirs or --atom (a source)");
		goto out;
	}
	if (o.lirs + o.atom + o.sitemap > 1) {
		cli_usage_error(help, "--lirs, --atom and --sitemap exclude each other");
		goto out;
	}
	if (!(s = antcmd_open(ANT_STORE_OPEN_EXISTING)))
		goto out;
	if (!o.allow_file)
		o.allow_file = ant_setting_int(s, ANT_SET_ALLOW_FILE) != 0;
	antcmd_clip_texts(o.title, o.author);
	if (antcmd_check_url(argv[optind], o.allow_file) < 0 ||
	    (o.feed && antcmd_check_url(o.feed, o.allow_file) < 0) ||
	    (o.check_url && antcmd_check_url(o.check_url, o.allow_file) < 0))
		goto out;
	if (!o.lirs && !o.atom && !o.sitemap && !o.feed && page_is_source(argv[optind]))
		goto out;
	if (!(key = lb_url_page_key_dup(argv[optind]))) {
		cli_error("out of memory");
		goto out;
	}
	rc = o.lirs || o.atom || o.sitemap
		? add_source(s, argv[optind], key, o.atom ? ANT_STORE_SOURCE_ATOM : o.sitemap ?
			     ANT_STORE_SOURCE_SITEMAP : ANT_STORE_SOURCE_LIRS, o.relay)
			      : add_page(s, argv[optind], key, &o);
out:
	free(key);
	ant_store_close(s);
	lb_buf_release(&o.ignore);
	lb_buf_release(&o.only);
	lb_buf_release(&o.when);
	return rc;
}
