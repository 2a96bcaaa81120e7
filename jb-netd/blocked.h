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
 * What the resolver refused: per
 * container, each name it answered NXDOMAIN because no entry allows it,
 * with a count and when it was first and last asked.  The container
 * chooses every byte of a name and may ask as fast as it can, so the
 * table is bounded: at most BLOCKED_MAX entries in all, the least
 * recently asked one giving way to a new one; a name that is not a
 * plain DNS name is counted as BLOCKED_ODD.  jb-netd keeps a second
 * table of the same kind for refused connections (blocked_add).  The
 * hash chains are keyed with a random key (SipHash), so names cannot be
 * chosen to collide.  No I/O, no clock.
 */

#ifndef JB_BLOCKED_H
#define JB_BLOCKED_H

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"
#include "policy.h"

#define BLOCKED_MAX	4096
#define BLOCKED_HASH	8192	/* chains, a power of two */
#define BLOCKED_ODD	"(not a DNS name)"

struct blocked_entry {
	char		ctr[JB_INSTANCE_MAX];
	char		what[EGRESS_NAME_MAX + 1];
	uint64_t	count;
	int64_t		first;
	int64_t		last;
	uint64_t	fresh;		/* counted since the last summary */
	int32_t		hnext;		/* the next of its hash chain, -1 */
	int32_t		newer, older;	/* the recency list, -1 at its ends */
};

struct blocked {
	struct blocked_entry	*v;	/* BLOCKED_MAX once the first note */
	size_t			 n;
	uint64_t		 evicted;	/* entries that gave way */
	int32_t			*head;	/* BLOCKED_HASH chains, -1 empty */
	int32_t			 newest, oldest;	/* -1 when empty */
	uint8_t			 key[16];	/* the chains' hash key */
};

/*
 * ctr asked for name at now and was refused.  1 a new entry, 0 one
 * counted again, -1 out of memory (nothing noted).
 */
int	blocked_note(struct blocked *, const char *ctr, const char *name,
	    int64_t now);
/*
 * The same for any key what, taken as it is (truncated to fit), counted
 * count times between first and last: a connection's "ADDR:PORT/PROTO"
 * as jb-netd read it from the kernel.  Nothing when count is 0.
 */
int	blocked_add(struct blocked *, const char *ctr, const char *what,
	    uint64_t count, int64_t first, int64_t last);
/*
 * ctr's refusals since the last summary (count in all, distinct names,
 * the most asked and its count), which starts a new one.  A refusal
 * whose entry gave way before the summary is not in it.
 */
struct blocked_sum {
	uint64_t	count;
	uint64_t	distinct;
	char		top[EGRESS_NAME_MAX + 1];
	uint64_t	topcount;
};
void	blocked_summary(struct blocked *, const char *ctr,
	    struct blocked_sum *);
/* drop ctr's entries; how many went */
size_t	blocked_forget(struct blocked *, const char *ctr);
void	blocked_free(struct blocked *);

#endif /* JB_BLOCKED_H */
