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
 * /etc/hosts pinning as the parent relays it: jb-netd
 * says what a container's block holds (IMSG_NETD_PIN), jb-incus writes
 * it (IMSG_INCUS_HOSTS), jb-netd hears how it went (IMSG_NETD_PINNED).
 */

#ifndef JAILBEED_NETPIN_H
#define JAILBEED_NETPIN_H

#include "jailbeed.h"

typedef void	(*netpin_cb)(void *, int ok, const char *err);

/* a PIN from jb-netd, to jb-incus; cb (may be NULL) hears the outcome */
void	netpin_relay(struct imsg *, netpin_cb, void *);
/* a PIN jb-netd sent unasked (peerid 0): -1 when malformed */
int	netpin_unasked(struct imsg *);
/*
 * ask jb-netd to resolve name's pool now and pin what it gets; cb (may
 * be NULL) hears once jb-netd has answered and every pin it sent is
 * written, or why not, and how many lines the last block pinned.
 * no_block: the container's /etc/hosts is known to have no block, so an
 * empty one is confirmed to jb-netd without reading the file.
 */
typedef void	(*netpin_refresh_cb)(void *, int ok, const char *err,
		    size_t lines);
void	netpin_refresh(const char *name, int no_block, netpin_refresh_cb,
	    void *);

#endif /* JAILBEED_NETPIN_H */
