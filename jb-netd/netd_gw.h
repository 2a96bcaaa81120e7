/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* jb-netd's word to the egress gateway (netd_gw.c) */

#ifndef JB_NETD_GW_H
#define JB_NETD_GW_H

#include "blocked.h"
#include "netd_state.h"
#include "proc.h"

/* from now on, tell the gateway through c's channel */
void	netd_gw_init(struct child *c);
/*
 * every container's name entries, as one snapshot, sent after the
 * handler running now has answered (st must outlive that)
 */
void	netd_gw_push(const struct netd_state *);
/*
 * What the gateway refused, per container, as net log's "name" lines:
 * "HOST:PORT" (or "ADDR:PORT" when no name was read) and why.
 */
extern struct blocked	netd_gw_refused;
void	netd_gw_refusal(struct child *, struct imsg *);
void	netd_gw_admitted(struct child *, struct imsg *);
/* the entry that would admit a refusal the gateway counted, or "" */
void	netd_gw_allow(const struct blocked_entry *, char *, size_t);

#endif /* JB_NETD_GW_H */
