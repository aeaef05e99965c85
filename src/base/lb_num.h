/*
 * lb_num.h: numbers read from text the way every option and setting
 * reads them: an optional sign, then decimal digits and nothing else;
 * out of range told apart from not a number, so that the message can
 * say which.
 */
#ifndef LB_NUM_H
#define LB_NUM_H

#include <stdint.h>

/* s as an integer in [min, max] into *out: 0; LB_EINVAL when s is not
 * an integer (empty, a stray character, even after overflowing digits);
 * LB_ETOOBIG when it is one outside [min, max] (or outside int64_t). */
int lb_num_int64(const char *s, int64_t min, int64_t max, int64_t *out);

#endif
