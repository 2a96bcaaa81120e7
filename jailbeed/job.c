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
#include "mounts.h"
#include "ports.h"
#include "log.h"

static void	job_dispatch(struct job *);

void
job_start(struct ctl_conn *c, const struct jb_ctl_cmd *cmd)
{
	struct job	*job;
	const char	*p;
	uint32_t	 n;

	if ((job = calloc(1, sizeof(*job))) == NULL) {
		log_warn("job");
		return;
	}
	job->c = c;
	job->cmd = *cmd;
	for (p = job->cmd.argv, n = 0; n < cmd->nargs && n < 128; n++) {
		job->args[job->nargs++] = (char *)(uintptr_t)p;
		p += strlen(p) + 1;
	}
	control_job_started(c, job);
	control_job_remote(c, job);
	/* over SSH, the container a command names is looked up first */
	remote_gate(job, job_dispatch);
}

static void
job_dispatch(struct job *job)
{
	switch (job->cmd.id) {
	case CMD_INIT:
		cmd_init(job);
		break;
	case CMD_NEW:
		cmd_new(job);
		break;
	case CMD_LS:
		cmd_ls(job);
		break;
	case CMD_START:
	case CMD_STOP:
	case CMD_RESTART:
	case CMD_DESTROY:
	case CMD_SNAP_CREATE:
	case CMD_SNAP_RESTORE:
	case CMD_SNAP_LS:
	case CMD_SNAP_DELETE:
		cmd_action(job);
		break;
	case CMD_EXEC:
	case CMD_SHELL:
	case CMD_GIT_CONNECT:
	case CMD_TMUX:
		cmd_exec(job);
		break;
	case CMD_CONFIG_SHOW:
	case CMD_CONFIG_VALIDATE:
		cmd_config(job);
		break;
	case CMD_REMOTE_SSH_STATUS:
		cmd_sshstatus(job);
		break;
	case CMD_AUDIT:
		cmd_audit(job);
		break;
	case CMD_MOUNT:
	case CMD_UNMOUNT:
	case CMD_MOUNT_LS:
	case CMD_APPLY:
		cmd_mount(job);
		break;
	case CMD_BASE_BUILD:
	case CMD_BASE_IMPORT:
	case CMD_BASE_USAGE:
	case CMD_BASE_PRUNE:
		cmd_base(job);
		break;
	case CMD_NET_STRICT:
	case CMD_NET_LOOSE:
	case CMD_NET_STATUS:
	case CMD_NET_EGRESS_ADD:
	case CMD_NET_EGRESS_RM:
	case CMD_NET_EGRESS_LS:
	case CMD_NET_EGRESS_EXPORT:
	case CMD_NET_REFRESH:
	case CMD_NET_LOG:
	case CMD_NET_SUGGEST:
		cmd_net(job);
		break;
	case CMD_PORT_TO_CONTAINER:
	case CMD_PORT_TO_HOST:
	case CMD_PORT_LS:
	case CMD_PORT_RM:
		cmd_port(job);
		break;
	case CMD_DOCTOR:
		cmd_doctor(job);
		break;
	case CMD_RELOAD:
		cmd_reload(job);
		break;
	case CMD_REPO_LS:
	case CMD_REPO_RM:
		cmd_repo(job);
		break;
	case CMD_GIT_FETCH:
	case CMD_GIT_PULL:
		cmd_git(job);
		break;
	default:
		job_end(job, 0, "this command is not carried out by jailbeed");
	}
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
