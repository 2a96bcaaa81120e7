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
 * Loose deadlines: a loose container becomes strict at its deadline, by a
 * timer armed for the earliest one; when the kernel refuses the revert,
 * the whole table is rebuilt, and failing that the parent is told to
 * stop the container.
 */

#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/capability.h>
#include <netinet/in.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomicfile.h"
#include "log.h"
#include "netd_ct.h"
#include "netd_nft.h"
#include "netd_repos.h"
#include "netd_pool.h"
#include "netd_refused.h"
#include "netd_state.h"
#include "nftgen.h"
#include "refused.h"
#include "proc.h"
#include "resolver.h"
#include "sandbox_procs.h"

#include "netd.h"

/*
 * Neither the revert nor the rebuild went through: the kernel still lets
 * the containers past their deadline out.  Fail closed: they are written
 * down strict (the next change that goes through makes the kernel agree)
 * and the parent is asked to stop each one.
 */
static void
revert_stuck(struct child *c, time_t now)
{
	struct jb_netd_mode	 m;
	char			 err[256];
	size_t			 i;

	for (i = 0; i < cur.n; i++) {
		if (cur.v[i].mode != NFTGEN_LOOSE || cur.v[i].deadline == 0 ||
		    cur.v[i].deadline > now)
			continue;
		memset(&m, 0, sizeof(m));
		(void)strlcpy(m.name, cur.v[i].name, sizeof(m.name));
		(void)strlcpy(m.mode, "loose", sizeof(m.mode));
		m.deadline = cur.v[i].deadline;
		cur.v[i].mode = NFTGEN_STRICT;
		cur.v[i].deadline = 0;
		log_warnx("%s: still loose in the kernel past its "
		    "deadline: the parent stops it", m.name);
		if (imsgev_compose(&c->iev, IMSG_NETD_STOP, 0, 0, -1, &m,
		    sizeof(m)) == -1)
			fatal("compose");
	}
	if (state_save(&cur, err, sizeof(err)) == -1)
		log_warnx("%s", err);
}

/*
 * The kernel refused the delta of a revert: the whole table again, in
 * one transaction, with every container past its deadline strict.
 */
static int
revert_rebuild(time_t now, char *err, size_t errlen)
{
	struct netd_state	 next;
	size_t			 i;

	log_warnx("the revert to strict was refused (%s): the whole "
	    "table is made again", err);
	if (netd_state_copy(&cur, &next) == -1)
		fatal("out of memory");
	for (i = 0; i < next.n; i++)
		if (next.v[i].mode == NFTGEN_LOOSE &&
		    next.v[i].deadline != 0 && next.v[i].deadline <= now) {
			next.v[i].mode = NFTGEN_STRICT;
			next.v[i].deadline = 0;
		}
	testhook_refuse();
	if (netd_nft_apply(&net, &next, 1, err, errlen) == -1) {
		netd_state_free(&next);
		return -1;
	}
	if (state_save(&next, err, errlen) == -1)
		log_warnx("strict again, not written down: %s", err);
	netd_state_free(&cur);
	cur = next;
	return 0;
}

/*
 * Loose containers whose deadline has come become strict, their
 * loose-era flows cut.  Also run at start-up, for deadlines that passed
 * while the suite was down.
 */
static void
revert_due(struct child *c)
{
	struct netd_state	 next;
	struct jb_netd_audit	*ev;
	char			 err[JB_ERR_TEXT_MAX];
	time_t			 now = time(NULL);
	uint32_t		*addrs;
	size_t			 i, n = 0;

	if (netd_state_copy(&cur, &next) == -1 ||
	    (addrs = calloc(next.n + 1, sizeof(*addrs))) == NULL ||
	    (ev = calloc(next.n + 1, sizeof(*ev))) == NULL)
		fatal("out of memory");
	for (i = 0; i < next.n; i++)
		if (next.v[i].mode == NFTGEN_LOOSE &&
		    next.v[i].deadline != 0 && next.v[i].deadline <= now) {
			(void)strlcpy(ev[n].name, next.v[i].name,
			    sizeof(ev[n].name));
			(void)strlcpy(ev[n].repo, next.v[i].repo,
			    sizeof(ev[n].repo));
			(void)strlcpy(ev[n].kind, "revert", sizeof(ev[n].kind));
			ev[n].deadline = next.v[i].deadline;
			next.v[i].mode = NFTGEN_STRICT;
			next.v[i].deadline = 0;
			addrs[n++] = next.v[i].addr;
		}
	if (n == 0) {
		netd_state_free(&next);
		free(addrs);
		free(ev);
		return;
	}
	if (state_commit(&next, err, sizeof(err)) == -1 &&
	    revert_rebuild(now, err, sizeof(err)) == -1) {
		log_warnx("cannot revert to strict: %s", err);
		revert_stuck(c, now);
		free(addrs);
		free(ev);
		return;
	}
	/* only the reverted ones: other containers' flows are theirs */
	for (i = 0; i < n; i++) {
		if (netd_ct_flush(addrs[i]) == -1)
			log_warnx("cannot flush conntrack of a "
			    "reverted container");
		if (imsgev_compose(&c->iev, IMSG_NETD_AUDIT, 0, 0, -1, &ev[i],
		    sizeof(ev[i])) == -1)
			fatal("%s: compose", c->name);
	}
	free(addrs);
	free(ev);
	log_info("%zu container(s) back to strict at their "
	    "deadline", n);
}

void
revert_fire(int fd, short ev, void *arg)
{
	revert_due(arg);
	revert_arm();
}

/* wake at the earliest loose deadline (or a second on after a failure) */
void
revert_arm(void)
{
	struct timeval	tv;
	int64_t		first = 0, now = time(NULL);
	size_t		i;

	evtimer_del(&revert_ev);
	for (i = 0; i < cur.n; i++)
		if (cur.v[i].mode == NFTGEN_LOOSE && cur.v[i].deadline != 0 &&
		    (first == 0 || cur.v[i].deadline < first))
			first = cur.v[i].deadline;
	if (first == 0)
		return;
	tv.tv_sec = first > now ? first - now : 1;
	tv.tv_usec = 0;
	evtimer_add(&revert_ev, &tv);
}
