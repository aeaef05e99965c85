/*
 * page_tree.c: the tree walk, for pages with css: and xpath: patterns
 * (ant_page.h): the page parsed as page.c's SAX walk parses it, but
 * with libxml2's tree builder; the patterns evaluated by libxml2's XPath
 * (css: translated by page_css.c), the elements they select marked, and
 * the tree replayed, node by node in document order, into the same SAX
 * handlers page.c's walk reads the parser with, so that everything from
 * the text on is what the SAX walk gives for the same page
 * (tests/unit/antenna/t_page_select.c reads 400 real pages both ways).
 */
#include "page_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/parserInternals.h>
#include <libxml/xpath.h>

/* A replay: the handlers and their context, the mark of the element now
 * started, and where a pattern's failure is said. */
typedef struct replay {
	const xmlSAXHandler *h;
	void *ctx;
	unsigned char *mark;
	lb_error *err;
} replay;

/*
 * The same parse as page.c's sax_parse_and_walk() with libxml2's own tree builder
 * in place of our handler: the tree is made of the events the SAX walk
 * reads, so walking it and handing each node to the same handlers gives
 * the same text, segments and paths.  NULL when
 * out of memory (or an empty body: no tree).
 */
static htmlDocPtr tree_parse(const char *utf8, size_t len, int *halted)
{
	htmlParserCtxtPtr ctxt;
	xmlCharEncodingHandlerPtr hdlr;
	htmlDocPtr doc;

	xmlInitParser();
	if (!(ctxt = htmlCreateMemoryParserCtxt(utf8, (int)len)))
		return NULL;
	htmlCtxtUseOptions(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
			   HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | HTML_PARSE_COMPACT);
	/* The tree builder stops a document nested deeper than 256 elements
	 * (2048 with XML_PARSE_HUGE), the SAX walk does not: old pages of
	 * unclosed <font> go deep.  HUGE also lifts the 10 MB text and 50000
	 * byte name limits, far past our bodies. */
	ctxt->options |= XML_PARSE_HUGE;
	if ((hdlr = xmlFindCharEncodingHandler("UTF-8")))
		xmlSwitchToEncoding(ctxt, hdlr);
	htmlParseDocument(ctxt);
	doc = ctxt->myDoc;
	*halted = ctxt->disableSAX != 0;
	ctxt->myDoc = NULL;
	xmlFreeParserCtxt(ctxt);
	return doc;
}

/* XPath errors: the code kept for the message, nothing printed. */
static void xpath_error(void *data, xmlErrorPtr e)
{
	*(int *)data = e ? e->code : -1;
}

/* The element a node stands for: itself, or a text node's parent. */
static xmlNodePtr element_of(xmlNodePtr n)
{
	if (n && (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE))
		n = n->parent;
	return n && n->type == XML_ELEMENT_NODE ? n : NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The clock over one XPath evaluation.  libxml2 counts its steps
 * (opLimit) but cannot be told a time, and its node-set merges cost more
 * than a step each: //li/following-sibling::li over 5000 items took 96 s
 * to reach ANT_PAGE_XPATH_OPS.  A thread waits until the deadline and
 * then lowers the context's opLimit to 1; the evaluator reads it at its
 * next step and stops with XPATH_OP_LIMIT_EXCEEDED.  One aligned word
 * written while the evaluator reads it: the worst a stale read does is
 * one more step.
 */
typedef struct watchdog {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct timespec deadline;   /* CLOCK_MONOTONIC */
	xmlXPathContextPtr ctx;
	int done, fired, started;
} watchdog;

static void *watch(void *arg)
{
	watchdog *d = arg;
	int rc = 0;

	pthread_mutex_lock(&d->mu);
	while (!d->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&d->cv, &d->mu, &d->deadline);
	if (!d->done) {
		d->fired = 1;
		*(volatile unsigned long *)&d->ctx->opLimit = 1;
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* Starts the clock: the evaluation on ctx may run until deadline (a
 * CLOCK_MONOTONIC time in seconds); without a thread, it runs to its step
 * limit only. */
static void watch_start(watchdog *d, xmlXPathContextPtr ctx, double deadline)
{
	pthread_condattr_t ca;

	memset(d, 0, sizeof *d);
	d->ctx = ctx;
	d->deadline.tv_sec = (time_t)deadline;
	d->deadline.tv_nsec = (long)((deadline - (double)(time_t)deadline) * 1e9);
	pthread_mutex_init(&d->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->cv, &ca);
	pthread_condattr_destroy(&ca);
	d->started = pthread_create(&d->th, NULL, watch, d) == 0;
}

/* Stops the clock; 1 when it fired. */
static int watch_stop(watchdog *d)
{
	if (d->started) {
		pthread_mutex_lock(&d->mu);
		d->done = 1;
		pthread_cond_signal(&d->cv);
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->th, NULL);
	}
	pthread_cond_destroy(&d->cv);
	pthread_mutex_destroy(&d->mu);
	return d->fired;
}

/* Pattern i of ps evaluated on doc, the elements it selects marked with
 * bit, by deadline (seconds of CLOCK_MONOTONIC; limit: the page's seconds,
 * for the message).  0, or an error naming the pattern: LB_ETOOBIG past
 * ANT_PAGE_XPATH_OPS or the deadline, LB_EINVAL when it gives no node-set, LB_ENOTFOUND
 * when an --only one selects nothing. */
static int mark_one(htmlDocPtr doc, const ant_page_patterns *ps, size_t i, unsigned bit,
		    double deadline, double limit, lb_error *err)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr r;
	watchdog wd;
	size_t found = 0;
	int code = 0, rc = 0, late;

	if (!ctx)
		return LB_ENOMEM;
	ctx->error = xpath_error;
	ctx->userData = &code;
	ctx->opLimit = ANT_PAGE_XPATH_OPS;
	watch_start(&wd, ctx, deadline);
	r = xmlXPathEval((const xmlChar *)ps->sel[i].xpath, ctx);
	late = watch_stop(&wd);
	if (late)
		rc = lb_err(err, LB_ETOOBIG, "%s pattern '%.200s' takes over %g s on this page "
			    "(ANT_PAGE_MAX_REGEX_SECONDS)", ps->what, ps->pat[i], limit);
	else if (!r && code - XML_XPATH_EXPRESSION_OK == XPATH_OP_LIMIT_EXCEEDED - XPATH_EXPRESSION_OK)
		rc = lb_err(err, LB_ETOOBIG, "%s pattern '%.200s' takes over %lu XPath steps on this page",
			    ps->what, ps->pat[i], ANT_PAGE_XPATH_OPS);
	else if (!r)
		rc = lb_err(err, LB_EINVAL, "%s pattern '%.200s' cannot be evaluated on this page (%.80s)",
			    ps->what, ps->pat[i],
			    ctx->lastError.message ? ctx->lastError.message : "XPath error");
	else if (r->type != XPATH_NODESET)
		rc = lb_err(err, LB_EINVAL, "%s pattern '%.200s' gives a %s, not elements", ps->what,
			    ps->pat[i], r->type == XPATH_NUMBER ? "number" : r->type == XPATH_BOOLEAN ? "boolean"
					: "string");
	for (int k = 0; !rc && r && r->nodesetval && k < r->nodesetval->nodeNr; k++) {
		xmlNodePtr e = element_of(r->nodesetval->nodeTab[k]);

		if (e) {
			e->_private = (void *)((uintptr_t)e->_private | bit);
			found++;
		}
	}
	if (!rc && !found && bit == ANT_PAGE_MARK_ONLY)
		rc = lb_err(err, LB_ENOTFOUND,
			    "--only '%.200s' matched nothing on the page: has its layout changed?", ps->pat[i]);
	xmlXPathFreeObject(r);
	xmlResetError(&ctx->lastError);
	xmlXPathFreeContext(ctx);
	return rc;
}

/* Every css:/xpath: pattern of ps evaluated and its elements marked; the
 * patterns of the page together within seconds from start, as its
 * regular expressions are. */
static int mark_all(htmlDocPtr doc, const ant_page_patterns *ps, unsigned bit, double start,
		    double seconds, lb_error *err)
{
	int rc;

	for (size_t i = 0; i < ps->n; i++) {
		if (!ps->sel[i].xpath)
			continue;
		if ((rc = mark_one(doc, ps, i, bit, start + seconds, seconds, err)) < 0)
			return rc;
	}
	return 0;
}

static int mark_tree(htmlDocPtr doc, const ant_page_patterns *ig, const ant_page_patterns *only,
		     double seconds, lb_error *err)
{
	double start = now();
	int rc;

	if (seconds <= 0)
		seconds = ANT_PAGE_MAX_REGEX_SECONDS;
	if ((rc = mark_all(doc, ig, ANT_PAGE_MARK_IGNORE, start, seconds, err)) < 0)
		return rc;
	return mark_all(doc, only, ANT_PAGE_MARK_ONLY, start, seconds, err);
}

/* An element's attributes as the SAX handler gets them (name, value
 * pairs, NULL-terminated; a value NULL when it has none) to the start
 * handler, with its mark.  0 or LB_ENOMEM. */
#define TREE_ATTS 32
static int node_start(const replay *r, xmlNodePtr n)
{
	const xmlChar *room[2 * TREE_ATTS + 1], **atts = room;
	xmlChar *made_room[TREE_ATTS], **made = made_room;
	size_t na = 0, nm = 0, count = 0;

	for (xmlAttrPtr a = n->properties; a; a = a->next)
		count++;
	if (count > TREE_ATTS) {   /* rare: as many as the element has */
		atts = malloc((2 * count + 1) * sizeof *atts);
		made = malloc(count * sizeof *made);
		if (!atts || !made) {
			free(atts == room ? NULL : atts);
			free(made == made_room ? NULL : made);
			return LB_ENOMEM;
		}
	}
	for (xmlAttrPtr a = n->properties; a; a = a->next) {
		const xmlChar *v = NULL;

		if (a->children && a->children->type == XML_TEXT_NODE && !a->children->next)
			v = a->children->content;
		else if (a->children && (made[nm] = xmlNodeListGetString(n->doc, a->children, 1)))
			v = made[nm++];
		atts[na++] = a->name;
		atts[na++] = v;
	}
	atts[na] = NULL;
	*r->mark = (unsigned char)(uintptr_t)n->_private;
	r->h->startElement(r->ctx, n->name, na ? atts : NULL);
	*r->mark = 0;
	while (nm)
		xmlFree(made[--nm]);
	if (atts != room) {
		free(atts);
		free(made);
	}
	return 0;
}

/* Every node in document order, as the SAX events that built it;
 * iterative, by the nodes' links: no stack however deep the page. */
static int tree_walk(const replay *r, htmlDocPtr doc)
{
	const xmlSAXHandler *h = r->h;
	xmlNodePtr n = doc->children;

	while (n) {
		switch (n->type) {
		case XML_ELEMENT_NODE:
			if (node_start(r, n) < 0)
				return LB_ENOMEM;
			if (n->children) {
				n = n->children;
				continue;
			}
			h->endElement(r->ctx, n->name);
			break;
		case XML_TEXT_NODE:
		case XML_CDATA_SECTION_NODE:
			if (n->content)
				h->characters(r->ctx, n->content, xmlStrlen(n->content));
			break;
		case XML_COMMENT_NODE:
			h->comment(r->ctx, n->content);
			break;
		case XML_PI_NODE:
			h->processingInstruction(r->ctx, n->name, n->content);
			break;
		case XML_DTD_NODE:
			h->internalSubset(r->ctx, n->name, NULL, NULL);
			break;
		default:
			break;
		}
		for (;;) {
			if (n->next) {
				n = n->next;
				break;
			}
			n = n->parent;
			if (!n || n->type != XML_ELEMENT_NODE) {
				n = NULL;
				break;
			}
			h->endElement(r->ctx, n->name);
		}
	}
	return 0;
}

int ant_page_tree_walk(const char *utf8, size_t len, const ant_page_patterns *ig,
		       const ant_page_patterns *only, const xmlSAXHandler *h, void *ctx,
		       unsigned char *mark, double seconds, lb_error *err)
{
	replay r = { h, ctx, mark, err };
	htmlDocPtr doc;
	int rc, halted = 0;

	/* a body of nothing (or of what makes no tree) is an empty tree */
	if (!(doc = len ? tree_parse(utf8, len, &halted) : NULL) && !(doc = htmlNewDocNoDtD(NULL, NULL)))
		return LB_ENOMEM;
	if (halted)   /* the builder stopped half way: a tree that is not the page */
		rc = lb_err(err, LB_ETOOBIG,
			    "the page's tree could not be built whole: its css: and xpath: patterns cannot be read");
	else if ((rc = mark_tree(doc, ig, only, seconds, err)) == 0)
		rc = tree_walk(&r, doc);
	xmlFreeDoc(doc);
	return rc;
}
