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

#include <string.h>

#include "jobs.h"
#include "log.h"

static void
ls_instance(struct req *r, struct imsg *imsg)
{
	struct jb_instance	in;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &in, sizeof(in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	(void)job_reply(r->arg, IMSG_CTL_INSTANCE, &in, sizeof(in), -1);
}

static void
ls_done(struct req *r, int ok, const char *err)
{
	job_end(r->arg, ok, "%s", err);
}

static void
ls_list(struct job *job, const char *prefix)
{
	struct jb_incus_target	t;

	memset(&t, 0, sizeof(t));
	strlcpy(t.prefix, prefix, sizeof(t.prefix));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
	    ls_instance, ls_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
ls_repo(struct job *job, struct repo_ctx *ctx)
{
	job->state = ctx;
	job->free_state = repo_ctx_free;
	ls_list(job, ctx->conf.container_prefix);
}

void
cmd_ls(struct job *job)
{
	/* an SSH session stands in no checkout: every container it may see */
	if (job_opt(job, "all") != NULL || job->remote)
		ls_list(job, "");
	else
		repo_resolve_brief(job, 1, ls_repo);
}
