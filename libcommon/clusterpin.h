/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_CLUSTERPIN_H
#define JB_CLUSTERPIN_H

#include <stddef.h>

/*
 * May a host path of this machine be attached to a container?  On a
 * cluster (member, cluster.member, not "") a container may run on any
 * member, and the path is this member's only: yes when the container is
 * pinned here (target, new --target, is member) and, once it exists
 * (location not NULL), runs here (location is member; "" or "none"
 * when Incus is not clustered, where every container is here).  Not a
 * cluster: always.  0 yes; -1 with why saying what to do, naming the
 * member that has the path; what names the path ("--mount", "host_mounts
 * /srv/data"), name the container.
 */
int	cluster_pin_check(const char *member, const char *target,
	    const char *location, const char *what, const char *name,
	    char *why, size_t len);

#endif /* JB_CLUSTERPIN_H */
