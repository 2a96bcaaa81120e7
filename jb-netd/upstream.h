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
 * jb-netd's own DNS client, for the questions the resolver and the pool
 * ask upstream.  What it takes as an answer decides what enters the
 * kernel's allowlist, so a forger off the path must not be able to slip
 * one in: every query goes out from a new UDP socket bound to a random
 * source port and connected to the upstream (the kernel then drops
 * datagrams from any other address or port), with a random id, and the
 * name's letters in random case (DNS 0x20); a reply that does not echo
 * id and question byte for byte is ignored and the query keeps waiting.
 * A query not answered in UPSTREAM_WAIT seconds is sent again from a new
 * socket, port and id to the next nameserver, UPSTREAM_TRIES times in
 * all.  A with class IN only.
 */

#ifndef JB_UPSTREAM_H
#define JB_UPSTREAM_H

#include <stdint.h>

#include <event2/event.h>

#define UPSTREAM_SERVERS	3	/* as many as resolv.conf(5) takes */
#define UPSTREAM_WAIT		2	/* seconds per try */
#define UPSTREAM_TRIES		3
#define UPSTREAM_ADDRS		64	/* A records taken from one answer */

/*
 * The upstream: one IPv4 address (resolver.upstream), or NULL/"" for the
 * nameservers of /etc/resolv.conf (read now, before the lock-down).  0,
 * or -1 with err; no nameserver at all is not an error
 * (upstream_count() is then 0, and every question fails).
 */
int	upstream_init(struct event_base *, const char *upstream,
	    char *err, size_t errlen);
int	upstream_count(void);
/*
 * The answer to a question: rcode (DNSWIRE_NOERROR with naddrs addresses
 * in network order and their least ttl, DNSWIRE_NXDOMAIN, or
 * DNSWIRE_SERVFAIL for anything else, no answer in time included).
 */
typedef void (*upstream_cb)(int rcode, const uint32_t *addrs, int naddrs,
	    uint32_t ttl, void *arg);
/* ask name (A, IN); cb is called from the event loop.  0, or -1 */
int	upstream_ask(const char *name, upstream_cb cb, void *arg);
/* questions waiting for an answer now */
size_t	upstream_pending(void);

#endif /* JB_UPSTREAM_H */
