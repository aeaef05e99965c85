/*
 * httpget: the tests' HTTP client, so that no test needs curl(1) (a
 * fresh Debian has no curl, and a wait loop on it timed out silently).
 * One GET over HTTP/1.0 to the loopback test server; nothing else is
 * allowed (the tests never talk to another address).
 *
 *   httpget [--max-time SECONDS] [-o FILE] http://127.0.0.1:PORT/PATH
 *
 * Writes the body to standard output (or FILE).  Exit status, as curl -sf:
 * 0 a 2xx/3xx answer, 22 an answer of 400 or more, 7 cannot connect,
 * 28 timed out, 2 usage error or a URL that is not loopback http.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_HEAD 65536

static void on_alarm(int sig)
{
	(void)sig;
	_exit(28);
}

static int usage(void)
{
	fprintf(stderr, "usage: httpget [--max-time SECONDS] [-o FILE] http://127.0.0.1:PORT/PATH\n");
	return 2;
}

/* Splits http://127.0.0.1:PORT/PATH (or localhost); 0, or -1. */
static int parse_url(const char *url, int *port, const char **path)
{
	const char *p;
	char *end;
	long v;

	if (!strncmp(url, "http://127.0.0.1:", 17))
		p = url + 17;
	else if (!strncmp(url, "http://localhost:", 17))
		p = url + 17;
	else
		return -1;
	v = strtol(p, &end, 10);
	if (end == p || v < 1 || v > 65535 || (*end && *end != '/'))
		return -1;
	*port = (int)v;
	*path = *end ? end : "/";
	return 0;
}

static int send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *url = NULL, *out = NULL, *path;
	struct sockaddr_in sa;
	char req[4096], head[MAX_HEAD + 1], buf[65536];
	size_t hlen = 0;
	int i, port, fd, status = 0, in_body = 0;
	FILE *fp = stdout;
	ssize_t k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--max-time") && i + 1 < argc) {
			signal(SIGALRM, on_alarm);
			alarm((unsigned)atoi(argv[++i]));
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] != '-' && !url) {
			url = argv[i];
		} else {
			return usage();
		}
	}
	if (!url || parse_url(url, &port, &path) < 0)
		return usage();
	if (snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n"
		     "User-Agent: lirs-antenna-tests\r\n\r\n", path, port) >= (int)sizeof req)
		return usage();
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		return 7;
	if (send_all(fd, req, strlen(req)) < 0)
		return 7;
	if (out && !(fp = fopen(out, "wb"))) {
		perror(out);
		return 2;
	}
	/* The status line and headers, then the body to fp. */
	while ((k = read(fd, buf, sizeof buf)) != 0) {
		char *e;
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return 7;
		}
		if (in_body) {
			fwrite(buf, 1, (size_t)k, fp);
			continue;
		}
		if (hlen + (size_t)k > MAX_HEAD)
			return 7;
		memcpy(head + hlen, buf, (size_t)k);
		hlen += (size_t)k;
		head[hlen] = '\0';
		if (!(e = strstr(head, "\r\n\r\n")))
			continue;
		if (sscanf(head, "HTTP/%*d.%*d %d", &status) != 1)
			return 7;
		in_body = 1;
		fwrite(e + 4, 1, hlen - (size_t)(e + 4 - head), fp);
	}
	close(fd);
	if (fflush(fp) != 0 || (fp != stdout && fclose(fp) != 0))
		return 2;
	if (!in_body)
		return 7;
	return status >= 400 ? 22 : 0;
}
