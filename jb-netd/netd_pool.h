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
 * jb-netd's pool and pins.  Each container's exact allowed
 * names are resolved upstream, through jb-netd's client (upstream.h), when its
 * policy is set, when it turns strict, on net refresh and every
 * POOL_INTERVAL seconds; the resolver's own answers feed it too.  Every
 * pool address is admitted into the container's kernel sets until its
 * entry would leave the pool, so a name pinned in /etc/hosts connects
 * without the container ever asking DNS.  The pool is written down
 * (<state_dir>/netd/pool) before anything is admitted or pinned.
 *
 * Pins go to the parent (IMSG_NETD_PIN), which has jb-incus write the
 * container's /etc/hosts block and answers IMSG_NETD_PINNED; what is not
 * confirmed is sent again at the next interval.
 */

#ifndef JB_NETD_POOL_H
#define JB_NETD_POOL_H

#include <stdint.h>

#include "netd_state.h"
#include "proc.h"
#include "testhook.h"

/*
 * Once a minute: CDN answers carry TTLs of 20 s to 5 min, so a minute
 * sees most rotations while costing one query per allowed name; it is
 * also the refresh period REFERENCE.md's timer had.
 */
#define POOL_INTERVAL	60
/* the refresh's period: POOL_INTERVAL, 10 s under the test switch */
#define POOL_TICK	jb_test_secs(POOL_INTERVAL, 10)

/* read the file; a bad one is named and the pool starts empty */
void	netd_pool_init(struct child *, int statefd, const char *dirpath,
	    const struct netd_state *cur);
/*
 * After the table exists: forget what no container allows, admit the
 * rest, and resolve everything in a moment, then every POOL_INTERVAL.
 */
void	netd_pool_start(void);
/*
 * Resolve ctr's names now.  rid 0: in the background; else the request
 * is answered with status lines, its PIN and DONE once all answered.
 */
void	netd_pool_refresh(const char *ctr, uint32_t rid);
/*
 * The same in the background without pinning: a policy set before its
 * container exists (jailbeed pins once new has made it).
 */
void	netd_pool_resolve(const char *ctr);
/* ctr's block as the pool has it (none when loose), in reply to rid */
void	netd_pool_pin(const char *ctr, uint32_t rid);
/* the resolver answered name with addrs (network order) for ctr */
void	netd_pool_feed(const struct netd_ctr *, const char *name,
	    const uint32_t *addrs, int count);
/*
 * The containers' entries are st's now: the rows of names none of them
 * allows any more go, and the pool is written down
 */
void	netd_pool_narrow(const struct netd_state *st);
/* ctr is gone: its entries and pin record too */
void	netd_pool_forget(const char *ctr);
/*
 * ctr's pooled addresses and the name each was answered for (the most
 * recent answer when there are several), sorted for
 * netd_pool_name_of; the names point into the pool, valid until it
 * next changes.  To be freed; 0 and NULL when none.
 */
struct netd_pool_name {
	uint32_t	 addr;
	int64_t		 last;
	const char	*name;
};
size_t	netd_pool_names(const char *ctr, struct netd_pool_name **);
const char *netd_pool_name_of(const struct netd_pool_name *, size_t,
	    uint32_t addr);
/* the parent's IMSG_NETD_PINNED */
void	netd_pool_pinned(struct imsg *);
/* for status: how many entries ctr has */
size_t	netd_pool_count(const char *ctr);
/* net status: ctr's pooled addresses as NETD_ADDRs for rid */
void	netd_pool_status(struct child *, uint32_t rid, const char *ctr);
/* what of ctr's pool does not work, in a sentence; "" when all does */
void	netd_pool_broken(const char *ctr, char *buf, size_t len);

#endif /* JB_NETD_POOL_H */
