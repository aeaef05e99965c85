/*
 * lb_error.h: the one error convention of every layer (base, lirs, atom,
 * antenna).
 *
 * A function that can fail returns a negative LB_E* code; success is 0 (or
 * a count, where the prototype says so).  A function whose failures carry
 * detail worth showing (a file and line, a database message, the
 * subject) also takes an `lb_error *err`, which may be NULL: on failure it
 * holds the same code, a message and, when the error is about a place in
 * some input, that place.  Messages follow one style: lowercase, problem
 * first, subject quoted, no full stop ("cannot open 'x.db': no such file").
 *
 * These are the only spelling: the codec (lirs.h) returns the same LB_E*
 * codes and lb_strerror() says them.  Never errno as a return value: a
 * failed system call is LB_EIO with errno kept in err->sys.
 *
 * The codes start at -2, never -1: a stray -1 from a forgotten path must
 * not read as out of memory (lb_strerror(-1) is "unknown error").
 */
#ifndef LB_ERROR_H
#define LB_ERROR_H

#include <stddef.h>

enum {
	LB_OK = 0,
	LB_ENOMEM = -2,     /* out of memory */
	LB_EGZIP = -3,      /* corrupt gzip data */
	LB_ETRUNC = -4,     /* input ends early */
	LB_ETOOBIG = -5,    /* a named size limit was reached */
	LB_ESTOP = -6,      /* a callback asked to stop */
	LB_EICONV = -7,     /* a character set converter could not be opened */
	LB_ESINK = -8,      /* an output sink failed */
	LB_EINVAL = -9,     /* bad argument or bad input value */
	LB_EIO = -10,       /* a system call failed (errno in err->sys) */
	LB_EDB = -11,       /* the database failed */
	LB_EPARSE = -12,    /* input is not in the format it should be */
	LB_ENOTFOUND = -13, /* no such thing (page, source, file) */
	LB_EEXIST = -14,    /* it exists already */
	LB_EBUSY = -15,     /* locked by another process */
	LB_ENET = -16,      /* a transfer failed */
};

#define LB_ERROR_MSG 512

typedef struct lb_error {
	int code;                /* the negative code returned; 0 when none */
	int sys;                 /* errno, for LB_EIO; else 0 */
	unsigned long line;      /* 1-based line of the input; 0 when none */
	unsigned long col;       /* 1-based column (byte) in that line; 0 when none */
	char msg[LB_ERROR_MSG];  /* what went wrong, with its subject */
} lb_error;

#define LB_ERROR_INIT { 0, 0, 0, 0, "" }

/* The code's one-line meaning ("out of memory"); never NULL. */
const char *lb_strerror(int code);
/* Sets err (when not NULL) to code and the formatted message; returns
 * code, so a failure path reads `return lb_err(err, LB_EDB, "...")`. */
int lb_err(lb_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* lb_err() that also records the place (line, col; 0 when unknown). */
int lb_err_at(lb_error *err, int code, unsigned long line, unsigned long col,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* lb_err(err, LB_EIO, ...) with ": <strerror(errno)>" appended and errno
 * kept in err->sys; returns LB_EIO. */
int lb_err_sys(lb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Sets err (when not NULL) to code and lb_strerror(code); returns code. */
int lb_err_code(lb_error *err, int code);
/* The message to show: err->msg, or lb_strerror(err->code) when empty. */
const char *lb_error_msg(const lb_error *err);
/* Forget a previous error. */
void lb_error_clear(lb_error *err);

#endif
