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
 * Start-up sync of jb-netd with Incus, which holds every container's
 * policy (its user.jailbee.* keys; jb-netd's files are a cache of
 * them).  First each container Incus has gets the policy Incus holds
 * (RESTORE), whatever the cache said: a deadline that passed while the
 * suite was down leaves it strict, and a record jb-netd cannot read
 * leaves it strict too.  Then a container jb-netd keeps a policy for
 * that Incus no longer has (destroyed while the suite was down, or by
 * hand) is forgotten, its elements removed.  When Incus cannot be
 * read jb-netd keeps its cache and nothing is forgotten, and it is
 * logged.  A container made in this run (new sends jb-netd its policy
 * before Incus has it) is neither restored over nor forgotten: jb-netd
 * knows which those are.  On a cluster (cluster.member set) only the
 * containers Incus places on this member are restored; one jb-netd
 * keeps a policy for that runs on another member (moved while the
 * suite was down) is forgotten: that member's suite enforces it.
 */

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "log.h"
#include "names.h"
#include "policyrec.h"

struct netsync {
	char	(*netd)[JB_INSTANCE_MAX];
	size_t	  nnetd;
	char	(*incus)[JB_INSTANCE_MAX];
	size_t	  nincus;
	/* the suite's containers Incus places on other members */
	char	(*away)[JB_INSTANCE_MAX];
	size_t	  naway;
};

/*
 * Syncs under way, and what waits for them to end: a start of a
 * container waits, since its start gate opens once jb-netd enforced
 * what the sync read (jb-netd answers in order, so when MODES is
 * answered every RESTORE sent before it is too).
 */
struct sync_waiter {
	TAILQ_ENTRY(sync_waiter)	 entry;
	void				(*fn)(void *);
	void				*arg;
};
static TAILQ_HEAD(, sync_waiter)	waiters = TAILQ_HEAD_INITIALIZER(waiters);
static int				busy;

void
netsync_after(void (*fn)(void *), void *arg)
{
	struct sync_waiter	*w;

	if (busy == 0) {
		fn(arg);
		return;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL)
		fatal("netsync: out of memory");
	w->fn = fn;
	w->arg = arg;
	TAILQ_INSERT_TAIL(&waiters, w, entry);
}

/* a sync ends, whichever way: what waited for it goes on */
static void
ns_free(struct netsync *ns)
{
	struct sync_waiter	*w;

	free(ns->netd);
	free(ns->incus);
	free(ns->away);
	free(ns);
	if (--busy > 0)
		return;
	while ((w = TAILQ_FIRST(&waiters)) != NULL) {
		TAILQ_REMOVE(&waiters, w, entry);
		w->fn(w->arg);
		free(w);
	}
}

static void
ns_add(char (**v)[JB_INSTANCE_MAX], size_t *n, const char *name)
{
	char	(*nv)[JB_INSTANCE_MAX];

	if ((nv = reallocarray(*v, *n + 1, sizeof(*nv))) == NULL)
		fatal("netsync: out of memory");
	*v = nv;
	(void)strlcpy((*v)[(*n)++], name, sizeof((*v)[0]));
}

static void
ns_mode(struct req *r, struct imsg *imsg)
{
	struct netsync		*ns = r->arg;
	struct jb_netd_mode	 m;

	if (imsg_get_type(imsg) != IMSG_NETD_MODE_ENTRY ||
	    imsg_get_data(imsg, &m, sizeof(m)) == -1)
		fatalx("jb-netd: malformed MODE_ENTRY");
	m.name[sizeof(m.name) - 1] = '\0';
	ns_add(&ns->netd, &ns->nnetd, m.name);
}

static void
ns_restored(struct req *r, int ok, const char *err)
{
	char	*name = r->arg;

	if (!ok)
		log_warnx("start-up sync: %s: %s", name + 2, err);
	else {
		if (name[0] == '+') {
			/* Incus lacked its config entries: it gets them now */
			log_info("start-up sync: %s: Incus had no record of its "
			    "egress entries: written now", name + 2);
			policy_record_logged(name + 2);
		}
		if (name[1] == '-')
			/* made before the suite had gates: its gate is open */
			policy_gate_add(name + 2);
	}
	free(name);
}

/* one container's policy as Incus holds it: jb-netd enforces it */
static void
ns_policy(struct req *r, struct imsg *imsg)
{
	struct netsync		*ns = r->arg;
	struct jb_policy	*p;
	char			*name;

	if ((p = malloc(sizeof(*p))) == NULL)
		fatal("%s", __func__);
	if (imsg_get_type(imsg) != IMSG_INCUS_POLICY ||
	    imsg_get_data(imsg, p, sizeof(*p)) == -1)
		fatalx("jb-incus: malformed POLICY");
	p->name[sizeof(p->name) - 1] = '\0';
	p->location[sizeof(p->location) - 1] = '\0';
	if (!name_member_here(env->conf.cluster_member, p->location)) {
		/* another member's suite enforces it */
		ns_add(&ns->away, &ns->naway, p->name);
		free(p);
		return;
	}
	ns_add(&ns->incus, &ns->nincus, p->name);
	/* its creator on another member is to add its gate meanwhile */
	if (p->has_gate && p->gate_until > 0)
		netfollow_at(p->name, p->gate_until);
	if (asprintf(&name, "%c%c%s", p->has_egress ? '=' : '+',
	    p->has_gate ? 'g' : '-', p->name) == -1)
		fatal("%s", __func__);
	if (req_send(PROC_NETD, IMSG_NETD_RESTORE, p, sizeof(*p), -1, NULL,
	    ns_restored, name) == NULL) {
		log_warnx("start-up sync: cannot reach jb-netd");
		free(name);
	}
	policy_mounts_restore(p);
	free(p);
}

static void
ns_forgot(struct req *r, int ok, const char *err)
{
	char	*name = r->arg;

	if (!ok)
		log_warnx("start-up sync: %s stays in jb-netd's state: %s",
		    name, err);
	free(name);
}

/* jb-netd's containers known: forget those Incus does not have */
static void
ns_modes(struct req *r, int ok, const char *err)
{
	struct netsync		*ns = r->arg;
	struct jb_incus_target	 t;
	size_t			 i, j, n = 0;
	char			*name;
	int			 away;

	if (!ok) {
		log_warnx("start-up sync: jb-netd: %s", err);
		ns_free(ns);
		return;
	}
	for (i = 0; i < ns->nnetd; i++) {
		for (j = 0; j < ns->nincus; j++)
			if (strcmp(ns->netd[i], ns->incus[j]) == 0)
				break;
		if (j < ns->nincus)
			continue;
		for (j = 0; j < ns->naway; j++)
			if (strcmp(ns->netd[i], ns->away[j]) == 0)
				break;
		away = j < ns->naway;
		/* new here needs it until it ends (netfollow_again) */
		if (away && new_making(ns->netd[i]))
			continue;
		memset(&t, 0, sizeof(t));
		(void)strlcpy(t.name, ns->netd[i], sizeof(t.name));
		if ((name = strdup(t.name)) == NULL)
			fatal("netsync: out of memory");
		if (away)
			log_info("start-up sync: %s runs on another cluster "
			    "member: jb-netd forgets its policy", name);
		else
			log_info("start-up sync: Incus has no container %s: "
			    "jb-netd forgets its policy", name);
		if (req_send(PROC_NETD, away ? IMSG_NETD_FORGET :
		    IMSG_NETD_SYNC_FORGET, &t, sizeof(t), -1, NULL, ns_forgot,
		    name) == NULL) {
			log_warnx("start-up sync: cannot reach jb-netd");
			free(name);
			break;
		}
		n++;
	}
	log_debug("start-up sync: %zu of jb-netd's %zu container(s) gone "
	    "from Incus or on another member", n, ns->nnetd);
	ns_free(ns);
}

/* Incus read, each policy on its way to jb-netd: then what to forget */
static void
ns_listed(struct req *r, int ok, const char *err)
{
	struct netsync		*ns = r->arg;

	if (!ok) {
		log_warnx("start-up sync skipped: Incus cannot list the "
		    "containers (%s); jb-netd enforces its cache, a container "
		    "it has none for is refused everything", err);
		ns_free(ns);
		return;
	}
	if (req_send(PROC_NETD, IMSG_NETD_MODES, NULL, 0, -1, ns_mode,
	    ns_modes, ns) == NULL) {
		log_warnx("start-up sync: cannot reach jb-netd");
		ns_free(ns);
	}
}

void
netsync_start(void)
{
	struct netsync		*ns;
	struct jb_incus_target	 t;

	if ((ns = calloc(1, sizeof(*ns))) == NULL)
		fatal("netsync: out of memory");
	busy++;
	/* every container of the suite's, whatever its repo */
	memset(&t, 0, sizeof(t));
	if (req_send(PROC_INCUS, IMSG_INCUS_POLICIES, &t, sizeof(t), -1,
	    ns_policy, ns_listed, ns) == NULL) {
		log_warnx("start-up sync skipped: cannot reach jb-incus");
		ns_free(ns);
	}
}
