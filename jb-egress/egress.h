/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* What jb-egress's files share (jb-egress.c: start, policy; conn.c) */

#ifndef JB_EGRESS_H
#define JB_EGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "proc.h"

#define CONNS_PER_CTR		1024	/* open connections of one container */
#define FDS_PER_CONN		6	/* two sockets, two pipes */
#define FDS_SPARE		64	/* the channel, the listener, logging */

struct egress_stats {
	uint64_t	admitted;
	uint64_t	refused;
	size_t		open;
};

extern struct egress_stats	stats;
extern struct child		*chld;
/* connections held at most, the proxy's too (conn_limits) */
extern size_t			conns_max;

/* conn.c */
/* as many connections as the descriptors allow (RLIMIT_NOFILE) */
void	conn_limits(void);
void	conn_listen(int fd);
/* the parent handed over the secrets connection id waited for */
void	conn_fresh(uint32_t id);
/* the parent asked to read ctr's secrets again; the id its answer has */
uint32_t conn_fresh_ask(const char *ctr);
void	conn_refused(const char *ctr, const char *host, uint32_t dst,
	    uint16_t port, const char *why, int fixable);

/* proxy.c: the explicit proxy */
struct jb_egress_resolved;
/* the ports it may reach (the gateway's) */
void	proxy_init(const uint16_t *ports, size_t nports);
void	proxy_listen(int fd);
void	proxy_resolved(const struct jb_egress_resolved *);
size_t	proxy_open(void);
/* the secrets of the connection that asked as id are current */
void	proxy_fresh(uint32_t id);

#endif /* JB_EGRESS_H */
