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
 * Incus holds each container's policy (its user.jailbee.* keys);
 * jb-netd's files are the cache of it.  RECORD_GET gives the parent a
 * container's policy as enforced here, for it to write to Incus;
 * RESTORE enforces what Incus holds, in place of the cache's.  A record
 * that cannot be read leaves the container strict.
 */

#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"
#include "netd_ct.h"
#include "netd_gate.h"
#include "netd_pool.h"
#include "netd_record.h"
#include "proc.h"

#include "netd.h"

void
netd_record_get(struct child *c, struct imsg *imsg)
{
	struct jb_incus_target	 t;
	struct jb_policy	*p;
	struct netd_ctr		*k;
	char			 err[JB_ERR_TEXT_MAX];

	if (imsg_get_data(imsg, &t, sizeof(t)) == -1)
		fatalx("%s: malformed NETD_RECORD_GET", c->name);
	t.name[sizeof(t.name) - 1] = '\0';
	if ((k = netd_state_find(&cur, t.name)) == NULL) {
		child_done(c, imsg_get_id(imsg), 0, "jb-netd holds no policy "
		    "for this container");
		return;
	}
	if ((p = malloc(sizeof(*p))) == NULL)
		fatal("%s: malloc", c->name);
	if (netd_record_from_ctr(k, p, err, sizeof(err)) == -1) {
		free(p);
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	if (imsgev_compose(&c->iev, IMSG_NETD_RECORD, imsg_get_id(imsg), 0,
	    -1, p, sizeof(*p)) == -1)
		fatal("%s: compose", c->name);
	free(p);
	child_done(c, imsg_get_id(imsg), 1, NULL);
}

/* the record cannot be read: the cache's policy, made strict */
static void
restore_strict(struct child *c, uint32_t rid, const char *name,
    const char *why)
{
	struct netd_state	 next;
	struct netd_ctr		*k;
	char			 err[JB_ERR_TEXT_MAX];
	uint32_t		 addr;

	log_warnx("%s: %s: the policy Incus holds cannot be read (%s): it is "
	    "strict, and does not start until it can be", c->name, name,
	    why);
	netd_gate_close(name);
	if (netd_state_copy(&cur, &next) == -1)
		fatal("%s: out of memory", c->name);
	if ((k = netd_state_find(&next, name)) == NULL) {
		/* no element in the kernel's map: every packet refused */
		netd_state_free(&next);
		child_done(c, rid, 0, why);
		return;
	}
	k->mode = NFTGEN_STRICT;
	k->deadline = 0;
	addr = k->addr;
	if (state_commit(&next, err, sizeof(err)) == -1)
		log_warnx("%s: %s: %s", c->name, name, err);
	else {
		revert_arm();
		(void)netd_ct_flush(addr);
	}
	child_done(c, rid, 0, why);
}

/* a and b give the same keys (tmp: room for the work) */
static int
same_policy(const struct netd_ctr *a, const struct netd_ctr *b,
    struct jb_policy *tmp)
{
	struct jb_policy	*pa;
	char			 err[64];
	int			 same;

	if (a->repo[0] == '\0' && b->repo[0] != '\0')
		return 0;
	if ((pa = malloc(sizeof(*pa))) == NULL)
		fatal("%s", __func__);
	same = netd_record_from_ctr(a, pa, err, sizeof(err)) == 0 &&
	    netd_record_from_ctr(b, tmp, err, sizeof(err)) == 0 &&
	    strcmp(pa->ipv4, tmp->ipv4) == 0 &&
	    strcmp(pa->prefix, tmp->prefix) == 0 &&
	    strcmp(pa->net, tmp->net) == 0 &&
	    pa->loose_until == tmp->loose_until &&
	    strcmp(pa->egress, tmp->egress) == 0 &&
	    strcmp(pa->egress_extra, tmp->egress_extra) == 0;
	free(pa);
	return same;
}

void
netd_restore(struct child *c, struct imsg *imsg)
{
	struct jb_policy	*p, *was;
	struct netd_ctr		 nc, *k;
	struct netd_state	 next;
	char			 err[JB_ERR_TEXT_MAX], name[JB_INSTANCE_MAX];
	int			 narrowed;

	if ((p = malloc(sizeof(*p))) == NULL || (was = malloc(sizeof(*was))) ==
	    NULL)
		fatal("%s: malloc", c->name);
	if (imsg_get_data(imsg, p, sizeof(*p)) == -1)
		fatalx("%s: malformed NETD_RESTORE", c->name);
	p->name[sizeof(p->name) - 1] = '\0';
	(void)strlcpy(name, p->name, sizeof(name));
	k = netd_state_find(&cur, name);
	if (k != NULL && k->fresh) {
		/* set in this run, after Incus was read: it is newer */
		free(p);
		free(was);
		netd_gate_open(name);
		child_done(c, imsg_get_id(imsg), 1, NULL);
		return;
	}
	/* made before Incus held the config's entries: the cache's stay */
	if (!p->has_egress && k != NULL && netd_record_from_ctr(k, was, err,
	    sizeof(err)) == 0)
		(void)strlcpy(p->egress, was->egress, sizeof(p->egress));
	free(was);
	if (netd_record_to_ctr(p, (long long)time(NULL), &nc, err,
	    sizeof(err)) == -1) {
		free(p);
		restore_strict(c, imsg_get_id(imsg), name, err);
		return;
	}
	/* the cache holds the same already: nothing to change */
	if (k != NULL && same_policy(k, &nc, p)) {
		netd_ctr_free(&nc);
		free(p);
		netd_gate_open(name);
		child_done(c, imsg_get_id(imsg), 1, NULL);
		return;
	}
	free(p);
	narrowed = nc.mode == NFTGEN_STRICT && (k == NULL ||
	    k->mode == NFTGEN_LOOSE);
	if (netd_state_copy(&cur, &next) == -1 ||
	    netd_state_put(&next, &nc) == -1)
		fatal("%s: out of memory", c->name);
	if (state_commit(&next, err, sizeof(err)) == -1) {
		log_warnx("%s: container %s: the policy Incus holds is not "
		    "enforced: %s", c->name, name, err);
		child_done(c, imsg_get_id(imsg), 0, err);
		return;
	}
	revert_arm();
	if ((k = netd_state_find(&cur, name)) != NULL && narrowed)
		(void)netd_ct_flush(k->addr);
	log_debug("%s: container %s: the policy Incus holds is enforced",
	    c->name, name);
	netd_gate_open(name);
	child_done(c, imsg_get_id(imsg), 1, NULL);
	netd_pool_resolve(name);
}
