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
 * The remote gate: every command a jb-sshd session sends that names a
 * container (the command table's name_arg) passes here before its own
 * handler runs.  The container is looked up in jb-incus first; one that
 * does not exist, is not the suite's, or belongs to a repo in
 * remote.ssh.excluded_repos gives the one same error, so a session can
 * neither act on an excluded repo's container nor tell it apart from a
 * name nobody uses.  What it resolved to (the container, its repo)
 * is kept on the job for the journal, which thus names only things that
 * exist.  Handlers need no exclusion check of their own: no remote job
 * reaches them otherwise.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtab.h"
#include "jailbeed.h"
#include "log.h"

struct gate {
	struct job		*job;
	void			(*next)(struct job *);
	struct jb_instance	 in;
	int			 found;
};

static void
gate_found(struct req *r, struct imsg *imsg)
{
	struct gate	*g = r->arg;

	if (imsg_get_type(imsg) != IMSG_INCUS_INSTANCE ||
	    imsg_get_data(imsg, &g->in, sizeof(g->in)) == -1)
		fatalx("jb-incus: malformed INSTANCE");
	g->in.name[sizeof(g->in.name) - 1] = '\0';
	g->in.repo[sizeof(g->in.repo) - 1] = '\0';
	g->in.prefix[sizeof(g->in.prefix) - 1] = '\0';
	g->in.mode[sizeof(g->in.mode) - 1] = '\0';
	g->found = 1;
}

static void
gate_done(struct req *r, int ok, const char *err)
{
	struct gate	*g = r->arg;
	struct job	*job = g->job;
	void		(*next)(struct job *) = g->next;
	const struct cmd *def = cmd_find(job->cmd.id);
	const char	*name = job->args[def->name_arg - 1];

	if (!ok || !g->found || g->in.prefix[0] == '\0' ||
	    strcmp(g->in.name, name) != 0) {
		/* Incus's own words stay here: they would tell them apart */
		if (!ok)
			log_debug("ssh gate: %s", err);
		job->remote_reason = "unknown container";
		free(g);
		job_end(job, 0, "no such container %s", name);
		return;
	}
	if (sshsnap_excluded(job->remote_snap, g->in.prefix)) {
		/* the journal is the host's: it may say which repo */
		(void)strlcpy(job->remote_repo, g->in.prefix,
		    sizeof(job->remote_repo));
		job->remote_reason = "excluded_repos";
		free(g);
		job_end(job, 0, "no such container %s", name);
		return;
	}
	job->remote_in = g->in;
	job->remote_found = 1;
	(void)strlcpy(job->remote_repo, g->in.prefix,
	    sizeof(job->remote_repo));
	free(g);
	next(job);
}

void
ssh_gate(struct job *job, void (*next)(struct job *))
{
	const struct cmd	*def = cmd_find(job->cmd.id);
	struct jb_incus_target	 t;
	struct gate		*g;
	const char		*name;

	if (!job->remote || def == NULL || def->name_arg == 0) {
		next(job);
		return;
	}
	if (def->name_arg > job->nargs) {
		job_end(job, 0, "wrong number of arguments");
		return;
	}
	name = job->args[def->name_arg - 1];
	memset(&t, 0, sizeof(t));
	if (name[0] == '\0' ||
	    strlcpy(t.name, name, sizeof(t.name)) >= sizeof(t.name)) {
		job->remote_reason = "unknown container";
		job_end(job, 0, "no such container %s", name);
		return;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	g->job = job;
	g->next = next;
	if (req_send(PROC_INCUS, IMSG_INCUS_LIST, &t, sizeof(t), -1,
	    gate_found, gate_done, g) == NULL) {
		free(g);
		job_end(job, 0, "cannot reach jb-incus");
	}
}
