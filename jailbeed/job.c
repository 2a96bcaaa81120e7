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
 * A job is one jbctl command being carried out by the parent.  It is
 * started from the checked command line, talks to the children through
 * requests, and ends once, with an error or without.  A job whose client
 * goes away (an interrupted jbctl) runs to its end all the same, so a
 * container is never left half-made; its output is dropped.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "jailbeed.h"
#include "jobs.h"
#include "limits_run.h"
#include "mounts.h"
#include "ports.h"
#include "log.h"

static void	job_dispatch(struct job *);

static struct job *
job_new(const struct jb_ctl_cmd *cmd)
{
	struct job	*job;
	const char	*p;
	uint32_t	 n;

	if ((job = calloc(1, sizeof(*job))) == NULL) {
		log_warn("job");
		return NULL;
	}
	job->cmd = *cmd;
	for (p = job->cmd.argv, n = 0; n < cmd->nargs && n < 128; n++) {
		job->args[job->nargs++] = (char *)(uintptr_t)p;
		p += strlen(p) + 1;
	}
	return job;
}

void
job_start_member(const struct jb_ctl_cmd *cmd, const char *asker,
    job_sink sink, void *arg)
{
	struct job	*job;

	if ((job = job_new(cmd)) == NULL) {
		sink(arg, IMSG_CTL_END, NULL, 0);
		return;
	}
	job->sink = sink;
	job->sink_arg = arg;
	(void)snprintf(job->actor, sizeof(job->actor), "member:%s", asker);
	job_dispatch(job);
}

void
job_start(struct ctl_conn *c, const struct jb_ctl_cmd *cmd)
{
	struct job	*job;

	if ((job = job_new(cmd)) == NULL)
		return;
	job->c = c;
	control_job_started(c, job);
	control_job_remote(c, job);
	/* over SSH, the container a command names is looked up first */
	ssh_gate(job, job_dispatch);
}

/*
 * Which function carries out each command of the command table.  Adding
 * a command is its row in cmdtab.c (words, arguments, classification),
 * its handler, and its line here; job_unhandled() holds the two tables
 * against each other at start.
 */
static const struct {
	enum cmd_id	  id;
	void		(*run)(struct job *);
} handlers[] = {
	{ CMD_INIT,		cmd_init },
	{ CMD_NEW,		cmd_new },
	{ CMD_LS,		cmd_ls },
	{ CMD_START,		cmd_action },
	{ CMD_STOP,		cmd_action },
	{ CMD_RESTART,		cmd_action },
	{ CMD_DESTROY,		cmd_action },
	{ CMD_SNAP_CREATE,	cmd_action },
	{ CMD_SNAP_RESTORE,	cmd_action },
	{ CMD_SNAP_LS,		cmd_action },
	{ CMD_SNAP_DELETE,	cmd_action },
	{ CMD_EXEC,		cmd_exec },
	{ CMD_SHELL,		cmd_exec },
	{ CMD_GIT_CONNECT,	cmd_exec },
	{ CMD_TMUX,		cmd_exec },
	{ CMD_CONFIG_SHOW,	cmd_config },
	{ CMD_CONFIG_VALIDATE,	cmd_config },
	{ CMD_REMOTE_SSH_STATUS, cmd_sshstatus },
	{ CMD_AUDIT,		cmd_audit },
	{ CMD_MOUNT,		cmd_mount },
	{ CMD_UNMOUNT,		cmd_mount },
	{ CMD_MOUNT_LS,		cmd_mount },
	{ CMD_APPLY,		cmd_mount },
	{ CMD_INFO,		cmd_info },
	{ CMD_SECRET_LS,	cmd_secret },
	{ CMD_BASE_BUILD,	cmd_base },
	{ CMD_BASE_IMPORT,	cmd_base },
	{ CMD_BASE_USAGE,	cmd_base },
	{ CMD_BASE_PRUNE,	cmd_base },
	{ CMD_NET_STRICT,	cmd_net },
	{ CMD_NET_LOOSE,	cmd_net },
	{ CMD_NET_STATUS,	cmd_net },
	{ CMD_NET_EGRESS_ADD,	cmd_net },
	{ CMD_NET_EGRESS_RM,	cmd_net },
	{ CMD_NET_EGRESS_LS,	cmd_net },
	{ CMD_NET_EGRESS_EXPORT, cmd_net },
	{ CMD_NET_REFRESH,	cmd_net },
	{ CMD_NET_LOG,		cmd_net },
	{ CMD_NET_SUGGEST,	cmd_net },
	{ CMD_PORT_TO_CONTAINER, cmd_port },
	{ CMD_PORT_TO_HOST,	cmd_port },
	{ CMD_PORT_LS,		cmd_port },
	{ CMD_PORT_RM,		cmd_port },
	{ CMD_DOCTOR,		cmd_doctor },
	{ CMD_RELOAD,		cmd_reload },
	{ CMD_REPO_LS,		cmd_repo },
	{ CMD_REPO_RM,		cmd_repo },
	{ CMD_GIT_FETCH,	cmd_git },
	{ CMD_GIT_PULL,		cmd_git },
};

static void
(*handler(enum cmd_id id))(struct job *)
{
	size_t	i;

	for (i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		if (handlers[i].id == id)
			return handlers[i].run;
	return NULL;
}

/*
 * The first command of the command table that jailbeed should carry out
 * and has no handler for, or NULL: commands jbctl does alone (CMD_LOCAL)
 * and those the control channel answers itself (CMD_NOJOB) have none.
 */
const struct cmd *
job_unhandled(void)
{
	int	i;

	for (i = 0; i < cmdtab_len; i++)
		if (!(cmdtab[i].flags & (CMD_LOCAL | CMD_NOJOB)) &&
		    handler(cmdtab[i].id) == NULL)
			return &cmdtab[i];
	return NULL;
}

static void
job_dispatch(struct job *job)
{
	void	(*run)(struct job *);

	if ((run = handler(job->cmd.id)) == NULL)
		job_end(job, 0, "this command is not carried out by jailbeed");
	else
		run(job);
}

void
job_detach(struct job *job)
{
	job->c = NULL;
}

void
job_winsize(struct job *job, const struct jb_winsize *ws)
{
	if (job->exec != NULL)
		(void)req_send_to(job->exec, IMSG_INCUS_RESIZE, ws,
		    sizeof(*ws));
}

int
job_reply(struct job *job, uint32_t type, const void *data, size_t len,
    int fd)
{
	if (job->c == NULL) {
		if (fd != -1)
			close(fd);
		if (job->sink != NULL)
			job->sink(job->sink_arg, type, data, len);
		return 0;
	}
	return control_send(job->c, type, data, len, fd);
}

void
job_progress(struct job *job, const char *fmt, ...)
{
	struct jb_ctl_text	t;
	va_list			ap;

	memset(&t, 0, sizeof(t));
	va_start(ap, fmt);
	(void)vsnprintf(t.text, sizeof(t.text), fmt, ap);
	va_end(ap);
	(void)job_reply(job, IMSG_CTL_PROGRESS, &t, sizeof(t), -1);
}

void
job_end(struct job *job, int ok, const char *fmt, ...)
{
	struct jb_ctl_text	t;
	va_list			ap;

	if (!ok) {
		memset(&t, 0, sizeof(t));
		va_start(ap, fmt);
		(void)vsnprintf(t.text, sizeof(t.text), fmt, ap);
		va_end(ap);
		(void)job_reply(job, IMSG_CTL_ERROR, &t, sizeof(t), -1);
	}
	audit_job_end(job, ok, ok ? NULL : t.text);
	(void)job_reply(job, IMSG_CTL_END, NULL, 0, -1);
	if (job->c != NULL)
		control_job_ended(job->c);
	if (job->free_state != NULL)
		job->free_state(job->state);
	sshsnap_put(job->remote_snap);
	free(job);
}

/* the value of option lname, NULL when not given */
const char *
job_opt(const struct job *job, const char *lname)
{
	const struct cmd	*def = cmd_find(job->cmd.id);
	int			 k;

	for (k = 0; def != NULL && k < CMD_MAXOPTS &&
	    def->opts[k].lname != NULL; k++)
		if (strcmp(def->opts[k].lname, lname) == 0)
			return (job->cmd.optset & (1U << k)) ?
			    job->cmd.opts[k] : NULL;
	return NULL;
}
