/*
 * not_news.c: what 'antenna add' and 'antenna set' do with what the
 * operator means by a page: the --when words (ant_when.h: replaced by the
 * ones given, --no-when clears them; no rebaseline, the comparison is the
 * same), the render flag, 'set --not-news' (the last announced update
 * taken back and what it added taught as the page's noise, ant_taught.h)
 * and 'set --forget-noise' (the noise taught and learned forgotten: a text
 * rebaseline, as the reference was made without the taught parts).  Apart
 * from set.c so that each stays a short file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "atom_evstore.h"
#include "ant_taught.h"
#include "ant_when.h"

int antcmd_add_when(lb_buf *list, const char *pat)
{
	lb_error err = LB_ERROR_INIT;
	size_t n = 1;

	for (const char *q = list->data; *q; q++)
		n += *q == '\n';
	if (list->len && n >= ANT_WHEN_MAX)
		return cli_error("--when: at most %d patterns a page", ANT_WHEN_MAX), -1;
	if (ant_when_check(pat, &err) < 0)
		return cli_error("--when: %s", lb_error_msg(&err)), -1;
	if ((list->len && lb_buf_addc(list, '\n') < 0) || lb_buf_adds(list, pat) < 0)
		return cli_error("out of memory"), -1;
	return 0;
}

int antcmd_meaning_opt(struct antcmd_meaning *m, int c, const char *arg)
{
	switch (c) {
	case ANTCMD_OPT_WHEN:
		m->when_given = 1;
		return !*arg || antcmd_add_when(&m->when, arg) == 0 ? 1 : -1;
	case ANTCMD_OPT_NO_WHEN: m->when_given = m->when_cleared = 1; return 1;
	case ANTCMD_OPT_RENDER: case ANTCMD_OPT_NO_RENDER: m->render = c == ANTCMD_OPT_RENDER; return 1;
	case ANTCMD_OPT_NOT_NEWS: m->not_news = 1; return 1;
	case ANTCMD_OPT_FORGET_NOISE: m->forget = 1; return 1;
	default: return 0;
	}
}

int antcmd_meaning_check(const struct antcmd_meaning *m)
{
	if (m->when_cleared && m->when.len)
		return cli_usage_error(antcmd_set_help, "--no-when and --when TEXT exclude each other"), -1;
	if (m->not_news && m->forget)
		return cli_usage_error(antcmd_set_help, "--not-news and --forget-noise exclude each other"), -1;
	return 0;
}

int antcmd_meaning_given(const struct antcmd_meaning *m)
{
	return m->when_given || m->render >= 0 || m->not_news || m->forget;
}

void antcmd_meaning_release(struct antcmd_meaning *m)
{
	lb_buf_release(&m->when);
	lb_buf_release(&m->said);
}

static int set_text(char **dst, const char *v)
{
	char *n = strdup(v);

	if (!n)
		return -1;
	free(*dst);
	*dst = n;
	return 0;
}

int antcmd_set_meaning(ant_store_page *p, const struct antcmd_meaning *m, lb_buf *ch, unsigned *rebase)
{
	if (m->when_given && strcmp(p->when, m->when.data) != 0) {
		if (set_text(&p->when, m->when.data) < 0)
			return -1;
		lb_buf_adds(ch, " when");
	}
	if (m->render >= 0 && p->render != m->render) {
		p->render = m->render;
		lb_buf_adds(ch, p->render ? " render" : " no-render");
	}
	if (m->forget && (*p->taught || p->noise_len)) {
		p->taught[0] = '\0';
		lb_buf_adds(ch, " forget-noise");
		*rebase |= ANT_REBASE_TEXT;
	}
	return 0;
}

/* Withdraws the event of the page's update at t from the Atom history:
 * 1 gone from the current document, 2 kept in an archive, 0 none, < 0. */
static int withdraw(ant_store *s, const ant_store_page *p, int64_t t, lb_error *err)
{
	atom_evstore *ev;
	int rc;

	if ((rc = atom_evstore_attach(&ev, ant_store_db(s), err)) < 0)
		return rc;
	rc = atom_evstore_withdraw(ev, p->url, t, err);
	atom_evstore_close(ev);
	return rc;
}

int antcmd_not_news(ant_store *s, ant_store_page *p, lb_buf *said, lb_error *err)
{
	int64_t t = p->news_at;
	size_t added = 0;
	char *taught;
	char b[128];
	int rc, where;

	if (!p->news || !t || t != p->st.last_modified)
		return lb_err(err, LB_ENOTFOUND, "'%s' has no announced update to take back "
			      "(only the last one can be, once)", p->url);
	if (!(taught = ant_taught_merge(p->taught, p->news, &added)))
		return lb_err_code(err, LB_ENOMEM);
	if ((where = withdraw(s, p, t, err)) < 0) {
		free(taught);
		return where;
	}
	/* the page as before the update: its time and rule; what the update
	 * added is not what the page shows now, and the next excerpt will be */
	free(p->taught);
	p->taught = taught;
	p->st.last_modified = p->prev_modified;
	p->st.detected_by = p->prev_by;
	p->excerpt[0] = '\0';
	free(p->when_hit);
	p->when_hit = NULL;
	free(p->news);
	p->news = NULL;
	p->news_at = p->prev_modified = 0;
	p->prev_by = NULL;
	if ((rc = ant_store_page_save(s, p, err)) < 0 || (rc = ant_store_page_set_config(s, p, err)) < 0)
		return rc;
	lb_buf_addf(said, "the update of %s taken back: ", antcmd_when(b, sizeof b, t, 0));
	lb_buf_adds(said, where == 2 ? "its Atom entry is in an archive already (archives never change), "
			  "gone from index.html and lirs.gz at the next publish" : "gone from the next publish");
	if (added)
		lb_buf_addf(said, "; %zu part%s of the page learned as not news", added, added == 1 ? "" : "s");
	else
		lb_buf_adds(said, *p->taught ? "; its parts were taught before" :
				  "; nothing of the page's text to learn (not a change the text rule found)");
	return 0;
}
