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
 * A net command typed on one member of a cluster for a container that
 * may run on another: Incus says where it is (the instance's location,
 * read with its policy), and the command goes to this member's jb-netd
 * only when it runs here.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "names.h"
#include "netwhere.h"

struct where {
	struct job		*job;
	struct repo_ctx		*ctx;
	netwhere_here_cb	 here;
	netwhere_away_cb	 away;
	char			 name[JB_INSTANCE_MAX];
	struct jb_policy	*p;
};

static void
where_got(struct req *r, struct imsg *imsg)
{
	struct where	*w = r->arg;

	if (w->p == NULL && (w->p = malloc(sizeof(*w->p))) == NULL)
		fatal("%s", __func__);
	if (imsg_get_type(imsg) != IMSG_INCUS_POLICY ||
	    imsg_get_data(imsg, w->p, sizeof(*w->p)) == -1)
		fatalx("jb-incus: malformed POLICY");
	w->p->name[sizeof(w->p->name) - 1] = '\0';
	w->p->location[sizeof(w->p->location) - 1] = '\0';
}

static void
where_done(struct req *r, int ok, const char *err)
{
	struct where	*w = r->arg;

	if (!ok) {
		repo_ctx_free(w->ctx);
		job_end(w->job, 0, "%s: Incus cannot say which cluster member "
		    "runs it: %s", w->name, err);
	} else if (w->p != NULL && strcmp(w->p->name, w->name) == 0 &&
	    !name_member_here(env->conf.cluster_member, w->p->location))
		w->away(w->job, w->name, w->ctx, w->p);
	else
		w->here(w->job, w->name, w->ctx);
	free(w->p);
	free(w);
}

void
net_where(struct job *job, const char *name, struct repo_ctx *ctx,
    netwhere_here_cb here, netwhere_away_cb away)
{
	struct jb_incus_target	 t;
	struct where		*w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		fatal("%s", __func__);
	w->job = job;
	w->ctx = ctx;
	w->here = here;
	w->away = away;
	(void)strlcpy(w->name, name, sizeof(w->name));
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_POLICIES, &t, sizeof(t), -1,
	    where_got, where_done, w) == NULL) {
		repo_ctx_free(ctx);
		free(w);
		job_end(job, 0, "cannot reach jb-incus");
	}
}
