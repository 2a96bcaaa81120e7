/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_NETGRANT_H
#define JAILBEED_NETGRANT_H

#include <stdint.h>

#include "jailbeed.h"

/* granted: the mode was changed (net_grant_end is then due) */
typedef void	(*netgrant_cb)(struct job *, int ok, int granted,
		    const char *err);

/*
 * Container name loose until deadline (seconds since the epoch, never
 * 0) for one step; cb once jb-netd has done it or could not.  A
 * container loose already, without a deadline or past this one, is left
 * as it is: ok, not granted.
 */
void	net_grant(struct job *, const char *name, int64_t deadline,
	    netgrant_cb);
/*
 * The step is over: strict again.  When jb-netd cannot make it strict
 * the container is stopped (fail closed) and cb says so.
 */
void	net_grant_end(struct job *, const char *name, netgrant_cb);

#endif /* JAILBEED_NETGRANT_H */
