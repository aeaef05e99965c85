/*
 * error.c: the one error convention (lb_error.h).
 */
#include "lb_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const messages[] = {
	[-LB_OK] = "success",
	[-LB_ENOMEM] = "out of memory",
	[-LB_EGZIP] = "corrupt gzip data",
	[-LB_ETRUNC] = "gzip data ends early",
	[-LB_ETOOBIG] = "decoded data exceeds the decompression limit",
	[-LB_ESTOP] = "stopped",
	[-LB_EICONV] = "cannot open the character set converter",
	[-LB_ESINK] = "write failed",
	[-LB_EINVAL] = "invalid argument",
	[-LB_EIO] = "input/output error",
	[-LB_EDB] = "database error",
	[-LB_EPARSE] = "malformed input",
	[-LB_ENOTFOUND] = "not found",
	[-LB_EEXIST] = "already exists",
	[-LB_EBUSY] = "locked by another process",
	[-LB_ENET] = "transfer failed",
};

const char *lb_strerror(int code)
{
	if (code > 0 || (size_t)-code >= sizeof messages / sizeof *messages ||
	    !messages[-code])
		return "unknown error";
	return messages[-code];
}

static int set(lb_error *err, int code, int sys, const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	err->sys = sys;
	err->line = 0;
	err->col = 0;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return code;
}

int lb_err(lb_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set(err, code, 0, fmt, ap);
	va_end(ap);
	return code;
}

int lb_err_at(lb_error *err, int code, unsigned long line, unsigned long col,
	      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set(err, code, 0, fmt, ap);
	va_end(ap);
	if (err) {
		err->line = line;
		err->col = col;
	}
	return code;
}

int lb_err_sys(lb_error *err, const char *fmt, ...)
{
	int e = errno;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	set(err, LB_EIO, e, fmt, ap);
	va_end(ap);
	if (err) {
		n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n, ": %s", strerror(e));
	}
	errno = e;
	return LB_EIO;
}

int lb_err_code(lb_error *err, int code)
{
	return lb_err(err, code, "%s", lb_strerror(code));
}

const char *lb_error_msg(const lb_error *err)
{
	return err->msg[0] ? err->msg : lb_strerror(err->code);
}

void lb_error_clear(lb_error *err)
{
	if (err)
		*err = (lb_error)LB_ERROR_INIT;
}
