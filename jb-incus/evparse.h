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
 * One message of Incus's event stream (JSON text): 0 and the instance's
 * name and lifecycle action when it is an instance's own event
 * (type lifecycle, action instance-*, source /1.0/instances/NAME with at
 * most a ?query), or a cluster member's name and cluster-member-updated
 * (source /1.0/cluster/members/NAME), the name one name_instance_ok()
 * takes and the action [a-z-] that fits; EVPARSE_NETWORK, nothing
 * copied, when it is any network's lifecycle event (action network-*,
 * source /1.0/networks/...), whatever the network's name; -1 for
 * anything else.  Pure.
 */

#ifndef JB_EVPARSE_H
#define JB_EVPARSE_H

#include <stddef.h>

#define EVPARSE_NETWORK	1

int	evparse(const char *text, char *name, size_t namelen, char *action,
	    size_t actionlen);

#endif /* JB_EVPARSE_H */
