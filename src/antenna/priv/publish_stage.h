/*
 * publish_stage.h: files written whole before any of them replaces its old
 * one (publish_stage.c), for the HTML files of one publish; not for commands.
 */
#ifndef ANT_PUBLISH_STAGE_H
#define ANT_PUBLISH_STAGE_H

#include <stddef.h>

#include "lb_afile.h"
#include "lb_error.h"

typedef struct ant_pub_staged {
	lb_afile *f;     /* closed temporary files, renamed by ant_pub_stage_commit() */
	size_t n, cap;
} ant_pub_staged;

/* Closes f's temporary file synced, unrenamed, into st (f is taken); on
 * an error it is removed.  0, or < 0 (LB_EIO, LB_ENOMEM) naming path. */
int ant_pub_stage_close(ant_pub_staged *st, lb_afile *f, const char *path, lb_error *err);
/* Renames every staged file in the order staged, after checking that no
 * target is a directory (then nothing is renamed).  0 or LB_EIO. */
int ant_pub_stage_commit(ant_pub_staged *st, lb_error *err);
/* Removes what was staged and not renamed; st is empty after. */
void ant_pub_stage_release(ant_pub_staged *st);

#endif
