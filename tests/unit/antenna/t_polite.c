/* t_polite: ant_polite.h: servers by registrable domain (the PSL's
 * private section included) and by address, the minimum delay, Retry-After
 * kept by server key, and the contact's checks. */
#include "tap.h"
#include "ant_polite.h"
#include "ant_target.h"

#include <stdlib.h>
#include <string.h>

static void dom(const char *host, const char *want)
{
	char *d = ant_polite_domain(host);

	IS_STR(d, want, "domain of %s", host);
	free(d);
}

static int nblocks;
static void count(void *ctx, const char *key, int64_t until)
{
	nblocks++;
	IS_STR(key, (const char *)ctx, "the block kept is the server's key");
}

int main(void)
{
	ant_polite *p = ant_polite_new();
	long a, b, c, g1, g2;
	int64_t wake = 0;

	TAP_PLAN(39);
	dom("www.Example.CO.uk", "example.co.uk");
	dom("a.b.example.com.", "example.com");
	dom("alice.github.io", "alice.github.io");     /* private section */
	dom("x.blogspot.com", "x.blogspot.com");
	dom("127.0.0.1", "127.0.0.1");
	dom("[::1]", "::1");
	dom("localhost", "localhost");

	a = ant_polite_host(p, "a.example.com");
	b = ant_polite_host(p, "B.example.com");
	c = ant_polite_host(p, "c.example.net");
	g1 = ant_polite_host(p, "alice.github.io");
	g2 = ant_polite_host(p, "bob.github.io");
	OK(a >= 0 && b >= 0 && c >= 0 && a != b, "hosts interned");
	IS_INT(ant_polite_host(p, "A.EXAMPLE.COM"), a, "a name in any case is one host");
	IS_STR(ant_polite_key(p, b), "example.com", "key of b.example.com");
	IS_STR(ant_polite_key(p, g2), "bob.github.io", "key of bob.github.io");

	/* per-server budget of 1: a runs, so b (same domain) waits, c does not */
	OK(ant_polite_may_start(p, a, 1, 1000, &wake), "a may start");
	ant_polite_started(p, a, 1000, 0);
	OK(!ant_polite_may_start(p, b, 1, 1000, &wake), "b waits for a: one registrable domain");
	OK(ant_polite_may_start(p, c, 1, 1000, &wake), "c.example.net may start");
	OK(ant_polite_may_start(p, g1, 1, 1000, &wake) && ant_polite_may_start(p, g2, 1, 1000, &wake),
	   "alice and bob on github.io are two servers");
	/* c seen at the address a was connected at: one server */
	OK(ant_polite_addr(p, a, "192.0.2.7") == 0 && ant_polite_addr(p, c, "192.0.2.7") == 0, "addresses");
	OK(!ant_polite_may_start(p, c, 1, 1000, &wake), "c waits too once it is seen at a's address");
	ant_polite_ended(p, a);
	OK(ant_polite_may_start(p, c, 1, 1000, &wake), "the budget is free again");
	IS_INT(wake, 0, "no delay asked");

	/* the minimum delay */
	ant_polite_started(p, g1, 5000, 300);
	ant_polite_ended(p, g1);
	OK(!ant_polite_may_start(p, g1, 4, 5100, &wake), "within the delay: wait");
	IS_INT(wake, 5300, "... until the delay ends");
	OK(ant_polite_may_start(p, g1, 4, 5300, &wake), "after it: go");

	/* Retry-After, by host and by key */
	IS_INT(ant_polite_blocked(p, b, 100), 0, "not blocked");
	ant_polite_block(p, b, 200);
	IS_INT(ant_polite_blocked(p, a, 100), 200, "a block on b holds for a (one server)");
	IS_INT(ant_polite_blocked(p, a, 200), 0, "over at its time");
	OK(ant_polite_block_key(p, "bob.github.io", 900) == 0, "block by key");
	IS_INT(ant_polite_blocked(p, g2, 100), 900, "... holds for bob.github.io");
	ant_polite_each_block(p, 300, count, "bob.github.io");
	IS_INT(nblocks, 1, "one block still to come");
	/* c.example.net shares a's address (one server) but asks for itself:
	 * its wait is example.net's, a and b (example.com) are not held */
	ant_polite_block(p, c, 5000);
	IS_INT(ant_polite_blocked(p, c, 400), 5000, "a block on c holds for c");
	IS_INT(ant_polite_blocked(p, a, 400), 0, "... not for a, its neighbour at one address");
	IS_STR(ant_polite_wait_key(p, c), "example.net", "... kept and named as c's own domain");
	IS_STR(ant_polite_wait_key(p, a), "example.com", "a's wait key is its own domain");
	nblocks = 0;
	ant_polite_each_block(p, 1000, count, "example.net");
	IS_INT(nblocks, 1, "... the one block kept, under example.net");
	ant_polite_free(p);

	/* 500 hosts of 500 domains: each new host's server entry grows the
	 * table under the host's own (ASan saw the write to the old one) */
	{
		ant_polite *q = ant_polite_new();
		char h[64];
		int bad = 0;

		for (int i = 0; i < 500 && q; i++) {
			snprintf(h, sizeof h, "www.s%d.example", i);
			bad += ant_polite_host(q, h) != i;
		}
		for (int i = 0; i < 500 && q; i++) {
			snprintf(h, sizeof h, "WWW.S%d.example", i);
			bad += ant_polite_host(q, h) != i;
		}
		OK(q && bad == 0, "500 hosts of their own domains interned, each found again (%d wrong)", bad);
		ant_polite_free(q);
	}

	OK(ant_target_contact_check("https://example.org/about", NULL) == 0 &&
	   ant_target_contact_check("mailto:me@example.org", NULL) == 0, "URL and mailto: contacts");
	{
		lb_error err = LB_ERROR_INIT;

		OK(ant_target_contact_check("http://x.example/\r\nX-Evil: 1", &err) == LB_EINVAL &&
		   err.col == 18, "CR refused, its place named: %s", err.msg);
	}
	OK(ant_target_contact_check("ftp://x/", NULL) == LB_EINVAL &&
	   ant_target_contact_check("mailto:nobody", NULL) == LB_EINVAL &&
	   ant_target_contact_check("http://例え.jp/", NULL) == LB_EINVAL, "other schemes, no address, non-ASCII refused");
	TAP_DONE();
}
