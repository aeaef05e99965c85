/*
 * common.h: helpers every lirs subcommand shares: option parsing with one
 * style of error, strict number parsing, the diagnostic line format,
 * reading a FILE or '-' through the codec, and buffered stdout.
 *
 * Exit statuses (every subcommand): 0 success, 1 the input has problems
 * (records skipped, validation errors), 2 usage error or unreadable input.
 */
#ifndef LIRS_CLI_COMMON_H
#define LIRS_CLI_COMMON_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "lb_buf.h"
#include "lirs.h"

enum { CLI_OK = 0, CLI_PROBLEMS = 1, CLI_FATAL = 2 };

/* cli_read()'s own error: the file could not be opened or read (printed). */
#define CLI_EIO (-100)
/* Returned by cli_getopt() after it printed a usage error. */
#define CLI_BADOPT (-2)
/* Size of the chunks cli_read() feeds the reader. */
#define CLI_CHUNK ((size_t)64 * 1024)

/* "lirs cat" etc.: the prefix of every message; main.c sets it. */
extern const char *cli_prog;

/* The name used for path in messages: "<stdin>" for "-". */
const char *cli_display_name(const char *path);

/* "lirs cat: " + printf-style message + newline, on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * getopt_long() with our messages: on an unknown option or a missing
 * value prints "PROG: unknown option '--x'", the usage line (the first
 * line of help) and a pointer to --help on stderr, and returns
 * CLI_BADOPT; otherwise returns what getopt_long() returns.  Options may
 * follow operands (GNU permutation); "--" ends them.  Call with the
 * subcommand's argv (argv[0] = its name); resets getopt's state on the
 * first call for that argv.
 */
int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *help);
/* Prints "PROG: message", the usage line and the --help hint; returns CLI_FATAL. */
int cli_usage_error(const char *help, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints help to stdout; returns CLI_OK. */
int cli_help(const char *help);

/*
 * Strict integers: optional sign, decimal digits only, nothing after, in
 * [min, max].  Return 0, or -1 after printing "PROG: OPTION: ..." (opt
 * names the option in the message).
 */
int cli_parse_int64(const char *opt, const char *s, int64_t min, int64_t max,
		    int64_t *out);
/* A byte count: digits with an optional K, M or G suffix (powers of 1024), > 0. */
int cli_parse_bytes(const char *opt, const char *s, uint64_t *out);

/* Formats a diagnostic as one line, without the newline:
 *   FILE:LINE:COL: SEVERITY: MESSAGE [RULE-ID]
 * ":COL" is left out when the column is 0, ":LINE:COL" when the line is 0;
 * FILE is d->file, or "<stdin>" when NULL. */
int cli_format_diag(lb_buf *out, const lirs_diag *d);
/* cli_format_diag() + newline to fp. */
void cli_print_diag(FILE *fp, const lirs_diag *d);

/*
 * Reads path ("-" = standard input) through a new reader made from opts,
 * in CLI_CHUNK chunks, then finishes it.  opts->filename is set to the
 * display name when NULL.  *stats (may be NULL) receives the reader's
 * final statistics.  Returns 0; a negative LIRS_E* code from the reader
 * (a fatal error, already delivered as a diagnostic; or LIRS_ESTOP when a
 * callback stopped it); or CLI_EIO when the file cannot be opened or read
 * (the message is printed).  Out-of-memory and iconv failures are printed
 * too.
 */
int cli_read(const char *path, const lirs_reader_opts *opts, lirs_reader_stats *stats);

/*
 * For commands that must write nothing when an input fails (merge, atom):
 * 0 when every FILE ("-" is standard input) can be opened for reading,
 * else -1 after printing which cannot.
 */
int cli_check_inputs(char **files, int n);
/*
 * Reads every FILE in turn through the reader with opts, stopping early
 * once *stop (set by a callback) is nonzero.  Returns CLI_OK, CLI_PROBLEMS
 * when some records were skipped, or CLI_FATAL when an input could not be
 * read or *stop was set.
 */
int cli_read_all(char **files, int n, const lirs_reader_opts *opts, const int *stop);

/*
 * A write to path (NULL: standard output) failed, errno says why: prints
 * "cannot write 'PATH': REASON" or "cannot write to standard output:
 * REASON", for the first failure of the process only (a full disk makes
 * every later write fail too).
 */
void cli_write_error(const char *path);
/*
 * Buffered output: append to b, then cli_out_flush(b, fp, 0) writes it
 * once it holds CLI_CHUNK bytes (force = 1: always).  Returns 0, or -1
 * on a write error (reported with cli_write_error() when fp is stdout;
 * otherwise the caller, who knows the file's name, reports it).
 */
int cli_out_flush(lb_buf *b, FILE *fp, int force);
/* Flushes stdout and checks it for errors (reported with
 * cli_write_error()); returns CLI_OK or CLI_FATAL. */
int cli_close_stdout(void);

/* After a LIRS writer finished: warns about the characters it replaced by
 * U+3013 and those it wrote as a look-alike (lirs(5), "Writing EUC-JP"). */
void cli_writer_warnings(const lirs_writer *w);

/*
 * --charset NAME of the LIRS writers (pack, merge, cat --format lirs):
 * euc-jp (the default: strict, JIS X 0201/0208/0212, vendor characters as
 * readable forms), euc-jp-ms (NEC and IBM extension codes as such, the
 * bytes of lirs 0.1), utf-8 (the same as --utf8).  Sets wo's utf8 and
 * euc_jp_ms; 0, or -1 after printing the usage error.
 */
int cli_parse_charset(const char *help, const char *name, lirs_writer_opts *wo);

#endif
