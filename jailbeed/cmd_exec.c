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
 * jbctl exec, shell and tmux: a command in the container as the dev
 * user, in its clone (tmux: attach the session autostart).  jb-incus
 * bridges Incus's exec streams to sockets whose far ends travel here as
 * fds and on to jbctl, which splices them to the terminal; window sizes
 * come back the other way.  The exit status ends the job.  git connect
 * is the same with a command fixed here: git's upload-pack or
 * receive-pack of the clone, the git bridge's transport.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "jobs.h"
#include "log.h"

struct xjob {
	struct repo_ctx		*ctx;
	char			 name[JB_INSTANCE_MAX];
	struct jb_instance	 in;
	int			 found;
};

static const char shell_script[] =
    "if [ -x /bin/bash ]; then exec /bin/bash -l; else exec /bin/sh -l; fi";

/* jbctl tmux: the session jbctl new launched enabled agents in */
static const char tmux_script[] =
    "command -v tmux >/dev/null || { echo 'this container has no tmux' "
    ">&2; exit 127; }\n"
    "tmux has-session -t autostart 2>/dev/null || { echo 'no tmux session "
    "autostart in this container: no agent was launched in it (jbctl new "
    "--agent AGENT)' >&2; exit 1; }\n"
    "exec tmux attach-session -t autostart\n";

static void
xjob_free(void *arg)
{
	struct xjob	*x = arg;

	repo_ctx_free(x->ctx);
	free(x);
}

/*
 * Append s to a packed argv (NUL-separated strings in buf), counting it
 * in *n; -1 when it does not fit, and then nothing is appended.
 */
int
argv_pack(char *buf, size_t size, size_t *off, uint32_t *n, const char *s)
{
	size_t	l = strlen(s) + 1;

	if (*off + l > size)
		return -1;
	memcpy(buf + *off, s, l);
	*off += l;
	(*n)++;
	return 0;
}

/*
 * git connect: git's service in the clone, nothing else; a clone-mode
 * container that runs, and never over SSH (host git is jbctl's).
 */
static int
git_refused(struct job *job, struct xjob *x)
{
	const char	*svc = job->args[1];

	x->in.state[sizeof(x->in.state) - 1] = '\0';
	x->in.mode[sizeof(x->in.mode) - 1] = '\0';
	if (job->remote)
		job_end(job, 0, "git connect: not available over SSH");
	else if (strcmp(svc, "upload-pack") != 0 &&
	    strcmp(svc, "receive-pack") != 0)
		job_end(job, 0, "git connect %s: \"%s\" is not a git service "
		    "(upload-pack or receive-pack)", x->name, svc);
	else if (strcmp(x->in.mode, "mount") == 0)
		job_end(job, 0, "git connect %s: a mount-mode container works "
		    "in the host's own checkout: there is no clone to fetch "
		    "from", x->name);
	else if (strcmp(x->in.state, "Running") != 0)
		job_end(job, 0, "git connect %s: the container is %s; start "
		    "it first (jbctl start %s)", x->name, x->in.state,
		    job->args[0]);
	else
		return 0;
	return 1;
}

static void
exec_msg(struct req *r, struct imsg *imsg)
{
	struct job		*job = r->arg;
	struct jb_exec_fd	 f;
	struct jb_exit		 x;
	int			 fd;

	switch (imsg_get_type(imsg)) {
	case IMSG_INCUS_EXEC_FD:
		if (imsg_get_data(imsg, &f, sizeof(f)) == -1 ||
		    (f.which != 0 && f.which != 2))
			fatalx("jb-incus: malformed EXEC_FD");
		if ((fd = imsg_get_fd(imsg)) == -1) {
			log_warnx("jb-incus sent an exec stream without its "
			    "fd");
			return;
		}
		(void)job_reply(job, IMSG_CTL_EXEC_FD, &f, sizeof(f), fd);
		break;
	case IMSG_INCUS_EXIT:
		if (imsg_get_data(imsg, &x, sizeof(x)) == -1)
			fatalx("jb-incus: malformed EXIT");
		(void)job_reply(job, IMSG_CTL_EXIT, &x, sizeof(x), -1);
		break;
	case IMSG_PROGRESS:
		break;
	default:
		fatalx("jb-incus: unexpected %s in an exec",
		    jb_imsg_name(imsg_get_type(imsg)));
	}
}

static void
exec_done(struct req *r, int ok, const char *err)
{
	struct job	*job = r->arg;

	job->exec = NULL;
	job_end(job, ok, "%s", err);
}

static void
exec_found(struct req *r, struct imsg *imsg)
{
	struct job	*job = r->arg;
	struct xjob	*x = job->state;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &x->in, sizeof(x->in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	x->in.prefix[sizeof(x->in.prefix) - 1] = '\0';
	x->found = 1;
}

static void
exec_start_cmd(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct xjob		*x = job->state;
	struct jb_incus_exec	*q;
	size_t			 off = 0, eoff = 0;
	char			 kv[JB_OPTVAL_MAX];
	const char		*p;
	int			 i, bad = 0;

	if (!ok || !x->found) {
		if (ok)
			job_end(job, 0, "no such container %s", x->name);
		else
			job_end(job, 0, "%s", err);
		return;
	}
	/* a remote session never reaches the host working tree */
	if (job->remote && strcmp(x->in.mode, "mount") == 0) {
		job_end(job, 0, "%s is a mount-mode container (the host "
		    "working tree): refused over SSH", x->name);
		return;
	}
	if (job->cmd.id == CMD_GIT_CONNECT && git_refused(job, x))
		return;
	if ((q = calloc(1, sizeof(*q))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	strlcpy(q->name, x->name, sizeof(q->name));
	q->uid = env->owner_uid;
	q->gid = env->owner_gid;
	snprintf(q->cwd, sizeof(q->cwd), "/home/dev/%s", x->in.prefix);
	q->cols = job->cmd.cols;
	q->rows = job->cmd.rows;
	if (job->cmd.id == CMD_SHELL || job->cmd.id == CMD_TMUX) {
		q->interactive = 1;
		bad |= ARG("/bin/sh");
		bad |= ARG("-c");
		bad |= ARG(job->cmd.id == CMD_SHELL ? shell_script :
		    tmux_script);
	} else if (job->cmd.id == CMD_GIT_CONNECT) {
		/* the command is ours: only the service is the client's */
		bad |= ARG("git");
		if (strcmp(job->args[1], "receive-pack") == 0)
			/* the checked-out branch moves with a clean tree only */
			bad |= ARG("-c") | ARG("receive.denyCurrentBranch="
			    "updateInstead");
		bad |= ARG(job->args[1]);
		bad |= ARG(q->cwd);
	} else {
		q->interactive = job->cmd.tty != 0;
		for (i = 1; i < job->nargs; i++)
			bad |= ARG(job->args[i]);
	}
	bad |= ENV("HOME=/home/dev");
	bad |= ENV("USER=dev");
	bad |= ENV("LOGNAME=dev");
	bad |= ENV(JB_DEV_PATH);
	snprintf(kv, sizeof(kv), "TERM=%s", job->cmd.term[0] ?
	    job->cmd.term : "xterm");
	bad |= ENV(kv);
	/* a session's markers and terminal identity */
	for (i = 0, p = job->renv; job->remote && (uint32_t)i < job->nrenv;
	    i++, p += strlen(p) + 1)
		bad |= ENV(p);
	if (bad) {
		free(q);
		job_end(job, 0, "the command line is too long");
		return;
	}
	job->exec = req_send(PROC_INCUS, IMSG_INCUS_EXEC, q, sizeof(*q), -1,
	    exec_msg, exec_done, job);
	free(q);
	if (job->exec == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

static void
exec_named(struct job *job, struct repo_ctx *ctx)
{
	struct xjob		*x;
	struct jb_incus_target	 t;

	if ((x = calloc(1, sizeof(*x))) == NULL) {
		repo_ctx_free(ctx);
		job_end(job, 0, "out of memory");
		return;
	}
	x->ctx = ctx;
	job->state = x;
	job->free_state = xjob_free;
	if (repo_container_name(ctx, job->args[0], x->name,
	    sizeof(x->name)) == -1) {
		job_end(job, 0, "%s: not a container name", job->args[0]);
		return;
	}
	memset(&t, 0, sizeof(t));
	strlcpy(t.name, x->name, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
	    exec_found, exec_start_cmd, job) == NULL)
		job_end(job, 0, "cannot reach jb-incus");
}

void
cmd_exec(struct job *job)
{
	repo_resolve_brief(job, 0, exec_named);
}
