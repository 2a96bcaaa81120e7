/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/* the cluster member new places a container on when not told */

#include <string.h>

#include "placepick.h"

int
place_automatic(const char *sched)
{
	return sched == NULL || sched[0] == '\0' || strcmp(sched, "all") == 0;
}

int
place_pick(const struct place_member *m, size_t n, const char *self)
{
	size_t	i;
	int	best = -1;

	for (i = 0; i < n; i++) {
		if (m[i].name == NULL || !m[i].online || !m[i].automatic ||
		    m[i].count < 0)
			continue;
		if (best == -1 || m[i].count < m[best].count ||
		    (m[i].count == m[best].count && self != NULL &&
		    strcmp(m[i].name, self) == 0))
			best = (int)i;
	}
	return best;
}
