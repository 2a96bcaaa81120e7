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
 * The connection attempts a strict chain refused, per container.  The
 * kernel counts them in one of two bounded sets (nftgen.h); every
 * REFUSED_DRAIN_SECS, and before anything reads them, jb-netd points
 * the counting rule at the other set, reads the one it left, empties
 * it, and adds what it held to netd_refused, a table as bounded as the
 * resolver's refused names (blocked.h), keyed "ADDR:PORT/PROTO".  Only
 * TCP and UDP are counted: an entry with a port admits nothing else.
 */

#ifndef JB_NETD_REFUSED_H
#define JB_NETD_REFUSED_H

#include <stdint.h>

#include "blocked.h"
#include "netd_state.h"

#include "testhook.h"

/* seconds between drains: shorter with the test switch on */
#define REFUSED_DRAIN_SECS	jb_test_secs(5, 2)

extern struct blocked	netd_refused;

/*
 * Move what the kernel counted into netd_refused; st names the
 * containers by address (an attempt from any other address is
 * dropped).  0, or -1 with a warning logged (the counts stay in the
 * kernel for the next try, or are lost if the set was emptied).
 */
int	netd_refused_drain(const struct netd_state *st, int64_t now);

#endif /* JB_NETD_REFUSED_H */
