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
 * jb-netd's resolver: every DNS packet a strict
 * container sends is redirected here.  A name the container's allowlist
 * admits (exact, or under a *.domain entry) is asked upstream; each IPv4
 * address of the answer goes into the container's kernel sets for the
 * record's TTL plus RESOLVER_GRACE seconds, and the egress gateway is
 * told; only once it says it holds them too is the answer sent back (or
 * after RESOLVER_ADMIT_WAIT seconds without its word: its connections
 * are then refused until it does); an address in a range that is not public (privnet.h) is left
 * out unless the container's allowlist or resolver.private_networks
 * covers it, and an answer left with none is NXDOMAIN.  Every other
 * name is answered NXDOMAIN and never leaves the
 * host, so DNS cannot tunnel out.  AAAA and other types of admitted
 * names get an empty answer: the container's IPv6 is dropped anyway.
 */

#ifndef JB_RESOLVER_H
#define JB_RESOLVER_H

#include <stdint.h>

#include <event2/event.h>

#include "blocked.h"
#include "netd_state.h"

#define RESOLVER_PORT	10053	/* on the bridge address; 53 is Incus's */
#define RESOLVER_GRACE	60	/* seconds an address outlives its TTL */
/* questions waiting upstream: in all, and of one container */
#define RESOLVER_PENDING_MAX	256
#define RESOLVER_PENDING_CTR	32
/* answers kept, and for how long at most (seconds, and their TTL) */
#define RESOLVER_CACHE		256
#define RESOLVER_CACHE_TTL	300
/* an answer living less than this is asked again anyway: not kept */
#define RESOLVER_CACHE_MIN	5
/* seconds an answer waits for the gateway's word at most */
#define RESOLVER_ADMIT_WAIT	2

/*
 * Before the lock-down: bind UDP host:port, and set up the upstream
 * client from upstream ("" reads the host's /etc/resolv.conf), with
 * private_networks (NULL: none) the comma-separated A.B.C.D/N ranges an
 * answer may open although they are not public (privnet.h).  st is
 * what jb-netd enforces now; it is read when each answer comes back.
 * 0, or -1 with a message in err.
 */
int	resolver_init(struct event_base *, uint32_t host, uint16_t port,
	    const char *upstream, const char *private_networks,
	    const struct netd_state *st, char *err, size_t errlen);
/* for status lines: the upstream in use */
const char *resolver_upstream(void);
/* the names refused per container (net log, net suggest) */
extern struct blocked	resolver_blocked;
/*
 * the answers not admitted per container, "ADDR NAME": an address in a
 * range privnet.h keeps shut (net log, the audit journal)
 */
extern struct blocked	resolver_private;
/* may an answer's address a (host order) be admitted for c */
int	resolver_admissible(const struct netd_ctr *c, uint32_t a);
/*
 * Keep in addrs[0..n) (network order) the addresses an answer for name
 * may admit for c, in order; note and log the others.  Returns how many
 * are left.
 */
size_t	resolver_screen(const struct netd_ctr *c, const char *name,
	    uint32_t *addrs, size_t n);

/*
 * The cache of upstream answers, for the explicit proxy's names
 * (netd_proxy.c): the addresses (network order) of name while its
 * answer lives, 0 when none is kept; and an answer to keep.  What comes
 * out is still screened for the container that asked.
 */
int	resolver_cache_get(const char *name, uint32_t *addrs, int max);
void	resolver_cache_add(const char *name, const uint32_t *addrs, int n,
	    uint32_t ttl);

/*
 * The one decision both servers (UDP here, TCP in resolver_tcp.c) take
 * for a question: the container is the source address src (host order).
 * Returns the DNS response code to answer at once (REFUSED: no container
 * of ours; NXDOMAIN: a name its allowlist does not admit, never asked
 * upstream; NOERROR: an admitted name of a type other than A, an empty
 * answer; SERVFAIL: RESOLVER_PENDING_CTR of its questions, or
 * RESOLVER_PENDING_MAX in all, wait upstream already), or
 * RESOLVER_PENDING: name was asked upstream, and cb is called
 * from the event loop with the code and, for NOERROR, the addresses
 * (network order) once they are in the container's kernel sets.  *lp (if
 * lp is not NULL) is then the lookup, until cb runs or it is forgotten.
 */
#define RESOLVER_PENDING	(-1)
struct resolver_lookup;
typedef void (*resolver_cb)(int rcode, const char *name,
	    const uint32_t *addrs, int naddrs, int ttl, void *arg);
int	resolver_ask(uint32_t src, const char *name, int qtype,
	    resolver_cb cb, void *arg, struct resolver_lookup **lp);
/* the asker of a pending lookup is gone: its cb is never called */
void	resolver_forget(struct resolver_lookup *);
/* the egress gateway holds every admission up to ticket seq */
void	resolver_admitted(uint32_t seq);
/* 1 if the address a (host order) is a container jb-netd enforces */
int	resolver_is_container(uint32_t a);

/*
 * DNS over TCP (RFC 7766) on the same host:port as the UDP server,
 * bound and listening before the lock-down.  0, or -1 with err.
 */
int	resolver_tcp_init(struct event_base *, uint32_t host, uint16_t port,
	    char *err, size_t errlen);

#endif /* JB_RESOLVER_H */
