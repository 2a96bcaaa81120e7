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
 * jbctl ls: this repo's containers, or every JailBee container with
 * --all, as jb-incus finds them in Incus (state lives in user.jailbee.*
 * keys, never only here).
 */

#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "log.h"

/* the mount deadlines jb-mountd holds, for the MOUNT column */
struct lsjob {
	struct repo_ctx			*ctx;
	char				 prefix[48];
	struct jb_mount_deadline	*dl;
	size_t				 ndl;
	struct jb_netd_mode		*nm;	/* jb-netd's, for NET */
	size_t				 nnm;
};

static void
lsjob_free(void *arg)
{
	struct lsjob	*l = arg;

	repo_ctx_free(l->ctx);
	free(l->dl);
	free(l->nm);
	free(l);
}

static void
ls_instance(struct req *r, struct imsg *imsg)
{
	struct job		*job = r->arg;
	struct lsjob		*l = job->state;
	struct jb_instance	 in;
	size_t			 i;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &in, sizeof(in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	in.name[sizeof(in.name) - 1] = '\0';
	in.mount_until = 0;
	for (i = 0; in.nmounts > 0 && i < l->ndl; i++)
		if (strcmp(l->dl[i].name, in.name) == 0 &&
		    (in.mount_until == 0 || l->dl[i].until < in.mount_until))
			in.mount_until = l->dl[i].until;
	/* what jb-netd enforces, not the mode the container was made with */
	in.net[0] = '\0';
	in.net_until = 0;
	for (i = 0; i < l->nnm; i++)
		if (strcmp(l->nm[i].name, in.name) == 0) {
			strlcpy(in.net, l->nm[i].mode, sizeof(in.net));
			in.net_until = l->nm[i].deadline;
		}
	(void)job_reply(job, IMSG_CTL_INSTANCE, &in, sizeof(in), -1);
}

static void
ls_done(struct req *r, int ok, const char *err)
{
	job_end(r->arg, ok, "%s", err);
}

static void
ls_deadline(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct lsjob	*l = job->state;

	mounts_deadline_add(&l->dl, &l->ndl, imsg);
}

static void
ls_netmode(struct req *r, struct imsg *imsg)
{
	struct job		*job = r->arg;
	struct lsjob		*l = job->state;
	struct jb_netd_mode	 m, *v;

	if (imsg_get_type(imsg) != IMSG_NETD_MODE_ENTRY ||
	    imsg_get_data(imsg, &m, sizeof(m)) == -1)
		fatalx("jb-netd: malformed MODE_ENTRY");
	m.name[sizeof(m.name) - 1] = '\0';
	m.mode[sizeof(m.mode) - 1] = '\0';
	if ((v = reallocarray(l->nm, l->nnm + 1, sizeof(*v))) == NULL)
		return;
	l->nm = v;
	l->nm[l->nnm++] = m;
}

static void
ls_netmodes(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct lsjob		*l = job->state;
	struct jb_incus_target	 t;

	if (!ok) {
		job_end(job, 0, "jb-netd: %s", err);
		return;
	}
	memset(&t, 0, sizeof(t));
	strlcpy(t.prefix, l->prefix, sizeof(t.prefix));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
	    ls_instance, ls_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
ls_deadlines(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;

	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	if (req_send(PROC_NETD, IMSG_NETD_MODES, NULL, 0, -1, ls_netmode,
	    ls_netmodes, job) == NULL)
		job_end(job, 0, "cannot reach jb-netd");
}

static void
ls_list(struct job *job, struct repo_ctx *ctx)
{
	struct lsjob			*l;
	struct jb_mount_deadline	 d;

	if ((l = calloc(1, sizeof(*l))) == NULL) {
		repo_ctx_free(ctx);
		job_end(job, 0, "out of memory");
		return;
	}
	l->ctx = ctx;
	if (ctx != NULL)
		strlcpy(l->prefix, ctx->conf.container_prefix,
		    sizeof(l->prefix));
	job->state = l;
	job->free_state = lsjob_free;
	memset(&d, 0, sizeof(d));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_DEADLINE_LIST, &d, sizeof(d),
	    -1, ls_deadline, ls_deadlines, job) == NULL)
		job_end(job, 0, "cannot reach jb-mountd");
}

void
cmd_ls(struct job *job)
{
	/*
	 * an SSH session stands in no checkout (every container it may see)
	 * unless --repo put it in one
	 */
	if (job_opt(job, "all") != NULL ||
	    (job->remote && strcmp(job->cmd.cwd, "/") == 0))
		ls_list(job, NULL);
	else
		repo_resolve_brief(job, 1, ls_list);
}
