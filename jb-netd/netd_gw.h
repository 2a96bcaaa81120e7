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

#include "netd_state.h"
#include "proc.h"

/* from now on, tell the gateway through c's channel */
void	netd_gw_init(struct child *c);
/* every container's name entries, as one snapshot */
void	netd_gw_push(const struct netd_state *);

#endif /* JB_NETD_GW_H */
