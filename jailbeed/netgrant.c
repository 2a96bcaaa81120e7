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
 * A step's network grant (an agent's install with install_network:
 * loose): the container loose for the step, by jb-netd's deadline, the
 * one net loose --for uses, and strict again when the step ends however
 * it ends.  Should jailbeed die before it asks, jb-netd's deadline puts
 * the container back by itself (it outlives a restart of the suite).  A
 * strict jb-netd cannot make stops the container, as net strict does.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "log.h"
#include "netgrant.h"
#include "netpin.h"

struct grant {
	struct job	*job;
	char		 name[JB_INSTANCE_MAX];
	int		 strict;
	int		 still_loose;	/* strict refused: loose in the kernel */
	int64_t		 deadline;
	int		 known;		/* jb-netd holds its mode */
	int		 wider;		/* loose already, as long or longer */
	char		 err[JB_ERR_TEXT_MAX];
	netgrant_cb	 cb;
};

static void
grant_msg(struct req *r, struct imsg *imsg)
{
	struct grant	*g = r->arg;

	switch (imsg_get_type(imsg)) {
	case IMSG_NETD_MODE_ENTRY:
		if (!g->strict)
			fatalx("jb-netd: MODE_ENTRY in reply to loose");
		g->still_loose = 1;
		break;
	case IMSG_NETD_PIN:
		/* pins follow the mode: written by jb-incus, unwaited */
		netpin_relay(imsg, NULL, NULL);
		break;
	default:
		fatalx("jb-netd: unexpected reply %u to MODE",
		    imsg_get_type(imsg));
	}
}

static void
grant_stopped(struct req *r, int ok, const char *err)
{
	struct grant	*g = r->arg;
	char		 msg[JB_CTL_TEXT_MAX];

	if (ok)
		(void)snprintf(msg, sizeof(msg), "%s could not be made strict "
		    "again and is stopped so it is not left open (jb-netd: "
		    "%.600s)", g->name, g->err);
	else
		(void)snprintf(msg, sizeof(msg), "%s could not be made strict "
		    "again nor stopped (%.200s): stop it with jbctl stop "
		    "--force (jb-netd: %.600s)", g->name, err, g->err);
	g->cb(g->job, 0, 0, msg);
	free(g);
}

static void
grant_done(struct req *r, int ok, const char *err)
{
	struct grant		*g = r->arg;
	struct jb_incus_action	 q;

	if (!ok && g->strict && g->still_loose) {
		(void)strlcpy(g->err, err, sizeof(g->err));
		log_warnx("%s: strict after its step refused: %s; stopping it",
		    g->name, err);
		memset(&q, 0, sizeof(q));
		(void)strlcpy(q.name, g->name, sizeof(q.name));
		q.verb = INCUS_STOP;
		q.force = 1;
		if (req_send(PROC_INCUS, IMSG_INCUS_ACTION, &q, sizeof(q), -1,
		    NULL, grant_stopped, g) != NULL)
			return;
		grant_stopped(r, 0, "cannot reach jb-incus");
		return;
	}
	g->cb(g->job, ok, ok, err);
	free(g);
}

static void
grant_send(struct grant *g)
{
	struct jb_netd_mode	 m;

	memset(&m, 0, sizeof(m));
	(void)strlcpy(m.name, g->name, sizeof(m.name));
	(void)strlcpy(m.mode, g->strict ? "strict" : "loose", sizeof(m.mode));
	m.deadline = g->strict ? 0 : g->deadline;
	if (req_send(PROC_NETD, IMSG_NETD_MODE, &m, sizeof(m), -1, grant_msg,
	    grant_done, g) == NULL) {
		g->cb(g->job, 0, 0, "cannot reach jb-netd");
		free(g);
	}
}

static struct grant *
grant_new(struct job *job, const char *name, int strict, int64_t deadline,
    netgrant_cb cb)
{
	struct grant	*g;

	if ((g = calloc(1, sizeof(*g))) == NULL) {
		cb(job, 0, 0, "out of memory");
		return NULL;
	}
	g->job = job;
	g->cb = cb;
	g->strict = strict;
	g->deadline = deadline;
	(void)strlcpy(g->name, name, sizeof(g->name));
	return g;
}

/* every container's mode: is ours loose already, for longer? */
static void
modes_msg(struct req *r, struct imsg *imsg)
{
	struct grant		*g = r->arg;
	struct jb_netd_mode	 m;

	if (imsg_get_type(imsg) != IMSG_NETD_MODE_ENTRY ||
	    imsg_get_data(imsg, &m, sizeof(m)) == -1)
		fatalx("jb-netd: malformed MODE_ENTRY");
	m.name[sizeof(m.name) - 1] = '\0';
	m.mode[sizeof(m.mode) - 1] = '\0';
	if (strcmp(m.name, g->name) != 0)
		return;
	g->known = 1;
	g->wider = strcmp(m.mode, "loose") == 0 && (m.deadline == 0 ||
	    m.deadline >= g->deadline);
}

static void
modes_done(struct req *r, int ok, const char *err)
{
	struct grant	*g = r->arg;

	if (!ok || !g->known) {
		g->cb(g->job, 0, 0, ok ? "jb-netd holds no policy for it" :
		    err);
		free(g);
		return;
	}
	/* the owner opened it wider: the step neither opens nor closes it */
	if (g->wider) {
		g->cb(g->job, 1, 0, NULL);
		free(g);
		return;
	}
	grant_send(g);
}

void
net_grant(struct job *job, const char *name, int64_t deadline,
    netgrant_cb cb)
{
	struct grant	*g;

	if ((g = grant_new(job, name, 0, deadline, cb)) == NULL)
		return;
	if (req_send(PROC_NETD, IMSG_NETD_MODES, NULL, 0, -1, modes_msg,
	    modes_done, g) == NULL) {
		cb(job, 0, 0, "cannot reach jb-netd");
		free(g);
	}
}

void
net_grant_end(struct job *job, const char *name, netgrant_cb cb)
{
	struct grant	*g;

	if ((g = grant_new(job, name, 1, 0, cb)) != NULL)
		grant_send(g);
}
