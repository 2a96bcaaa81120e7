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
 * Container addresses on the suite's bridge.  A container gets a fixed
 * address, and dnsmasq on the bridge leases addresses to DHCP clients, so
 * the two must never meet: a fixed address comes from outside every DHCP
 * range, and never one that any Incus instance holds (in its config or
 * by a lease) nor one dnsmasq still remembers a lease for (dnsmasq would
 * not hand it to its new owner).  Of what is left, the highest address.
 *
 * Pure: the parent fills a pool with what jb-incus reports and picks.
 * Addresses are in host byte order.
 */

#ifndef JB_ADDRALLOC_H
#define JB_ADDRALLOC_H

#include <stddef.h>
#include <stdint.h>

/* the subnets the pool takes: /16 is 65536 addresses, one byte each */
#define ADDR_PREFIX_MIN		16
#define ADDR_PREFIX_MAX		30
/* network.subnet in jailbeed.yaml: what regress/incus-up can lay out */
#define ADDR_SUBNET_MIN		16
#define ADDR_SUBNET_MAX		24
#define ADDR_SUBNET_DEFAULT	"10.213.0.0/24"

struct addr_pool {
	uint32_t	 net;		/* host bits clear */
	uint32_t	 prefixlen;
	uint32_t	 size;		/* addresses in the subnet */
	uint8_t		*state;		/* enum addr_state, one per address */
};

/*
 * "A.B.C.D/N" with host bits clear, N in [min, max]: 0, or -1 with why.
 * Used for network.subnet and for the bridge's own address (host bits
 * allowed there: hostok).
 */
int	addr_cidr_parse(const char *, int hostok, uint32_t min, uint32_t max,
	    uint32_t *addr, uint32_t *prefixlen, char *why, size_t whylen);
/*
 * The subnet of the bridge whose own address is host/prefixlen.
 * -1 with why when the prefix is outside ADDR_PREFIX_MIN..MAX or host is
 * not a host address of it.
 */
int	addr_pool_init(struct addr_pool *, uint32_t host, uint32_t prefixlen,
	    char *why, size_t whylen);
void	addr_pool_free(struct addr_pool *);
/* dnsmasq leases from first..last (clipped to the subnet) */
void	addr_pool_dhcp(struct addr_pool *, uint32_t first, uint32_t last);
/* an instance has a in its config, or as its current lease */
void	addr_pool_held(struct addr_pool *, uint32_t a);
/* dnsmasq remembers a lease of a for a client that is no instance */
void	addr_pool_leased(struct addr_pool *, uint32_t a);
/*
 * The highest address nobody holds outside the DHCP ranges: 0 and *a,
 * or -1 with why (what fills the subnet, and the key to change:
 * network.subnet in conf) when there is none.
 */
int	addr_pool_pick(const struct addr_pool *, const char *bridge,
	    const char *conf, uint32_t *a, char *why, size_t whylen);
/* the same, the first free one below `below', round from the top */
int	addr_pool_pick_below(const struct addr_pool *, uint32_t below,
	    const char *bridge, const char *conf, uint32_t *a, char *why,
	    size_t whylen);

#endif /* JB_ADDRALLOC_H */
