/*
 * t_addr: which addresses are internal (ant_addr.h): every range at both
 * edges and just outside them, the same addresses as IPv4-mapped IPv6,
 * and the sockaddr entry point fetch.c uses.
 */
#include "ant_addr.h"
#include "lb_error.h"
#include "tap.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

static const struct {
	const char *addr;
	int kind;
} cases[] = {
	/* 0.0.0.0/8: this network */
	{ "0.0.0.0", ANT_ADDR_THIS_NETWORK }, { "0.255.255.255", ANT_ADDR_THIS_NETWORK },
	{ "1.0.0.0", ANT_ADDR_PUBLIC },
	/* 10/8 */
	{ "9.255.255.255", ANT_ADDR_PUBLIC }, { "10.0.0.0", ANT_ADDR_PRIVATE },
	{ "10.0.0.1", ANT_ADDR_PRIVATE }, { "10.255.255.255", ANT_ADDR_PRIVATE },
	{ "11.0.0.0", ANT_ADDR_PUBLIC },
	/* 100.64/10 */
	{ "100.63.255.255", ANT_ADDR_PUBLIC }, { "100.64.0.0", ANT_ADDR_SHARED },
	{ "100.127.255.255", ANT_ADDR_SHARED }, { "100.128.0.0", ANT_ADDR_PUBLIC },
	/* 127/8 */
	{ "126.255.255.255", ANT_ADDR_PUBLIC }, { "127.0.0.0", ANT_ADDR_LOOPBACK },
	{ "127.0.0.1", ANT_ADDR_LOOPBACK }, { "127.0.0.2", ANT_ADDR_LOOPBACK },
	{ "127.255.255.255", ANT_ADDR_LOOPBACK }, { "128.0.0.0", ANT_ADDR_PUBLIC },
	/* 169.254/16, the metadata address in it */
	{ "169.253.255.255", ANT_ADDR_PUBLIC }, { "169.254.0.0", ANT_ADDR_LINK_LOCAL },
	{ "169.254.169.253", ANT_ADDR_LINK_LOCAL }, { "169.254.169.254", ANT_ADDR_METADATA },
	{ "169.254.169.255", ANT_ADDR_LINK_LOCAL }, { "169.254.255.255", ANT_ADDR_LINK_LOCAL },
	{ "169.255.0.0", ANT_ADDR_PUBLIC },
	/* 172.16/12 */
	{ "172.15.255.255", ANT_ADDR_PUBLIC }, { "172.16.0.0", ANT_ADDR_PRIVATE },
	{ "172.31.255.255", ANT_ADDR_PRIVATE }, { "172.32.0.0", ANT_ADDR_PUBLIC },
	/* 192.168/16 */
	{ "192.167.255.255", ANT_ADDR_PUBLIC }, { "192.168.0.0", ANT_ADDR_PRIVATE },
	{ "192.168.255.255", ANT_ADDR_PRIVATE }, { "192.169.0.0", ANT_ADDR_PUBLIC },
	/* public ones that look close */
	{ "8.8.8.8", ANT_ADDR_PUBLIC }, { "192.0.2.1", ANT_ADDR_PUBLIC },
	{ "255.255.255.255", ANT_ADDR_PUBLIC },
	/* IPv6 */
	{ "::", ANT_ADDR_THIS_NETWORK }, { "::1", ANT_ADDR_LOOPBACK }, { "::2", ANT_ADDR_PUBLIC },
	{ "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ANT_ADDR_PUBLIC },
	{ "fc00::", ANT_ADDR_UNIQUE_LOCAL }, { "fd00:ec2::254", ANT_ADDR_UNIQUE_LOCAL },
	{ "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ANT_ADDR_UNIQUE_LOCAL },
	{ "fe00::", ANT_ADDR_PUBLIC },
	{ "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ANT_ADDR_PUBLIC },
	{ "fe80::", ANT_ADDR_LINK_LOCAL }, { "fe80::1%eth0", ANT_ADDR_LINK_LOCAL },
	{ "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ANT_ADDR_LINK_LOCAL },
	{ "fec0::", ANT_ADDR_PUBLIC },
	{ "2001:db8::1", ANT_ADDR_PUBLIC }, { "[2606:4700::1111]", ANT_ADDR_PUBLIC },
	{ "[::1]", ANT_ADDR_LOOPBACK },
	/* IPv4-mapped IPv6: the IPv4 address's kind */
	{ "::ffff:127.0.0.1", ANT_ADDR_LOOPBACK }, { "::ffff:7f00:1", ANT_ADDR_LOOPBACK },
	{ "[::ffff:127.0.0.1]", ANT_ADDR_LOOPBACK },
	{ "::ffff:0.0.0.0", ANT_ADDR_THIS_NETWORK }, { "::ffff:10.0.0.1", ANT_ADDR_PRIVATE },
	{ "::ffff:172.15.255.255", ANT_ADDR_PUBLIC }, { "::ffff:172.16.0.0", ANT_ADDR_PRIVATE },
	{ "::ffff:172.31.255.255", ANT_ADDR_PRIVATE }, { "::ffff:172.32.0.0", ANT_ADDR_PUBLIC },
	{ "::ffff:192.168.1.1", ANT_ADDR_PRIVATE }, { "::ffff:100.64.0.1", ANT_ADDR_SHARED },
	{ "::ffff:169.254.169.254", ANT_ADDR_METADATA }, { "::ffff:169.254.1.1", ANT_ADDR_LINK_LOCAL },
	{ "::ffff:8.8.8.8", ANT_ADDR_PUBLIC },
	/* not addresses: host names are for the resolver, then the sockaddr */
	{ "localhost", LB_EINVAL }, { "example.com", LB_EINVAL }, 
	{ "", LB_EINVAL }, { "127.1", LB_EINVAL },
	{ "[]", LB_EINVAL },
};

static void t_sockaddr(void)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr un = { .sa_family = AF_UNIX };

	inet_pton(AF_INET, "172.16.0.0", &a4.sin_addr);
	IS_INT(ant_addr_classify((struct sockaddr *)&a4), ANT_ADDR_PRIVATE, "sockaddr_in 172.16.0.0: private");
	inet_pton(AF_INET, "172.15.255.255", &a4.sin_addr);
	IS_INT(ant_addr_classify((struct sockaddr *)&a4), ANT_ADDR_PUBLIC, "sockaddr_in 172.15.255.255: public");
	inet_pton(AF_INET6, "::ffff:169.254.169.254", &a6.sin6_addr);
	IS_INT(ant_addr_classify((struct sockaddr *)&a6), ANT_ADDR_METADATA, "sockaddr_in6 mapped metadata");
	inet_pton(AF_INET6, "fe80::1", &a6.sin6_addr);
	IS_INT(ant_addr_classify((struct sockaddr *)&a6), ANT_ADDR_LINK_LOCAL, "sockaddr_in6 fe80::1");
	IS_INT(ant_addr_classify(&un), ANT_ADDR_PUBLIC, "another family: not ours to judge");
	IS_INT(ant_addr_classify(NULL), ANT_ADDR_PUBLIC, "NULL");
}

int main(void)
{
	size_t n = sizeof cases / sizeof *cases;

	TAP_PLAN((int)n + 6 + 3);
	for (size_t i = 0; i < n; i++)
		IS_INT(ant_addr_classify_text(cases[i].addr), cases[i].kind, "%s: %s", cases[i].addr,
		       cases[i].kind < 0 ? "not an address" : ant_addr_kind_name(cases[i].kind));
	t_sockaddr();
	IS_STR(ant_addr_kind_name(ANT_ADDR_PRIVATE), "private, RFC 1918", "kind name: private");
	IS_STR(ant_addr_kind_name(ANT_ADDR_METADATA), "link-local, cloud metadata service", "kind name: metadata");
	IS_STR(ant_addr_kind_name((ant_addr_kind)99), "internal", "kind name out of range");
	TAP_DONE();
}
