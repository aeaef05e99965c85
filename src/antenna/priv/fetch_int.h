/*
 * fetch_int.h: what fetch.c takes from fetch_text.c.
 */
#ifndef ANT_FETCH_INT_H
#define ANT_FETCH_INT_H

#include "ant_fetch.h"

/* An error kind in words ("cannot resolve host"). */
const char *ant_fetch_kind_text(ant_fetch_errkind k);
/* The reason phrase of an HTTP status ("Not Found"), "HTTP error" when unknown. */
const char *ant_fetch_reason_of(long status);

#endif
