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
 * git fetch and git pull --into over SSH: the git bridge for a remote
 * session, refs only.  Locally jbctl runs host git itself (jbctl/git.c);
 * a session has no host process of its own, so the parent sequences it:
 * the checkout of --repo (jb-mountd describes it: its top and what is
 * checked out), the container the remote gate resolved, git upload-pack
 * in its clone (jb-incus's exec, as git connect), and jb-gitd, which
 * fetches through that stream into refs/jailbee/SHORT/BRANCH and, for
 * --into, fast-forwards one host branch.  Whatever would move or check
 * out the host's checked-out branch is refused here, before the
 * container is asked for anything.  One journal line per use: the
 * container, the branch, the refs moved and the bytes received.
 */

#include <errno.h>
#include <event.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "gitref.h"
#include "jobs.h"
#include "log.h"
#include "termsafe.h"

#define GIT_MAX_BYTES	(2ULL << 30)
#define GIT_TIMEOUT	3600

struct gjob {
	struct job		*job;
	struct repo_ctx		*ctx;
	struct jb_gitd_fetch	 f;
	int			 exec_done, exec_ok;
	int			 gitd_sent, gitd_done, gitd_ok;
	char			 err[JB_CTL_TEXT_MAX];
	struct jb_gitd_result	 r;
	int			 have_r;
	int			 errfd;		/* upload-pack's stderr */
	struct event		 errev;
};

static void
gjob_free(void *arg)
{
	struct gjob	*g = arg;

	if (g->errfd != -1) {
		event_del(&g->errev);
		close(g->errfd);
	}
	repo_ctx_free(g->ctx);
	free(g);
}

/* what upload-pack says on stderr is not wanted: read and dropped */
static void
drain(int fd, short ev, void *arg)
{
	struct gjob	*g = arg;
	char		 buf[4096];
	ssize_t		 n;

	if ((n = read(fd, buf, sizeof(buf))) > 0 || (n == -1 &&
	    (errno == EAGAIN || errno == EINTR)))
		return;
	event_del(&g->errev);
	close(g->errfd);
	g->errfd = -1;
}

static void
git_finish(struct gjob *g)
{
	struct job		*job = g->job;
	struct jb_output	 o;
	const char		*into = g->f.into;
	int			 n;

	if (g->gitd_sent && !g->gitd_done)
		return;
	if (!g->exec_done) {
		if (!g->gitd_sent)
			return;
		/*
		 * jb-gitd is done and closed its end of the stream; what
		 * runs in the container may ignore that and never end: it
		 * is killed and its exec closed, its answers dropped
		 */
		if (job->exec != NULL) {
			(void)req_send_to(job->exec, IMSG_INCUS_EXEC_KILL, NULL,
			    0);
			job->exec->arg = NULL;
		}
		job->exec = NULL;
	}
	if (!g->gitd_sent) {
		job_end(job, 0, "git %s: %s", job->args[0], g->err[0] ?
		    g->err : "git upload-pack did not start in the container");
		return;
	}
	if (!g->have_r || !g->r.ok) {
		job->audit_reason = "git bridge refused";
		job_end(job, 0, "git %s %s: %s", job->cmd.id == CMD_GIT_PULL ?
		    "pull" : "fetch", job->args[0], !g->gitd_ok ? g->err :
		    g->have_r ? termsafe(g->r.text) : "jb-gitd gave no answer");
		return;
	}
	job->audit_git = 1;
	job->audit_bytes = g->r.bytes;
	(void)strlcpy(job->audit_branch, g->f.branch,
	    sizeof(job->audit_branch));
	if (strcmp(g->r.old, g->r.new) != 0)
		(void)strlcpy(job->audit_refs, g->f.ref,
		    sizeof(job->audit_refs));
	memset(&o, 0, sizeof(o));
	o.which = 1;
	n = snprintf(o.data, sizeof(o.data), "%s's %s -> %s: %" PRIu64
	    " new commit%s, %" PRIu64 " object%s, %" PRIu64 " bytes "
	    "received\n", job->args[0], g->f.branch, g->f.ref, g->r.commits,
	    g->r.commits == 1 ? "" : "s", g->r.objects,
	    g->r.objects == 1 ? "" : "s", g->r.bytes);
	if (into[0] != '\0' && n > 0 && (size_t)n < sizeof(o.data)) {
		if (strcmp(g->r.into_old, g->r.new) == 0)
			n += snprintf(o.data + n, sizeof(o.data) - n, "%s is "
			    "up to date with %s's %s\n", into, job->args[0],
			    g->f.branch);
		else {
			n += snprintf(o.data + n, sizeof(o.data) - n, "%s: "
			    "%.12s%s%.12s (fast-forward to %s's %s)\n", into,
			    g->r.into_old[0] ? g->r.into_old : "new",
			    g->r.into_old[0] ? ".." : " at ", g->r.new,
			    job->args[0], g->f.branch);
			(void)snprintf(job->audit_refs + strlen(job->audit_refs),
			    sizeof(job->audit_refs) - strlen(job->audit_refs),
			    "%srefs/heads/%s", job->audit_refs[0] ? "," : "",
			    into);
		}
	}
	o.len = n > 0 && (size_t)n < sizeof(o.data) ? (uint32_t)n :
	    (uint32_t)strlen(o.data);
	(void)job_reply(job, IMSG_CTL_OUTPUT, &o, sizeof(o), -1);
	job_end(job, 1, " ");
}

static void
gitd_msg(struct req *r, struct imsg *imsg)
{
	struct gjob	*g = r->arg;

	if (imsg_get_type(imsg) != IMSG_GITD_RESULT ||
	    imsg_get_data(imsg, &g->r, sizeof(g->r)) == -1)
		fatalx("jb-gitd: malformed RESULT");
	g->r.text[sizeof(g->r.text) - 1] = '\0';
	g->r.old[sizeof(g->r.old) - 1] = '\0';
	g->r.new[sizeof(g->r.new) - 1] = '\0';
	g->r.into_old[sizeof(g->r.into_old) - 1] = '\0';
	g->have_r = 1;
}

static void
gitd_done(struct req *r, int ok, const char *err)
{
	struct gjob	*g = r->arg;

	g->gitd_done = 1;
	g->gitd_ok = ok;
	if (!ok)
		(void)strlcpy(g->err, err, sizeof(g->err));
	git_finish(g);
}

static void
exec_msg(struct req *r, struct imsg *imsg)
{
	struct gjob		*g = r->arg;
	struct jb_exec_fd	 f;
	int			 fd;

	if (g == NULL) {
		/* the job ended: an fd that still comes is closed */
		if ((fd = imsg_get_fd(imsg)) != -1)
			close(fd);
		return;
	}
	switch (imsg_get_type(imsg)) {
	case IMSG_INCUS_EXEC_FD:
		if (imsg_get_data(imsg, &f, sizeof(f)) == -1 ||
		    (f.which != 0 && f.which != 2))
			fatalx("jb-incus: malformed EXEC_FD");
		if ((fd = imsg_get_fd(imsg)) == -1)
			return;
		if (f.which == 2 && g->errfd == -1) {
			g->errfd = fd;
			event_set(&g->errev, fd, EV_READ | EV_PERSIST, drain,
			    g);
			if (event_add(&g->errev, NULL) == -1) {
				close(fd);
				g->errfd = -1;
			}
		} else if (f.which == 0 && !g->gitd_sent) {
			g->gitd_sent = 1;
			if (req_send(PROC_GITD, IMSG_GITD_FETCH, &g->f,
			    sizeof(g->f), fd, gitd_msg, gitd_done, g) == NULL) {
				g->gitd_done = 1;
				(void)strlcpy(g->err, "cannot reach jb-gitd",
				    sizeof(g->err));
			}
		} else
			close(fd);
		break;
	case IMSG_INCUS_EXIT:
	case IMSG_PROGRESS:
		break;
	default:
		fatalx("jb-incus: unexpected %s in git's exec",
		    jb_imsg_name(imsg_get_type(imsg)));
	}
}

static void
exec_done(struct req *r, int ok, const char *err)
{
	struct gjob	*g = r->arg;

	if (g == NULL)
		return;
	g->exec_done = 1;
	g->exec_ok = ok;
	if (!ok && !g->gitd_sent)
		(void)strlcpy(g->err, err, sizeof(g->err));
	git_finish(g);
}

/* a name as it may be shown on the remote terminal */
static const char *
show(char *buf, size_t len, const char *s)
{
	(void)strlcpy(buf, s, len);
	return termsafe(buf);
}

static void
git_start(struct job *job, struct repo_ctx *ctx)
{
	struct gjob		*g;
	struct jb_instance	*in = &job->remote_in;
	struct jb_incus_exec	*q;
	const char		*name = job->args[0], *branch, *into, *why;
	char			 shown[JB_BRANCH_MAX];
	size_t			 plen, off = 0, eoff = 0;
	int			 bad = 0;

	if ((g = calloc(1, sizeof(*g))) == NULL) {
		repo_ctx_free(ctx);
		job_end(job, 0, "out of memory");
		return;
	}
	g->job = job;
	g->ctx = ctx;
	g->errfd = -1;
	job->state = g;
	job->free_state = gjob_free;
	audit_target(job, in->name, ctx);
	plen = strlen(in->prefix);
	if (!job->remote_found || strcmp(in->prefix,
	    ctx->conf.container_prefix) != 0) {
		job->audit_reason = "not the repository's";
		job_end(job, 0, "%s is not a container of the repository "
		    "--repo names (%s): name its own repository", name,
		    ctx->conf.container_prefix);
		return;
	}
	if (strncmp(in->name, in->prefix, plen) != 0 || in->name[plen] != '-'
	    || gitref_component_bad(in->name + plen + 1) != NULL) {
		job->audit_reason = "usage";
		job_end(job, 0, "%s: not a container name for a ref", name);
		return;
	}
	if (strcmp(in->mode, "mount") == 0) {
		job->audit_reason = "mount mode";
		job_end(job, 0, "%s is a mount-mode container: it works in the "
		    "host's checkout itself, there is nothing to fetch", name);
		return;
	}
	if (strcmp(in->state, "Running") != 0) {
		job->audit_reason = "not running";
		job_end(job, 0, "%s is %s: start it first (start %s)", name,
		    in->state, name);
		return;
	}
	branch = job->cmd.id == CMD_GIT_FETCH && job->nargs > 1 ?
	    job->args[1] : in->branch;
	if ((why = gitref_branch_bad(branch)) != NULL) {
		job->audit_reason = "not a branch name";
		job_end(job, 0, "%s: \"%s\" is not a branch name the git "
		    "bridge takes (%s)", name, show(shown, sizeof(shown),
		    branch), why);
		return;
	}
	into = job->cmd.id == CMD_GIT_PULL ? job_opt(job, "into") : NULL;
	if (into != NULL && (why = gitref_branch_bad(into)) != NULL) {
		job->audit_reason = "not a branch name";
		job_end(job, 0, "pull %s --into: \"%s\" is not a branch name "
		    "(%s)", name, show(shown, sizeof(shown), into), why);
		return;
	}
	/* the checked-out branch moves only where its owner sits */
	if (into != NULL && strcmp(into, ctx->info.head_branch) == 0) {
		job->audit_reason = "checked out";
		job_end(job, 0, "pull %s --into %s: %s is checked out in the "
		    "host's checkout; over SSH the git bridge updates refs "
		    "only: --into another branch (nothing fetched)", name,
		    into, into);
		return;
	}
	/*
	 * the default branch is the escalation gate's baseline when the
	 * upstream has none: a container's commits must not become it
	 */
	if (into != NULL && strcmp(into, ctx->info.default_branch) == 0) {
		job->audit_reason = "default branch";
		job_end(job, 0, "pull %s --into %s: %s is the repository's "
		    "default branch, the baseline new compares a config "
		    "with; over SSH --into another branch (nothing fetched)",
		    name, into, into);
		return;
	}
	(void)strlcpy(g->f.toplevel, ctx->info.toplevel,
	    sizeof(g->f.toplevel));
	(void)strlcpy(g->f.name, in->name, sizeof(g->f.name));
	(void)strlcpy(g->f.branch, branch, sizeof(g->f.branch));
	(void)snprintf(g->f.ref, sizeof(g->f.ref), "refs/jailbee/%s/%s",
	    in->name + plen + 1, branch);
	if (into != NULL)
		(void)strlcpy(g->f.into, into, sizeof(g->f.into));
	g->f.max_bytes = GIT_MAX_BYTES;
	g->f.timeout = GIT_TIMEOUT;
	(void)strlcpy(job->audit_branch, branch, sizeof(job->audit_branch));

	/* git upload-pack in the clone, as git connect starts it */
	if ((q = calloc(1, sizeof(*q))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	(void)strlcpy(q->name, in->name, sizeof(q->name));
	q->uid = env->owner_uid;
	q->gid = env->owner_gid;
	(void)snprintf(q->cwd, sizeof(q->cwd), "/home/dev/%s", in->prefix);
	bad |= ARG("git");
	bad |= ARG("upload-pack");
	bad |= ARG(q->cwd);
	bad |= ENV("HOME=/home/dev");
	bad |= ENV("USER=dev");
	bad |= ENV("LOGNAME=dev");
	if (bad) {
		free(q);
		job_end(job, 0, "the command line is too long");
		return;
	}
	job->exec = req_send(PROC_INCUS, IMSG_INCUS_EXEC, q, sizeof(*q), -1,
	    exec_msg, exec_done, g);
	free(q);
	if (job->exec == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

void
cmd_git(struct job *job)
{
	if (!job->remote) {
		job_end(job, 0, "git %s is run by jbctl in the host's checkout",
		    job->cmd.id == CMD_GIT_PULL ? "pull" : "fetch");
		return;
	}
	if (job->cmd.id == CMD_GIT_PULL && job_opt(job, "into") == NULL) {
		job_end(job, 0, "git pull %s: refused over SSH: it would move "
		    "the host's checked-out branch and its tree (the git "
		    "bridge updates refs only); use git pull %s --into "
		    "BRANCH, or git fetch %s", job->args[0], job->args[0],
		    job->args[0]);
		return;
	}
	repo_resolve(job, "", 1, git_start);
}
