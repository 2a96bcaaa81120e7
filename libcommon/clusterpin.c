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
 * Host paths on a cluster: a path is the member's where the suite runs
 * (cluster.member), so a container gets one only when it is pinned to
 * that member (new --target) and runs there.
 */

#include <stdio.h>
#include <string.h>

#include "clusterpin.h"

int
cluster_pin_check(const char *member, const char *target,
    const char *location, const char *what, const char *name, char *why,
    size_t len)
{
	if (member == NULL || member[0] == '\0')
		return 0;
	if (target == NULL || strcmp(target, member) != 0) {
		if (location == NULL)
			(void)snprintf(why, len, "%s: on a cluster a container "
			    "may run on any member, and this path is on member "
			    "%s only: add --target %s to new to pin %s there",
			    what, member, member, name);
		else if (target == NULL || target[0] == '\0')
			(void)snprintf(why, len, "%s: on a cluster a container "
			    "may run on any member, and this path is on member "
			    "%s only; %s was made without --target: make it "
			    "again with new --target %s", what, member, name,
			    member);
		else
			(void)snprintf(why, len, "%s: on a cluster a container "
			    "may run on any member, and this path is on member "
			    "%s only; %s is pinned to member %s: type it there, "
			    "or make it again with new --target %s", what,
			    member, name, target, member);
		return -1;
	}
	if (location != NULL && location[0] != '\0' &&
	    strcmp(location, "none") != 0 && strcmp(location, member) != 0) {
		(void)snprintf(why, len, "%s: this path is on member %s, and %s "
		    "runs on member %s: move it back to member %s first (incus "
		    "move %s --target %s)", what, member, name, location,
		    member, name, member);
		return -1;
	}
	return 0;
}
