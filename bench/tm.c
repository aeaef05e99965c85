/*
 * tm: run a command, append "WALL_S MAXRSS_KIB EXIT_STATUS CPU_S" to a file.
 *
 *   tm RESULT_FILE COMMAND [ARG...]
 *
 * What /usr/bin/time -f "%e %M %x" reports, with millisecond wall time:
 * the peak RSS is ru_maxrss from wait4(), which covers the command and
 * every descendant it waited for (so `sh -c 'a | b'` reports the larger).
 * CPU_S is user + system time of the same processes: on a loaded machine
 * it moves less than the wall time.  Standard streams pass through untouched; tm exits with the command's
 * status (128+N when killed by signal N).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0, t1;
	pid_t pid;
	int status, rc;
	FILE *f;

	if (argc < 3) {
		fputs("usage: tm RESULT_FILE COMMAND [ARG...]\n", stderr);
		return 2;
	}
	t0 = now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "tm: cannot fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "tm: cannot run '%s': %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "tm: wait4: %s\n", strerror(errno));
			return 2;
		}
	}
	t1 = now();
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	f = fopen(argv[1], "a");
	if (!f) {
		fprintf(stderr, "tm: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 2;
	}
	fprintf(f, "%.3f %ld %d %.3f\n", t1 - t0, ru.ru_maxrss, rc,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	fclose(f);
	return rc;
}
