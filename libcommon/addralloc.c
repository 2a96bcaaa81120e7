/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addralloc.h"

/* why an address is not given; a later mark never lowers one */
enum addr_state {
	ADDR_FREE = 0,
	ADDR_LEASED,		/* a lease dnsmasq remembers, nobody's */
	ADDR_HELD,		/* an instance's */
	ADDR_DHCP,		/* dnsmasq's to lease */
	ADDR_RESERVED		/* network, broadcast, the bridge itself */
};

static uint32_t
mask_of(uint32_t prefixlen)
{
	return prefixlen == 0 ? 0 : 0xffffffffU << (32 - prefixlen);
}

static void
fmt_addr(uint32_t a, char *buf, size_t len)
{
	struct in_addr	in;

	in.s_addr = htonl(a);
	if (inet_ntop(AF_INET, &in, buf, len) == NULL)
		(void)strlcpy(buf, "?", len);
}

int
addr_cidr_parse(const char *s, int hostok, uint32_t min, uint32_t max,
    uint32_t *addr, uint32_t *prefixlen, char *why, size_t whylen)
{
	struct in_addr	 in;
	const char	*slash, *p;
	char		 quad[INET_ADDRSTRLEN], back[INET_ADDRSTRLEN];
	uint32_t	 a, n = 0;
	size_t		 len;

	if ((slash = strchr(s, '/')) == NULL ||
	    (len = (size_t)(slash - s)) >= sizeof(quad))
		goto form;
	memcpy(quad, s, len);
	quad[len] = '\0';
	/* a dotted quad exactly as inet_ntop(3) writes it */
	if (inet_pton(AF_INET, quad, &in) != 1 ||
	    inet_ntop(AF_INET, &in, back, sizeof(back)) == NULL ||
	    strcmp(quad, back) != 0)
		goto form;
	p = slash + 1;
	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] != '\0'))
		goto form;
	for (; *p >= '0' && *p <= '9' && n <= 32; p++)
		n = n * 10 + (uint32_t)(*p - '0');
	if (*p != '\0' || n > 32)
		goto form;
	if (n < min || n > max) {
		(void)snprintf(why, whylen, "/%u is outside /%u to /%u "
		    "(a /%u holds %u addresses, a /%u %u)", n, min, max,
		    max, 1U << (32 - max), min, 1U << (32 - min));
		return -1;
	}
	a = ntohl(in.s_addr);
	if (!hostok && (a & ~mask_of(n)) != 0) {
		fmt_addr(a & mask_of(n), back, sizeof(back));
		(void)snprintf(why, whylen, "host bits are set: the subnet "
		    "is %s/%u", back, n);
		return -1;
	}
	*addr = a;
	*prefixlen = n;
	return 0;
 form:
	(void)snprintf(why, whylen, "not a subnet A.B.C.D/N (e.g. %s)",
	    ADDR_SUBNET_DEFAULT);
	return -1;
}

static void
mark(const struct addr_pool *p, uint32_t a, enum addr_state st)
{
	uint32_t	i;

	if ((a & mask_of(p->prefixlen)) != p->net)
		return;
	i = a - p->net;
	if (p->state[i] < st)
		p->state[i] = st;
}

int
addr_pool_init(struct addr_pool *p, uint32_t host, uint32_t prefixlen,
    char *why, size_t whylen)
{
	char	buf[INET_ADDRSTRLEN];

	memset(p, 0, sizeof(*p));
	fmt_addr(host, buf, sizeof(buf));
	if (prefixlen < ADDR_PREFIX_MIN || prefixlen > ADDR_PREFIX_MAX) {
		(void)snprintf(why, whylen, "subnet %s/%u: containers get "
		    "addresses in a /%u to a /%u", buf, prefixlen,
		    ADDR_PREFIX_MIN, ADDR_PREFIX_MAX);
		return -1;
	}
	p->prefixlen = prefixlen;
	p->net = host & mask_of(prefixlen);
	p->size = 1U << (32 - prefixlen);
	if (host == p->net || host == p->net + p->size - 1) {
		(void)snprintf(why, whylen, "%s/%u is not a host address of "
		    "its subnet", buf, prefixlen);
		return -1;
	}
	if ((p->state = calloc(p->size, 1)) == NULL) {
		(void)snprintf(why, whylen, "out of memory");
		return -1;
	}
	mark(p, p->net, ADDR_RESERVED);
	mark(p, p->net + p->size - 1, ADDR_RESERVED);
	mark(p, host, ADDR_RESERVED);
	return 0;
}

void
addr_pool_free(struct addr_pool *p)
{
	free(p->state);
	p->state = NULL;
}

void
addr_pool_dhcp(struct addr_pool *p, uint32_t first, uint32_t last)
{
	uint32_t	bcast = p->net + p->size - 1;

	if (first > last || last < p->net || first > bcast)
		return;
	if (first < p->net)
		first = p->net;
	if (last > bcast)
		last = bcast;
	for (;; first++) {
		mark(p, first, ADDR_DHCP);
		if (first == last)
			break;
	}
}

void
addr_pool_held(struct addr_pool *p, uint32_t a)
{
	mark(p, a, ADDR_HELD);
}

void
addr_pool_leased(struct addr_pool *p, uint32_t a)
{
	mark(p, a, ADDR_LEASED);
}

int
addr_pool_pick(const struct addr_pool *p, const char *bridge,
    const char *conf, uint32_t *a, char *why, size_t whylen)
{
	return addr_pool_pick_below(p, 0, bridge, conf, a, why, whylen);
}

/*
 * The first free address below `below' going down, wrapping round to the
 * top (below 0, or outside the subnet: from the top).  Each new starts
 * below the last one picked, so an address a deleted container just gave
 * back is the last to be taken again: dnsmasq gives no MAC an address
 * still leased to another, and a lease Incus could not release outlives
 * its container until it expires.
 */
int
addr_pool_pick_below(const struct addr_pool *p, uint32_t below,
    const char *bridge, const char *conf, uint32_t *a, char *why,
    size_t whylen)
{
	uint32_t	i, k, start, nstatic = 0, nleased = 0;
	char		buf[INET_ADDRSTRLEN], lease[128];

	start = below > p->net && below - p->net < p->size ?
	    below - p->net : p->size;
	for (k = 1; k <= p->size; k++) {
		i = (start + p->size - k) % p->size;
		if (p->state[i] == ADDR_FREE) {
			*a = p->net + i;
			return 0;
		}
		if (p->state[i] <= ADDR_HELD)
			nstatic++;
		if (p->state[i] == ADDR_LEASED)
			nleased++;
	}
	fmt_addr(p->net, buf, sizeof(buf));
	if (nstatic == 0)
		(void)snprintf(why, whylen, "bridge %s leases every address "
		    "of %s/%u by DHCP, so none is left for containers: narrow "
		    "its ipv4.dhcp.ranges to a low part (regress/incus-up "
		    "does)", bridge, buf, p->prefixlen);
	else {
		lease[0] = '\0';
		if (nleased > 0)
			(void)snprintf(lease, sizeof(lease), " (%u of them by "
			    "leases dnsmasq keeps for deleted containers "
			    "until they expire)", nleased);
		(void)snprintf(why, whylen, "no free address left in %s/%u "
		    "on bridge %s: all %u outside its DHCP range are held%s; "
		    "choose a larger network.subnet in %s", buf, p->prefixlen,
		    bridge, nstatic, lease, conf);
	}
	return -1;
}
