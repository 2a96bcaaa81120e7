/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdint.h>
#include <stdio.h>

#include "nicname.h"

void
jb_nic_ifname(uint32_t addr, char *buf, size_t len)
{
	(void)snprintf(buf, len, JB_NIC_IFNAME_PREFIX "%08x", (unsigned)addr);
}

void
jb_nic_mac(uint32_t addr, char *buf, size_t len)
{
	(void)snprintf(buf, len, "0a:6a:%02x:%02x:%02x:%02x",
	    (unsigned)(addr >> 24), (unsigned)(addr >> 16 & 0xff),
	    (unsigned)(addr >> 8 & 0xff), (unsigned)(addr & 0xff));
}
