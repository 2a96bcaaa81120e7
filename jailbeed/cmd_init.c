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
 * jbctl init: the checkout's configuration is loaded and checked
 * (jbctl wrote it from the template when it was missing), and what its
 * containers will be made of is said.  Idempotent: it changes nothing
 * that is already right.
 */

#include <string.h>

#include "jailbeed.h"
#include "jobs.h"
#include "log.h"

static void
init_repo(struct job *job, struct repo_ctx *ctx)
{
	job->state = ctx;
	job->free_state = repo_ctx_free;
	registry_add(ctx->conf.container_prefix, ctx->info.toplevel);
	job_progress(job, "%s: container prefix %s, containers from image %s",
	    ctx->info.toplevel, ctx->conf.container_prefix,
	    ctx->conf.base_alias);
	job_end(job, 1, NULL);
}

void
cmd_init(struct job *job)
{
	repo_resolve(job, "", 1, init_repo);
}
