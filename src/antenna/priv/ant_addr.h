/*
 * ant_addr.h: which network addresses are internal, the one decision
 * behind "may the antenna connect there" (fetch.c asks it for every
 * connection it opens or reuses).
 *
 * A page, a redirect, a feed link or a source's archive link could
 * otherwise make the antenna read a server that only it can reach (a
 * router's admin page, a cloud's metadata service at 169.254.169.254)
 * and publish its title and text.  Internal, for IPv4 and the same
 * addresses written as IPv4-mapped IPv6 (::ffff:a.b.c.d):
 *   0.0.0.0/8        "this network" (0.0.0.0 reaches the host itself)
 *   10/8, 172.16/12, 192.168/16   private (RFC 1918)
 *   100.64/10        shared address space (RFC 6598, carrier-grade NAT)
 *   127/8            loopback
 *   169.254/16       link-local (RFC 3927), cloud metadata services
 * and for IPv6: :: (unspecified), ::1 (loopback), fc00::/7 (unique local,
 * RFC 4193), fe80::/10 (link-local).  Everything else is public.
 * Pure: no I/O, no name resolution.
 */
#ifndef ANT_ADDR_H
#define ANT_ADDR_H

#include <sys/socket.h>

typedef enum {
	ANT_ADDR_PUBLIC = 0,
	ANT_ADDR_THIS_NETWORK,   /* 0.0.0.0/8, :: */
	ANT_ADDR_LOOPBACK,       /* 127/8, ::1 */
	ANT_ADDR_PRIVATE,        /* RFC 1918 */
	ANT_ADDR_SHARED,         /* 100.64/10, RFC 6598 */
	ANT_ADDR_LINK_LOCAL,     /* 169.254/16 but the next, fe80::/10 */
	ANT_ADDR_METADATA,       /* 169.254.169.254, the clouds' metadata service */
	ANT_ADDR_UNIQUE_LOCAL,   /* fc00::/7 */
} ant_addr_kind;

/* The kind of sa (AF_INET or AF_INET6; any other family is
 * ANT_ADDR_PUBLIC: the caller connects only to those two). */
ant_addr_kind ant_addr_classify(const struct sockaddr *sa);

/* The kind of an address written as text ("10.0.0.1", "::ffff:127.0.0.1",
 * "[fe80::1]" with or without brackets); LB_EINVAL when text is no IP address
 * (a host name). */
int ant_addr_classify_text(const char *text);

/* A short phrase for messages: "loopback", "private, RFC 1918", ... */
const char *ant_addr_kind_name(ant_addr_kind k);

#endif
