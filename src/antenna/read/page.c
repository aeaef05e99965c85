/*
 * page.c: the HTML walk and the segments: a page's UTF-8 text, title,
 * advertised feed and text checksum, and its text cut in segments
 * (ant_page.h).  The charset is page_charset.c's, the --ignore/--only
 * patterns page_pattern.c's, the collapsing of whitespace page_text.c's
 * (priv/page_int.h).
 *
 * Steps: pick the charset, convert the bytes to UTF-8 ourselves (invalid
 * bytes become U+FFFD), stream it through libxml2's HTML parser (told the
 * input is UTF-8, never to touch the network) with a SAX handler that
 * builds no tree: a stack of open elements, the title and the text are
 * collected as the events come, with the places where segments start and
 * their blocks' paths; then ignored parts are removed and the text hashed.
 * 0.2 built a tree and walked it: building it, and the malloc behind it,
 * were a third of `antenna update`'s CPU time.
 *
 * text_hash is 64-bit FNV-1a over the final UTF-8 text: not cryptographic,
 * only a change detector, stable across runs, machines and charsets.
 */
#include "ant_noise.h"
#include "ant_limits.h"
#include "ant_page.h"
#include "lb_buf.h"
#include "lb_utf8.h"
#include "page_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>

/* ---- the SAX walk ---------------------------------------------------------- */

enum {
	EL_BLOCK = 1,   /* its edges separate words ("<p>a</p><p>b</p>" is "a b") */
	EL_SKIP = 2,    /* never text: script, style... */
	EL_TITLE = 4,
	EL_LINK = 8,
	EL_ROOTISH = 16, /* html: not part of a block path */
	EL_KEY = 32,     /* body, head: a block for the keys, not for the text */
	EL_A = 64        /* a: its text is link text (ant_page_seg.link) */
};

/* Element names the walk cares about, sorted for bsearch.  The HTML
 * parser lowercases names, so strcmp is enough. */
static const struct el_name { const char *name; unsigned char flags; } elements[] = {
	{ "a", EL_A }, { "address", EL_BLOCK }, { "article", EL_BLOCK }, { "aside", EL_BLOCK },
	{ "blockquote", EL_BLOCK }, { "body", EL_KEY }, { "br", EL_BLOCK }, { "dd", EL_BLOCK },
	{ "div", EL_BLOCK }, { "dl", EL_BLOCK }, { "dt", EL_BLOCK }, { "fieldset", EL_BLOCK },
	{ "figcaption", EL_BLOCK }, { "figure", EL_BLOCK }, { "footer", EL_BLOCK }, { "form", EL_BLOCK },
	{ "h1", EL_BLOCK }, { "h2", EL_BLOCK }, { "h3", EL_BLOCK }, { "h4", EL_BLOCK },
	{ "h5", EL_BLOCK }, { "h6", EL_BLOCK }, { "head", EL_KEY }, { "header", EL_BLOCK },
	{ "hr", EL_BLOCK }, { "html", EL_ROOTISH }, { "li", EL_BLOCK }, { "link", EL_LINK },
	{ "main", EL_BLOCK }, { "nav", EL_BLOCK }, { "noscript", EL_SKIP }, { "ol", EL_BLOCK },
	{ "p", EL_BLOCK }, { "pre", EL_BLOCK }, { "script", EL_SKIP }, { "section", EL_BLOCK },
	{ "style", EL_SKIP }, { "table", EL_BLOCK }, { "td", EL_BLOCK }, { "template", EL_SKIP },
	{ "th", EL_BLOCK }, { "title", EL_BLOCK | EL_TITLE }, { "tr", EL_BLOCK }, { "ul", EL_BLOCK },
};

static int cmp_el(const void *key, const void *el)
{
	return strcmp(key, ((const struct el_name *)el)->name);
}

static unsigned el_flags_lookup(const char *name)
{
	const struct el_name *e = bsearch(name, elements, sizeof elements / sizeof *elements,
					  sizeof *elements, cmp_el);

	return e ? e->flags : 0;
}

/* The parser hands out names from its dictionary, so one name is one
 * pointer within a parse: a small direct-mapped cache by pointer turns the
 * table lookup into a compare for nearly every element. */
#define EL_CACHE 64

typedef struct frame {
	uint64_t h;          /* FNV-1a state of the path through this element */
	uint32_t path_end;   /* bytes of walk.path through this element */
	uint32_t block;      /* index + 1 of the innermost block frame; 0 none */
	unsigned char flags; /* EL_* */
	unsigned char only;  /* an --only selector matched it */
	unsigned char in;    /* its text is read (inside an --only element, or no selectors) */
	unsigned char title; /* the first <title>: its text children are the title */
	unsigned char virt;  /* the root again, for elements after it closed */
	unsigned char link;  /* inside an <a href> */
} frame;

/* A place where a segment starts: its byte offset and its block. */
typedef struct bound {
	size_t off;
	uint32_t key;
	uint32_t path;       /* offset in walk.paths */
	uint32_t link;       /* bytes of link text from off to the next bound */
} bound;

typedef struct walk {
	lb_buf text;
	lb_buf title;
	lb_buf path;         /* the open elements' path, "body>div#x>p" */
	lb_buf paths;        /* the bounds' block paths, NUL-separated */
	char *feed_href;     /* the page's advertised feed */
	frame *fr;
	size_t nfr, capfr;
	bound *bd;           /* bd[0] is the start of the text; at most ANT_PAGE_MAX_SEGMENTS cuts follow */
	size_t nbd, capbd;
	int want_cuts;
	int key_pending;     /* the last bound's block is taken with its first byte */
	const ant_page_patterns *ig, *only;
	size_t only_matched;
	size_t skip;         /* > 0: inside a skipped element, its depth */
	unsigned skip_flags; /* that element's EL_* */
	int roots;           /* top-level elements seen */
	int doctype;         /* a DOCTYPE was seen */
	int pre_root;        /* a comment or PI came before the root element */
	frame root;          /* the root element's frame, kept for what follows it */
	int space;           /* text ends in a space */
	int title_space;
	int have_title;
	int oom;
	unsigned char mark;  /* the tree walk: the element's MARK_* (0 in the SAX walk) */
	int pat_rc;          /* a css:/xpath: pattern failed (with err) */
	double seconds;      /* ant_page_opts.regex_seconds, for the css:/xpath: patterns */
	lb_error *err;       /* a css:/xpath: pattern's failure */
	struct { const void *name; unsigned flags; } cache[EL_CACHE];
} walk;



static unsigned el_flags(walk *w, const xmlChar *name)
{
	/* dictionary strings sit close together: mix the bits (Fibonacci hashing) */
	size_t i = (size_t)(((uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 58);

	if (w->cache[i].name != name) {
		w->cache[i].name = name;
		w->cache[i].flags = el_flags_lookup((const char *)name);
	}
	return w->cache[i].flags;
}

static uint32_t fold32(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32));
}

/* The innermost block frame, or NULL. */
static const frame *block_frame(const walk *w)
{
	return w->nfr && w->fr[w->nfr - 1].block ? &w->fr[w->fr[w->nfr - 1].block - 1] : NULL;
}

/* The last bound takes the block in effect now: called with the first byte
 * of its segment, so an empty block between does not claim it. */
#define PATH_SHOWN 200
static void bind_block(walk *w)
{
	const frame *b = block_frame(w);
	bound *bd = &w->bd[w->nbd - 1];
	const char *p = w->path.data;
	size_t n = b ? b->path_end : 0;

	w->key_pending = 0;
	bd->key = b ? fold32(b->h) : 0;
	bd->path = (uint32_t)w->paths.len;
	if (n > PATH_SHOWN) {   /* deep nesting: the end of the path tells most */
		p += n - PATH_SHOWN;
		n = PATH_SHOWN;
		w->oom |= lb_buf_adds(&w->paths, "\xe2\x80\xa6") < 0;
	}
	w->oom |= lb_buf_add(&w->paths, p, n) < 0 || lb_buf_addc(&w->paths, '\0') < 0;
}

/* Appends text read inside the walked part. */
static void add_text(walk *w, const char *s, size_t n)
{
	size_t before = w->text.len;

	w->oom |= ant_page_add_collapsed(&w->text, s, n, &w->space) < 0;
	if (w->key_pending && w->text.len > before && w->want_cuts)
		bind_block(w);
	if (w->nfr && w->fr[w->nfr - 1].link && w->nbd)
		w->bd[w->nbd - 1].link += (uint32_t)(w->text.len - before);
}

/* A block edge ends a segment (for excerpts); at most ANT_PAGE_MAX_SEGMENTS
 * are remembered, the rest of the page is one last segment. */
static void cut(walk *w)
{
	bound *nv;

	if (!w->want_cuts || w->nbd > ANT_PAGE_MAX_SEGMENTS)
		return;
	if (w->bd[w->nbd - 1].off == w->text.len) {
		w->key_pending = 1;   /* nothing since the last cut: a later block takes it */
		return;
	}
	if (!(nv = lb_grow(w->bd, &w->capbd, w->nbd + 1, sizeof *nv, 64))) {
		w->oom = 1;
		return;
	}
	w->bd = nv;
	w->bd[w->nbd++] = (bound){ w->text.len, 0, 0, 0 };
	w->key_pending = 1;
}

static void edge(walk *w)
{
	add_text(w, " ", 1);
	cut(w);
}

/* <link rel="alternate" type="application/atom+xml" href="..."> (or rss+xml):
 * the page advertises a feed (RSS Autodiscovery; HTML "alternate" link). */
static void take_feed_link(walk *w, const xmlChar **atts)
{
	const char *rel = NULL, *type = NULL, *href = NULL;

	if (w->feed_href || !atts)
		return;
	for (; atts[0]; atts += 2) {
		const char *v = atts[1] ? (const char *)atts[1] : "";

		if (!rel && strcmp((const char *)atts[0], "rel") == 0)
			rel = v;
		else if (!type && strcmp((const char *)atts[0], "type") == 0)
			type = v;
		else if (!href && strcmp((const char *)atts[0], "href") == 0)
			href = v;
	}
	if (rel && type && strcasestr(rel, "alternate") &&
	    (strncasecmp(type, "application/atom+xml", 20) == 0 ||
	     strncasecmp(type, "application/rss+xml", 19) == 0) && href && *href &&
	    !(w->feed_href = strdup(href)))
		w->oom = 1;
}

/* A class name as the path shows it (in path_push()'s buffer). */
typedef struct token {
	const char *s;
	size_t n;
} token;

static int cmp_token(const void *a, const void *b)
{
	const token *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/*
 * Copies a name (an id, a class) with each run of digits as one '#':
 * "post-123", "comment-4567", "div-gpt-ad-1234567-0" are numbered by the
 * server and change from entry to entry or from fetch to fetch, while
 * the widget they name stays; the key is the widget's.  Returns the bytes
 * written, at most room.
 */
static size_t name_norm(char *out, size_t room, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o < room; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			while (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
				i++;
			out[o++] = '#';
		} else {
			out[o++] = s[i];
		}
	}
	return o;
}

/* Appends ">tag#id.a.b" (names normalised, classes sorted, repeats
 * dropped) to the path. */
#define PATH_MAX_CLASSES 16
#define PATH_NAME_ROOM 512
static void path_push(walk *w, const char *name, const char *id, const char *cls, int first)
{
	char buf[PATH_NAME_ROOM];
	token tok[PATH_MAX_CLASSES];
	size_t nt = 0, used = 0;

	if (!first)
		w->oom |= lb_buf_addc(&w->path, '>') < 0;
	w->oom |= lb_buf_adds(&w->path, name) < 0;
	if (id && *id) {
		size_t k = name_norm(buf, sizeof buf, id, strlen(id));

		w->oom |= lb_buf_addc(&w->path, '#') < 0 || lb_buf_add(&w->path, buf, k) < 0;
	}
	for (const char *p = cls; p && *p && nt < PATH_MAX_CLASSES && used < sizeof buf;) {
		size_t k;

		while (*p && isspace((unsigned char)*p))
			p++;
		k = strcspn(p, " \t\r\n\f\v");
		if (k) {
			tok[nt].s = buf + used;
			tok[nt].n = name_norm(buf + used, sizeof buf - used, p, k);
			used += tok[nt++].n;
		}
		p += k;
	}
	if (nt > 1)
		qsort(tok, nt, sizeof *tok, cmp_token);
	for (size_t i = 0; i < nt; i++) {
		if (i && cmp_token(&tok[i - 1], &tok[i]) == 0)
			continue;
		w->oom |= lb_buf_addc(&w->path, '.') < 0 || lb_buf_add(&w->path, tok[i].s, tok[i].n) < 0;
	}
}

/* An <a> with an href is a link (an <a name> is an anchor). */
static int has_href(const xmlChar **atts)
{
	for (const xmlChar **a = atts; a && a[0]; a += 2)
		if (strcmp((const char *)a[0], "href") == 0 && a[1] && a[1][0])
			return 1;
	return 0;
}

static void sax_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
	walk *w = ctx;
	const char *id = NULL, *cls = NULL;
	const frame *up;
	frame *f, *nv;
	unsigned fl;
	int only;

	if (w->skip) {
		w->skip++;
		return;
	}
	if (!w->nfr && w->roots++) {
		/* An element after the root closed (text after </html>): the
		 * tree builder hung it under the root when the root was the
		 * document's first child, else beside it where the walk, which
		 * read the root only, never went.  Same here. */
		if (w->doctype || w->pre_root) {
			w->skip = 1;
			w->skip_flags = 0;
			return;
		}
		if (!(nv = lb_grow(w->fr, &w->capfr, w->nfr + 1, sizeof *nv, 32))) {
			w->oom = 1;
			return;
		}
		w->fr = nv;
		w->fr[w->nfr++] = w->root;
		w->path.len = w->root.path_end;
	}
	fl = el_flags(w, name);
	for (const xmlChar **a = atts; a && a[0]; a += 2) {
		if (!id && strcmp((const char *)a[0], "id") == 0)
			id = a[1] ? (const char *)a[1] : "";
		else if (!cls && strcmp((const char *)a[0], "class") == 0)
			cls = a[1] ? (const char *)a[1] : "";
	}
	if ((fl & EL_SKIP) || (w->mark & ANT_PAGE_MARK_IGNORE) ||
	    (w->ig->nsel && ant_page_selector_hit(w->ig, id, cls))) {
		w->skip = 1;
		w->skip_flags = fl;
		return;
	}
	only = (w->mark & ANT_PAGE_MARK_ONLY) || (w->only->nsel && ant_page_selector_hit(w->only, id, cls));
	w->only_matched += only;
	if (!(nv = lb_grow(w->fr, &w->capfr, w->nfr + 1, sizeof *nv, 32))) {
		w->oom = 1;
		return;
	}
	w->fr = nv;
	up = w->nfr ? &w->fr[w->nfr - 1] : NULL;
	f = &w->fr[w->nfr++];
	f->flags = (unsigned char)fl;
	f->only = (unsigned char)only;
	f->in = (unsigned char)(!w->only->nsel || only || (up && up->in));
	f->title = 0;
	f->virt = 0;
	f->link = (unsigned char)(((fl & EL_A) && has_href(atts)) || (up && up->link));
	/* The path starts below <html>: head>title, body>div#x. */
	if (fl & EL_ROOTISH) {
		f->h = ANT_PAGE_FNV_BASIS;
		f->path_end = (uint32_t)w->path.len;
	} else {
		size_t start = w->path.len;
		int first = !up || (up->flags & EL_ROOTISH);

		path_push(w, (const char *)name, id, cls, first);
		f->h = ant_page_fnv_add(first ? ANT_PAGE_FNV_BASIS : up->h, w->path.data + start, w->path.len - start);
		f->path_end = (uint32_t)w->path.len;
	}
	f->block = fl & (EL_BLOCK | EL_KEY) ? (uint32_t)w->nfr : up ? up->block : 0;
	if ((fl & EL_TITLE) && !w->have_title) {
		w->have_title = 1;
		f->title = 1;
	}
	if (w->nfr == 1) {
		w->root = *f;
		w->root.virt = 1;
	}
	if (fl & EL_LINK)
		take_feed_link(w, atts);
	if (((fl & EL_BLOCK) || only) && f->in)
		edge(w);
}

static void sax_end(void *ctx, const xmlChar *name)
{
	walk *w = ctx;
	frame f;

	if (w->skip) {
		/* A skipped block still separates the words around it. */
		if (--w->skip == 0 && (w->skip_flags & EL_BLOCK) && w->nfr && w->fr[w->nfr - 1].in)
			edge(w);
		return;
	}
	if (!w->nfr)
		return;
	f = w->fr[--w->nfr];
	w->path.len = w->nfr ? w->fr[w->nfr - 1].path_end : 0;   /* not NUL-terminated: read by length */
	if (((f.flags & EL_BLOCK) || f.only) && f.in)
		edge(w);
}

/* Bytes of a <title> looked at: ANT_MAX_TITLE characters of up to 4 bytes. */
#define TITLE_TAKEN (4 * (size_t)ANT_MAX_TITLE + 8)

static void sax_text(void *ctx, const xmlChar *ch, int len)
{
	walk *w = ctx;
	const frame *f;

	if (w->skip || !w->nfr || len <= 0)
		return;
	f = &w->fr[w->nfr - 1];
	if (f->virt)   /* text after </html>: the tree builder dropped it */
		return;
	/* A little past ANT_MAX_TITLE characters is enough: ant_clip() cuts it
	 * (an 8 MB <title> is not kept). */
	if (f->title && w->title.len < TITLE_TAKEN) {
		size_t n = (size_t)len < TITLE_TAKEN - w->title.len ? (size_t)len
								   : TITLE_TAKEN - w->title.len;
		w->oom |= ant_page_add_collapsed(&w->title, (const char *)ch, n, &w->title_space) < 0;
	}
	if (f->in)
		add_text(w, (const char *)ch, (size_t)len);
}

static void sax_doctype(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys)
{
	((walk *)ctx)->doctype = 1;
}

/* A comment or processing instruction before the root element is the
 * document's first child: what follows the root is then no longer hung
 * under it (sax_start). */
static void sax_comment(void *ctx, const xmlChar *value)
{
	walk *w = ctx;

	if (!w->roots && !w->nfr)
		w->pre_root = 1;
}

static void sax_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
	sax_comment(ctx, NULL);
}

/*
 * The parse: libxml2's HTML parser with a SAX handler that builds no tree.
 * The pull parser over the whole buffer, not the push parser: the body is
 * in memory already, and libxml2 2.9's push parser splits and closes some
 * malformed markup differently from htmlReadMemory(), which made the
 * text_hash of every page until 0.3; this is htmlReadMemory() (htmlDoRead:
 * options, then UTF-8 forced) with our handler in place of the tree
 * builder, so the events are the ones that built that tree.
 */
/* The walk's handlers, for the parser (or for the tree walk to replay). */
static void handlers(xmlSAXHandler *h)
{
	memset(h, 0, sizeof *h);
	h->startElement = sax_start;
	h->endElement = sax_end;
	h->characters = sax_text;
	/* what the tree builder makes a CDATA node, the walk read as text */
	h->cdataBlock = sax_text;
	h->internalSubset = sax_doctype;
	h->comment = sax_comment;
	h->processingInstruction = sax_pi;
	h->initialized = 1;
}

static int sax_parse_and_walk(const char *utf8, size_t len, walk *w)
{
	htmlParserCtxtPtr ctxt;
	xmlCharEncodingHandlerPtr hdlr;

	if (len == 0)
		return 0;
	if (len > (size_t)0x7fffffff)
		return LB_ETOOBIG;   /* libxml2 counts in int; 8 MiB bodies are far below */
	xmlInitParser();   /* as htmlReadMemory() did: once, then a check of a flag */
	if (!(ctxt = htmlCreateMemoryParserCtxt(utf8, (int)len)))
		return LB_ENOMEM;
	if (ctxt->sax)
		handlers(ctxt->sax);
	ctxt->userData = w;
	htmlCtxtUseOptions(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
			   HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | HTML_PARSE_COMPACT);
	if ((hdlr = xmlFindCharEncodingHandler("UTF-8")))
		xmlSwitchToEncoding(ctxt, hdlr);
	htmlParseDocument(ctxt);
	if (ctxt->myDoc)   /* never, without a startDocument handler */
		xmlFreeDoc(ctxt->myDoc);
	xmlFreeParserCtxt(ctxt);
	/* Elements a broken page leaves open close at its end. */
	while (w->skip)
		sax_end(w, NULL);
	while (w->nfr)
		sax_end(w, NULL);
	return 0;
}

/* The SAX walk, or the tree walk when css: or xpath: patterns need the tree. */
static int parse_and_walk(const char *utf8, size_t len, walk *w)
{
	xmlSAXHandler h;
	int rc;

	if (!w->ig->ntree && !w->only->ntree)
		return sax_parse_and_walk(utf8, len, w);
	if (len > (size_t)0x7fffffff)
		return LB_ETOOBIG;   /* as sax_parse_and_walk() */
	handlers(&h);
	rc = ant_page_tree_walk(utf8, len, w->ig, w->only, &h, w, &w->mark, w->seconds, w->err);
	/* Elements a broken page leaves open close at its end. */
	while (w->skip)
		sax_end(w, NULL);
	while (w->nfr)
		sax_end(w, NULL);
	if (rc == LB_ENOMEM)
		return rc;
	w->pat_rc = rc;   /* a pattern's failure, with w->err: not the parse's */
	return 0;
}

/* The text without its leading and trailing spaces, as a view. */
static void trimmed(const lb_buf *b, size_t *start, size_t *len)
{
	size_t s = 0, e = b->len;

	while (e && b->data[e - 1] == ' ')
		e--;
	while (s < e && b->data[s] == ' ')
		s++;
	*start = s;
	*len = e - s;
}

static void trim(lb_buf *b)
{
	size_t start, len;

	if (!b->cap)   /* still the static "" */
		return;
	trimmed(b, &start, &len);
	if (start)
		memmove(b->data, b->data + start, len);
	b->len = len;
	b->data[len] = '\0';
}

/* 64-bit FNV-1a (Fowler/Noll/Vo), offset basis and prime from the spec. */
uint64_t ant_page_hash64(const void *p, size_t n)
{
	return ant_page_fnv_add(ANT_PAGE_FNV_BASIS, p, n);
}

/* ---- segments and change excerpts ------------------------------------------ */

static uint32_t seg_hash(const char *s, size_t n)
{
	return fold32(ant_page_hash64(s, n));
}

/* Length of the sentence at s (through its terminator), at most n.  The
 * bytes a terminator starts with are looked up in a table: every byte of
 * every page's text passes here. */
static size_t sentence_len(const char *s, size_t n)
{
	static const unsigned char starts[256] = { ['.'] = 1, ['!'] = 1, ['?'] = 1, [0xE3] = 1, [0xEF] = 1 };

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!starts[c])
			continue;
		if ((c == '.' || c == '!' || c == '?') && i + 1 < n && s[i + 1] == ' ')
			return i + 1;
		/* 。(E3 80 82) ．！？(EF BC 8E, 81, 9F) */
		if ((c == 0xE3 || c == 0xEF) && i + 3 <= n) {
			unsigned char b = (unsigned char)s[i + 1], d = (unsigned char)s[i + 2];

			if ((c == 0xE3 && b == 0x80 && d == 0x82) ||
			    (c == 0xEF && b == 0xBC && (d == 0x8E || d == 0x81 || d == 0x9F)))
				return i + 3;
		}
	}
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

typedef struct segctx {
	ant_page_seg *seg;
	size_t n, cap;
	uint32_t *prev;           /* sorted copy */
	size_t nprev;
	lb_buf excerpt;
	size_t max;
	size_t xfirst, xn;        /* the excerpt's segments: seg[xfirst], xn of them */
	int state;                /* 0 looking, 1 in the first new run, 2 done */
	lb_buf own;               /* the segments' text when it is not the page's text */
	lb_buf blk, tmp;          /* scratch for one block */
	const ant_page_patterns *ig, *only;
	size_t only_matched;
	ant_page_budget *budget;  /* the page's time for its expressions */
	lb_error *err;
	int rc;                   /* a pattern's failure (LB_ETOOBIG), with err */
	int oom;
	unsigned char link;       /* the block being cut: per cent of link text */
	unsigned char *keep;      /* with range: patterns, per byte of the walked
				     text: 1 = read; NULL without them */
} segctx;

/* One segment: s is in base (the page's text or c->own) at s - base. */
static void take_sentence(segctx *c, const char *base, const char *s, size_t n, const bound *b)
{
	uint32_t h;
	ant_page_seg *nv;
	int known;

	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	if (!n || c->n >= ANT_PAGE_MAX_SEGMENTS)
		return;
	/* a sentence that is only an age ("58 min.", "2 hours ago", "3分前":
	 * a code browser's Age column) is a clock whatever it moves to, never
	 * news of its own; an --only expression's match is the operator's */
	if (!(c->only && c->only->nregex) && ant_noise_age_only(s, n))
		return;
	h = seg_hash(s, n);
	if (!(nv = lb_grow(c->seg, &c->cap, c->n + 1, sizeof *nv, 64))) {
		c->oom = 1;
		return;
	}
	c->seg = nv;
	c->seg[c->n++] = (ant_page_seg){ b->key, ant_noise_hash(s, n), h, (uint32_t)(s - base),
					 (uint32_t)n, b->path, c->link, 0 };
	if (!c->nprev || c->state == 2)
		return;
	known = bsearch(&h, c->prev, c->nprev, sizeof h, cmp_u32) != NULL;
	if (known) {
		c->state = c->state ? 2 : 0;
		return;
	}
	/* the first run of new sentences, a little past max (clipped later) */
	if (c->excerpt.len > 4 * c->max) {
		c->state = 2;
		return;
	}
	c->state = 1;
	if (!c->xn++)
		c->xfirst = c->n - 1;
	c->oom |= (c->excerpt.len && lb_buf_addc(&c->excerpt, ' ') < 0) ||
		  lb_buf_add(&c->excerpt, s, n) < 0;
}

/* Cuts [s, s+n) of base in sentences. */
static void take_sentences(segctx *c, const char *base, const char *s, size_t n, const bound *b)
{
	size_t off = 0, k;

	while (off < n && !c->oom) {
		k = sentence_len(s + off, n - off);
		take_sentence(c, base, s + off, k, b);
		off += k;
	}
}

/* Appends [s, s+n) to c->own, collapsed, a space before it unless first;
 * returns its offset there. */
static size_t own_add(segctx *c, const char *s, size_t n)
{
	size_t at;
	int space = 1;

	if (c->own.len)
		c->oom |= lb_buf_addc(&c->own, ' ') < 0;
	at = c->own.len;
	c->oom |= ant_page_add_collapsed(&c->own, s, n, &space) < 0;
	while (c->own.len > at && c->own.data[c->own.len - 1] == ' ')
		c->own.data[--c->own.len] = '\0';
	return at;
}

/* Each match of the --only expressions in c->blk is a segment. */
static void take_only_matches(segctx *c, const bound *b)
{
	ant_page_only_iter it;
	size_t so, eo, at;
	int rc = 0;

	if (ant_page_only_begin(&it, c->only, c->blk.data, c->blk.len) < 0) {
		c->oom = 1;
		return;
	}
	while (!c->oom && (rc = ant_page_only_next(&it, c->budget, &so, &eo, c->err)) > 0) {
		c->only_matched++;
		at = own_add(c, c->blk.data + so, eo - so);
		take_sentence(c, c->own.data, c->own.data + at, c->own.len - at, b);
	}
	if (rc < 0)
		c->rc = rc;
	ant_page_only_end(&it);
}

/* Segment [a, b) of the text: ignore patterns applied, cut in sentences;
 * with --only expressions, each match is a segment instead. */
static void take_block(segctx *c, const char *text, size_t a, size_t e, const bound *b)
{
	int rc;

	if (!c->ig->nregex && !c->only->nregex && !c->keep) {   /* no copy: the segments are the page's text */
		take_sentences(c, text, text + a, e - a, b);
		return;
	}
	lb_buf_reset(&c->blk);
	if (lb_buf_add(&c->blk, text + a, e - a) < 0) {
		c->oom = 1;
		return;
	}
	if ((rc = ant_page_remove_regex(&c->blk, c->ig, &c->tmp, c->budget, c->err)) < 0) {
		c->rc = rc;
		return;
	}
	if (!c->only->nregex) {
		size_t at = own_add(c, c->blk.data, c->blk.len);

		take_sentences(c, c->own.data, c->own.data + at, c->own.len - at, b);
		return;
	}
	take_only_matches(c, b);
}

/* 0, LB_ENOMEM, or a pattern's failure with c->err. */
static int segments(walk *w, const ant_page_prev *prev, segctx *c)
{
	c->max = prev && prev->excerpt_max ? prev->excerpt_max : ANT_PAGE_EXCERPT_MAX;
	if (prev && prev->nsegs) {
		if (!(c->prev = malloc(prev->nsegs * sizeof *c->prev)))
			return LB_ENOMEM;
		memcpy(c->prev, prev->segs, prev->nsegs * sizeof *c->prev);
		qsort(c->prev, prev->nsegs, sizeof *c->prev, cmp_u32);
		c->nprev = prev->nsegs;
	}
	for (size_t i = 0; i < w->nbd && !c->oom && !c->rc; i++) {
		size_t a = w->bd[i].off, e = i + 1 < w->nbd ? w->bd[i + 1].off : w->text.len;

		if (e <= a)
			continue;
		c->link = (unsigned char)((uint64_t)(w->bd[i].link < e - a ? w->bd[i].link : e - a) * 100 / (e - a));
		if (!c->keep) {
			take_block(c, w->text.data, a, e, &w->bd[i]);
			continue;
		}
		for (size_t x = a, y; x < e; x = y) {   /* the block's runs inside the ranges */
			for (y = x; y < e && c->keep[y] == c->keep[x]; y++)
				;
			if (c->keep[x])
				take_block(c, w->text.data, x, y, &w->bd[i]);
		}
	}
	return c->rc ? c->rc : c->oom ? LB_ENOMEM : 0;
}

/* Range pattern s over the text t[0..n): [*a, *b) between its markers;
 * 0 when a marker is not there. */
static int find_range(const char *t, size_t n, const ant_page_sel *s, size_t *a, size_t *b)
{
	size_t ks = strlen(s->start), ke = strlen(s->end);
	const char *p;

	*a = 0;
	*b = n;
	if (ks) {
		if (!(p = memmem(t, n, s->start, ks)))
			return 0;
		*a = (size_t)(p - t) + ks;
	}
	if (ke) {
		if (!(p = memmem(t + *a, n - *a, s->end, ke)))
			return 0;
		*b = (size_t)(p - t);
	}
	return 1;
}

/* The range: patterns as c->keep over the walked text: --only ranges
 * keep their text (and nothing else), --ignore ranges drop theirs.  0,
 * LB_ENOMEM, or LB_ENOTFOUND with err for an --only range whose markers
 * are not on the page. */
static int range_mask(walk *w, segctx *c, lb_error *err)
{
	const ant_page_patterns *only = w->only, *ig = w->ig;
	size_t n = w->text.len, a, b;

	if (!only->nrange && !ig->nrange)
		return 0;
	if (!(c->keep = malloc(n ? n : 1)))
		return LB_ENOMEM;
	memset(c->keep, !only->nrange, n);
	for (size_t i = 0; i < only->n; i++) {
		if (only->kind[i] != ANT_PAGE_PAT_RANGE)
			continue;
		if (!find_range(w->text.data, n, &only->sel[i], &a, &b))
			return lb_err(err, LB_ENOTFOUND,
				      "--only '%.200s' matched nothing on the page: has its layout changed?",
				      only->pat[i]);
		memset(c->keep + a, 1, b - a);
		c->only_matched++;
	}
	for (size_t i = 0; i < ig->n; i++)
		if (ig->kind[i] == ANT_PAGE_PAT_RANGE && find_range(w->text.data, n, &ig->sel[i], &a, &b))
			memset(c->keep + a, 0, b - a);
	return 0;
}

static void segctx_release(segctx *c)
{
	free(c->keep);
	free(c->seg);
	free(c->prev);
	lb_buf_release(&c->excerpt);
	lb_buf_release(&c->own);
	lb_buf_release(&c->blk);
	lb_buf_release(&c->tmp);
}

/* ---- the entry point ---------------------------------------------------------- */

/* The page's text as UTF-8 through the walk: parsed where it is when it is
 * UTF-8 with nothing to repair (most pages), else converted first. */
static int read_text(const char *body, size_t len, const ant_page_charset *cs, walk *w)
{
	lb_buf utf8 = LB_BUF_INIT;
	int rc;

	if (strcmp(cs->iconv, "UTF-8") == 0 && lb_utf8_repair_len(body, len, LB_UTF8_NUL) == len)
		rc = parse_and_walk(body, len, w);
	else if ((rc = ant_page_to_utf8(body, len, cs->iconv, &utf8)) == 0)
		rc = parse_and_walk(utf8.data, utf8.len, w);
	lb_buf_release(&utf8);   /* the largest buffer goes first */
	return rc < 0 ? rc : w->oom ? LB_ENOMEM : 0;
}

/* text_hash and text_len: of the --only matches when there are --only
 * expressions (one space between), else of the walked text with the ignore
 * expressions removed. */
static int hash_text(walk *w, segctx *c, const ant_page_patterns *ig, const ant_page_patterns *only,
		     ant_page_budget *budget, ant_page_info *out, lb_error *err)
{
	lb_buf tmp = LB_BUF_INIT;
	const lb_buf *t = only->nregex || c->keep ? &c->own : &w->text;
	size_t start, tlen;
	int rc = 0;

	if (t == &w->text)
		rc = ant_page_remove_regex(&w->text, ig, &tmp, budget, err);
	lb_buf_release(&tmp);
	if (rc < 0)
		return rc;
	trimmed(t, &start, &tlen);
	out->text_hash = ant_page_hash64(t->data + start, tlen);
	out->text_len = tlen;
	return 0;
}

/* The segments, their text and paths, and the excerpt into out. */
static int take_segments(walk *w, segctx *c, int own_text, ant_page_info *out)
{
	out->nsegs = out->nseg = c->n;
	if (c->n && !(out->segs = malloc(c->n * sizeof *out->segs)))
		return LB_ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		out->segs[i] = c->seg[i].raw;
	out->seg = c->seg;
	c->seg = NULL;
	/* The segments point into the page's text unless patterns made their own. */
	out->text = own_text ? lb_buf_detach(&c->own, NULL) : lb_buf_detach(&w->text, NULL);
	out->paths = lb_buf_detach(&w->paths, NULL);
	if (!out->text || !out->paths)
		return LB_ENOMEM;
	/* the first run of new sentences, who and when left out as
	 * ant_page_excerpt() does */
	if (c->xn) {
		unsigned char *pick = calloc(c->n, 1);

		if (!pick)
			return LB_ENOMEM;
		memset(pick + c->xfirst, 1, c->xn);
		out->excerpt = ant_page_excerpt(out, pick, c->max);
		free(pick);
		if (!out->excerpt)
			return LB_ENOMEM;
	}
	return 0;
}

/* The title, clipped to ANT_MAX_TITLE; NULL when empty. */
static int take_title(walk *w, ant_page_info *out)
{
	trim(&w->title);
	if (w->title.len && !(out->title = ant_clip(w->title.data, ANT_MAX_TITLE)))
		return LB_ENOMEM;
	if (out->title && !*out->title) {
		free(out->title);
		out->title = NULL;
	}
	out->feed_href = w->feed_href;
	w->feed_href = NULL;
	return 0;
}

/* A JSON page's segs[] and, with a prev, its excerpt: the first run of
 * segments the previous version did not have (as segments() makes it). */
static int json_finish(const ant_page_prev *prev, ant_page_info *out)
{
	uint32_t *old = NULL;
	unsigned char *pick;
	size_t first = out->nseg, n = 0;

	out->nsegs = out->nseg;
	if (out->nseg && !(out->segs = malloc(out->nseg * sizeof *out->segs)))
		return LB_ENOMEM;
	for (size_t i = 0; i < out->nseg; i++)
		out->segs[i] = out->seg[i].raw;
	if (!prev || !prev->nsegs || !out->nseg)
		return 0;
	if (!(old = malloc(prev->nsegs * sizeof *old)) || !(pick = calloc(out->nseg, 1))) {
		free(old);
		return LB_ENOMEM;
	}
	memcpy(old, prev->segs, prev->nsegs * sizeof *old);
	qsort(old, prev->nsegs, sizeof *old, cmp_u32);
	for (size_t i = 0; i < out->nseg; i++) {
		int known = bsearch(&out->segs[i], old, prev->nsegs, sizeof *old, cmp_u32) != NULL;

		if (!known && first == out->nseg)
			first = i;
		if (known && first < out->nseg)
			break;
		n += !known;
	}
	if (n)
		memset(pick + first, 1, n);
	out->excerpt = n ? ant_page_excerpt(out, pick, prev->excerpt_max) : NULL;
	free(pick);
	free(old);
	return n && !out->excerpt ? LB_ENOMEM : 0;
}

/* The first json: pattern of ig or only, or NULL. */
static const ant_page_patterns *json_patterns(const ant_page_patterns *ig, const ant_page_patterns *only,
					      size_t *at)
{
	const ant_page_patterns *ps[2] = { only, ig };

	for (int k = 0; k < 2; k++)
		for (*at = 0; *at < ps[k]->n; (*at)++)
			if (ps[k]->kind[*at] == ANT_PAGE_PAT_JSON)
				return ps[k];
	return NULL;
}

/*
 * A JSON page (page_json.c): 0 when read, 1 when the page is not JSON
 * (then a json: pattern is a mistake: LB_EINVAL naming it), or the
 * reader's failure.
 */
static int read_json(const char *body, size_t len, const char *content_type, const ant_page_opts *o,
		     const ant_page_patterns *ig, const ant_page_patterns *only, ant_page_info *out,
		     lb_error *err)
{
	const ant_page_patterns *jp;
	ant_page_budget budget;
	size_t at;
	int rc;

	ant_page_budget_start(&budget, o->regex_seconds);
	rc = ant_page_json_read(body, len, content_type, o->forced_charset, ig, only, &budget, out, err);
	if (rc == 0)
		return json_finish(o->prev, out);
	if (rc == 1 && (jp = json_patterns(ig, only, &at)))
		return lb_err(err, LB_EINVAL, "%s pattern '%.200s' needs a JSON page; this answer is %.60s",
			      jp->what, jp->pat[at], content_type ? content_type : "not JSON");
	return rc;
}

/* The walk and the segments, once the patterns are compiled. */
static int analyze(const char *body, size_t len, const char *content_type, const ant_page_opts *o,
		   const ant_page_patterns *ig, const ant_page_patterns *only, walk *w, segctx *c,
		   ant_page_info *out, lb_error *err)
{
	ant_page_budget budget;
	ant_page_charset cs;
	size_t skip;
	int rc;


	w->ig = c->ig = ig;
	w->only = c->only = only;
	w->err = err;
	w->seconds = o->regex_seconds;
	w->want_cuts = 1;
	c->budget = &budget;
	c->err = err;
	if (!(w->bd = malloc(64 * sizeof *w->bd)))
		return LB_ENOMEM;
	w->capbd = 64;
	w->bd[0] = (bound){ 0, 0, 0, 0 };
	w->nbd = 1;
	w->key_pending = 1;
	ant_page_pick_charset(body, len, content_type, o->forced_charset, out, &skip, &cs);
	if ((rc = read_text(body + skip, len - skip, &cs, w)) == LB_ETOOBIG)
		return lb_err(err, rc, "cannot analyze page: over 2 GiB");
	if (rc == LB_EICONV)
		return lb_err(err, rc, "cannot analyze page: cannot convert from '%s'", cs.iconv);
	if (rc < 0)
		return rc;
	if (w->pat_rc)
		return w->pat_rc;   /* a css:/xpath: pattern's failure, with err */
	if (w->key_pending && w->nbd == 1)
		bind_block(w);  /* an empty page: one bound, no block */
	if ((rc = range_mask(w, c, err)) < 0)
		return rc;
	ant_page_budget_start(&budget, o->regex_seconds);
	if ((rc = segments(w, o->prev, c)) < 0 || w->oom)
		return rc < 0 ? rc : LB_ENOMEM;
	if ((rc = hash_text(w, c, ig, only, &budget, out, err)) < 0)
		return rc;
	out->only_matched = only->n ? w->only_matched + c->only_matched : 1;
	if ((rc = take_segments(w, c, ig->nregex || only->nregex || c->keep, out)) < 0)
		return rc;
	return take_title(w, out);
}

int ant_page_analyze(const char *body, size_t len, const char *content_type,
		     const ant_page_opts *o, ant_page_info *out, lb_error *err)
{
	static const ant_page_opts defaults;
	walk w = { .text = LB_BUF_INIT, .title = LB_BUF_INIT, .path = LB_BUF_INIT,
		   .paths = LB_BUF_INIT, .space = 1, .title_space = 1 };
	segctx c = { .excerpt = LB_BUF_INIT, .own = LB_BUF_INIT, .blk = LB_BUF_INIT,
		     .tmp = LB_BUF_INIT };
	ant_page_patterns ig, only;
	int rc;

	memset(out, 0, sizeof *out);
	if (!o)
		o = &defaults;
	if (!body)
		len = 0, body = "";
	if ((rc = ant_page_patterns_compile(&ig, o->ignore, o->nignore, "ignore", err)) < 0)
		return rc;
	if ((rc = ant_page_patterns_compile(&only, o->only, o->nonly, "only", err)) < 0) {
		ant_page_patterns_release(&ig);
		return rc;
	}
	rc = read_json(body, len, content_type, o, &ig, &only, out, err);
	if (rc == 1)
		rc = analyze(body, len, content_type, o, &ig, &only, &w, &c, out, err);
	if (rc < 0) {
		ant_page_info_release(out);
		if (rc == LB_ENOMEM)
			rc = lb_err(err, LB_ENOMEM, "cannot analyze page: out of memory");
	}
	free(w.feed_href);
	free(w.fr);
	free(w.bd);
	lb_buf_release(&w.title);
	lb_buf_release(&w.text);
	lb_buf_release(&w.path);
	lb_buf_release(&w.paths);
	segctx_release(&c);
	ant_page_patterns_release(&ig);
	ant_page_patterns_release(&only);
	return rc;
}

void ant_page_info_release(ant_page_info *p)
{
	if (!p)
		return;
	free(p->title);
	free(p->feed_href);
	free(p->segs);
	free(p->excerpt);
	free(p->seg);
	free(p->text);
	free(p->paths);
	memset(p, 0, sizeof *p);
}
