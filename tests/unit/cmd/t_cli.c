/*
 * t_cli.c: the kit both commands share (cmd/cli.c): the strict number and
 * byte-count parsers and their messages, cli_getopt's messages and reset,
 * the dispatcher.  Links cmd/cli.o (Makefile).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tap.h"

/* What one call printed on fd (stderr or stdout), captured in a temporary file. */
static FILE *cap_fp;
static int cap_saved = -1, cap_fd;
static char cap_text[4096];

static void cap_start(int fd)
{
	fflush(fd == 1 ? stdout : stderr);
	cap_fp = tmpfile();
	cap_fd = fd;
	cap_saved = dup(fd);
	dup2(fileno(cap_fp), fd);
}

static const char *cap_end(void)
{
	size_t n;

	fflush(cap_fd == 1 ? stdout : stderr);
	dup2(cap_saved, cap_fd);
	close(cap_saved);
	rewind(cap_fp);
	n = fread(cap_text, 1, sizeof cap_text - 1, cap_fp);
	cap_text[n] = '\0';
	fclose(cap_fp);
	return cap_text;
}

static void test_bytes(void)
{
	static const struct {
		const char *s;
		uint64_t want;     /* 0: refused */
		const char *msg;   /* what follows "t: --b: 'S' " */
	} cases[] = {
		{ "1", 1, NULL },
		{ "8M", 8 << 20, NULL },
		{ "8m", 8 << 20, NULL },
		{ "64K", 64 << 10, NULL },
		{ "64k", 64 << 10, NULL },
		{ "1G", 1 << 30, NULL },
		{ "1g", 1 << 30, NULL },
		{ "0010", 10, NULL },
		{ "9223372036854775807", INT64_MAX, NULL },
		{ "8589934591G", (uint64_t)8589934591 << 30, NULL },
		{ "", 0, "is not a byte count" },
		{ "+1", 0, "is not a byte count" },
		{ "-1", 0, "is not a byte count" },
		{ " 1", 0, "is not a byte count" },
		{ "1 ", 0, "is not a byte count" },
		{ "1 K", 0, "is not a byte count" },
		{ "K", 0, "is not a byte count" },
		{ "1KB", 0, "is not a byte count" },
		{ "1T", 0, "is not a byte count" },
		{ "1K2", 0, "is not a byte count" },
		{ "0x10", 0, "is not a byte count" },
		{ "99999999999999999999999x", 0, "is not a byte count" },
		{ "0", 0, "is out of range [1, 9223372036854775807]" },
		{ "0K", 0, "is out of range [1, 9223372036854775807]" },
		{ "9223372036854775808", 0, "is out of range [1, 9223372036854775807]" },
		{ "8589934592G", 0, "is out of range [1, 9223372036854775807]" },
		{ "99999999999999999999999", 0, "is out of range [1, 9223372036854775807]" },
	};
	char want[256];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint64_t v = 12345;
		int rc;

		cap_start(2);
		rc = cli_parse_bytes("--b", cases[i].s, &v);
		cap_end();
		if (cases[i].want) {
			OK(rc == 0 && v == cases[i].want && !*cap_text, "bytes '%s' = %llu", cases[i].s,
			   (unsigned long long)cases[i].want);
		} else {
			snprintf(want, sizeof want, "t: --b: '%s' %s\n", cases[i].s, cases[i].msg);
			OK(rc == -1 && v == 12345, "bytes '%s' refused", cases[i].s);
			IS_STR(cap_text, want, "bytes '%s': message", cases[i].s);
		}
	}
	{
		size_t z = 0;
		OK(cli_parse_size("--s", "2K", &z) == 0 && z == 2048, "cli_parse_size into a size_t");
	}
}

static void test_int64(void)
{
	int64_t v = 7;

	OK(cli_parse_int64("--n", "+5", -10, 10, &v) == 0 && v == 5, "int64: a '+' sign");
	OK(cli_parse_int64("--n", "-10", -10, 10, &v) == 0 && v == -10, "int64: the minimum");
	OK(cli_parse_int64("--n", "-9223372036854775808", INT64_MIN, INT64_MAX, &v) == 0 &&
	   v == INT64_MIN, "int64: INT64_MIN");
	cap_start(2);
	OK(cli_parse_int64("--n", " 5", -10, 10, &v) < 0, "int64: a leading blank is refused");
	IS_STR(cap_end(), "t: --n: ' 5' is not an integer\n", "int64: ' 5' message");
	cap_start(2);
	OK(cli_parse_int64("--n", "5 ", -10, 10, &v) < 0, "int64: a trailing blank is refused");
	cap_end();
	cap_start(2);
	OK(cli_parse_int64("--n", "11", -10, 10, &v) < 0, "int64: over max");
	IS_STR(cap_end(), "t: --n: '11' is out of range [-10, 10]\n", "int64: range message");
	cap_start(2);
	OK(cli_parse_int64("--n", "9223372036854775808", INT64_MIN, INT64_MAX, &v) < 0,
	   "int64: overflow");
	IS_STR(cap_end(), "t: --n: '9223372036854775808' is out of range "
	       "[-9223372036854775808, 9223372036854775807]\n", "int64: overflow message");
	cap_start(2);
	OK(cli_parse_int64("--n", "99999999999999999999x", INT64_MIN, INT64_MAX, &v) < 0,
	   "int64: overflowing garbage");
	IS_STR(cap_end(), "t: --n: '99999999999999999999x' is not an integer\n",
	       "int64: overflowing garbage is not an integer");
	cap_start(2);
	OK(cli_parse_int64("--n", "-", 0, 1, &v) < 0, "int64: a lone sign is refused");
	cap_end();
}

static const char help[] = "usage: t [-q] [--jobs N] FILE\n\nmore\n";
static const struct option lopts[] = {
	{ "jobs", required_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* All the options of argv, as letters, "!" for CLI_BADOPT; then the operands. */
static const char *opts_of(int argc, char **argv)
{
	static char out[64];
	size_t n = 0;
	int c;

	while ((c = cli_getopt(argc, argv, "j:qh", lopts, help)) != -1 && n < 60) {
		out[n++] = c == CLI_BADOPT ? '!' : (char)c;
		if (c == CLI_BADOPT)
			break;
	}
	out[n++] = '|';
	for (int i = optind; c != CLI_BADOPT && i < argc && n < 62; i++)
		out[n++] = argv[i][0];
	out[n] = '\0';
	return out;
}

static void test_getopt(void)
{
	char *a1[] = { "x", "f", "-q", "--jobs", "3", "g", NULL };
	char *a2[] = { "x", "-qj", "2", "h", NULL };
	char *a3[] = { "x", "-qz", NULL };
	char *a4[] = { "x", "--nope=1", NULL };
	char *a5[] = { "x", "-qj", NULL };
	char *a6[] = { "x", "--help=1", NULL };

	IS_STR(opts_of(6, a1), "qj|fg", "options after operands (permutation)");
	IS_STR(opts_of(4, a2), "qj|h", "a cluster with a value after it");
	IS_STR(opts_of(6, a1), "qj|fg", "the same argv again starts afresh");
	cap_start(2);
	IS_STR(opts_of(2, a3), "q!|", "an unknown letter in a cluster");
	IS_STR(cap_end(), "t: unknown option '-z'\nusage: t [-q] [--jobs N] FILE\n"
	       "Try 't --help' for more information.\n", "the letter is named, usage and hint follow");
	cap_start(2);
	opts_of(2, a4);
	IS_STR(cap_end(), "t: unknown option '--nope=1'\nusage: t [-q] [--jobs N] FILE\n"
	       "Try 't --help' for more information.\n", "an unknown long option is named as written");
	cap_start(2);
	opts_of(2, a6);
	OK(strncmp(cap_end(), "t: unknown option '--help=1'\n", 29) == 0,
	   "a value given to a flag: the option is named as written");
	cap_start(2);
	opts_of(2, a5);
	OK(strncmp(cap_end(), "t: option '-j' needs a value\n", 29) == 0, "a missing value names the letter");
	IS_STR(opts_of(4, a2), "qj|h", "after an error, parsing starts afresh");
}

static int ran_argc;
static char ran_argv0[32], ran_argv1[32], ran_prog[32];

static int fake(int argc, char **argv)
{
	ran_argc = argc;
	snprintf(ran_argv0, sizeof ran_argv0, "%s", argv[0]);
	snprintf(ran_argv1, sizeof ran_argv1, "%s", argc > 1 ? argv[1] : "");
	snprintf(ran_prog, sizeof ran_prog, "%s", cli_prog);
	return 42;
}

static void test_dispatch(void)
{
	static const struct cli_cmd cmds[] = {
		{ "alpha", fake, "the first" },
		{ "beta-long", fake, "the second" },
	};
	static const struct cli_program p = {
		.name = "prog", .version = "prog 1.0", .usage = "usage: prog COMMAND\n\n",
		.footer = "\nend\n", .cmds = cmds, .ncmds = 2,
	};
	char *a1[] = { "beta-long", "x", NULL };
	char *a2[] = { "help", "alpha", NULL };
	char *a3[] = { "gamma", NULL };
	char *a4[] = { "--version", NULL };
	char *a5[] = { "--help", NULL };
	char *a6[] = { "help", "gamma", NULL };
	const char *list = "usage: prog COMMAND\n\nCommands:\n"
			   "  alpha      the first\n  beta-long  the second\n\nend\n";
	int rc;

	rc = cli_dispatch(&p, 2, a1);
	OK(rc == 42 && ran_argc == 2 && !strcmp(ran_argv0, "beta-long") && !strcmp(ran_argv1, "x"),
	   "dispatch: runs the command with argv[0] = its name, returns its status");
	IS_STR(ran_prog, "prog beta-long", "dispatch: the message prefix names the command");
	rc = cli_dispatch(&p, 2, a2);
	OK(rc == 42 && ran_argc == 2 && !strcmp(ran_argv0, "alpha") && !strcmp(ran_argv1, "--help"),
	   "dispatch: help COMMAND runs COMMAND --help");
	cap_start(2);
	rc = cli_dispatch(&p, 1, a3);
	IS_STR(cap_end(), "prog: unknown command 'gamma'\nusage: prog COMMAND\n\nCommands:\n"
	       "  alpha      the first\n  beta-long  the second\n\nend\n",
	       "dispatch: an unknown command is named, then the usage");
	IS_INT(rc, CLI_FATAL, "dispatch: an unknown command exits 2");
	cap_start(2);
	rc = cli_dispatch(&p, 2, a6);
	IS_STR(cap_end(), "prog: unknown command 'gamma'\n", "dispatch: help of an unknown command");
	IS_INT(rc, CLI_FATAL, "dispatch: help of an unknown command exits 2");
	cap_start(1);
	rc = cli_dispatch(&p, 1, a4);
	IS_STR(cap_end(), "prog 1.0\n", "dispatch: --version");
	IS_INT(rc, CLI_OK, "dispatch: --version exits 0");
	cap_start(1);
	rc = cli_dispatch(&p, 1, a5);
	IS_STR(cap_end(), list, "dispatch: --help lists the commands, aligned");
	IS_INT(rc, CLI_OK, "dispatch: --help exits 0");
	cap_start(2);
	rc = cli_dispatch(&p, 0, NULL);
	IS_STR(cap_end(), list, "dispatch: no command: the usage on stderr");
	IS_INT(rc, CLI_FATAL, "dispatch: no command exits 2");
}

int main(void)
{
	TAP_PLAN(80);
	cli_prog = "t";
	test_bytes();
	test_int64();
	test_getopt();
	cli_prog = "t";
	test_dispatch();
	TAP_DONE();
}
