/*
 * t_atom_prop: a property test of every Atom document the project writes.
 * Random hostile URLs, titles and authors (& < > " ', C0 controls, DEL,
 * U+FFFE/U+FFFF, invalid UTF-8, UTF-8-encoded surrogates, spaces,
 * non-ASCII paths and hosts, very long strings), from a fixed seed, go
 * through both writers' paths:
 *   - `lirs atom`'s: a run staged with atom_ev_run_add(), atom_publish_run() on
 *     a state file of its own (atom_evstore_open());
 *   - the antenna's publish: events added one by one with atom_evstore_add()
 *     (as `antenna update` does) to the antenna's store (ant_store_open(),
 *     atom_evstore_attach()), then atom_publish() with one event per page.
 * Every document written (index.atom, each archive/N.atom written this
 * round, current.atom) is parsed by libxml2 and validated against RFC
 * 4287's RELAX NG schema (atom_check.h); entry ids are valid tag: IRIs,
 * unique, and byte for byte what they were before this change whenever
 * the URL key was already allowed in one.
 *   ATOM_PROP_SEED=N ATOM_PROP_ROUNDS=N change the run (defaults below).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atom.h"
#include "atom_evstore.h"
#include "lirs_merge.h"
#include "ant_store.h"
#include "tap.h"

#include "atom_check.h"

#define ROUNDS 30          /* publishes per path */
#define PER_ROUND 100      /* events per publish: 3,000 cases per path */
#define PAGE 7             /* events per archive: many archives */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic for a seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned pick(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* Hostile pieces; a string is a few of them, random bytes, or a long one. */
static const char *const pieces[] = {
	"&", "<", ">", "\"", "'", "&amp;", "]]>", "<!--", "a=1&b=2", "?", "#", "%", "%20", "%zz",
	"%E3%81%82", " ", "\t", "\n", "\r", "\x01", "\x0b", "\x1f", "\x7f", "\xC2\x85",
	"\xEF\xBF\xBE", "\xEF\xBF\xBF", "\xED\xA0\x80", "\xED\xBF\xBF", "\xFF", "\xFE", "\xC0\xAF",
	"\xE3\x81", "\xF4\x90\x80\x80", "\xEF\xB7\x90", "\xEE\x80\x80", "\xF3\xB0\x80\x80",
	"\xF0\x9F\x98\x80", "日本語", "ｶﾀｶﾅ", "～", "¥", "\\", "[", "]", "{", "}", "|", "^", "`",
	"~user", "/", "//", "..", ":", ":80", ":8080", ":abc", "@", "!$()*+,;=", "-._~", "a", "page",
	"cgi-bin/diary.cgi", "index.html", "\xE2\x80\xA8", "\xEF\xBB\xBF", "\xC2\xA0",
};

static void add_piece(lb_buf *b)
{
	switch (pick(8)) {
	case 0: {   /* a random byte other than NUL */
		char c = (char)(1 + pick(255));
		lb_buf_add(b, &c, 1);
		break;
	}
	case 1: {   /* a random code point, UTF-8 encoded (surrogates included) */
		unsigned long cp = pick(4) ? pick(0x800) + 0x80 : pick(0x110000);
		unsigned char u[4];
		if (cp == 0)
			cp = 0x20;
		if (cp < 0x80) { u[0] = (unsigned char)cp; lb_buf_add(b, u, 1); }
		else if (cp < 0x800) { u[0] = (unsigned char)(0xC0 | cp >> 6); u[1] = (unsigned char)(0x80 | (cp & 63)); lb_buf_add(b, u, 2); }
		else if (cp < 0x10000) { u[0] = (unsigned char)(0xE0 | cp >> 12); u[1] = (unsigned char)(0x80 | (cp >> 6 & 63)); u[2] = (unsigned char)(0x80 | (cp & 63)); lb_buf_add(b, u, 3); }
		else { u[0] = (unsigned char)(0xF0 | cp >> 18); u[1] = (unsigned char)(0x80 | (cp >> 12 & 63)); u[2] = (unsigned char)(0x80 | (cp >> 6 & 63)); u[3] = (unsigned char)(0x80 | (cp & 63)); lb_buf_add(b, u, 4); }
		break;
	}
	default:
		lb_buf_adds(b, pieces[pick(sizeof pieces / sizeof pieces[0])]);
		break;
	}
}

static void hostile(lb_buf *b, unsigned max_pieces)
{
	unsigned n = pick(max_pieces + 1), i;

	if (pick(50) == 0)
		n = 500 + pick(3000);   /* very long */
	for (i = 0; i < n; i++)
		add_piece(b);
}

static const char *const schemes[] = {
	"http://", "https://", "HTTP://", "http://", "http://", "", "/", "//", "ftp://", "javascript:",
};
static const char *const hosts[] = {
	"example.jp", "www.example.jp", "EXAMPLE.JP:80", "xn--wgv71a.jp", "日本.jp", "例え.テスト",
	"[::1]", "127.0.0.1:8080", "user:pw@host.example", "a b.example", "h&st.example", "",
};

/* A random URL: mostly URL-shaped, with hostile paths and hosts. */
static void gen_url(lb_buf *b)
{
	lb_buf_reset(b);
	if (pick(10) == 0) {
		hostile(b, 8);
		return;
	}
	lb_buf_adds(b, schemes[pick(sizeof schemes / sizeof schemes[0])]);
	if (pick(4) == 0)
		hostile(b, 3);
	else
		lb_buf_adds(b, hosts[pick(sizeof hosts / sizeof hosts[0])]);
	lb_buf_adds(b, "/");
	hostile(b, 6);
}

/* The tag part of an id as main wrote it before (0.1.0's add_tag_part). */
static void old_tag_part(lb_buf *b, const char *s)
{
	static const char ok[] = "-._~!$&'()*+,;=:@/?";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr(ok, c))
			lb_buf_addc(b, c);
		else
			lb_buf_addf(b, "%%%02X", c);
	}
}

/* 1 when every non-ASCII character of s is one an IRI allows there. */
static int nonascii_allowed(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int query = 0;

	while (*s) {
		size_t n = 1;
		long c = ac_utf8(s, &n);
		if (c < 0 || (c >= 0x80 && !ac_ucschar(c) && !(query && ac_iprivate(c))))
			return 0;
		query |= c == '?';
		s += n;
	}
	return 1;
}

/* Ids: old ones are unchanged when they were valid; new ones always valid. */
static void test_ids(unsigned cases)
{
	lb_buf url = LB_BUF_INIT, key = LB_BUF_INIT, old = LB_BUF_INIT, now = LB_BUF_INIT;
	unsigned same = 0, kept = 0, valid = 0, i;
	char why[128];

	for (i = 0; i < cases; i++) {
		gen_url(&url);
		lb_buf_reset(&key);
		lb_buf_reset(&old);
		lb_buf_reset(&now);
		lb_url_key(&key, url.data);
		old_tag_part(&old, key.data);
		lb_buf_adds(&now, "tag:f.example,2024-01-01:event:1:");
		atom_iri(&now, key.data, ATOM_IRI_TAG);
		valid += ac_tag_ok(now.data, why, sizeof why);
		if (nonascii_allowed(key.data)) {
			kept++;
			same += !strcmp(now.data + strlen("tag:f.example,2024-01-01:event:1:"), old.data);
		}
	}
	IS_INT(valid, cases, "ids: %u random URLs give valid tag IRIs", cases);
	IS_INT(same, kept, "ids: the %u whose key was already IRI text are byte-identical to 0.1.0's", kept);
	lb_buf_release(&url);
	lb_buf_release(&key);
	lb_buf_release(&old);
	lb_buf_release(&now);
}

/* ---- documents ----------------------------------------------------------- */

typedef struct idset {
	char **v;
	size_t n, cap;
} idset;

static void on_id(void *ctx, const char *id)
{
	idset *s = ctx;
	char **v = lb_grow(s->v, &s->cap, s->n + 1, sizeof *v, 256);

	if (!v)
		abort();
	s->v = v;
	s->v[s->n++] = strdup(id);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void idset_free(idset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* Checks DIR/index.atom, DIR/current.atom and archives from..to; counts
 * documents and remembers the first failure. */
static void check_dir(ac_ctx *c, const char *dir, int64_t from, int64_t to, int *docs, char *bad,
		      size_t badlen)
{
	char path[4096];
	int64_t n;

	for (n = from - 1; n <= to + 2; n++) {
		if (n == from - 1)
			snprintf(path, sizeof path, "%s/index.atom", dir);
		else if (n == from)
			snprintf(path, sizeof path, "%s/current.atom", dir);
		else
			snprintf(path, sizeof path, "%s/archive/%lld.atom", dir, (long long)(n - 2));
		if (n > from && access(path, F_OK) != 0)
			continue;
		(*docs)++;
		if (!ac_check_file(c, path) && !*bad)
			snprintf(bad, badlen, "%s: %s", path, c->msg);
	}
}

static void make_events(atom_ev_event *ev, lb_buf *s, int64_t now)
{
	for (int i = 0; i < PER_ROUND; i++) {
		lb_buf_reset(&s[4 * i]);
		gen_url(&s[4 * i]);
		lb_buf_reset(&s[4 * i + 1]);
		hostile(&s[4 * i + 1], 6);
		lb_buf_reset(&s[4 * i + 2]);
		if (pick(3))
			hostile(&s[4 * i + 2], 4);
		lb_buf_reset(&s[4 * i + 3]);
		if (pick(2))
			gen_url(&s[4 * i + 3]);
		ev[i] = (atom_ev_event){
			.url = s[4 * i].data,
			.last_modified = pick(20) ? 1000000000 + (int64_t)pick(700000000) : (int64_t)pick(3),
			.last_detected = now - (int64_t)pick(20000),
			.tz_offset = (int64_t)pick(100000) - 50000,
			.content_length = pick(3) ? (int64_t)pick(100000) : -1,
			.title = s[4 * i + 1].data, .author = s[4 * i + 2].data, .source_url = s[4 * i + 3].data,
			/* a change excerpt (the antenna's; lirs atom stages none) */
			.excerpt = pick(3) ? NULL : s[4 * i + 1].data,
		};
	}
}

static void test_documents(ac_ctx *c, const char *tmp, unsigned rounds)
{
	char lirs_dir[2048], ant_dir[2048], state[2048], db[2048], bad[8192] = "";
	lb_error err = LB_ERROR_INIT;
	lb_buf strings[4 * PER_ROUND], title = LB_BUF_INIT, author = LB_BUF_INIT;
	atom_ev_event ev[PER_ROUND];
	atom_evstore *st = NULL, *ast = NULL;
	ant_store *s = NULL;
	int64_t now = 1700000000, count_l = 0, count_a = 0;
	size_t added = 0;
	int docs = 0, failed = 0;
	unsigned r;
	idset ids = { 0 };

	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
		lb_buf_init(&strings[i]);
	snprintf(lirs_dir, sizeof lirs_dir, "%s/lirs", tmp);
	snprintf(ant_dir, sizeof ant_dir, "%s/antenna", tmp);
	snprintf(state, sizeof state, "%s/state.db", tmp);
	snprintf(db, sizeof db, "%s/antenna.db", tmp);
	OK(atom_evstore_open(&st, state, 0, &err) == 0, "documents: state file opened (%s)", err.msg);
	OK(ant_store_open(&s, db, ANT_STORE_OPEN_CREATE, &err) == 0 && atom_evstore_attach(&ast, ant_store_db(s), &err) == 0,
	   "documents: antenna store opened (%s)", err.msg);
	if (!st || !ast)
		return;
	for (r = 0; r < rounds && !failed; r++) {
		atom_cfg cfg = { .base = "http://feeds.example.org/a&b'c/", .page_size = PAGE, .now = now };
		atom_stats stats;
		atom_ev_run *run = NULL;

		lb_buf_reset(&title);
		lb_buf_reset(&author);
		hostile(&title, 5);
		hostile(&author, 3);
		cfg.title = pick(5) ? title.data : NULL;
		cfg.author = pick(5) ? author.data : NULL;
		make_events(ev, strings, now);
		/* lirs atom */
		if (atom_ev_run_open(&run, &err) != 0)
			failed = 1;
		for (int i = 0; !failed && i < PER_ROUND; i++)
			failed = atom_ev_run_add(run, &ev[i], &err) != 0;
		if (!failed)
			failed = atom_publish_run(st, lirs_dir, &cfg, run, &stats, &err) != 0;
		atom_ev_run_close(run);
		if (failed) {
			OK(0, "documents: lirs atom round %u publishes (%s)", r, err.msg);
			break;
		}
		check_dir(c, lirs_dir, count_l, stats.archives_total, &docs, bad, sizeof bad);
		count_l = stats.archives_total;
		added += stats.events_added;
		/* the antenna: update adds events one by one, publish writes */
		atom_evstore_begin(ast, &err);
		for (int i = 0; i < PER_ROUND; i++)
			if (atom_evstore_add(ast, &ev[i], &err) < 0)
				failed = 1;
		atom_evstore_commit(ast, &err);
		if (!failed)
			failed = atom_publish(ast, ant_dir, &cfg, NULL, 0, ev, PER_ROUND, &stats, &err) != 0;
		if (failed) {
			OK(0, "documents: antenna round %u publishes (%s)", r, err.msg);
			break;
		}
		check_dir(c, ant_dir, count_a, stats.archives_total, &docs, bad, sizeof bad);
		count_a = stats.archives_total;
		now += 600;
	}
	OK(!failed && !*bad, "documents: %d documents of %u rounds x %d hostile events, both paths,"
	   " well-formed and valid RFC 4287 with IRI ids%s%s", docs, rounds, PER_ROUND, *bad ? ": " : "", bad);
	/* archives' and index.atom's event ids: one per event, all distinct */
	c->on_id = on_id;
	c->id_ctx = &ids;
	docs = 0;
	check_dir(c, lirs_dir, 1, count_l, &docs, bad, sizeof bad);
	c->on_id = NULL;
	{
		size_t dup = 0, events = 0;
		qsort(ids.v, ids.n, sizeof *ids.v, cmp_str);
		for (size_t i = 1; i < ids.n; i++)
			dup += !strcmp(ids.v[i], ids.v[i - 1]) && strstr(ids.v[i], ":event:");
		for (size_t i = 0; i < ids.n; i++)
			events += strstr(ids.v[i], ":event:") != NULL;
		OK(events == added && dup == 0, "documents: %zu event ids in %d documents for %zu events added,"
		   " no two events share one", events, docs, added);
	}
	idset_free(&ids);
	atom_evstore_close(st);
	atom_evstore_close(ast);
	ant_store_close(s);
	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
		lb_buf_release(&strings[i]);
	lb_buf_release(&title);
	lb_buf_release(&author);
}

/* The checker itself must refuse what is wrong (or it proves nothing). */
static void test_checker(ac_ctx *c, const char *tmp)
{
	static const char head[] = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		"<feed xmlns=\"http://www.w3.org/2005/Atom\">\n";
	static const char good[] = "  <id>tag:f.example,2024-01-01:x</id>\n  <title>t</title>\n"
		"  <updated>2024-01-01T00:00:00Z</updated>\n  <author><name>a</name></author>\n"
		"  <link rel=\"self\" href=\"http://f.example/x\"/>\n";
#define ID(x) "  <id>tag:f.example,2024-01-01:" x "</id>\n"
#define T "  <title>t</title>\n"
#define U "  <updated>2024-01-01T00:00:00Z</updated>\n"
#define A "  <author><name>a</name></author>\n"
	struct { const char *body; int ok; const char *what; } cases[] = {
		{ good, 1, "a minimal valid feed passes" },
		{ T "  <updated>2024-01-01T00:00:00Z</updated>\n" A, 0, "a feed without atom:id fails the schema" },
		{ ID("x") T "  <updated>yesterday</updated>\n" A, 0, "a bad date fails the schema" },
		{ ID("a?b=1&c=2") T U A, 0, "a raw & is not well-formed" },
		{ ID("a b") T U A, 0, "an id with a space is not an IRI" },
		{ ID("\xEF\xBF\xBD") T U A, 0, "an id with U+FFFD is not an IRI" },
		{ ID("\xED\xA0\x80") T U A, 0, "an id with an encoded surrogate is not well-formed" },
		{ ID("x") T U A "  <bogus/>\n", 0, "an unknown Atom element fails the schema" },
		{ ID("x") T U A "  <link rel=\"self\" href=\"http://f.example/a b\"/>\n", 0, "a link with a space is not an IRI" },
	};
	char path[4096];

	snprintf(path, sizeof path, "%s/neg.atom", tmp);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		FILE *fp = fopen(path, "w");
		if (!fp)
			return;
		fprintf(fp, "%s%s</feed>\n", head, cases[i].body);
		fclose(fp);
		int got = ac_check_file(c, path);
		OK(got == cases[i].ok, "checker: %s (%s)", cases[i].what, got ? "passed" : c->msg);
	}
}

int main(void)
{
	TAP_PLAN(15);
	const char *top = getenv("TOP"), *seed = getenv("ATOM_PROP_SEED"), *rounds = getenv("ATOM_PROP_ROUNDS");
	char rng[4096], tmp[] = "/tmp/t_atom_prop.XXXXXX";
	ac_ctx c;

	snprintf(rng, sizeof rng, "%s/tests/atom/atom.rng", top ? top : ".");
	rng_state = seed ? strtoull(seed, NULL, 10) | 1 : 20241123;
	if (ac_init(&c, rng) != 0 || !mkdtemp(tmp)) {
		printf("not ok - schema: %s loads (run from the top directory or set TOP)\n", rng);
		return 1;
	}
	test_checker(&c, tmp);
	test_ids(20000);
	test_documents(&c, tmp, rounds ? (unsigned)atoi(rounds) : ROUNDS);
	ac_done(&c);
	ac_rm_rf(tmp);
	TAP_DONE();
}
