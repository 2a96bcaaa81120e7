/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_PLACEPICK_H
#define JB_PLACEPICK_H

#include <stddef.h>

/* a cluster member as Incus lists it, and how many instances it runs */
struct place_member {
	const char	*name;
	int		 online;	/* status "Online" */
	int		 automatic;	/* scheduler.instance "all" or unset */
	long		 count;		/* instances on it; -1 not known */
};

/*
 * Where new places a container on a cluster when --target is not given,
 * as Incus's own placement does: among the members that are online and
 * take instances without being named (not scheduler.instance "manual" or
 * "group"), and whose count is known, the one with the fewest instances;
 * on a tie this member (self) first, as its start gate is made here at
 * creation, else the first listed.  Its index, or -1 when none qualifies.
 */
int	place_pick(const struct place_member *, size_t, const char *self);

/* scheduler.instance's value (NULL unset): placed on without a target */
int	place_automatic(const char *);

#endif /* JB_PLACEPICK_H */
