/*
 * t_page: ant_page_analyze() charset choice, title, text checksum and ignore
 * patterns, on real Japanese text converted with iconv here.
 */
#include "ant_page.h"
#include "lb_buf.h"
#include "tap.h"

#include <iconv.h>
#include <stdlib.h>
#include <time.h>

static const char title_ja[] = "日記：春の散歩と桜の写真";
static const char body_ja[] =
	"今日は朝から良い天気だったので、近所の公園まで散歩に出かけました。"
	"桜がちょうど満開で、たくさんの人がお花見を楽しんでいました。"
	"写真をいくつか撮ったので、後で整理してこのページに載せようと思います。"
	"明日は雨の予報なので、家で本を読んで過ごすつもりです。";

/* utf8 converted to charset `to`; *len set; caller frees. */
static char *enc(const char *utf8, const char *to, size_t *len)
{
	size_t inl = strlen(utf8), outl = inl * 4 + 16;
	char *out = malloc(outl), *o = out, *in = (char *)utf8;
	iconv_t cd = iconv_open(to, "UTF-8");

	if (cd == (iconv_t)-1 || iconv(cd, &in, &inl, &o, &outl) == (size_t)-1 ||
	    iconv(cd, NULL, NULL, &o, &outl) == (size_t)-1) {
		printf("# iconv to %s failed\n", to);
		exit(1);
	}
	iconv_close(cd);
	*len = (size_t)(o - out);
	return out;
}

static char *html(const char *head, const char *title, const char *body)
{
	size_t n = strlen(head) + strlen(title) + strlen(body) + 128;
	char *s = malloc(n);

	snprintf(s, n, "<html><head>%s<title>%s</title></head><body><p>%s</p></body></html>",
		 head, title, body);
	return s;
}

static ant_page_info analyze(const char *b, size_t len, const char *ctype,
			 const char *const *ig, size_t nig)
{
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;

	ant_page_opts o = { .ignore = ig, .nignore = nig };

	if (ant_page_analyze(b, len, ctype, &o, &pi, &err) != 0)
		printf("# page_analyze: %s\n", err.msg);
	return pi;
}

static uint64_t hash_of(const char *s, const char *const *ig, size_t nig)
{
	ant_page_info pi = analyze(s, strlen(s), NULL, ig, nig);
	uint64_t h = pi.text_hash;

	ant_page_info_release(&pi);
	return h;
}

/* Each Japanese legacy charset, undeclared, is detected and decoded. */
static void t_detect(void)
{
	static const struct { const char *iconv, *want; } cs[] = {
		{ "SHIFT_JIS", "SHIFT_JIS" }, { "EUC-JP", "EUC-JP" }, { "ISO-2022-JP", "ISO-2022-JP" },
	};
	char *page = html("", title_ja, body_ja);
	ant_page_info u = analyze(page, strlen(page), NULL, NULL, 0);

	IS_STR(u.title, title_ja, "UTF-8 undeclared: title");
	IS_STR(u.charset, "UTF-8", "UTF-8 undeclared: charset");
	IS_STR(u.charset_from, "detected", "UTF-8 undeclared: detected");
	for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
		size_t len;
		char *b = enc(page, cs[i].iconv, &len);
		ant_page_info pi = analyze(b, len, "text/html", NULL, 0);

		IS_STR(pi.title, title_ja, "%s undeclared: title", cs[i].want);
		IS_STR(pi.charset, cs[i].want, "%s undeclared: charset detected", cs[i].want);
		IS_STR(pi.charset_from, "detected", "%s undeclared: charset_from", cs[i].want);
		OK(pi.text_hash == u.text_hash, "%s: same text, same hash as UTF-8 (a charset flip is no update)",
		   cs[i].want);
		ant_page_info_release(&pi);
		free(b);
	}
	ant_page_info_release(&u);
	free(page);
}

/* A short title-only page is too little for uchardet; the fallback picks
 * the legacy charset that decodes cleanly. */
static void t_detect_short(void)
{
	char *page = html("", "更新情報", "");
	size_t len;
	char *sj = enc(page, "SHIFT_JIS", &len);
	ant_page_info pi = analyze(sj, len, NULL, NULL, 0);
	char *eu;

	IS_STR(pi.title, "更新情報", "short Shift_JIS page: title");
	ant_page_info_release(&pi);
	free(sj);
	eu = enc(page, "EUC-JP", &len);
	pi = analyze(eu, len, NULL, NULL, 0);
	IS_STR(pi.title, "更新情報", "short EUC-JP page: title");
	ant_page_info_release(&pi);
	free(eu);
	free(page);
}

static void t_declared(void)
{
	size_t len;
	char *page = html("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=EUC-JP\">",
			  "丸数字①と㈱", body_ja);
	char *b = enc(page, "EUC-JP-MS", &len);
	ant_page_info pi = analyze(b, len, NULL, NULL, 0);

	IS_STR(pi.title, "丸数字①と㈱", "http-equiv EUC-JP: NEC extensions decoded (EUC-JP-MS)");
	IS_STR(pi.charset_from, "meta", "http-equiv: charset_from meta");
	IS_STR(pi.charset, "EUC-JP", "http-equiv: charset reported as EUC-JP");
	ant_page_info_release(&pi);
	free(b);
	free(page);

	page = html("<meta charset='shift_jis'>", "丸数字①", "本文");
	b = enc(page, "CP932", &len);
	pi = analyze(b, len, NULL, NULL, 0);
	IS_STR(pi.title, "丸数字①", "meta charset Shift_JIS: decoded as CP932");
	IS_STR(pi.charset, "SHIFT_JIS", "meta charset: reported as SHIFT_JIS");
	ant_page_info_release(&pi);

	/* The header beats a meta that lies. */
	pi = analyze(b, len, "text/html; charset=\"Windows-31J\"", NULL, 0);
	IS_STR(pi.charset_from, "header", "header charset (quoted alias) beats meta");
	IS_STR(pi.title, "丸数字①", "header charset: title");
	ant_page_info_release(&pi);
	free(b);
	free(page);

	/* A BOM beats the header (WHATWG order). */
	page = html("", "BOM付き", "");
	len = strlen(page);
	b = malloc(len + 3);
	memcpy(b, "\xEF\xBB\xBF", 3);
	memcpy(b + 3, page, len);
	pi = analyze(b, len + 3, "text/html; charset=iso-8859-1", NULL, 0);
	IS_STR(pi.title, "BOM付き", "UTF-8 BOM beats a wrong header");
	IS_STR(pi.charset_from, "bom", "BOM: charset_from");
	ant_page_info_release(&pi);
	free(b);
	b = enc(page, "UTF-16LE", &len);
	{
		char *w = malloc(len + 2);

		memcpy(w, "\xFF\xFE", 2);
		memcpy(w + 2, b, len);
		pi = analyze(w, len + 2, NULL, NULL, 0);
		IS_STR(pi.title, "BOM付き", "UTF-16LE with BOM");
		ant_page_info_release(&pi);
		free(w);
	}
	free(b);
	free(page);

	pi = analyze("<title>x</title>", 16, "text/html; charset=no-such-charset", NULL, 0);
	IS_STR(pi.title, "x", "unknown header charset: falls through");
	ant_page_info_release(&pi);
}

static void t_text(void)
{
	const char *a = "<html><head><title>  Two\n\t words </title><style>p{color:red}</style>"
			"<script>var x = 1;</script></head><body><!-- c1 --><p>Hello   <b>world</b></p>"
			"<noscript>enable js</noscript><template><p>t</p></template><div>again</div></body></html>";
	const char *b = "<html><head><title>Two words</title><style>p{color:blue}</style>"
			"<script>var x = 2;</script></head><body><!-- c2 --><p class=x>Hello world</p>"
			"<noscript>please</noscript><template>u</template><div id=y>again</div></body></html>";
	const char *c = "<html><head><title>Two words</title></head><body><p>Hello world</p><div>agai</div></body></html>";
	ant_page_info pi = analyze(a, strlen(a), NULL, NULL, 0);

	IS_STR(pi.title, "Two words", "title: whitespace collapsed");
	IS_INT(pi.text_len, strlen("Two words Hello world again"), "text: tags, script, style, noscript, template, comments dropped");
	ant_page_info_release(&pi);
	OK(hash_of(a, NULL, 0) == hash_of(b, NULL, 0), "markup, script, style, comment changes: same hash");
	OK(hash_of(a, NULL, 0) != hash_of(c, NULL, 0), "a text change: another hash");
	pi = analyze("<p>no title</p>", 15, NULL, NULL, 0);
	OK(pi.title == NULL, "no <title>: NULL");
	ant_page_info_release(&pi);
	pi = analyze("", 0, NULL, NULL, 0);
	OK(pi.title == NULL && pi.text_len == 0, "empty body");
	IS_INT(pi.text_hash, 14695981039346656037ull, "empty text: FNV-1a offset basis");
	ant_page_info_release(&pi);
	pi = analyze("<title>&lt;script&gt;x</title>", 30, NULL, NULL, 0);
	IS_STR(pi.title, "<script>x", "title entities decoded");
	ant_page_info_release(&pi);
}

static void t_ignore(void)
{
	const char *ig[] = { "#counter", ".ad", "アクセス数: [0-9]+", "[0-9]{4}/[0-9]{2}/[0-9]{2}" };
	const char *p1 = "<title>t</title><p>本文です</p><div id=counter>12345 hits</div>"
			 "<span class='x ad'>buy now</span><p>アクセス数: 100 最終更新 2024/01/02</p>";
	const char *p2 = "<title>t</title><p>本文です</p><div id=counter>99999 <b>hits</b></div>"
			 "<span class='ad'>sell now</span><p>アクセス数: 2345 最終更新 2024/03/04</p>";
	const char *p3 = "<title>t</title><p>本文でした</p><div id=counter>12345 hits</div>"
			 "<span class='x ad'>buy now</span><p>アクセス数: 100 最終更新 2024/01/02</p>";
	const char *cls[] = { ".x" }, *bad[] = { "(unclosed" };
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;

	OK(hash_of(p1, ig, 4) == hash_of(p2, ig, 4), "changes only in ignored parts (#id, .class, regex): same hash");
	OK(hash_of(p1, NULL, 0) != hash_of(p2, NULL, 0), "without the patterns: another hash");
	OK(hash_of(p1, ig, 4) != hash_of(p3, ig, 4), "a change outside ignored parts: another hash");
	OK(hash_of(p1, cls, 1) == hash_of("<title>t</title><p>本文です</p><div id=counter>12345 hits</div>"
					  "<p>アクセス数: 100 最終更新 2024/01/02</p>", NULL, 0),
	   ".class matches one class token of several");
	pi = analyze(p1, strlen(p1), NULL, ig, 4);
	IS_INT(pi.text_len, strlen("t 本文です 最終更新"), "ignored parts removed, whitespace re-collapsed");
	ant_page_info_release(&pi);
	OK(ant_page_analyze(p1, strlen(p1), NULL, &(ant_page_opts){ .ignore = bad, .nignore = 1 }, &pi, &err) == LB_EINVAL, "bad regex: LB_EINVAL");
	OK(strstr(err.msg, "(unclosed") != NULL && err.code == LB_EINVAL,
	   "bad regex: message names it (%s)", err.msg);
	IS_INT(ant_page_pattern_check("#main", &err), 0, "pattern check: #id");
	IS_INT(ant_page_pattern_check(".ad", &err), 0, "pattern check: .class");
	IS_INT(ant_page_pattern_check(".*更新", &err), 0, "pattern check: '.*更新' is a regex");
	IS_INT(ant_page_pattern_check("[a-", &err), LB_EINVAL, "pattern check: bad regex");
	IS_INT(ant_page_pattern_check("", &err), LB_EINVAL, "pattern check: empty");
	IS_INT(ant_page_pattern_check("", NULL), LB_EINVAL, "pattern check: NULL err accepted");
	{
		const char *empty_match[] = { "x*" };

		pi = analyze("<p>axxb</p>", 11, NULL, empty_match, 1);
		IS_INT(pi.text_len, 2, "a regex matching empty strings terminates");
		ant_page_info_release(&pi);
	}
}

static void t_hostile(void)
{
	size_t n = 100000, len = n * 5 + n * 6 + 64, at = 0;
	char *deep = malloc(len);
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;
	static const char junk[] = "<title>\x80\xff\xfe t\0x</title><p>\xe3\x81</p>";
	static const char badref[] = "<title>x</title><p>&#0;&#xD800;&#x110000;</p>";

	at += (size_t)sprintf(deep, "<title>deep</title>");
	for (size_t i = 0; i < n; i++)
		memcpy(deep + at, "<div>", 5), at += 5;
	at += (size_t)sprintf(deep + at, "core");
	for (size_t i = 0; i < n; i++)
		memcpy(deep + at, "</div>", 6), at += 6;
	pi = analyze(deep, at, NULL, NULL, 0);
	IS_STR(pi.title, "deep", "100000 nested <div>s: no crash, title");
	ant_page_info_release(&pi);
	free(deep);

	pi = analyze(junk, sizeof junk - 1, "text/html; charset=utf-8", NULL, 0);
	OK(pi.title && strstr(pi.title, "\xEF\xBF\xBD") != NULL, "invalid UTF-8 and NUL: U+FFFD (%s)",
	   pi.title ? pi.title : "-");
	ant_page_info_release(&pi);
	/* Bytes that are not ISO-2022-JP under its header: each becomes U+FFFD,
	 * the ASCII around them is kept. */
	IS_INT(ant_page_analyze(junk, sizeof junk - 1, "text/html; charset=iso-2022-jp", NULL,
				&pi, &err), 0, "invalid ISO-2022-JP: analysed");
	OK(pi.title && strstr(pi.title, "\xEF\xBF\xBD t") && strstr(pi.title, "x"),
	   "invalid ISO-2022-JP: U+FFFD for the bad bytes, the text kept (%s)", pi.title ? pi.title : "-");
	IS_STR(pi.charset, "ISO-2022-JP", "invalid ISO-2022-JP: decoded as the header says");
	ant_page_info_release(&pi);
	/* An escape sequence cut off at the end: no title, no text, no error. */
	IS_INT(ant_page_analyze("\x1b$B", 3, NULL, NULL, &pi, &err), 0,
	       "truncated escape sequence: analysed");
	OK(pi.title == NULL && pi.text_len == 0, "truncated escape sequence: no title, no text");
	ant_page_info_release(&pi);
	/* A meta cut off before its value: the default charset, not garbage. */
	IS_INT(ant_page_analyze("<meta charset=", 14, NULL, NULL, &pi, &err), 0,
	       "truncated meta: analysed");
	OK(pi.title == NULL && pi.text_len == 0, "truncated meta: no title, no text");
	IS_STR(pi.charset, "UTF-8", "truncated meta: read as UTF-8");
	ant_page_info_release(&pi);
	/* libxml2 drops a reference to NUL, a surrogate or a code point past
	 * U+10FFFF: the text is the "x" of the title alone */
	pi = analyze(badref, sizeof badref - 1, NULL, NULL, 0);
	IS_STR(pi.title, "x", "bad character references: the title is read");
	OK(pi.text_len == 1 && pi.text_hash == ant_page_hash64("x", 1),
	   "bad character references: dropped, the text is \"x\" (%zu bytes)", pi.text_len);
	ant_page_info_release(&pi);
}

/* antenna import: samidare's ForceCharset beats a wrong header. */
static void t_forced(void)
{
	static const char sjis[] = "<html><head><title>\x93\xfa\x96\x7b</title></head><body>x</body></html>";
	ant_page_info p;
	lb_error err = LB_ERROR_INIT;

	OK(ant_page_analyze(sjis, sizeof sjis - 1, "text/html; charset=EUC-JP",
			    &(ant_page_opts){ .forced_charset = "Shift_JIS" }, &p, &err) == 0, "forced: analysed");
	IS_STR(p.charset, "SHIFT_JIS", "forced: the forced charset is used");
	IS_STR(p.charset_from, "forced", "forced: charset_from says so");
	IS_STR(p.title, "\xe6\x97\xa5\xe6\x9c\xac", "forced: title decoded");
	ant_page_info_release(&p);
	OK(ant_page_analyze(sjis, sizeof sjis - 1, "text/html; charset=EUC-JP",
			    &(ant_page_opts){ .forced_charset = "" }, &p, &err) == 0, "forced empty: analysed");
	IS_STR(p.charset_from, "header", "forced empty: the header decides");
	ant_page_info_release(&p);
	OK(ant_page_charset_check("shift_jis", &err) == 0, "charset check: shift_jis");
	OK(ant_page_charset_check("no-such-charset", &err) < 0, "charset check: unknown refused");
	/* glibc's regcomp copies repetitions: these would take gigabytes. */
	OK(ant_page_pattern_check("(a{999}){999}", &err) < 0, "nested repetitions refused");
	OK(ant_page_pattern_check("x++++++++++++++++++++++++++++++++++++++++", &err) < 0,
	   "stacked + refused");
	OK(ant_page_pattern_check("[0-9]{4}-[0-9]{2}-[0-9]{2} (a|b)+", &err) == 0,
	   "ordinary repetitions taken");
}

/* ---- the cost of --ignore and --only expressions ---- */

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "<p>" + n bytes of unit repeated + "</p>"; *len set. */
static char *page_of(const char *unit, size_t n, size_t *len)
{
	size_t k = strlen(unit);
	char *b = malloc(n + 16);

	memcpy(b, "<p>", 3);
	for (size_t i = 0; i < n; i++)
		b[3 + i] = unit[i % k];
	memcpy(b + 3 + n, "</p>", 4);
	*len = n + 7;
	return b;
}

/* One analysis, its processor time in *secs. */
static int timed(const char *b, size_t len, const ant_page_opts *o, ant_page_info *pi, lb_error *err,
		 double *secs)
{
	double t = cpu_now();
	int rc = ant_page_analyze(b, len, "text/html; charset=utf-8", o, pi, err);

	*secs = cpu_now() - t;
	return rc;
}

/*
 * Each case of the issue in under 2 s of processor time (the machine may
 * be shared: wall time is not the expression's).  On 0.4.0 the first took
 * 637 s, the third did not end in 120 s: one regexec() per match over the
 * rest of the page.
 */
/* Under AddressSanitizer every byte's work is dearer, and its regexec()
 * interceptor measures the rest of the string at each call (quadratic in
 * the sanitizer, not in us): there the pages are 32 times smaller and the
 * bound 60 s, which still tells our linear matching from 0.4.0's. */
#if defined(__SANITIZE_ADDRESS__)
#define COST_SECS 60.0
#define COST_SCALE 32
#else
#define COST_SECS 2.0
#define COST_SCALE 1
#endif

static void t_regex_cost(void)
{
	const char *digits[] = { "[0-9]+" }, *ab[] = { "a", "b" };
	size_t len, mb = (1u << 20) / COST_SCALE;
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;
	double secs;
	char *b;

	b = page_of("0123456789 ", 8 * mb, &len);
	IS_INT(timed(b, len, &(ant_page_opts){ .ignore = digits, .nignore = 1, .regex_seconds = 600 }, &pi, &err, &secs), 0,
	       "--ignore '[0-9]+' over 8 MiB of numbers: analysed");
	OK(pi.text_len == 0 && pi.nseg == 0, "... every number removed, nothing left (%zu bytes)", pi.text_len);
	OK(secs < COST_SECS, "... in under %g s (%.2f s)", COST_SECS, secs);
	ant_page_info_release(&pi);
	free(b);

	b = page_of("0123456789", 8 * mb, &len);
	IS_INT(timed(b, len, &(ant_page_opts){ .ignore = digits, .nignore = 1, .regex_seconds = 600 }, &pi, &err, &secs), 0,
	       "--ignore '[0-9]+' over 8 MiB of digits, one run: analysed");
	OK(pi.text_len == 0 && secs < COST_SECS, "... removed whole, in under %g s (%.2f s)", COST_SECS, secs);
	ant_page_info_release(&pi);
	free(b);

	b = page_of("a", mb, &len);
	IS_INT(timed(b, len, &(ant_page_opts){ .only = ab, .nonly = 2, .regex_seconds = 600 }, &pi, &err, &secs), 0,
	       "--only a --only b over 1 MiB of a's: analysed");
	OK(pi.only_matched == mb && pi.text_len == 2 * mb - 1,
	   "... each 'a' a match, joined by spaces (%zu matches, %zu bytes)", pi.only_matched, pi.text_len);
	OK(pi.nseg == ANT_PAGE_MAX_SEGMENTS, "... the first ANT_PAGE_MAX_SEGMENTS of them segments");
	OK(secs < COST_SECS, "... in under %g s (%.2f s)", COST_SECS, secs);
	ant_page_info_release(&pi);
	free(b);
#ifdef ANT_PAGE_MAX_REGEX_SECONDS
	{
		/* slow by nature: each start scans to the end of the page */
		const char *slow[] = { "a.*b" };
		double t = wall_now();
		int rc;

		b = page_of("a", mb, &len);
		rc = ant_page_analyze(b, len, NULL, &(ant_page_opts){ .ignore = slow, .nignore = 1,
								      .regex_seconds = 1 }, &pi, &err);
		t = wall_now() - t;
		IS_INT(rc, LB_ETOOBIG, "'a.*b' over 1 MiB of a's: stopped by the time limit");
		OK(strstr(err.msg, "'a.*b'") && strstr(err.msg, "ANT_PAGE_MAX_REGEX_SECONDS"),
		   "... the message names the pattern and the limit (%s)", err.msg);
		OK(t < 8, "... within seconds, not minutes (%.2f s wall)", t);
		OK(pi.title == NULL && pi.seg == NULL, "... nothing half-made is returned");
		free(b);
	}
#endif
}

/* Matches across the places where a search's first window ends (8 KiB):
 * found whole, as a search over the whole rest of the text finds them. */
static void t_regex_windows(void)
{
	const char *digits[] = { "[0-9]+" }, *at_end[] = { "b$" }, *longest[] = { "z(y*x)?" };
	size_t len, n = 100000;
	lb_buf want = LB_BUF_INIT;
	ant_page_info pi;
	char *b;

	b = page_of("x1234567 ", n, &len);   /* numbers cut by every window edge */
	pi = analyze(b, len, NULL, digits, 1);
	for (size_t i = 0; i < n; i += 9)
		lb_buf_adds(&want, i + 9 <= n ? "x " : "x");
	while (want.len && want.data[want.len - 1] == ' ')
		want.data[--want.len] = '\0';
	OK(pi.text_len == want.len && pi.text_hash == ant_page_hash64(want.data, want.len),
	   "[0-9]+ over 100 KB: every number removed, window edges or not (%zu bytes, want %zu)",
	   pi.text_len, want.len);
	ant_page_info_release(&pi);
	free(b);

	/* 'b$' never matches: the text ends in the space of </p>'s edge, and a
	 * b at the end of a window is not the end of the text */
	b = page_of("ab ", 29999, &len);
	pi = analyze(b, len, NULL, at_end, 1);
	IS_INT(pi.text_len, 29999, "b$: no b is at the text's end, none removed");
	ant_page_info_release(&pi);
	free(b);

	lb_buf_reset(&want);
	lb_buf_adds(&want, "<p>a z");
	for (int i = 0; i < 6000; i++)
		lb_buf_addc(&want, 'y');
	lb_buf_adds(&want, "x b</p>");
	pi = analyze(want.data, want.len, NULL, longest, 1);
	OK(pi.text_len == 3 && pi.text_hash == ant_page_hash64("a b", 3),
	   "z(y*x)?: the longest match, 6 KB across the first window's half (%zu)", pi.text_len);
	ant_page_info_release(&pi);
	lb_buf_release(&want);
}

int main(void)
{
	TAP_PLAN(89);
	t_detect();
	t_detect_short();
	t_declared();
	t_text();
	t_ignore();
	t_hostile();
	t_forced();
	t_regex_cost();
	t_regex_windows();
	TAP_DONE();
}
