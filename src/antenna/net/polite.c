/*
 * polite.c: politeness per server (ant_polite.h): host names grouped
 * into servers by registrable domain and by address, each server's
 * running requests, next start and Retry-After.
 *
 * Servers are a union-find forest: merging two (a name seen at an
 * address another server uses) points one root at the other and adds up
 * what the roots held, so a merge costs nothing later.  Names, keys and
 * addresses are found through one open-addressing table of strings, so a
 * run over many hosts costs no linear search.
 */
#include "ant_polite.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <libpsl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lb_url.h"

typedef struct server {
	long parent;        /* itself when a root */
	char *key;
	long active;        /* requests running (roots only) */
	int64_t next_ms;    /* no start before (roots only) */
	int64_t until;      /* Retry-After, seconds since the epoch: of this key's own
			       names (any node; a merge never moves it) */
} server;

/* One table maps three kinds of name to a server: 'h' host, 'k' key, 'a' address. */
typedef struct entry {
	char *name;         /* kind byte, then the name; NULL when free */
	long server;        /* 'k', 'a': the server; -1 none yet */
	long host;          /* 'h': the host's id; -1 none yet */
} entry;

struct ant_polite {
	server *srv;
	size_t nsrv, srvcap;
	long *host_srv;     /* per host id: its server (any node) */
	size_t nhosts, hostcap;
	entry *tab;
	size_t tabcap, tabused;
	char *scratch;      /* ant_polite_key()'s answer */
};

static pthread_once_t psl_once = PTHREAD_ONCE_INIT;
static const psl_ctx_t *psl;

/* The system's list (Debian's publicsuffix, private section included),
 * else libpsl's built-in copy. */
static void psl_init(void)
{
	psl = psl_latest(NULL);
	if (!psl)
		psl = psl_builtin();
}

ant_polite *ant_polite_new(void)
{
	ant_polite *p = calloc(1, sizeof *p);

	if (p && !(p->tab = calloc(p->tabcap = 64, sizeof *p->tab))) {
		free(p);
		return NULL;
	}
	return p;
}

void ant_polite_free(ant_polite *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nsrv; i++)
		free(p->srv[i].key);
	for (size_t i = 0; i < p->tabcap; i++)
		free(p->tab[i].name);
	free(p->srv);
	free(p->host_srv);
	free(p->tab);
	free(p->scratch);
	free(p);
}

static int is_address(const char *h)
{
	unsigned char b[16];

	return inet_pton(AF_INET, h, b) == 1 || inet_pton(AF_INET6, h, b) == 1;
}

char *ant_polite_domain(const char *host)
{
	char *h = strdup(host ? host : ""), *s;
	const char *d = NULL;
	size_t n;

	if (!h)
		return NULL;
	for (char *c = h; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	s = h;
	n = strlen(s);
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
		s[n - 1] = '\0', s++;
	if (n && s[strlen(s) - 1] == '.')   /* "example.com." is example.com */
		s[strlen(s) - 1] = '\0';
	pthread_once(&psl_once, psl_init);
	if (*s && !is_address(s) && psl)
		d = psl_registrable_domain(psl, s);
	s = strdup(d ? d : s);
	free(h);
	return s;
}

/* ---- the table ------------------------------------------------------------ */

static size_t hash(const char *s)
{
	size_t h = 14695981039346656037u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

static entry *tab_find(ant_polite *p, const char *name)
{
	size_t i = hash(name) & (p->tabcap - 1);

	while (p->tab[i].name && strcmp(p->tab[i].name, name) != 0)
		i = (i + 1) & (p->tabcap - 1);
	return &p->tab[i];
}

static int tab_grow(ant_polite *p)
{
	entry *old = p->tab;
	size_t oldcap = p->tabcap;

	if ((p->tabused + 1) * 2 < p->tabcap)
		return 0;
	if (!(p->tab = calloc(p->tabcap * 2, sizeof *p->tab))) {
		p->tab = old;
		return LB_ENOMEM;
	}
	p->tabcap *= 2;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].name)
			*tab_find(p, old[i].name) = old[i];
	free(old);
	return 0;
}

/* The entry of kind + name, created (server -1) when new; NULL when out of memory. */
static entry *tab_get(ant_polite *p, char kind, const char *name)
{
	size_t n = strlen(name);
	char *k = malloc(n + 2);
	entry *e;

	if (!k || tab_grow(p) < 0) {
		free(k);
		return NULL;
	}
	k[0] = kind;
	memcpy(k + 1, name, n + 1);
	e = tab_find(p, k);
	if (e->name) {
		free(k);
		return e;
	}
	e->name = k;
	e->server = -1;
	e->host = -1;
	p->tabused++;
	return e;
}

/* ---- servers ---------------------------------------------------------------- */

static long root(ant_polite *p, long s)
{
	while (p->srv[s].parent != s) {
		p->srv[s].parent = p->srv[p->srv[s].parent].parent;
		s = p->srv[s].parent;
	}
	return s;
}

static long server_new(ant_polite *p, const char *key)
{
	server *t;
	char *k = strdup(key);

	if (!k)
		return LB_ENOMEM;
	if (p->nsrv == p->srvcap) {
		size_t cap = p->srvcap ? p->srvcap * 2 : 16;

		if (!(t = realloc(p->srv, cap * sizeof *t))) {
			free(k);
			return LB_ENOMEM;
		}
		p->srv = t, p->srvcap = cap;
	}
	p->srv[p->nsrv] = (server){ .parent = (long)p->nsrv, .key = k };
	return (long)p->nsrv++;
}

/* One server from now on: b's root under a's, what b held added up. */
static void merge(ant_polite *p, long a, long b)
{
	a = root(p, a), b = root(p, b);
	if (a == b)
		return;
	p->srv[a].active += p->srv[b].active;
	if (p->srv[b].next_ms > p->srv[a].next_ms)
		p->srv[a].next_ms = p->srv[b].next_ms;
	p->srv[b].parent = a;   /* each key keeps its own Retry-After */
}

/* The server of key ('k' entry), created when new. */
static long server_of_key(ant_polite *p, const char *key)
{
	entry *e = tab_get(p, 'k', key);

	if (!e)
		return LB_ENOMEM;
	if (e->server < 0)
		e->server = server_new(p, key);
	return e->server;
}

long ant_polite_host(ant_polite *p, const char *host)
{
	char *low = strdup(host ? host : ""), *dom;
	const char *name;
	entry *e;
	long s;

	if (!low)
		return LB_ENOMEM;
	for (char *c = low; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	e = tab_get(p, 'h', low);
	free(low);
	if (!e)
		return LB_ENOMEM;
	if (e->host >= 0)
		return e->host;
	if (p->nhosts == p->hostcap) {
		size_t cap = p->hostcap ? p->hostcap * 2 : 16;
		long *t = realloc(p->host_srv, cap * sizeof *t);

		if (!t)
			return LB_ENOMEM;
		p->host_srv = t, p->hostcap = cap;
	}
	if (!(dom = ant_polite_domain(e->name + 1)))
		return LB_ENOMEM;
	name = e->name;
	s = server_of_key(p, dom);
	free(dom);
	if (s < 0)
		return s;
	/* server_of_key's new entry may have grown the table: e moved */
	e = tab_find(p, name);
	p->host_srv[p->nhosts] = s;
	return e->host = (long)p->nhosts++;
}

const char *ant_polite_key(ant_polite *p, long host)
{
	return p->srv[root(p, p->host_srv[host])].key;
}

const char *ant_polite_wait_key(ant_polite *p, long host)
{
	return p->srv[p->host_srv[host]].key;
}

int ant_polite_addr(ant_polite *p, long host, const char *addr)
{
	entry *e;

	if (!addr || !*addr)
		return 0;
	if (!(e = tab_get(p, 'a', addr)))
		return LB_ENOMEM;
	if (e->server < 0)
		e->server = p->host_srv[host];
	else
		merge(p, e->server, p->host_srv[host]);
	return 0;
}

/* ---- scheduling --------------------------------------------------------------- */

int ant_polite_may_start(ant_polite *p, long host, long per_server, int64_t now_ms,
			 int64_t *wake_ms)
{
	server *s = &p->srv[root(p, p->host_srv[host])];

	if (s->active >= per_server)
		return 0;
	if (s->next_ms > now_ms) {
		if (*wake_ms == 0 || s->next_ms < *wake_ms)
			*wake_ms = s->next_ms;
		return 0;
	}
	return 1;
}

void ant_polite_started(ant_polite *p, long host, int64_t now_ms, int64_t min_delay_ms)
{
	server *s = &p->srv[root(p, p->host_srv[host])];

	s->active++;
	if (min_delay_ms > 0)
		s->next_ms = now_ms + min_delay_ms;
}

void ant_polite_ended(ant_polite *p, long host)
{
	server *s = &p->srv[root(p, p->host_srv[host])];

	if (s->active > 0)
		s->active--;
}

/* A wait is the asking key's own (host_srv[] is the node of the host's
 * registrable domain, never moved by a merge): a tenant's 503 on shared
 * hosting keeps its neighbours at that address neither waiting nor named. */
int64_t ant_polite_blocked(ant_polite *p, long host, int64_t now)
{
	int64_t u = p->srv[p->host_srv[host]].until;

	return u > now ? u : 0;
}

void ant_polite_block(ant_polite *p, long host, int64_t until)
{
	server *s = &p->srv[p->host_srv[host]];

	if (until > s->until)
		s->until = until;
}

int ant_polite_block_key(ant_polite *p, const char *key, int64_t until)
{
	long s = server_of_key(p, key);

	if (s < 0)
		return (int)s;
	if (until > p->srv[s].until)
		p->srv[s].until = until;
	return 0;
}

void ant_polite_each_block(ant_polite *p, int64_t now,
			   void (*fn)(void *ctx, const char *key, int64_t until), void *ctx)
{
	for (size_t i = 0; i < p->nsrv; i++)
		if (p->srv[i].until > now)
			fn(ctx, p->srv[i].key, p->srv[i].until);
}

