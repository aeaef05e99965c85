/*
 * cli.h: the one kit both commands (lirs, antenna) share: the message
 * prefix, option parsing with one style of usage error, strict number and
 * byte-count parsers, checked standard output, and the table-driven
 * dispatcher of subcommands.  Only commands print or exit; this is where
 * their common way of doing it lives.
 *
 * Names: cli_ is this kit; cmd/lirs/common.h holds the lirs-only helpers
 * (lirscmd_), cmd/antenna/antenna.h the antenna-only ones (antcmd_).
 *
 * Messages: "PROG: message" on stderr, PROG being "lirs cat", "antenna
 * update"...; lowercase, problem first, subject quoted, no full stop.
 * Exit statuses: 0 success, 2 usage error or fatal error; each command
 * gives 1 its own meaning (lirs: the input has problems; antenna: the
 * thing asked for is not there).
 */
#ifndef CLI_H
#define CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lb_buf.h"

enum { CLI_OK = 0, CLI_FATAL = 2 };
/* Returned by cli_getopt() after it printed a usage error. */
#define CLI_BADOPT (-2)
/* The size of the chunks input is read in and output is flushed in. */
#define CLI_CHUNK ((size_t)64 * 1024)

/* "lirs cat" etc.: the prefix of every message; cli_dispatch() sets it. */
extern const char *cli_prog;

/* "PROG: " + printf-style message + newline, on stderr; the message made
 * safe for a terminal (lb_term.h): what it quotes came from outside. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "PROG: message", the usage line (help's first line) and
 * "Try 'PROG --help' for more information." on stderr; returns CLI_FATAL. */
int cli_usage_error(const char *help, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Text from outside (a title, a URL from a source, a server's error, an
 * importer's note) made safe for a terminal (lb_term.h), for printf's
 * "%s": one of 8 buffers used in turn, valid until 8 more calls; NULL
 * stays NULL.  For human output only: machine formats (JSON Lines, OPML,
 * LIRS) have their own escapers.
 */
const char *cli_t(const char *s);
/* Prints help to stdout; returns CLI_OK. */
int cli_help(const char *help);

/*
 * getopt_long() with our messages: on an unknown option or a missing
 * value prints "PROG: unknown option '--x'" (or "option '-j' needs a
 * value"), the usage line and the --help hint, and returns CLI_BADOPT;
 * otherwise returns what getopt_long() returns.  Options may follow
 * operands (GNU permutation); "--" ends them.  Call with the subcommand's
 * argv (argv[0] = its name); getopt's state is reset on the first call
 * for an argv and after -1 or an error, so one process may parse several
 * argvs (antenna run: update's, then publish's).
 */
int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *help);

/*
 * Strict integers: an optional sign, decimal digits only, nothing before
 * or after (no blanks), in [min, max].  0, or -1 after printing
 * "PROG: OPT: 'S' is not an integer" or "... is out of range [MIN, MAX]"
 * (opt names the option).
 */
int cli_parse_int64(const char *opt, const char *s, int64_t min, int64_t max,
		    int64_t *out);
/*
 * A byte count: decimal digits with an optional K, M or G suffix (either
 * case; powers of 1024), more than 0 and at most INT64_MAX bytes.  No
 * sign, no blanks, nothing else.  0, or -1 after printing "PROG: OPT: 'S'
 * is not a byte count" or "... is out of range [1, MAX]".
 */
int cli_parse_bytes(const char *opt, const char *s, uint64_t *out);
/* cli_parse_bytes() into a size_t (at most SIZE_MAX, for 32-bit hosts). */
int cli_parse_size(const char *opt, const char *s, size_t *out);

/* The name of a FILE operand in messages: "<stdin>" for "-". */
const char *cli_display_name(const char *path);
/*
 * For commands that must write nothing when an input fails: 0 when every
 * FILE ("-" is standard input) can be opened for reading, else -1 after
 * printing "cannot open 'FILE': REASON" for the first that cannot.
 */
int cli_check_inputs(char **files, int n);

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

/* A subcommand: "lirs NAME ..." runs fn with argv[0] = NAME. */
struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;   /* one line for the command list */
};

/* A command and its table of subcommands (listed in table order: keep it sorted). */
struct cli_program {
	const char *name;      /* "lirs": the prefix of the dispatcher's messages */
	const char *version;   /* the line --version prints, without newline */
	const char *usage;     /* --help: the text before "Commands:" */
	const char *footer;    /* --help: the text after the command list */
	const struct cli_cmd *cmds;
	size_t ncmds;
};

/*
 * Runs the subcommand argv[0] (argv: what follows the program name and
 * its global options; argc may be 0) with cli_prog = "NAME SUBCOMMAND",
 * and returns its exit status.  Also: --help, -h and "help" print the
 * usage and the command list on stdout (0); "help SUBCOMMAND" runs
 * "SUBCOMMAND --help"; --version prints p->version (0); nothing, or an
 * unknown subcommand, prints an error and the usage on stderr (2).
 */
int cli_dispatch(const struct cli_program *p, int argc, char **argv);

#endif
