/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_GUARDHOST_H
#define JAILBEED_GUARDHOST_H

#include "guardtips.h"
#include "jailbeed.h"

/*
 * destroy's guard of a clone made through the git bridge: jb-gitd says
 * which tips are commits of the checkout at toplevel; have: bit i for
 * tips[i].  ok 0: err says why.
 */
typedef void	(*guardhost_cb)(struct job *, int ok, uint64_t have,
		    const char *err);
void	guard_host_has(struct job *, const char *toplevel,
	    const struct guard_tip *, size_t, guardhost_cb);

#endif /* JAILBEED_GUARDHOST_H */
