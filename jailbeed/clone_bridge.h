/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_CLONE_BRIDGE_H
#define JAILBEED_CLONE_BRIDGE_H

#include "jailbeed.h"

/* where the bundle lands in the container, the dev user's, until cloned */
#define CLONE_BUNDLE_PATH	"/home/dev/.jailbee-clone.bundle"

/* ok 1: the bundle is in the container; else err says why */
typedef void	(*clone_bridge_cb)(struct job *, int ok, const char *err);

/*
 * On a cluster: jb-gitd writes `git bundle create` of the host branch
 * of the checkout at toplevel into the stdin of an Incus exec in the
 * container name, which stores it at CLONE_BUNDLE_PATH as the dev user;
 * cb once both are done.
 */
void	clone_bridge(struct job *, const char *name, const char *toplevel,
	    const char *branch, clone_bridge_cb);

#endif /* JAILBEED_CLONE_BRIDGE_H */
