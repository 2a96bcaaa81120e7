/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "netd_nft.h"
#include "netd_notice.h"
#include "netd_refused.h"
#include "nlset.h"
#include "memtrim.h"
#include "nftgen.h"
#include "refused.h"

#define T	"inet " NFTGEN_TABLE

struct blocked		 netd_refused;
static int		 counting;	/* the set the rule was last put on */
static int64_t		 last_drain;

static const struct netd_ctr *
by_addr(const struct netd_state *st, uint32_t a)
{
	size_t	i;

	for (i = 0; i < st->n; i++)
		if (st->v[i].addr == a)
			return &st->v[i];
	return NULL;
}

/* 1 if set refused<which> holds no element (and could be read) */
static int
set_empty(int which)
{
	struct refused_elem	*v;
	char			 err[512], name[32];
	size_t			 n;

	(void)snprintf(name, sizeof(name), NFTGEN_REFUSED_SET "%d", which);
	if (nlset_read(NFTGEN_TABLE, name, 1, &v, &n, err, sizeof(err)) == -1)
		return 0;
	free(v);
	return n == 0;
}

int
netd_refused_drain(const struct netd_state *st, int64_t now)
{
	struct refused_elem	*v;
	const struct netd_ctr	*c;
	char			*swap, err[512], cmd[128], what[REFUSED_WHAT_MAX];
	size_t			 i, n;
	int64_t			 last, first;
	int			 from, bad = 0;

	/*
	 * Both sets empty, as at rest: nothing to move, and no command.  A
	 * swap goes through libnftables, which first reads every table's
	 * chains and sets into its cache: megabytes with many containers,
	 * every few seconds, for nothing.  Each set is looked at, not only
	 * the one this believes counts: a full apply may have moved the
	 * rule.  A set that cannot be read is swapped and read as before.
	 */
	if (set_empty(0) && set_empty(1)) {
		last_drain = now;
		return 0;
	}
	/*
	 * The rule counts into the other set from here on, so the one read
	 * below gets nothing more while it is read and emptied.  A full
	 * apply puts the rule on set 0 whatever this believed: then this
	 * reads set 1, which the rule had left, and the next drain set 0.
	 */
	counting = !counting;
	from = !counting;
	if (nftgen_refuse_swap(counting, &swap) == -1) {
		log_warnx("refused flows: out of memory");
		return -1;
	}
	if (netd_nft_run(swap, err, sizeof(err)) == -1) {
		free(swap);
		log_warnx("refused flows: cannot swap sets: %s", err);
		return -1;
	}
	free(swap);
	/* element by element from the kernel: a listing would be megabytes */
	(void)snprintf(cmd, sizeof(cmd), NFTGEN_REFUSED_SET "%d", from);
	if (nlset_read(NFTGEN_TABLE, cmd, NFTGEN_REFUSED_SIZE, &v, &n, err,
	    sizeof(err)) == -1) {
		log_warnx("%s", err);
		v = NULL;
		n = 0;
		bad = 1;
	}
	/* emptied even when unreadable: a full set would count nothing */
	(void)snprintf(cmd, sizeof(cmd), "flush set " T " " NFTGEN_REFUSED_SET
	    "%d\n", from);
	if ((n > 0 || bad) && netd_nft_run(cmd, err, sizeof(err)) == -1)
		log_warnx("refused flows: cannot empty set %d: %s",
		    from, err);
	for (i = 0; i < n; i++) {
		if (v[i].packets == 0 || (c = by_addr(st, v[i].src)) == NULL)
			continue;
		/* each hit refreshes the timeout: what is left dates it */
		last = now;
		if (v[i].expires >= 0 && v[i].expires <= NFTGEN_REFUSED_TIMEOUT)
			last = now - (NFTGEN_REFUSED_TIMEOUT - v[i].expires);
		if (last_drain > 0 && last < last_drain)
			last = last_drain;
		/* several came after the last read, which bounds the first */
		first = v[i].packets == 1 || last_drain == 0 ? last :
		    last_drain;
		if (blocked_add(&netd_refused, c->name,
		    refused_what(&v[i], what, sizeof(what)), v[i].packets,
		    first, last) == -1)
			log_warnx("refused flows: out of memory");
		else
			netd_notice(c->name);
	}
	free(v);
	last_drain = now;
	/* a listing of a full set is megabytes: give them back */
	memtrim_soon();
	return bad ? -1 : 0;
}
