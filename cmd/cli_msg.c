/*
 * cli_msg.c: the commands' messages on standard error, and outside text
 * made safe for a terminal (cli.h).
 */
#include "cli.h"
#include "lb_term.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *cli_prog = "";

/* A message quotes what it is about: a URL, a file's name, a server's
 * answer, a title.  Made safe whole (lb_term.h), so no escape sequence in
 * any of them reaches the terminal. */
static void vmsg(const char *fmt, va_list ap)
{
	char small[1024], *m = small;
	lb_buf safe = LB_BUF_INIT;
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n >= (int)sizeof small && (m = malloc((size_t)n + 1)) != NULL)
		vsnprintf(m, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	if (!m)
		m = small;   /* out of memory: the message cut */
	fprintf(stderr, "%s: %s\n", cli_prog, n < 0 ? fmt : lb_term(&safe, m));
	if (m != small)
		free(m);
	lb_buf_release(&safe);
}

const char *cli_t(const char *s)
{
	static lb_buf ring[8];
	static unsigned next;

	return lb_term(&ring[next++ % 8], s);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* The usage line is the help text's first line. */
static void usage_hint(const char *help)
{
	const char *nl = strchr(help, '\n');
	int n = nl ? (int)(nl - help) : (int)strlen(help);

	fprintf(stderr, "%.*s\nTry '%s --help' for more information.\n", n, help, cli_prog);
}

int cli_usage_error(const char *help, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	usage_hint(help);
	return CLI_FATAL;
}
