/*
 * common.h: the helpers only the lirs subcommands share (lirscmd_): the
 * diagnostic line format, reading a FILE or '-' through the codec, the
 * LIRS writers' warnings and --charset.  Messages, option and number
 * parsing, checked standard output are the kit both commands share,
 * cmd/cli.h.
 *
 * Exit statuses (every subcommand): 0 success, 1 the input has problems
 * (records skipped or dropped), 2 usage error or unreadable input;
 * validate: 0 conforming, 1 nonconforming (readers cope), 2 data lost,
 * unreadable or usage (lirs(1), EXIT STATUS).
 */
#ifndef LIRSCMD_COMMON_H
#define LIRSCMD_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "lb_buf.h"
#include "lirs.h"

/* Exit status 1: records skipped, validation errors. */
enum { LIRSCMD_PROBLEMS = 1 };

/* A diagnostic as lirs_diag_format() (lirs_vreport.h) writes it, and a
 * newline, to fp. */
void lirscmd_print_diag(FILE *fp, const lirs_diag *d);

/*
 * Reads path ("-" = standard input) through a new reader made from opts,
 * in CLI_CHUNK chunks, then finishes it.  opts->filename is set to the
 * display name when NULL.  *stats (may be NULL) receives the reader's
 * final statistics.  Returns 0; a negative LIRS_E* code from the reader
 * (a fatal error, already delivered as a diagnostic; or LB_ESTOP when a
 * callback stopped it); or LB_EIO when the file cannot be opened or read
 * (the message is printed; the reader never returns LB_EIO itself).  Out-of-memory and iconv failures are printed
 * too.
 */
int lirscmd_read(const char *path, const lirs_reader_opts *opts, lirs_reader_stats *stats);

/*
 * Reads every FILE in turn through the reader with opts, stopping early
 * once *stop (set by a callback) is nonzero; *current (may be NULL) is
 * set to the display name of the FILE being read.  Returns CLI_OK, LIRSCMD_PROBLEMS
 * when some records were skipped, or CLI_FATAL when an input could not be
 * read or *stop was set.
 */
int lirscmd_read_all(char **files, int n, const lirs_reader_opts *opts, const int *stop,
		     const char **current);

/* After a LIRS writer finished: warns about the characters it replaced by
 * U+3013 and those it wrote as a look-alike (lirs(5), "Writing EUC-JP"). */
void lirscmd_writer_warnings(const lirs_writer *w);

/*
 * --charset NAME of the LIRS writers (pack, merge, cat --format lirs):
 * euc-jp (the default: strict, JIS X 0201/0208/0212, vendor characters as
 * readable forms), euc-jp-ms (NEC and IBM extension codes as such, the
 * bytes of lirs 0.1), utf-8 (the same as --utf8).  Sets wo's utf8 and
 * euc_jp_ms; 0, or -1 after printing the usage error.
 */
int lirscmd_parse_charset(const char *help, const char *name, lirs_writer_opts *wo);

/*
 * The input charsets --charset also names: cp932, sjis, shift_jis,
 * shift-jis, windows-31j (any case) set *cs to LIRS_CHARSET_CP932 and
 * return 1 (the files are read as Shift_JIS; what is written stays the
 * writer's charset); any other name returns 0 and leaves *cs.
 */
int lirscmd_input_charset(const char *name, int *cs);

#endif
