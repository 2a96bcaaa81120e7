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
 * mount KIND NAME asked over SSH (seed
 * "Remote mounts").  A session has no checkout: the container names its
 * repo (user.jailbee.repo), whose configuration then says what KIND is.
 * Under restrict_host, without remote.ssh.mounts, the entry qualifies
 * only when its real path is exactly one of remote.ssh.mount_roots that
 * the repo may use, and no other read-write entry of the repo covers
 * that root; the root's spelling is then the source and either side
 * read-only makes the mount read-only.  Real paths are the owner's view,
 * so jb-mountd resolves them; the decision itself is mnt_roots_decide().
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mount_ssh.h"
#include "mountspec.h"

/*
 * The remote gate (ssh_gate.c) has looked the container up: it
 * exists, is the suite's and its repo is not excluded.
 */
void
mount_ssh_repo(struct job *job, repo_next next)
{
	if (!job->remote_found) {
		job_end(job, 0, "no such container %s", job->args[1]);
		return;
	}
	if (job->remote_in.repo[0] != '/') {
		job_end(job, 0, "mount: %s is not a JailBee repo's container",
		    job->remote_in.name);
		return;
	}
	(void)strlcpy(job->cmd.cwd, job->remote_in.repo, sizeof(job->cmd.cwd));
	repo_resolve_brief(job, 1, next);
}

int
mount_ssh_restricted(const struct job *job)
{
	return job->remote && env->conf.ssh_restrict_host &&
	    !env->conf.ssh_mounts;
}

#define OTHERS_MAX	(2 * RC_MOUNTS_MAX)

struct rdecide {
	struct job			*job;
	struct repo_ctx			*ctx;
	const struct rc_optional	*opt;
	roots_cb			 cb;
	char				 entry[PATH_MAX];
	char				*others[OTHERS_MAX];
	size_t				 nothers;
	size_t				 at;	/* the path being resolved */
	char				 cur[PATH_MAX];
};

static void	resolve_next(struct rdecide *);

static void
rdecide_free(struct rdecide *d)
{
	size_t	i;

	for (i = 0; i < d->nothers; i++)
		free(d->others[i]);
	free(d);
}

/* the read-write entries of the repo other than this one, in order */
static const struct rc_mount *
other_at(const struct rdecide *d, size_t i, const char **what)
{
	const struct repoconf	*c = &d->ctx->conf;
	static char		 buf[64];

	if (i < c->host_mounts.n) {
		(void)snprintf(buf, sizeof(buf), "host_mounts[%zu]", i);
		*what = buf;
		return &c->host_mounts.v[i];
	}
	i -= c->host_mounts.n;
	if (i < c->optional_mounts.n) {
		(void)snprintf(buf, sizeof(buf), "optional_mounts.%s",
		    c->optional_mounts.v[i].kind);
		*what = buf;
		return &c->optional_mounts.v[i].m;
	}
	return NULL;
}

static void
decide(struct rdecide *d)
{
	struct mnt_root	 roots[JB_ROOTS_MAX];
	const struct jb_mount_root *r;
	struct job	*job = d->job;
	const char	*source, *prefix = d->ctx->conf.container_prefix;
	char		 err[JB_ERR_TEXT_MAX], kind[RC_KIND_MAX + 1];
	size_t		 n = 0;
	int		 i, j, in, ro;
	roots_cb	 cb = d->cb;

	(void)strlcpy(kind, d->opt->kind, sizeof(kind));
	for (i = 0; i < env->conf.ssh_nroots; i++) {
		r = &env->conf.ssh_roots[i];
		for (in = r->nrepos == 0, j = 0; !in && j < r->nrepos; j++)
			in = strcmp(r->repos[j], prefix) == 0;
		if (in) {
			roots[n].path = r->path;
			roots[n++].readonly = r->readonly;
		} else if (strcmp(r->path, d->entry) == 0) {
			rdecide_free(d);
			job_end(job, 0, "mount %s: refused over SSH: mount root "
			    "%s does not list this repo (%s) in its repos "
			    "(remote.ssh.mount_roots)", kind, r->path, prefix);
			return;
		}
	}
	if (mnt_roots_decide(d->entry, d->opt->m.readonly, roots, n,
	    (const char *const *)d->others, d->nothers, &source, &ro, err,
	    sizeof(err)) == -1) {
		rdecide_free(d);
		job_end(job, 0, "mount %s: refused over SSH: %s", kind, err);
		return;
	}
	/* source points into env->conf, which outlives this call */
	rdecide_free(d);
	cb(job, source, ro);
}

static void
resolved_msg(struct req *r, struct imsg *imsg)
{
	struct rdecide	*d = r->arg;
	struct jb_mount_resolved res;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_RESOLVED ||
	    imsg_get_data(imsg, &res, sizeof(res)) == -1)
		fatalx("jb-mountd: malformed RESOLVED");
	res.realpath[sizeof(res.realpath) - 1] = '\0';
	(void)strlcpy(d->cur, res.realpath, sizeof(d->cur));
}

static void
resolved(struct req *r, int ok, const char *err)
{
	struct rdecide	*d = r->arg;
	struct job	*job = d->job;

	if (!ok) {
		job_end(job, 0, "mount %s: %s", d->opt->kind, err);
		rdecide_free(d);
		return;
	}
	if (d->at == 0) {
		if (d->cur[0] == '\0') {
			job_end(job, 0, "mount %s: host path %s "
			    "(optional_mounts.%s) does not exist: create it, "
			    "or remove the entry", d->opt->kind,
			    d->opt->m.host, d->opt->kind);
			rdecide_free(d);
			return;
		}
		(void)strlcpy(d->entry, d->cur, sizeof(d->entry));
	} else if (d->cur[0] != '\0' && d->nothers < OTHERS_MAX) {
		/* one that does not exist covers nothing */
		if ((d->others[d->nothers] = strdup(d->cur)) == NULL) {
			job_end(job, 0, "out of memory");
			rdecide_free(d);
			return;
		}
		d->nothers++;
	}
	d->at++;
	resolve_next(d);
}

static void
resolve_next(struct rdecide *d)
{
	struct jb_mount_check	 q;
	const struct rc_mount	*m = NULL;
	const char		*what = NULL;

	memset(&q, 0, sizeof(q));
	if (d->at == 0) {
		m = &d->opt->m;
		(void)snprintf(q.what, sizeof(q.what), "optional_mounts.%s",
		    d->opt->kind);
	} else {
		/* only the other read-write entries can cover a root */
		while ((m = other_at(d, d->at - 1, &what)) != NULL &&
		    (m->readonly || m == &d->opt->m))
			d->at++;
		if (m == NULL) {
			decide(d);
			return;
		}
		(void)strlcpy(q.what, what, sizeof(q.what));
	}
	(void)strlcpy(q.host, m->host, sizeof(q.host));
	d->cur[0] = '\0';
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_RESOLVE, &q, sizeof(q), -1,
	    resolved_msg, resolved, d) == NULL) {
		job_end(d->job, 0, "cannot reach jb-mountd");
		rdecide_free(d);
	}
}

void
mount_ssh_decide(struct job *job, struct repo_ctx *ctx,
    const struct rc_optional *opt, roots_cb cb)
{
	struct rdecide	*d;

	if (env->conf.ssh_nroots == 0) {
		job_end(job, 0, "mount %s: refused over SSH: neither "
		    "remote.ssh.mounts nor remote.ssh.mount_roots grants it",
		    opt->kind);
		return;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	d->job = job;
	d->ctx = ctx;
	d->opt = opt;
	d->cb = cb;
	resolve_next(d);
}
