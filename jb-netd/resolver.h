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
 * jb-netd's resolver (FEATURES N3, B2): every DNS packet a strict
 * container sends is redirected here.  A name the container's allowlist
 * admits (exact, or under a *.domain entry) is asked upstream; each IPv4
 * address of the answer goes into the container's kernel sets for the
 * record's TTL plus RESOLVER_GRACE seconds, and only then is the answer
 * sent back.  Every other name is answered NXDOMAIN and never leaves the
 * host, so DNS cannot tunnel out.  AAAA and other types of admitted
 * names get an empty answer: the container's IPv6 is dropped anyway.
 */

#ifndef JB_RESOLVER_H
#define JB_RESOLVER_H

#include <stdint.h>

#include <event2/event.h>

#include "netd_state.h"

#define RESOLVER_PORT	10053	/* on the bridge address; 53 is Incus's */
#define RESOLVER_GRACE	60	/* seconds an address outlives its TTL */

/*
 * Before the lock-down: bind UDP host:port, and set up the upstream
 * client from upstream ("" reads the host's /etc/resolv.conf).  st is
 * what jb-netd enforces now; it is read when each answer comes back.
 * 0, or -1 with a message in err.
 */
int	resolver_init(struct event_base *, uint32_t host, uint16_t port,
	    const char *upstream, const struct netd_state *st, char *err,
	    size_t errlen);
/* for status lines: the upstream in use */
const char *resolver_upstream(void);
/* the upstream client, for the pool's own questions (netd_pool.c) */
struct evdns_base *resolver_client(void);

#endif /* JB_RESOLVER_H */
