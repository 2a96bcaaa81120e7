/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_NETD_CT_H
#define JB_NETD_CT_H

#include <stdint.h>

/* delete every IPv4 conntrack entry of addr (host order); 0 or -1 */
int	netd_ct_flush(uint32_t addr);

#endif /* JB_NETD_CT_H */
