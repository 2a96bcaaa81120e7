/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/*
 * The IPv4 ranges the resolver never admits from a DNS answer on its
 * own: a name under an allowed wildcard is the container's to point
 * anywhere (a domain it controls can answer 169.254.169.254, the cloud
 * metadata service, or a host of the local network).  Such an address
 * is admitted only when an address or CIDR entry of the container's
 * allowlist covers it, or a range of resolver.private_networks in
 * jailbeed.yaml does.  Pure: no I/O.  IPv6 answers are never admitted
 * at all (the resolver answers AAAA questions empty).
 */

#ifndef JB_PRIVNET_H
#define JB_PRIVNET_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

#define PRIVNET_MAX	32	/* ranges in resolver.private_networks */

struct privnet {
	uint32_t	 net;		/* host order, host bits clear */
	uint32_t	 prefixlen;	/* 4-32 */
};

/*
 * The name of the range a (host order) is in when it is no public
 * address ("private", "loopback", "link-local", "CGNAT", "multicast",
 * "benchmark", "unspecified", "reserved"); NULL for a public address.
 */
const char	*privnet_range(uint32_t a);
/*
 * May the resolver admit a: public, or covered by an ADDR or CIDR entry
 * of e[0..ne) or by one of the ranges v[0..nv).  1 yes, 0 no.
 */
int		 privnet_admissible(uint32_t a, const struct egress_entry *e,
		    size_t ne, const struct privnet *v, size_t nv);
/*
 * Parse "A.B.C.D/N[,A.B.C.D/N...]" (jailbeed's -P to jb-netd) into
 * v[0..max): 0 with *n set, or -1 with why naming the bad range.
 */
int		 privnet_parse(const char *s, struct privnet *v, size_t max,
		    size_t *n, char *why, size_t whylen);

#endif /* JB_PRIVNET_H */
