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
 * Does the host have these commits?  A clone made through the git
 * bridge (a cluster: no checkout mounted in the container to ask) has
 * destroy's guard print its branch tips; jb-gitd, reading the checkout
 * only, answers which are commits there (a commit jbctl git fetch
 * brought over is).
 */

#include <stdlib.h>
#include <string.h>

#include "guardhost.h"
#include "log.h"

struct ghost {
	struct job		*job;
	guardhost_cb		 cb;
	struct jb_gitd_result	 r;
	int			 have_r;
};

static void
ghost_msg(struct req *r, struct imsg *imsg)
{
	struct ghost	*g = r->arg;

	if (imsg_get_type(imsg) != IMSG_GITD_RESULT ||
	    imsg_get_data(imsg, &g->r, sizeof(g->r)) == -1)
		fatalx("jb-gitd: malformed RESULT");
	g->r.text[sizeof(g->r.text) - 1] = '\0';
	g->have_r = 1;
}

static void
ghost_done(struct req *r, int ok, const char *err)
{
	struct ghost	*g = r->arg;

	if (!ok)
		g->cb(g->job, 0, 0, err);
	else if (!g->have_r)
		g->cb(g->job, 0, 0, "jb-gitd gave no answer");
	else if (!g->r.ok)
		g->cb(g->job, 0, 0, g->r.text);
	else
		g->cb(g->job, 1, g->r.have, NULL);
	free(g);
}

void
guard_host_has(struct job *job, const char *toplevel,
    const struct guard_tip *tips, size_t n, guardhost_cb cb)
{
	struct jb_gitd_have	*q;
	struct ghost		*g;
	size_t			 i;

	if (n > JB_HAVE_MAX) {
		cb(job, 0, 0, "too many branches");
		return;
	}
	if ((q = calloc(1, sizeof(*q))) == NULL ||
	    (g = calloc(1, sizeof(*g))) == NULL) {
		free(q);
		cb(job, 0, 0, "out of memory");
		return;
	}
	g->job = job;
	g->cb = cb;
	(void)strlcpy(q->toplevel, toplevel, sizeof(q->toplevel));
	q->n = (uint32_t)n;
	for (i = 0; i < n; i++)
		(void)strlcpy(q->oid[i], tips[i].oid, sizeof(q->oid[i]));
	if (req_send(PROC_GITD, IMSG_GITD_HAVE, q, sizeof(*q), -1, ghost_msg,
	    ghost_done, g) == NULL) {
		free(g);
		cb(job, 0, 0, "cannot reach jb-gitd");
	}
	free(q);
}
