/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdio.h>
#include <string.h>

#include "addralloc.h"
#include "privnet.h"

/* RFC 6890's special-purpose ranges a DNS answer must not open alone */
static const struct {
	uint32_t	 net;
	uint32_t	 prefixlen;
	const char	*what;
} ranges[] = {
	{ 0x00000000, 8, "unspecified" },	/* 0.0.0.0/8 */
	{ 0x0a000000, 8, "private" },		/* 10.0.0.0/8 */
	{ 0x64400000, 10, "CGNAT" },		/* 100.64.0.0/10 */
	{ 0x7f000000, 8, "loopback" },		/* 127.0.0.0/8 */
	{ 0xa9fe0000, 16, "link-local" },	/* 169.254.0.0/16 */
	{ 0xac100000, 12, "private" },		/* 172.16.0.0/12 */
	{ 0xc0000000, 24, "reserved" },		/* 192.0.0.0/24 */
	{ 0xc0a80000, 16, "private" },		/* 192.168.0.0/16 */
	{ 0xc6120000, 15, "benchmark" },	/* 198.18.0.0/15 */
	{ 0xe0000000, 4, "multicast" },		/* 224.0.0.0/4 */
	{ 0xf0000000, 4, "reserved" },		/* 240.0.0.0/4, broadcast */
};

static int
covers(uint32_t net, uint32_t prefixlen, uint32_t a)
{
	uint32_t	mask;

	if (prefixlen == 0)
		return 1;
	mask = prefixlen >= 32 ? 0xffffffffU : ~(0xffffffffU >> prefixlen);
	return (a & mask) == (net & mask);
}

const char *
privnet_range(uint32_t a)
{
	size_t	i;

	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (covers(ranges[i].net, ranges[i].prefixlen, a))
			return ranges[i].what;
	return NULL;
}

int
privnet_admissible(uint32_t a, const struct egress_entry *e, size_t ne,
    const struct privnet *v, size_t nv)
{
	size_t	i;

	if (privnet_range(a) == NULL)
		return 1;
	for (i = 0; i < ne; i++)
		if ((e[i].kind == EGRESS_ADDR || e[i].kind == EGRESS_CIDR) &&
		    covers(e[i].addr, e[i].prefixlen, a))
			return 1;
	for (i = 0; i < nv; i++)
		if (covers(v[i].net, v[i].prefixlen, a))
			return 1;
	return 0;
}

int
privnet_parse(const char *s, struct privnet *v, size_t max, size_t *n,
    char *why, size_t whylen)
{
	char		 one[32], e[128];
	const char	*p = s, *comma;
	size_t		 len;

	*n = 0;
	while (*p != '\0') {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (len >= sizeof(one) || *n >= max) {
			(void)snprintf(why, whylen, "resolver.private_networks: "
			    "at most %zu ranges of A.B.C.D/N", max);
			return -1;
		}
		memcpy(one, p, len);
		one[len] = '\0';
		if (addr_cidr_parse(one, 0, 4, 32, &v[*n].net,
		    &v[*n].prefixlen, e, sizeof(e)) == -1) {
			(void)snprintf(why, whylen, "resolver.private_networks: "
			    "%s: %s", one, e);
			return -1;
		}
		(*n)++;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}
