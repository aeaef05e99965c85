/*
 * render.c: one page rendered by headless chromium (ant_render.h).
 *
 * Why --dump-dom and not the DevTools protocol: chromium's --dump-dom
 * prints the serialized DOM once the page's load event fired and its
 * --virtual-time-budget ran out; virtual time runs the page's timers at
 * once and waits while its fetches are pending, so a list built by a
 * script after a timer or a fetch() is there (tests/render), in about a
 * second a render on this machine, with no WebSocket client of ours to
 * keep.  What it cannot do is wait for a selector; no page here needed it.
 *
 * The process: chromium runs in a process group of its own, its standard
 * output (the DOM) read here, bounded; every 100 ms the group's resident
 * size is summed from /proc, and the wall clock checked.  The end, in
 * every case: the group killed, each of its processes reaped (this
 * process is their subreaper meanwhile: prctl(PR_SET_CHILD_SUBREAPER)),
 * the proxy's threads joined, the profile folder removed.
 */
#include "ant_render.h"
#include "fetch_int.h"
#include "render_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lb_buf.h"
#include "lb_url.h"

#define TICK_MS 100   /* the clock checked */
#define SCAN_MS 250   /* the memory summed */

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long lim_or(long v, long def)
{
	return v ? v : def;
}

/* ---- the browser ------------------------------------------------------ */

static char *on_path(const char *name)
{
	const char *path = getenv("PATH");
	lb_buf b = LB_BUF_INIT;

	for (const char *s = path ? path : "/usr/bin:/bin"; *s;) {
		size_t n = strcspn(s, ":");

		lb_buf_reset(&b);
		lb_buf_addf(&b, "%.*s/%s", (int)n, s, name);
		if (n && access(b.data, X_OK) == 0)
			return lb_buf_detach(&b, NULL);
		s += n + (s[n] == ':');
	}
	lb_buf_release(&b);
	return NULL;
}

char *ant_render_browser(const ant_render_limits *rl)
{
	const char *env = getenv("ANTENNA_CHROMIUM");
	const char *want = rl && rl->browser ? rl->browser : env && *env ? env : NULL;

	if (want)
		return strchr(want, '/') ? (access(want, X_OK) == 0 ? strdup(want) : NULL) : on_path(want);
	if (access(ANT_RENDER_BROWSER, X_OK) == 0)
		return strdup(ANT_RENDER_BROWSER);
	return on_path("chromium");
}

/* The command line.  Every switch that makes chromium ask something on
 * its own is off; all its traffic goes to our proxy, loopback included
 * (<-loopback> removes chromium's implicit bypass of it). */
static char **browser_argv(const char *browser, const char *profile, int port, const char *ua,
			   long settle_ms, const char *url)
{
	static const char *const fixed[] = {
		"--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-domain-reliability",
		"--disable-client-side-phishing-detection", "--disable-breakpad",
		"--disable-crash-reporter", "--metrics-recording-only", "--no-pings",
		"--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars", "--disable-quic",
		"--no-service-autorun", "--password-store=basic",
		"--disable-search-engine-choice-screen", "--disable-component-extensions-with-background-pages",
		"--disable-features=Translate,OptimizationHints,OptimizationGuideModelDownloading,"
		"MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,"
		"CertificateTransparencyComponentUpdater,NetworkTimeServiceQuerying,"
		"InterestFeedContentSuggestions,PrivacySandboxSettings4,LensOverlay,"
		"SafeBrowsing,HttpsUpgrades,AccountConsistency",
		"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
		"--proxy-bypass-list=<-loopback>", "--dns-prefetch-disable",
		/* a second wall: chromium resolves no name itself (only the
		 * proxy's address, written as one, is reached directly) */
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--dump-dom",
	};
	size_t nf = sizeof fixed / sizeof *fixed, k = 0;
	char **v = calloc(nf + 10, sizeof *v);
	lb_buf b = LB_BUF_INIT;

	if (!v)
		return NULL;
	v[k++] = strdup(browser);
	for (size_t i = 0; i < nf; i++)
		v[k++] = strdup(fixed[i]);
	if (geteuid() == 0)   /* chromium will not run as root in its sandbox */
		v[k++] = strdup("--no-sandbox");
	lb_buf_addf(&b, "--user-data-dir=%s", profile);
	v[k++] = lb_buf_detach(&b, NULL);
	lb_buf_addf(&b, "--proxy-server=http://127.0.0.1:%d", port);
	v[k++] = lb_buf_detach(&b, NULL);
	lb_buf_addf(&b, "--user-agent=%s", ua);
	v[k++] = lb_buf_detach(&b, NULL);
	if (settle_ms > 0) {
		lb_buf_addf(&b, "--virtual-time-budget=%ld", settle_ms);
		v[k++] = lb_buf_detach(&b, NULL);
	}
	v[k++] = strdup(url);
	for (size_t i = 0; i < k; i++)
		if (!v[i]) {
			for (size_t j = 0; j < k; j++)
				free(v[j]);
			free(v);
			return NULL;
		}
	return v;
}

/* The environment the browser gets: ours, its HOME and XDG folders in
 * dir, so that nothing it writes (crash reports, caches) is left
 * outside the folder removed after. */
static char **browser_env(const char *dir)
{
	extern char **environ;
	static const char *const mine[] = { "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME" };
	size_t n = 0, k = 0, nm = sizeof mine / sizeof *mine;
	char **v;

	while (environ[n])
		n++;
	if (!(v = calloc(n + nm + 1, sizeof *v)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < nm && !(strncmp(environ[i], mine[j], strlen(mine[j])) == 0 &&
				   environ[i][strlen(mine[j])] == '='))
			j++;
		if (j == nm && !(v[k++] = strdup(environ[i])))
			goto oom;
	}
	for (size_t j = 0; j < nm; j++) {
		lb_buf b = LB_BUF_INIT;

		if (lb_buf_addf(&b, "%s=%s", mine[j], dir) < 0 || !(v[k++] = lb_buf_detach(&b, NULL)))
			goto oom;
	}
	return v;
oom:
	for (size_t i = 0; i < k; i++)
		free(v[i]);
	free(v);
	return NULL;
}

static void argv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child(char **argv, char **envp, int out, const char *errpath)
{
	int devnull = open("/dev/null", O_RDONLY), err = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	sigset_t none;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);   /* the antenna killed: its browser too */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (devnull < 0 || err < 0 || dup2(devnull, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	closefrom(3);
	execve(argv[0], argv, envp);
	_exit(127);
}

/* ---- the process group ------------------------------------------------ */

/* The processes under this one (the browser, its helpers, and what they
 * left: this process is their subreaper), into *list (malloc'd): how many,
 * or LB_EIO when /proc cannot be read. */
static long tree_list(pid_t **list)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t *pid = NULL, *ppid = NULL, self = getpid();
	size_t n = 0, cap = 0, pcap = 0;
	long k = 0;

	*list = NULL;
	if (!d)
		return LB_EIO;
	while ((e = readdir(d))) {
		char path[300], buf[512], *rp;
		int fd, pp;
		ssize_t r;
		void *t;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		r = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		/* after the name's ")": state, then the parent */
		if (!(rp = strrchr(buf, ')')) || sscanf(rp + 2, "%*c %d", &pp) != 1)
			continue;
		if ((t = lb_grow(pid, &cap, n + 1, sizeof *pid, 256)))
			pid = t;
		if ((t = lb_grow(ppid, &pcap, n + 1, sizeof *ppid, 256)))
			ppid = t;
		if (n >= cap || n >= pcap)
			break;   /* out of memory: the list so far */
		pid[n] = (pid_t)atoi(e->d_name);
		ppid[n++] = (pid_t)pp;
	}
	closedir(d);
	/* a process is ours when a chain of parents leads here */
	for (size_t i = 0; i < n; i++) {
		pid_t up = ppid[i];

		for (int depth = 0; depth < 64 && up > 1 && up != self; depth++) {
			size_t j = 0;

			while (j < n && pid[j] != up)
				j++;
			up = j < n ? ppid[j] : 0;
		}
		if (up == self)
			pid[k++] = pid[i];
	}
	free(ppid);
	*list = pid;
	return k;
}

/* Kilobytes of p's proportional set size (shared pages divided among
 * the processes sharing them: the sum over the browser's processes is
 * what they take, not the resident sizes counting its shared libraries
 * ten times). */
static long pss_kb(pid_t p)
{
	char path[64], line[128];
	FILE *f;
	long kb = 0;

	snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)p);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Pss: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The render's processes: how many, their memory summed into *kb. */
static long tree_scan(long *kb)
{
	pid_t *list;
	long n = tree_list(&list);

	*kb = 0;
	for (long i = 0; i < n; i++)
		*kb += pss_kb(list[i]);
	free(list);
	return n;
}

/* Every process of the render killed and reaped: the number left after
 * waiting at most 5 s (0). */
static long tree_end(pid_t browser)
{
	int64_t end = mono_ms() + 5000;

	for (;;) {
		pid_t *list;
		long n;

		kill(-browser, SIGKILL);
		n = tree_list(&list);
		for (long i = 0; i < n; i++) {
			kill(list[i], SIGKILL);
			waitpid(list[i], NULL, WNOHANG);   /* a child of ours by now, or soon */
		}
		free(list);
		if (n <= 0 || mono_ms() > end)
			return n < 0 ? 0 : n;
		usleep(20000);
	}
}

/* ---- the temporary folder ------------------------------------------------ */

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The last line chromium printed that is not about D-Bus (it always
 * complains of no system bus), for an error. */
static void stderr_tail(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "r");
	char line[512];

	out[0] = '\0';
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] && !strstr(line, "dbus") && !strstr(line, "D-Bus"))
			snprintf(out, n, "%.*s", (int)(n - 1), line);
	}
	if (f)
		fclose(f);
}

/* ---- one render -------------------------------------------------------- */

struct render {
	const ant_fetch_limits *fl;
	long timeout_ms, max_kb;
	size_t max_body;
	pid_t pid;
	int out;                 /* the browser's standard output */
	lb_buf dom;
	rproxy px;
	ant_fetch_errkind err;
	char error[256];
	int status;              /* the browser's exit status, -1 not reaped */
	int64_t next_scan;       /* when the memory is summed next */
	ant_render_stats st;
};

static void fail(struct render *r, ant_fetch_errkind k, const char *fmt, const char *arg, long num)
{
	if (r->err != ANT_FETCH_OK)
		return;   /* the first reason stands */
	r->err = k;
	/* the reasons are shorter than error; a longer one is cut */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(r->error, sizeof r->error, fmt, arg ? arg : "", num);
#pragma GCC diagnostic pop
}

/* The render's memory summed now: 1 when over the limit. */
static int over_memory(struct render *r)
{
	long kb, procs = tree_scan(&kb);

	r->next_scan = mono_ms() + SCAN_MS;
	if (kb > r->st.peak_kb)
		r->st.peak_kb = kb;
	if (procs > r->st.peak_procs)
		r->st.peak_procs = procs;
	if (kb <= r->max_kb)
		return 0;
	fail(r, ANT_FETCH_ERR_OTHER, "the browser used over %s%ld MiB: update --render-memory", NULL,
	     r->max_kb / 1024);
	return 1;
}

/* Reads what the browser prints until it closes its output, a bound is
 * passed, or the guard refused something. */
static void watch(struct render *r, int64_t start)
{
	char buf[65536];

	for (;;) {
		struct pollfd f = { r->out, POLLIN, 0 };
		ssize_t n;

		if (poll(&f, 1, TICK_MS) > 0) {
			if ((n = read(r->out, buf, sizeof buf)) < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return;   /* printed all: the browser is done */
			if (r->dom.len + (size_t)n > r->max_body) {
				fail(r, ANT_FETCH_ERR_TOO_BIG, "the rendered page is over %s%ld bytes", NULL,
				     (long)r->max_body);
				return;
			}
			lb_buf_add(&r->dom, buf, (size_t)n);
		}
		if (mono_ms() >= r->next_scan && over_memory(r))
			return;
		if (mono_ms() - start > r->timeout_ms) {
			fail(r, ANT_FETCH_ERR_TIMEOUT, "the render took over %s%ld s: update --render-timeout",
			     NULL, r->timeout_ms / 1000);
			return;
		}
		if (ant_render_proxy_refused(&r->px))
			return;   /* failed anyway: no need to wait for the rest */
	}
}

/* The browser's own end, waited for a little after it closed its output
 * (it exits right after printing); then its group ends either way. */
static void reap(struct render *r)
{
	int64_t end = mono_ms() + 2000;
	int ws;

	while (r->err == ANT_FETCH_OK && !ant_render_proxy_refused(&r->px) && mono_ms() < end) {
		pid_t w = waitpid(r->pid, &ws, WNOHANG);

		if (w == r->pid) {
			r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
			break;
		}
		usleep(20000);
	}
	if (r->status < 0 && waitpid(r->pid, &ws, WNOHANG) == r->pid)
		r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	r->st.leftover = tree_end(r->pid);
}

/* The outcome in res, from what the proxy saw and the browser said. */
static void result(struct render *r, const char *errpath, const char *url, ant_fetch_result *res)
{
	char tail[200];

	pthread_mutex_lock(&r->px.mu);
	if (r->px.refusal[0]) {   /* the guard's word first, whatever else went wrong */
		r->err = ANT_FETCH_OK;
		fail(r, ANT_FETCH_ERR_INTERNAL, "%.250s", r->px.refusal, 0);
	}
	if (r->px.nav_err != ANT_FETCH_OK)
		fail(r, r->px.nav_err, "%.250s", r->px.nav_error, 0);
	if (!r->px.page_seen)   /* what it printed is its own error page */
		fail(r, ANT_FETCH_ERR_OTHER, "the browser never asked for the page%s", NULL, 0);
	res->status = r->px.nav_status >= 400 ? r->px.nav_status : 200;
	r->st.requests = r->px.requests;
	r->st.refused = r->px.refused;
	pthread_mutex_unlock(&r->px.mu);
	if (r->err == ANT_FETCH_OK && (r->status != 0 || r->dom.len == 0)) {
		stderr_tail(errpath, tail, sizeof tail);
		fail(r, ANT_FETCH_ERR_OTHER, "the browser failed: %s", tail[0] ? tail : "no output", 0);
	}
	res->err = r->err;
	if (r->err != ANT_FETCH_OK) {
		res->status = 0;
		snprintf(res->error, sizeof res->error, "%s", r->error);
		lb_buf_reset(&r->dom);
	}
	res->len = r->dom.len;
	res->body = lb_buf_detach(&r->dom, NULL);
	res->content_type = strdup("text/html; charset=utf-8");
	res->effective_url = strdup(url);
}

/* Starts the browser on url; 0, or < 0 with r->err set. */
static int start(struct render *r, const ant_fetch_req *req, const char *browser, const char *dir,
		 long settle_ms)
{
	char profile[4200], errpath[4200], ua[ANT_TARGET_MAX_CONTACT + 64];
	char **argv, **envp;
	int pfd[2];

	snprintf(profile, sizeof profile, "%s/profile", dir);
	snprintf(errpath, sizeof errpath, "%s/stderr", dir);
	ant_fetch_user_agent(r->fl, ua, sizeof ua);
	r->px.allow_private = r->fl->allow_private;
	r->px.connect_timeout = r->fl->connect_timeout;
	r->px.allow_hp = req->allow_host ? ant_fetch_host_port(req->allow_host) : NULL;
	r->px.page_key = lb_url_page_key_dup(req->url);
	r->px.page_hp = ant_fetch_host_port(req->url);
	if (ant_render_proxy_start(&r->px) < 0) {
		fail(r, ANT_FETCH_ERR_OTHER, "cannot start the render's proxy%s", NULL, 0);
		return LB_EIO;
	}
	argv = browser_argv(browser, profile, r->px.port, ua, settle_ms, req->url);
	envp = browser_env(dir);
	if (!argv || !envp) {
		argv_free(argv);
		argv_free(envp);
		return LB_ENOMEM;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		argv_free(argv);
		argv_free(envp);
		return LB_EIO;
	}
	r->pid = fork();
	if (r->pid == 0)
		child(argv, envp, pfd[1], errpath);
	argv_free(argv);
	argv_free(envp);
	close(pfd[1]);
	if (r->pid < 0) {
		close(pfd[0]);
		fail(r, ANT_FETCH_ERR_OTHER, "cannot start the browser%s", NULL, 0);
		return LB_EIO;
	}
	setpgid(r->pid, r->pid);   /* the child does it too: whichever comes first */
	r->out = pfd[0];
	return 0;
}

static void result_init(ant_fetch_result *res)
{
	memset(res, 0, sizeof *res);
	res->content_length = -1;
}

/* A render not tried: res says why. */
static int not_tried(ant_fetch_result *res, ant_fetch_errkind k, const char *why, int local, int rc)
{
	res->err = k;
	res->local = local;
	snprintf(res->error, sizeof res->error, "%s", why);
	if (!res->body)
		res->body = strdup("");
	return rc;
}

int ant_render(const ant_fetch_limits *fl, const ant_render_limits *rl, const ant_fetch_req *req,
	       ant_fetch_result *res, ant_render_stats *st)
{
	static const ant_fetch_limits none_f;
	static const ant_render_limits none_r;
	struct render r = { .fl = fl ? fl : &none_f, .dom = LB_BUF_INIT, .out = -1, .status = -1 };
	const char *tmp = getenv("TMPDIR");
	char dir[4096], errpath[4200];
	char *browser;
	int64_t t0 = mono_ms();
	int rc;

	rl = rl ? rl : &none_r;
	result_init(res);
	if (st)
		memset(st, 0, sizeof *st);
	if (!req || !req->url || !lb_url_is_http(req->url))
		return not_tried(res, ANT_FETCH_ERR_PROTOCOL, "a render needs an http or https URL", 0, 0);
	if (!(browser = ant_render_browser(rl)))
		return not_tried(res, ANT_FETCH_ERR_OTHER, ANT_RENDER_NO_BROWSER, 1, 0);
	snprintf(dir, sizeof dir, "%s/antenna-render.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		free(browser);
		return not_tried(res, ANT_FETCH_ERR_OTHER, "cannot make the render's profile folder", 1, LB_EIO);
	}
	snprintf(errpath, sizeof errpath, "%s/stderr", dir);
	r.timeout_ms = lim_or(rl->timeout, ANT_RENDER_DEFAULT_TIMEOUT) * 1000;
	r.max_kb = lim_or(rl->max_mb, ANT_RENDER_DEFAULT_MAX_MB) * 1024;
	r.max_body = r.fl->max_body ? r.fl->max_body : ANT_FETCH_DEFAULT_MAX_BODY;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	rc = start(&r, req, browser, dir, lim_or(rl->settle_ms, ANT_RENDER_DEFAULT_SETTLE_MS));
	free(browser);
	if (rc == 0) {
		watch(&r, t0);
		reap(&r);
	}
	if (r.out >= 0)
		close(r.out);
	ant_render_proxy_stop(&r.px);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	result(&r, errpath, req->url, res);
	rm_tree(dir);
	lb_buf_release(&r.dom);
	r.st.seconds = (double)(mono_ms() - t0) / 1000.0;
	res->seconds = r.st.seconds;
	if (st)
		*st = r.st;
	if (!res->body || !res->content_type || !res->effective_url) {
		res->local = 1;
		return not_tried(res, ANT_FETCH_ERR_OTHER, "out of memory", 1, LB_ENOMEM);
	}
	if (rc < 0)
		res->local = 1;
	return rc < 0 ? rc : 0;
}

void ant_render_result_release(ant_fetch_result *res)
{
	if (!res)
		return;
	free(res->body);
	free(res->etag);
	free(res->last_modified);
	free(res->content_type);
	free(res->effective_url);
	res->body = res->etag = res->last_modified = res->content_type = res->effective_url = NULL;
}

/* ---- renders at once on this machine --------------------------------- */

int ant_render_lock(const ant_render_limits *rl, long wait_s)
{
	const char *tmp = getenv("TMPDIR");
	long jobs = rl && rl->jobs > 0 ? rl->jobs : ANT_RENDER_DEFAULT_JOBS;
	int64_t end = mono_ms() + 1000 * (wait_s > 0 ? wait_s : ANT_RENDER_LOCK_WAIT);
	char path[4200];

	for (;;) {
		for (long i = 0; i < jobs; i++) {
			int fd;

			snprintf(path, sizeof path, "%s/lirs-antenna-render.%ld.lock", tmp && *tmp ? tmp : "/tmp", i);
			if ((fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0666)) < 0)
				return LB_EIO;
			if (flock(fd, LOCK_EX | LOCK_NB) == 0)
				return fd;
			close(fd);
		}
		if (mono_ms() > end)
			return LB_EBUSY;
		usleep(100000);
	}
}

void ant_render_unlock(int lock)
{
	if (lock >= 0)
		close(lock);   /* the flock goes with it */
}
