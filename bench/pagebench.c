/*
 * pagebench: the page analysis alone, and a check that a new
 * analysis reads pages as the old one did.
 *
 *   pagebench [-n PAGES] [-r ROUNDS] [-s SEED]    time ant_page_analyze()
 *       over a generated corpus (blog and diary pages of 10-50 KB, Japanese
 *       and English, with sidebars, counters, tables, scripts, comments,
 *       entities and some broken markup); prints the median time per page
 *       of 5 runs of ROUNDS passes.
 *   pagebench -d [-x] [-n PAGES] [-s SEED] [FILE...]  one line per page: text_hash,
 *       segment hashes, excerpt against the previous page, title, charset
 *       and feed link, for comparing two builds (diff their outputs); -x:
 *       tag soup instead of pages.
 *   -b: the test server's 1.5 KB /bench/N.html pages instead (both modes).
 *
 * It uses the one entry point, ant_page_analyze() with ant_page_opts (0.5;
 * for figures of a release before it, build that release's pagebench).
 * Not run by `make bench`: `make build/bench/pagebench`.
 */
#include "ant_page.h"
#include "lb_buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static const char *pick(const char *const *v, size_t n)
{
	return v[rnd() % n];
}
#define PICK(v) pick(v, sizeof v / sizeof *v)

static const char *const ja_words[] = {
	"今日は", "朝から", "雨が降って", "いました", "新しい", "本を", "読みました", "駅前の",
	"喫茶店で", "友人と", "話しました", "仕事が", "忙しくて", "日記を", "書けませんでした",
	"夕方", "散歩に", "出かけて", "桜が", "きれいでした", "プログラムの", "バグを", "直しました",
	"アンテナ", "更新", "ページ", "東京", "大阪", "料理", "カレーを", "作った", "猫が",
	"寝ている", "電車が", "遅れて", "会議", "資料を", "まとめた", "週末は", "映画を", "見た",
};
static const char *const ja_end[] = { "。", "。", "！", "？", "。" };
static const char *const en_words[] = {
	"today", "I", "wrote", "a", "new", "post", "about", "the", "weather", "and", "my", "cat",
	"which", "was", "sleeping", "on", "keyboard", "again", "we", "fixed", "bug", "in", "parser",
	"release", "notes", "for", "version", "coffee", "train", "late", "meeting", "weekend", "movie",
	"garden", "tomatoes", "finally", "red", "reading", "book", "library", "update", "antenna",
};
static const char *const tags_inline[] = { "a href=\"/x\"", "b", "em", "span", "strong", "code" };

static void sentence(lb_buf *b, int ja)
{
	int n = 4 + (int)(rnd() % 10);

	for (int i = 0; i < n; i++) {
		if (rnd() % 9 == 0) {
			const char *t = PICK(tags_inline);
			char name[16];

			sscanf(t, "%15s", name);
			lb_buf_addf(b, "<%s>%s</%s>", t, ja ? PICK(ja_words) : PICK(en_words), name);
		} else if (ja) {
			lb_buf_adds(b, PICK(ja_words));
		} else {
			lb_buf_adds(b, PICK(en_words));
		}
		if (!ja && i + 1 < n)
			lb_buf_addc(b, ' ');
		if (rnd() % 40 == 0)
			lb_buf_adds(b, ja ? "&amp;" : " &amp; ");
		if (rnd() % 50 == 0)
			lb_buf_addf(b, "%u", rnd() % 100000);
	}
	lb_buf_adds(b, ja ? PICK(ja_end) : ". ");
}

static void page(lb_buf *b, size_t target, int ja, int broken)
{
	lb_buf_reset(b);
	lb_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"");
	lb_buf_adds(b, ja ? "ja" : "en");
	lb_buf_adds(b, "\">\n<head>\n<meta charset=\"utf-8\">\n");
	lb_buf_addf(b, "<title>%s %u</title>\n", ja ? "日記" : "Diary", rnd() % 1000);
	lb_buf_adds(b, "<link rel=\"stylesheet\" href=\"/style.css\">\n"
		       "<link rel=\"alternate\" type=\"application/rss+xml\" href=\"/index.rdf\">\n"
		       "<style>body { font-family: sans-serif; } .side { float: right; }</style>\n"
		       "<script>var x = 1; if (x < 2) { document.write('<p>hi</p>'); }</script>\n"
		       "</head>\n<body class=\"diary top\">\n<!-- header -->\n"
		       "<div id=\"header\"><h1><a href=\"/\">");
	lb_buf_adds(b, ja ? "ある日記" : "A diary");
	lb_buf_adds(b, "</a></h1>\n<ul class=\"nav\">");
	for (int i = 0; i < 6; i++)
		lb_buf_addf(b, "<li><a href=\"/c/%d\">%s</a></li>", i, ja ? PICK(ja_words) : PICK(en_words));
	lb_buf_adds(b, "</ul></div>\n<div id=\"side\" class=\"side\">\n");
	lb_buf_addf(b, "<p class=\"counter\">%s %u %s</p>\n", ja ? "あなたは" : "You are visitor",
		    rnd() % 1000000, ja ? "人目の訪問者です。" : "");
	lb_buf_adds(b, "<ul class=\"quotes recent\">");
	for (int i = 0; i < 8; i++) {
		lb_buf_adds(b, "<li>");
		sentence(b, ja);
		lb_buf_adds(b, broken && i % 3 == 0 ? "\n" : "</li>\n");
	}
	lb_buf_adds(b, "</ul>\n<table class=\"cal\"><tr><th>S</th><th>M</th><th>T</th></tr>");
	for (int i = 0; i < 5; i++)
		lb_buf_addf(b, "<tr><td>%d</td><td>%d</td><td>%d</td></tr>", i * 3 + 1, i * 3 + 2, i * 3 + 3);
	lb_buf_adds(b, "</table></div>\n<div id=\"main\">\n");
	for (int e = 0; b->len < target; e++) {
		lb_buf_addf(b, "<div class=\"section\" id=\"e%d\">\n<h2><span class=\"date\">", e);
		if (ja)
			lb_buf_addf(b, "2026年%u月%u日(%s)", 1 + rnd() % 12, 1 + rnd() % 28, "水");
		else
			lb_buf_addf(b, "Nov %u, 2026", 1 + rnd() % 28);
		lb_buf_adds(b, "</span> ");
		sentence(b, ja);
		lb_buf_adds(b, "</h2>\n");
		for (int p = 0, np = 2 + (int)(rnd() % 5); p < np; p++) {
			lb_buf_adds(b, "<p>");
			for (int s = 0, ns = 1 + (int)(rnd() % 5); s < ns; s++) {
				sentence(b, ja);
				if (rnd() % 7 == 0)
					lb_buf_adds(b, "<br>\n");
			}
			lb_buf_adds(b, broken && p % 2 ? "\n" : "</p>\n");
		}
		if (rnd() % 4 == 0)
			lb_buf_adds(b, "<pre>  code   here\n  more  </pre>\n");
		if (rnd() % 5 == 0)
			lb_buf_adds(b, "<script type=\"text/javascript\">counter();</script>");
		lb_buf_adds(b, "<div class=\"comments\">");
		for (int c = 0, nc = (int)(rnd() % 4); c < nc; c++) {
			lb_buf_addf(b, "<div class=\"comment\"><span class=\"time\">%s</span> ",
				    ja ? "3 分前" : "5 hours ago");
			sentence(b, ja);
			lb_buf_adds(b, "</div>");
		}
		lb_buf_adds(b, broken && e % 4 == 3 ? "</span></div>\n" : "</div></div>\n");
	}
	lb_buf_adds(b, "</div>\n<div id=\"footer\"><p>&copy; 2026 &#x3042; &nbsp; generated at 12:34:56</p></div>\n");
	if (!broken)
		lb_buf_adds(b, "</body>\n</html>\n");
}

/* Tag soup for the differential check: what real pages get wrong. */
static void soup(lb_buf *b, size_t target)
{
	static const char *const parts[] = {
		"<p>", "</p>", "<li>", "</li>", "<ul>", "</ul>", "<div id=\"side\">", "<div class=\"a b\">",
		"</div>", "<table>", "<tr>", "<td>", "</td>", "</table>", "<title>", "</title>", "<html>",
		"</html>", "<body>", "</body>", "<head>", "</head>", "<script>if (a<b) x();</script>",
		"<style>p{}</style>", "<noscript>ns</noscript>", "<template>tp</template>", "<!-- c -->",
		"<![CDATA[cd]]>", "<?pi x?>", " < ", "&amp;", "&nbsp;", "&#12354;", "&bogus;", "<br>",
		"<b>", "</b>", "<span id=x id=y class=\"q\">", "</span>", "<h2 class>", "</h2>", "\n\n",
		"。", "Hello. World! ", "テキスト", "<link rel=alternate type=application/atom+xml href=/a>",
		"<select><option>o</select>", "<textarea>ta</textarea>", "<pre>\n x </pre>", "<a href=x>",
		"</a>", "<frameset>", "<dl><dt>t<dd>d</dl>", "</td></tr>", "<hr>", "</html>x", "<meta charset=utf-8>",
		"<title>T2</title>", "<form><input></form>", "<iframe>if</iframe>", "<math>m</math>", "\t",
	};

	lb_buf_reset(b);
	while (b->len < target)
		lb_buf_adds(b, PICK(parts));
}

/* The loopback test server's /bench/N.html (about 1.5 KB): what `make
 * bench`'s update row analyses. */
static void small(lb_buf *b, unsigned long n)
{
	lb_buf_reset(b);
	lb_buf_addf(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		    "<title>Bench page %lu</title>", n);
	lb_buf_addf(b, "</head>\n<body><h1>Bench page %lu</h1>\n<p>version %u</p>\n", n, rnd() % 10);
	for (int i = 0; i < 20; i++)
		lb_buf_addf(b, "<p>Paragraph %d of page %lu: the quick brown fox jumps.</p>\n", i, n);
	lb_buf_adds(b, "</body></html>\n");
}

typedef struct corpus {
	char **body;
	size_t *len;
	const char **ctype;
	size_t n;
} corpus;

static void generate(corpus *c, size_t n, uint64_t seed, int soupy)
{
	lb_buf b = LB_BUF_INIT;

	rng = seed ? seed : 88172645463325252ull;
	c->body = calloc(n, sizeof *c->body);
	c->len = calloc(n, sizeof *c->len);
	c->ctype = calloc(n, sizeof *c->ctype);
	c->n = n;
	for (size_t i = 0; i < n; i++) {
		if (soupy == 2)
			small(&b, i);
		else if (soupy)
			soup(&b, 100 + rnd() % 3000);
		else
			page(&b, 10000 + rnd() % 40000, i % 2 == 0, i % 5 == 4);
		c->len[i] = b.len;
		c->body[i] = lb_buf_detach(&b, NULL);
		c->ctype[i] = i % 3 ? "text/html; charset=utf-8" : "text/html";
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	lb_buf b = LB_BUF_INIT;
	char tmp[65536];
	size_t k;

	if (!f)
		return NULL;
	while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
		lb_buf_add(&b, tmp, k);
	fclose(f);
	*len = b.len;
	return lb_buf_detach(&b, NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);   /* CPU time: the machine may be busy */
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void dump(const char *name, const char *body, size_t len, const char *ctype, ant_page_info *prev)
{
	ant_page_prev pv = { prev->segs, prev->nsegs, 0 };
	ant_page_opts o = { .prev = &pv };
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;
	uint64_t sh;

	if (ant_page_analyze(body, len, ctype, &o, &pi, &err) < 0) {
		printf("%s: error %s\n", name, err.msg);
		return;
	}
	sh = ant_page_hash64(pi.segs, pi.nsegs * sizeof *pi.segs);
	printf("%s text=%016llx len=%zu segs=%zu/%016llx charset=%s/%s title=[%s] feed=[%s] excerpt=[%s]\n",
	       name, (unsigned long long)pi.text_hash, pi.text_len, pi.nsegs, (unsigned long long)sh,
	       pi.charset, pi.charset_from, pi.title ? pi.title : "", pi.feed_href ? pi.feed_href : "",
	       pi.excerpt ? pi.excerpt : "");
	ant_page_info_release(prev);
	*prev = pi;
}

int main(int argc, char **argv)
{
	size_t npages = 200, rounds = 5;
	uint64_t seed = 1;
	int diff = 0, soupy = 0, i;
	corpus c;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-d") == 0)
			diff = 1;
		else if (strcmp(argv[i], "-x") == 0)
			soupy = 1;
		else if (strcmp(argv[i], "-b") == 0)
			soupy = 2;
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			npages = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			rounds = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: pagebench [-d] [-x|-b] [-n PAGES] [-r ROUNDS] [-s SEED] [FILE...]\n");
			return 2;
		}
	}
	generate(&c, npages, seed, soupy);
	if (diff) {
		ant_page_info prev = { 0 };
		char name[32];

		for (size_t k = 0; k < c.n; k++) {
			snprintf(name, sizeof name, "gen%zu", k);
			dump(name, c.body[k], c.len[k], c.ctype[k], &prev);
		}
		for (; i < argc; i++) {
			size_t len;
			char *b = slurp(argv[i], &len);

			if (b)
				dump(argv[i], b, len, NULL, &prev);
			free(b);
		}
		ant_page_info_release(&prev);
		return 0;
	}
	{
		double t[5], bytes = 0;

		for (size_t k = 0; k < c.n; k++)
			bytes += (double)c.len[k];
		for (int run = 0; run < 5; run++) {
			double t0 = now();

			for (size_t r = 0; r < rounds; r++)
				for (size_t k = 0; k < c.n; k++) {
					ant_page_info pi;
					ant_page_prev pv = { NULL, 0, 0 };
					ant_page_opts o = { .prev = &pv };

					if (ant_page_analyze(c.body[k], c.len[k], c.ctype[k], &o, &pi, NULL) == 0)
						ant_page_info_release(&pi);
				}
			t[run] = (now() - t0) / (double)(rounds * c.n);
		}
		qsort(t, 5, sizeof *t, cmp_d);
		printf("pages=%zu avg_bytes=%.0f rounds=%zu cpu_us_per_page median=%.1f min=%.1f max=%.1f\n",
		       c.n, bytes / (double)c.n, rounds, t[2] * 1e6, t[0] * 1e6, t[4] * 1e6);
	}
	return 0;
}
