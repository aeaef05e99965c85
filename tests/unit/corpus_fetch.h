/*
 * corpus_fetch.h: what the corpora's in-memory fetchers share (t_words.c,
 * t_noise_update.c): which page of a corpus a URL names, and one answer
 * handed to the update engine as a fetch of a real server would be.
 */
#ifndef CORPUS_FETCH_H
#define CORPUS_FETCH_H

#include <stdlib.h>
#include <string.h>

#include "ant_fetch.h"
#include "lb_buf.h"

/* The page number after dir ("/words/") in url, or -1. */
static inline int corpus_page_of(const char *url, const char *dir)
{
	const char *p = strstr(url, dir);

	return p ? atoi(p + strlen(dir)) : -1;
}

/* Answers req with status and body (NULL: empty), as HTML in UTF-8. */
static inline void corpus_answer(ant_fetch_done_fn done, void *ctx, const ant_fetch_req *req, int status,
				 const lb_buf *body)
{
	ant_fetch_result r = { .status = status, .content_length = -1,
			       .content_type = (char *)"text/html; charset=utf-8",
			       .body = body ? body->data : (char *)"", .len = body ? body->len : 0 };

	done(ctx, req, &r);
}

#endif
