/*
 * publish_int.h: what publish.c (index.html) shares with publish_records.c
 * (lirs.gz, sites.di.gz and the array page source); not for commands.
 */
#ifndef ANT_PUBLISH_INT_H
#define ANT_PUBLISH_INT_H

#include "ant_publish.h"
#include "lb_afile.h"
#include "lb_error.h"

/* s when set and not empty, else dflt */
const char *ant_pub_str_or(const char *s, const char *dflt);
/* qsort() of ant_pub_page pointers in ANT_PUB_LISTING order */
int ant_pub_cmp_listing(const void *pa, const void *pb);
/* Opens DIR/name for atomic replacement (creating DIR); *path is malloc'd. */
int ant_pub_open_out(lb_afile *f, const char *dir, const char *name, char **path,
		     lb_error *err);
/* Commits f when ok and no write failed, else drops it; the message names
 * path and keeps the reason already in err. */
int ant_pub_close_out(lb_afile *f, int ok, const char *path, lb_error *err);

#endif
