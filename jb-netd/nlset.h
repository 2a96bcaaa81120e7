/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_NLSET_H
#define JB_NLSET_H

#include <stddef.h>
#include <stdint.h>

#include "refused.h"

/*
 * A set of refused flows, or of what the resolver admitted, read from
 * the kernel over netfilter's netlink socket, element by element as the
 * dump comes, instead of through a libnftables listing (which builds
 * every element as objects, then as text, megabytes for a full set).
 */

#define NLSET_GROW_MAX	(1 << 22)

/* the state of one dump: what nlset_parse adds to */
struct nlset_dump {
	struct refused_elem	*v;		/* max of them */
	size_t			 n;
	size_t			 max;		/* more are dropped */
	int			 grow;		/* or v grows instead */
	int			 toobig;	/* v could not grow */
	uint32_t		 seq;		/* of the request */
	int			 done;		/* NLMSG_DONE seen */
};

/*
 * Adds the elements of the netlink messages in buf (one read of the
 * socket) to d: a key ipv4 . ipv4 . protocol . port (or ipv4 . ipv4:
 * any protocol, port 0), its expiration and its counter's packets; an
 * element of another protocol than TCP or UDP is skipped.  0, or -1 with err set (the kernel's error, or a message
 * that does not parse).
 */
int	nlset_parse(struct nlset_dump *d, const void *buf, size_t len,
	    char *err, size_t errlen);

/*
 * set SET of table inet TABLE: at most max elements, *out NULL when none;
 * once max are held the rest of the dump is not read (max 1: is the set
 * empty?).  max 0: every element (up to NLSET_GROW_MAX, else an error).
 */
int	nlset_read(const char *table, const char *set, size_t max,
	    struct refused_elem **out, size_t *np, char *err, size_t errlen);

#endif /* JB_NLSET_H */
