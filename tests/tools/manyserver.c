/*
 * manyserver: many small HTTP servers in one process, for the tests and
 * benchmarks of several checkers (tests/pgmulti, bench/pgmulti.sh).
 *
 *   manyserver --addrs N [--port P] [--port-file FILE] [--delay-ms D]
 *              [--log FILE] [--bump-file FILE] [--max-seconds S]
 *
 * Listens on 127.0.0.1 .. 127.0.0.N, one port for all (P; 0: a free one,
 * the first address's, written to --port-file), each address a server of
 * its own.  Every GET is answered after D ms (a real network's latency;
 * one thread, epoll and timers, so thousands wait at once) with a small
 * HTML page named by its path, "Connection: close".  With --bump-file,
 * a page /K.html whose K is a multiple of the file's number (read at each
 * request; absent or 0: none) says a second version.  --log: one line per
 * answer, "START_MS END_MS ADDR PATH" (ms since the epoch; from the
 * request's headers to its answer), written as the answer goes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONN 8192
#define REQ_MAX 4096

struct conn {
	int fd;
	unsigned addr;       /* the last byte of the address */
	char buf[REQ_MAX];
	size_t n;
	int64_t start, due;  /* 0: still reading */
};

static struct conn *conns[MAX_CONN];
static FILE *logfile;
static const char *bump_file;
static int64_t delay_ms;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long bump_every(void)
{
	FILE *f = bump_file ? fopen(bump_file, "r") : NULL;
	long k = 0;

	if (f) {
		if (fscanf(f, "%ld", &k) != 1)
			k = 0;
		fclose(f);
	}
	return k;
}

static void drop(int i)
{
	close(conns[i]->fd);
	free(conns[i]);
	conns[i] = NULL;
}

static void answer(int i)
{
	struct conn *c = conns[i];
	char path[256] = "/", body[512], out[1024];
	long k = 0, every;
	int blen, olen;
	ssize_t w;

	sscanf(c->buf, "GET %255s", path);
	sscanf(path, "/%ld", &k);
	every = bump_every();
	blen = snprintf(body, sizeof body, "<html><head><title>page %s</title></head><body><h1>page %s"
			"</h1><p>The text of page %s, %s.</p></body></html>\n", path, path, path,
			every > 0 && k % every == 0 ? "in its second version, with a new paragraph added"
			: "as it was first written");
	olen = snprintf(out, sizeof out, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
			"Content-Length: %d\r\nConnection: close\r\n\r\n%s", blen, body);
	w = write(c->fd, out, (size_t)olen);
	(void)w;
	if (logfile)
		fprintf(logfile, "%lld %lld 127.0.0.%u %s\n", (long long)c->start, (long long)now_ms(),
			c->addr, path);
	drop(i);
}

static void on_read(int i)
{
	struct conn *c = conns[i];
	ssize_t r = read(c->fd, c->buf + c->n, sizeof c->buf - 1 - c->n);

	if (r <= 0) {
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		drop(i);
		return;
	}
	c->n += (size_t)r;
	c->buf[c->n] = '\0';
	if (!c->due && strstr(c->buf, "\r\n\r\n")) {
		c->start = now_ms();
		c->due = c->start + delay_ms;
	} else if (c->n >= sizeof c->buf - 1) {
		drop(i);
	}
}

static volatile sig_atomic_t stop;
static void on_sig(int s) { (void)s; stop = 1; }

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "addrs", 1, 0, 'a' }, { "port", 1, 0, 'p' }, { "port-file", 1, 0, 'f' },
		{ "delay-ms", 1, 0, 'd' }, { "log", 1, 0, 'l' }, { "bump-file", 1, 0, 'b' },
		{ "max-seconds", 1, 0, 'm' }, { 0, 0, 0, 0 },
	};
	int naddr = 1, port = 0, c, ep, *lfd;
	const char *port_file = NULL;
	int64_t end;
	long max_s = 600;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1)
		switch (c) {
		case 'a': naddr = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 'f': port_file = optarg; break;
		case 'd': delay_ms = atoll(optarg); break;
		case 'l': if (!(logfile = fopen(optarg, "w"))) { perror(optarg); return 2; } break;
		case 'b': bump_file = optarg; break;
		case 'm': max_s = atol(optarg); break;
		default: return 2;
		}
	if (naddr < 1 || naddr > 254)
		return 2;
	if (logfile)
		setvbuf(logfile, NULL, _IOLBF, 0);
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	signal(SIGPIPE, SIG_IGN);
	ep = epoll_create1(0);
	lfd = calloc((size_t)naddr, sizeof *lfd);
	for (int a = 0; a < naddr; a++) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
		socklen_t sl = sizeof sa;
		int one = 1;
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)(MAX_CONN + a) };

		sa.sin_addr.s_addr = htonl(0x7f000001u + (unsigned)a);
		lfd[a] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		setsockopt(lfd[a], SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(lfd[a], (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd[a], 1024) < 0) {
			fprintf(stderr, "manyserver: 127.0.0.%d:%d: %s\n", a + 1, port, strerror(errno));
			return 1;
		}
		if (!port) {
			getsockname(lfd[a], (struct sockaddr *)&sa, &sl);
			port = ntohs(sa.sin_port);
		}
		epoll_ctl(ep, EPOLL_CTL_ADD, lfd[a], &ev);
	}
	if (port_file) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
		if (!(f = fopen(tmp, "w")))
			return 1;
		fprintf(f, "%d\n", port);
		fclose(f);
		rename(tmp, port_file);
	}
	end = now_ms() + max_s * 1000;
	while (!stop && now_ms() < end) {
		struct epoll_event evs[256];
		int64_t t = now_ms(), next = t + 200;
		int n;

		for (int i = 0; i < MAX_CONN; i++)
			if (conns[i] && conns[i]->due) {
				if (conns[i]->due <= t)
					answer(i);
				else if (conns[i]->due < next)
					next = conns[i]->due;
			}
		n = epoll_wait(ep, evs, 256, (int)(next - t > 0 ? next - t : 0));
		for (int k = 0; k < n; k++) {
			uint64_t id = evs[k].data.u64;

			if (id >= MAX_CONN) {
				int a = (int)(id - MAX_CONN), fd;

				while ((fd = accept4(lfd[a], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					int slot = -1;
					struct epoll_event ev = { .events = EPOLLIN };

					for (int i = 0; i < MAX_CONN; i++)
						if (!conns[i]) { slot = i; break; }
					if (slot < 0 || !(conns[slot] = calloc(1, sizeof **conns))) {
						close(fd);
						continue;
					}
					conns[slot]->fd = fd;
					conns[slot]->addr = (unsigned)a + 1;
					ev.data.u64 = (uint64_t)slot;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
			} else if (conns[id]) {
				on_read((int)id);
			}
		}
	}
	return 0;
}
