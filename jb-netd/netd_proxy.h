/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* jb-netd's answers to the explicit proxy's questions (netd_proxy.c) */

#ifndef JB_NETD_PROXY_H
#define JB_NETD_PROXY_H

#include "proc.h"

/* an EGRESS_RESOLVE: answered with EGRESS_RESOLVED, now or later */
void	netd_proxy_resolve(struct child *, struct imsg *);

#endif /* JB_NETD_PROXY_H */
