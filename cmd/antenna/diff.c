/*
 * diff.c: antenna diff: the last update of a watched page, in its text,
 * in the terminal, as the diff page shows it (ant_difftext.h): lines
 * removed ("-") and added ("+") with a few lines of context, "@@" where
 * unchanged lines are left out.  On a terminal, removed lines are red and
 * added ones green, the words that changed within them in reverse video
 * (like git diff's colours); to a pipe or a file, plain text.  The page's
 * text passes through lb_term: nothing from outside reaches the terminal raw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "antenna.h"
#include "ant_difftext.h"
#include "lb_term.h"

static const char help[] =
	"usage: antenna [-d FILE] diff [--color=WHEN] URL\n\n"
	"Show the last change found in the text of the watched page at URL: the\n"
	"lines removed (-) and added (+), with a few unchanged lines around them,\n"
	"furniture and noise (counters, clocks, parts learned volatile) left out.\n"
	"  --color=WHEN   auto (default: on a terminal), always or never\n"
	"Exit status 1 when URL is not watched or no change was found in its text.\n";

#define RED "\033[31m"
#define GREEN "\033[32m"
#define CYAN "\033[36m"
#define REV "\033[7m"
#define UNREV "\033[27m"
#define RESET "\033[m"

struct out {
	lb_buf b, tmp;
	int color;
};

/* One shown line (ant_diff_show_fn): its op's mark, its pieces made safe. */
static int put_line(void *ctx, int op, const ant_diff_word *w, size_t n)
{
	struct out *o = ctx;
	const char *on = op == ANT_DIFF_DEL ? RED : op == ANT_DIFF_ADD ? GREEN : op == ANT_DIFF_GAP ? CYAN : "";

	if (op == ANT_DIFF_GAP)
		return lb_buf_addf(&o->b, "%s@@%s\n", o->color ? on : "", o->color ? RESET : "") < 0 ? LB_ENOMEM : 0;
	if (lb_buf_adds(&o->b, o->color ? on : "") < 0 || lb_buf_addc(&o->b, (char)op) < 0)
		return LB_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int mark = o->color && w[i].op != ANT_DIFF_SAME;

		if ((mark && lb_buf_adds(&o->b, REV) < 0) || lb_term_add(&o->b, w[i].s, w[i].len) < 0 ||
		    (mark && lb_buf_adds(&o->b, UNREV) < 0))
			return LB_ENOMEM;
	}
	if (lb_buf_adds(&o->b, o->color && *on ? RESET "\n" : "\n") < 0)
		return LB_ENOMEM;
	return cli_out_flush(&o->b, stdout, 0) < 0 ? LB_EIO : 0;
}

/* The page's stored diff shown: CLI_OK, ANTCMD_NOTFOUND or CLI_FATAL. */
static int show_diff(const char *url, const ant_store_text *t, int64_t tz, size_t max, int color)
{
	struct out o = { LB_BUF_INIT, LB_BUF_INIT, color };
	lb_buf raw = LB_BUF_INIT;
	ant_diff d;
	char when[64];
	int rc;

	/* a pending diff (ant_difftext.h) is made now */
	if ((rc = ant_difftext_read_kept(t->diff, t->diff_len, t->text, t->text_len, max, &raw, &d)) < 0) {
		cli_error("cannot read the diff of '%s': %s", cli_t(url), lb_strerror(rc));
		lb_buf_release(&raw);
		return CLI_FATAL;
	}
	if (!d.n && !d.too_many) {
		cli_error("no change found in the text of '%s' yet", cli_t(url));
		lb_buf_release(&raw);
		return ANTCMD_NOTFOUND;
	}
	antcmd_time(when, sizeof when, t->diff_time, tz);
	lb_buf_addf(&o.b, "%s%s %s%s\n", color ? CYAN : "", lb_term(&o.tmp, url), when, color ? RESET : "");
	if (d.too_many)
		lb_buf_adds(&o.b, "(too many changes to show)\n");
	else
		lb_buf_addf(&o.b, "%zu line%s removed, %zu added\n", d.removed, d.removed == 1 ? "" : "s",
			    d.added);
	rc = ant_diff_show(&d, ANT_DIFF_MAX_CELLS, put_line, &o);
	if (rc == 0)
		rc = cli_out_flush(&o.b, stdout, 1);
	ant_diff_release(&d);
	lb_buf_release(&raw);
	lb_buf_release(&o.b);
	lb_buf_release(&o.tmp);
	if (rc == LB_ENOMEM)
		cli_error("%s", lb_strerror(rc));
	return rc < 0 ? CLI_FATAL : CLI_OK;
}

static int parse_color(const char *s, int *color)
{
	if (!strcmp(s, "auto"))
		*color = isatty(STDOUT_FILENO);
	else if (!strcmp(s, "always"))
		*color = 1;
	else if (!strcmp(s, "never"))
		*color = 0;
	else
		return -1;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "color", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ant_store *s;
	ant_store_text t;
	lb_error err = LB_ERROR_INIT;
	char *key;
	int c, rc, status = CLI_FATAL, color = isatty(STDOUT_FILENO);

	while ((c = cli_getopt(argc, argv, "h", opts, help)) != -1)
		if (c == 'h')
			return cli_help(help);
		else if (c == 'c' && parse_color(optarg, &color) < 0)
			return cli_usage_error(help, "--color: '%s' is not auto, always or never", cli_t(optarg));
		else if (c != 'c')
			return CLI_FATAL;
	if (optind + 1 != argc)
		return cli_usage_error(help, "one URL is needed");
	if (!(s = antcmd_open_url(argv[optind], &key)))
		return CLI_FATAL;
	rc = ant_store_text_of_key(s, key, &t, &err);
	if (rc == LB_ENOTFOUND) {
		cli_error("'%s' is not watched", cli_t(argv[optind]));
		status = ANTCMD_NOTFOUND;
	} else if (rc < 0) {
		cli_error("%s", lb_error_msg(&err));
	} else if (rc == 0 || !t.diff) {
		cli_error("no change found in the text of '%s' yet", cli_t(argv[optind]));
		status = ANTCMD_NOTFOUND;
	} else {
		int64_t max = ant_setting_int(s, ANT_SET_DIFF_TEXT_MAX);

		status = show_diff(argv[optind], &t, ant_setting_int(s, ANT_SET_TZ),
				   max > 0 ? (size_t)max : ANT_DIFF_TEXT_MAX, color);
	}
	ant_store_text_release(&t);
	free(key);
	ant_store_close(s);
	return status;
}
