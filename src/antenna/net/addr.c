/*
 * addr.c: which network addresses are internal (ant_addr.h), from the
 * address bytes alone.  The ranges are the IANA special-purpose registries'
 * (RFC 6890) that reach this host, its networks or a cloud's metadata
 * service; multicast and documentation ranges are left to the network,
 * where a TCP connection to them fails anyway.
 */
#include "ant_addr.h"
#include "lb_error.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

/* a is in network byte order. */
static ant_addr_kind classify4(const unsigned char a[4])
{
	if (a[0] == 0)
		return ANT_ADDR_THIS_NETWORK;
	if (a[0] == 127)
		return ANT_ADDR_LOOPBACK;
	if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168))
		return ANT_ADDR_PRIVATE;
	if (a[0] == 100 && (a[1] & 0xc0) == 64)
		return ANT_ADDR_SHARED;
	if (a[0] == 169 && a[1] == 254)
		return a[2] == 169 && a[3] == 254 ? ANT_ADDR_METADATA : ANT_ADDR_LINK_LOCAL;
	return ANT_ADDR_PUBLIC;
}

static ant_addr_kind classify6(const unsigned char a[16])
{
	static const unsigned char zero[16], mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (memcmp(a, zero, 16) == 0)
		return ANT_ADDR_THIS_NETWORK;
	if (memcmp(a, zero, 15) == 0 && a[15] == 1)
		return ANT_ADDR_LOOPBACK;
	/* ::ffff:a.b.c.d is a.b.c.d on a dual-stack socket (RFC 4291 §2.5.5.2) */
	if (memcmp(a, mapped, 12) == 0)
		return classify4(a + 12);
	if ((a[0] & 0xfe) == 0xfc)
		return ANT_ADDR_UNIQUE_LOCAL;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return ANT_ADDR_LINK_LOCAL;
	return ANT_ADDR_PUBLIC;
}

ant_addr_kind ant_addr_classify(const struct sockaddr *sa)
{
	if (!sa)
		return ANT_ADDR_PUBLIC;
	if (sa->sa_family == AF_INET)
		return classify4((const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr);
	if (sa->sa_family == AF_INET6)
		return classify6(((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr);
	return ANT_ADDR_PUBLIC;
}

int ant_addr_classify_text(const char *text)
{
	unsigned char a[16];
	char buf[64];
	size_t n;

	if (!text)
		return LB_EINVAL;
	n = strlen(text);
	/* "[::1]" as a URL writes it; a zone ("fe80::1%eth0") is not the address */
	if (n >= 2 && text[0] == '[' && text[n - 1] == ']')
		text++, n -= 2;
	if (n >= sizeof buf)
		return LB_EINVAL;
	memcpy(buf, text, n);
	buf[n] = '\0';
	if (strchr(buf, '%'))
		*strchr(buf, '%') = '\0';
	if (inet_pton(AF_INET, buf, a) == 1)
		return (int)classify4(a);
	if (inet_pton(AF_INET6, buf, a) == 1)
		return (int)classify6(a);
	return LB_EINVAL;
}

const char *ant_addr_kind_name(ant_addr_kind k)
{
	static const char *const name[] = {
		[ANT_ADDR_PUBLIC] = "public",
		[ANT_ADDR_THIS_NETWORK] = "this host, unspecified",
		[ANT_ADDR_LOOPBACK] = "loopback",
		[ANT_ADDR_PRIVATE] = "private, RFC 1918",
		[ANT_ADDR_SHARED] = "shared, RFC 6598 carrier-grade NAT",
		[ANT_ADDR_LINK_LOCAL] = "link-local",
		[ANT_ADDR_METADATA] = "link-local, cloud metadata service",
		[ANT_ADDR_UNIQUE_LOCAL] = "unique local, fc00::/7",
	};
	return (unsigned)k < sizeof name / sizeof *name ? name[k] : "internal";
}
