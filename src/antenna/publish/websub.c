/*
 * websub.c: the WebSub publisher's ping (ant_websub.h).  The form is the
 * one hubs accept since PubSubHubbub 0.3 and WebSub §4 leaves to them:
 * hub.mode=publish&hub.url=TOPIC, one topic per request so that a hub
 * that reads only one hub.url gets each.
 */
#include "ant_websub.h"

#include <stdlib.h>
#include <string.h>

#include "ant_post.h"
#include "lb_buf.h"
#include "ant_settings.h"

int ant_websub_hubs_load(ant_store *s, ant_websub_hubs *h)
{
	char *p, *line;

	memset(h, 0, sizeof *h);
	h->text = ant_setting_text(s, ANT_SET_HUBS);
	for (p = h->text; p && *p && h->n < ANT_WEBSUB_MAX_HUBS; ) {
		line = p;
		p += strcspn(p, "\n");
		if (*p)
			*p++ = '\0';
		if (*line)
			h->v[h->n++] = line;
	}
	return 0;
}

void ant_websub_hubs_free(ant_websub_hubs *h)
{
	free(h->text);
	memset(h, 0, sizeof *h);
}

/* application/x-www-form-urlencoded: unreserved bytes as is, the rest %XX */
static int form_add(lb_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[3] = { '%', hex[c >> 4], hex[c & 15] };

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			if (lb_buf_add(b, s, 1) < 0)
				return LB_ENOMEM;
		} else if (lb_buf_add(b, e, 3) < 0) {
			return LB_ENOMEM;
		}
	}
	return 0;
}

static void ping_one(const char *hub, const char *base, const char *topic, ant_websub_report *r)
{
	lb_buf body = LB_BUF_INIT, url = LB_BUF_INIT;
	lb_error err = LB_ERROR_INIT;
	int rc;

	if (lb_buf_addf(&url, "%s%s", base, topic) < 0 ||
	    lb_buf_adds(&body, "hub.mode=publish&hub.url=") < 0 || form_add(&body, url.data) < 0)
		rc = lb_err_code(&err, LB_ENOMEM);
	else
		rc = ant_post(&(ant_post_req){ .url = hub,
				.content_type = "application/x-www-form-urlencoded",
				.body = body.data, .len = body.len }, NULL, &err);
	if (rc < 0) {
		if (!r->failed++)
			r->first = err;
	} else {
		r->sent++;
	}
	lb_buf_release(&body);
	lb_buf_release(&url);
}

void ant_websub_ping(const ant_websub_hubs *h, const char *base, ant_websub_report *r)
{
	static const char *const topics[] = ANT_WEBSUB_TOPICS;

	memset(r, 0, sizeof *r);
	for (size_t i = 0; i < h->n; i++)
		for (size_t t = 0; t < ANT_WEBSUB_NTOPICS; t++)
			ping_one(h->v[i], base, topics[t], r);
}
