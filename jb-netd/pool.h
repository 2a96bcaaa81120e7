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
 * The cumulative pool: every address upstream answered for
 * a container's exact allowed names, with when it was first and last
 * seen.  CDNs rotate addresses faster than clients forget them; keeping
 * recent answers admitted (and pinned in /etc/hosts) lets a client that
 * cached an older answer still connect.  Its durable form is the file
 * <state_dir>/netd/pool, one line per entry,
 *
 *	CONTAINER NAME IPV4 FIRST LAST
 *
 * FIRST and LAST in seconds since the epoch.  Lines starting with '#'
 * and empty lines are skipped.  Pure: no I/O, no clock.
 */

#ifndef JB_POOL_H
#define JB_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"
#include "policy.h"

#define POOL_WINDOW	(24 * 60 * 60)	/* an answer is kept this long */
#define POOL_PER_NAME	20		/* addresses kept per name */
#define POOL_MAX	100000		/* entries in all */

struct pool_entry {
	char		ctr[JB_INSTANCE_MAX];
	char		name[EGRESS_NAME_MAX + 1];
	uint32_t	addr;			/* host byte order */
	int64_t		first;
	int64_t		last;
};

struct pool {
	struct pool_entry	*v;
	size_t			 n;
	size_t			 cap;
};

/*
 * Record that name answered addr for ctr at now.  1 a new entry, 0 one
 * seen before (its last moves on), -1 out of memory or the pool full.
 */
int	pool_upsert(struct pool *, const char *ctr, const char *name,
	    uint32_t addr, int64_t now);
/*
 * For a name that answered at now: drop its entries of ctr last seen
 * more than POOL_WINDOW before now, then beyond POOL_PER_NAME the least
 * recently seen.  Only names that answered are evicted, so an upstream
 * outage never empties the pool.  Returns how many went.
 */
size_t	pool_evict(struct pool *, const char *ctr, const char *name,
	    int64_t now);
/* drop ctr's entries; with name, only that name's.  Returns how many */
size_t	pool_forget(struct pool *, const char *ctr, const char *name);
/*
 * Drop ctr's entries whose name no NAME entry of e[] allows any more
 * (the allowlist changed).  Returns how many went.
 */
size_t	pool_prune(struct pool *, const char *ctr,
	    const struct egress_entry *e, size_t n);
/*
 * ctr's block lines ("ADDR NAME\n", hostspin.h), ordered by name, then
 * address, so the text changes only when the set of entries does.  NULL
 * out of memory; "" when ctr has none.  To be freed.
 */
char	*pool_pin(const struct pool *, const char *ctr);
void	pool_free(struct pool *);

/*
 * Parse the file's text.  All or nothing: -1 and "NAME:LINE: what is
 * wrong" in err, *p untouched.
 */
int	pool_parse(const char *fname, const char *buf, size_t len,
	    struct pool *p, char *err, size_t errlen);
/* the file's text, to be freed; NULL out of memory */
char	*pool_fmt(const struct pool *);

#endif /* JB_POOL_H */
