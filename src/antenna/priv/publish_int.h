/*
 * publish_int.h: what publish.c (index.html) shares with publish_records.c
 * (lirs.gz, sites.di.gz and the array page source) and publish_diff.c
 * (the diff pages); not for commands.
 */
#ifndef ANT_PUBLISH_INT_H
#define ANT_PUBLISH_INT_H

#include "ant_publish.h"
#include "lb_afile.h"
#include "lb_date.h"
#include "lb_error.h"

/* ---- publish.c ------------------------------------------------------------ */

/* qsort() of ant_pub_page pointers in ANT_PUB_LISTING order */
int ant_pub_cmp_listing(const void *pa, const void *pb);

/* ---- publish_common.c ----------------------------------------------------- */

/* t shown in zone tz (seconds east of UTC) in *tm; LB_EINVAL when t + tz
 * overflows or the year would not fit a struct tm's int. */
int ant_pub_to_tm(int64_t t, int64_t tz, lb_tm *tm);
/* "MM/DD HH:MM" of tm into b (12 bytes); returns the length, 11. */
size_t ant_pub_shown_tm(char *b, const lb_tm *tm);
/* Copies s[0..n) into buf as snprintf(buf, len, "%s", s) would. */
void ant_pub_copy_out(char *buf, size_t len, const char *s, size_t n);
/* s when set and not empty, else dflt */
const char *ant_pub_str_or(const char *s, const char *dflt);
/* Opens DIR/name for atomic replacement (creating DIR); *path is malloc'd. */
int ant_pub_open_out(lb_afile *f, const char *dir, const char *name, char **path,
		     lb_error *err);
/* Commits f when ok and no write failed, else drops it; the message names
 * path and keeps the reason already in err. */
int ant_pub_close_out(lb_afile *f, int ok, const char *path, lb_error *err);

#endif
