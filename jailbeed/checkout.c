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
 * The checkout behind a command: jb-mountd describes it as the owner sees
 * it, then its configuration layers are read here (the parent runs as
 * the owner and is the only process that parses YAML).
 */

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs.h"
#include "log.h"

struct repo_req {
	struct job		*job;
	struct repo_ctx		*ctx;
	int			 required;
	repo_next		 next;
};

static void
repo_info(struct req *r, struct imsg *imsg)
{
	struct repo_req	*rr = r->arg;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_REPO_INFO ||
	    imsg_get_data(imsg, &rr->ctx->info, sizeof(rr->ctx->info)) == -1)
		fatalx("jb-mountd: malformed REPO_INFO");
	rr->ctx->info.toplevel[sizeof(rr->ctx->info.toplevel) - 1] = '\0';
	rr->ctx->info.head_branch[sizeof(rr->ctx->info.head_branch) - 1] =
	    '\0';
	rr->ctx->info.default_branch[sizeof(rr->ctx->info.default_branch) -
	    1] = '\0';
	rr->ctx->info.upstream_remote[sizeof(rr->ctx->info.upstream_remote) -
	    1] = '\0';
	rr->ctx->info.upstream_url[sizeof(rr->ctx->info.upstream_url) - 1] =
	    '\0';
	rr->ctx->info.branch_sha[sizeof(rr->ctx->info.branch_sha) - 1] = '\0';
	rr->ctx->info.head_sha[sizeof(rr->ctx->info.head_sha) - 1] = '\0';
	rr->ctx->have_info = 1;
}

static void
repo_done(struct req *r, int ok, const char *err)
{
	struct repo_req	*rr = r->arg;
	struct job	*job = rr->job;
	struct repo_ctx	*ctx = rr->ctx;
	char		 e[JB_ERR_TEXT_MAX];
	repo_next	 next = rr->next;
	int		 required = rr->required;

	free(rr);
	if (!ok || !ctx->have_info) {
		free(ctx);
		/* an SSH session has no checkout: it names one */
		if (required && job->remote && strcmp(job->cmd.cwd, "/") == 0)
			job_end(job, 0, "this command needs a repository: add "
			    "--repo PREFIX (jbctl repo ls on the host lists the "
			    "registered ones)");
		else if (required)
			job_end(job, 0, "%s", err[0] ? err :
			    "jb-mountd described no checkout");
		else
			next(job, NULL);
		return;
	}
	/* a checkout JailBee was never set up in is no repo of ours */
	if (!required && (size_t)snprintf(e, sizeof(e), "%s/.jailbee/config.yaml",
	    ctx->info.toplevel) < sizeof(e) && access(e, F_OK) == -1 &&
	    errno == ENOENT) {
		free(ctx);
		next(job, NULL);
		return;
	}
	if (repoconf_load(ctx->info.toplevel, env->owner_home,
	    job->cmd.xdg_config, env->owner_uid, env->owner_gid, &ctx->conf,
	    e, sizeof(e)) == -1) {
		free(ctx);
		job_end(job, 0, "%s", e);
		return;
	}
	ctx->have_conf = 1;
	if (ctx->conf.warning[0] != '\0')
		job_progress(job, "warning: %s", ctx->conf.warning);
	next(job, ctx);
}

static void	repo_ask(struct job *, const char *, int, int, repo_next);

void
repo_resolve(struct job *job, const char *branch, int required,
    repo_next next)
{
	repo_ask(job, branch, required, 0, next);
}

void
repo_resolve_brief(struct job *job, int required, repo_next next)
{
	repo_ask(job, "", required, 1, next);
}

static void
repo_ask(struct job *job, const char *branch, int required, int brief,
    repo_next next)
{
	struct jb_repo_req	 q;
	struct repo_req		*rr;

	if ((rr = calloc(1, sizeof(*rr))) == NULL ||
	    (rr->ctx = calloc(1, sizeof(*rr->ctx))) == NULL) {
		free(rr);
		job_end(job, 0, "out of memory");
		return;
	}
	rr->job = job;
	rr->required = required;
	rr->next = next;
	memset(&q, 0, sizeof(q));
	q.toplevel_only = brief;
	strlcpy(q.path, job->cmd.cwd, sizeof(q.path));
	if (strlcpy(q.branch, branch, sizeof(q.branch)) >= sizeof(q.branch)) {
		free(rr->ctx);
		free(rr);
		job_end(job, 0, "branch name too long");
		return;
	}
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_REPO, &q, sizeof(q), -1,
	    repo_info, repo_done, rr) == NULL) {
		free(rr->ctx);
		free(rr);
		job_end(job, 0, "cannot reach jb-mountd");
	}
}

void
repo_ctx_free(void *arg)
{
	struct repo_ctx	*ctx = arg;

	if (ctx == NULL)
		return;
	if (ctx->have_conf)
		repoconf_free(&ctx->conf);
	free(ctx);
}

int
repo_container_name(const struct repo_ctx *ctx, const char *name, char *out,
    size_t len)
{
	const char	*p;
	char		 slug[JB_INSTANCE_MAX];
	size_t		 n;

	if (ctx == NULL || !ctx->have_conf) {
		if (strlcpy(out, name, len) >= len)
			return -1;
		return 0;
	}
	p = ctx->conf.container_prefix;
	n = strlen(p);
	if (strncmp(name, p, n) == 0 && name[n] == '-')
		return strlcpy(out, name, len) >= len ? -1 : 0;
	if (repoconf_slug(name, slug, sizeof(slug)) == NULL || slug[0] == '\0')
		return -1;
	if ((size_t)snprintf(out, len, "%s-%s", p, slug) >= len)
		return -1;
	return 0;
}
