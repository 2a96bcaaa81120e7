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
 * jbctl base import|usage|prune; `base build` is jbctl's own work
 * and ends in an import.  An import is sequenced here: jb-mountd opens
 * the file as the owner (the parent accepts no fd from jbctl and opens no
 * file for a client), its fd goes on to jb-incus, which streams it to
 * Incus and points the repo's alias at it.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_spec.h"
#include "cmdtab.h"
#include "jobs.h"
#include "log.h"

struct basejob {
	char			 path[PATH_MAX];
	char			 alias[JB_INSTANCE_MAX];
	char			 repo[PATH_MAX];
	char			 pool[64];	/* defaults.storage_pool */
	struct jb_image_file	 file;
	int			 fd;
	int			 deleted;
};

static void
basejob_free(void *arg)
{
	struct basejob	*b = arg;

	if (b->fd != -1)
		close(b->fd);
	free(b);
}

static void
base_progress(struct req *r, struct imsg *imsg)
{
	struct jb_ctl_text	t;

	if (imsg_get_type(imsg) != IMSG_PROGRESS ||
	    imsg_get_data(imsg, &t, sizeof(t)) == -1)
		fatalx("jb-incus: unexpected %s",
		    jb_imsg_name(imsg_get_type(imsg)));
	t.text[sizeof(t.text) - 1] = '\0';
	job_progress(r->arg, "%s", t.text);
}

static void
base_done(struct req *r, int ok, const char *err)
{
	job_end(r->arg, ok, "%s", err);
}

static void
import_opened(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct basejob	*b = job->state;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_IMAGE_FD ||
	    imsg_get_data(imsg, &b->file, sizeof(b->file)) == -1 ||
	    b->fd != -1)
		fatalx("jb-mountd: malformed IMAGE_FD");
	b->file.kind[sizeof(b->file.kind) - 1] = '\0';
	if ((b->fd = imsg_get_fd(imsg)) == -1)
		fatalx("jb-mountd: IMAGE_FD without a file");
}

static void
import_open_done(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct basejob		*b = job->state;
	struct jb_image_import	 q;
	int			 fd;

	if (!ok || b->fd == -1) {
		job_end(job, 0, "%s", err[0] ? err : "jb-mountd opened nothing");
		return;
	}
	job_progress(job, "importing %s (%s, %.1f MB) as %s", b->path,
	    b->file.kind, (double)b->file.size / 1e6, b->alias);
	memset(&q, 0, sizeof(q));
	strlcpy(q.alias, b->alias, sizeof(q.alias));
	strlcpy(q.repo, b->repo, sizeof(q.repo));
	strlcpy(q.pool, b->pool, sizeof(q.pool));
	q.size = b->file.size;
	/* the fd is jb-incus's now: it closes it */
	fd = b->fd;
	b->fd = -1;
	if (req_send(PROC_INCUS, IMSG_INCUS_IMAGE_IMPORT, &q, sizeof(q), fd,
	    base_progress, base_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
import_start(struct job *job, struct repo_ctx *ctx)
{
	struct basejob		*b = job->state;
	struct jb_image_open	 q;
	const char		*alias = job_opt(job, "alias");

	if (ctx != NULL) {
		strlcpy(b->repo, ctx->info.toplevel, sizeof(b->repo));
		strlcpy(b->pool, ctx->conf.storage_pool, sizeof(b->pool));
		if (alias == NULL)
			strlcpy(b->alias, ctx->conf.base_alias,
			    sizeof(b->alias));
		repo_ctx_free(ctx);
	}
	if (alias != NULL && strlcpy(b->alias, alias, sizeof(b->alias)) >=
	    sizeof(b->alias)) {
		job_end(job, 0, "--alias %s: too long", alias);
		return;
	}
	memset(&q, 0, sizeof(q));
	strlcpy(q.path, b->path, sizeof(q.path));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_IMAGE_OPEN, &q, sizeof(q), -1,
	    import_opened, import_open_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-mountd");
}

static void
base_import(struct job *job)
{
	struct basejob	*b = job->state;
	const char	*file = job->args[0];
	int		 n;

	/* a relative name is the caller's: jb-mountd gets it absolute */
	if (file[0] == '/')
		n = snprintf(b->path, sizeof(b->path), "%s", file);
	else
		n = snprintf(b->path, sizeof(b->path), "%s/%s", job->cmd.cwd,
		    file);
	if (n < 0 || (size_t)n >= sizeof(b->path) || file[0] == '\0') {
		job_end(job, 0, "%s: not a usable file name", file);
		return;
	}
	/* with --alias no checkout is needed; without, its base.alias */
	if (job_opt(job, "alias") != NULL)
		repo_resolve(job, "", 0, import_start);
	else
		repo_resolve(job, "", 1, import_start);
}

static void
usage_image(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct jb_image	 im;

	if (imsg_get_type(imsg) == IMSG_PROGRESS) {
		base_progress(r, imsg);
		return;
	}
	if (imsg_get_type(imsg) != IMSG_INCUS_IMAGE ||
	    imsg_get_data(imsg, &im, sizeof(im)) == -1)
		fatalx("jb-incus: malformed IMAGE");
	(void)job_reply(job, IMSG_CTL_IMAGE, &im, sizeof(im), -1);
}

static void
prune_image(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct basejob	*b = job->state;
	struct jb_image	 im;

	if (imsg_get_type(imsg) != IMSG_INCUS_IMAGE ||
	    imsg_get_data(imsg, &im, sizeof(im)) == -1)
		fatalx("jb-incus: malformed IMAGE");
	im.fingerprint[sizeof(im.fingerprint) - 1] = '\0';
	im.description[sizeof(im.description) - 1] = '\0';
	b->deleted++;
	job_progress(job, "deleted image %.12s (%s, %.1f MB)", im.fingerprint,
	    im.description[0] ? im.description : "no description",
	    (double)im.size / 1e6);
}

static void
prune_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;
	struct basejob	*b = job->state;

	if (ok && b->deleted == 0)
		job_progress(job, "nothing to prune: every JailBee image is "
		    "used by a container or named by an alias");
	job_end(job, ok, "%s", err);
}

static void
spec_told(struct job *job, const struct jb_base_spec *spec)
{
	(void)base_spec_send(job, spec);
	job_end(job, 1, "%s", "");
}

/*
 * base build: which alias and packages this checkout's image has; with
 * --agent, the image that agent's containers start from
 */
static void
spec_repo(struct job *job, struct repo_ctx *ctx)
{
	const char	*alias = job_opt(job, "alias");
	const char	*agent = job_opt(job, "agent");
	char		 img[JB_INSTANCE_MAX], pkgs[JB_PACKAGES_MAX];
	size_t		 i;

	if (agent != NULL) {
		for (i = 0; ctx != NULL && i < ctx->conf.agents.n; i++)
			if (strcmp(ctx->conf.agents.v[i].name, agent) == 0)
				break;
		if (ctx == NULL || i == ctx->conf.agents.n) {
			job_end(job, 0, "--agent %s: %s", agent, ctx == NULL ?
			    "an agent's image is built in a checkout JailBee "
			    "is set up in (jbctl init): run it there" : "no such agent: "
			    "neither a built-in preset nor in the config");
			repo_ctx_free(ctx);
			return;
		}
		if (repoconf_agent_image(&ctx->conf, &i, 1, img, sizeof(img),
		    pkgs, sizeof(pkgs)) == -1) {
			job_end(job, 0, "--agent %s: its packages with "
			    "base.packages are too long", agent);
			repo_ctx_free(ctx);
			return;
		}
		base_spec_ask(job, &ctx->conf, alias != NULL ? alias : img,
		    pkgs, spec_told);
		repo_ctx_free(ctx);
		return;
	}
	base_spec_ask(job, ctx != NULL ? &ctx->conf : NULL, alias, NULL,
	    spec_told);
	repo_ctx_free(ctx);
}

void
cmd_base(struct job *job)
{
	struct basejob	*b;

	if ((b = calloc(1, sizeof(*b))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	b->fd = -1;
	job->state = b;
	job->free_state = basejob_free;
	switch (job->cmd.id) {
	case CMD_BASE_BUILD:
		repo_resolve(job, "", 0, spec_repo);
		break;
	case CMD_BASE_IMPORT:
		base_import(job);
		break;
	case CMD_BASE_USAGE:
		if (req_send(PROC_INCUS, IMSG_INCUS_IMAGES, NULL, 0, -1,
		    usage_image, base_done, job) == NULL)
			job_end(job, 0, "cannot reach jb-incus");
		break;
	case CMD_BASE_PRUNE:
		if (req_send(PROC_INCUS, IMSG_INCUS_IMAGE_PRUNE, NULL, 0, -1,
		    prune_image, prune_done, job) == NULL)
			job_end(job, 0, "cannot reach jb-incus");
		break;
	default:
		job_end(job, 0, "not a base command");
	}
}
