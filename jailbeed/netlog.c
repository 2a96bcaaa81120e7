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
 * jbctl net log NAME [--since DUR] and net suggest NAME: what jb-netd
 * refused to a container.  jb-netd keeps, in bounded tables, the names
 * its resolver answered NXDOMAIN (only plain DNS names: anything else is
 * one bucket) and the TCP and UDP connection attempts the container's
 * strict chain rejected ("ADDR:PORT/PROTO"), each with the egress_allow
 * entry that would admit it; log shows them with their counts, suggest
 * prints those entries.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmdtab.h"
#include "duration.h"
#include "log.h"
#include "netstatus.h"


struct nlog {
	int64_t		 since;		/* 0: everything */
	char		*suggest;	/* the entries, one line each */
	size_t		 n;
};

static void
nlog_free(void *arg)
{
	struct nlog	*nl = arg;

	free(nl->suggest);
	free(nl);
}

static void
nlog_block(struct req *r, struct imsg *imsg)
{
	struct job		*job = r->arg;
	struct nlog		*nl = job->state;
	struct jb_net_block	 b;
	char			*s, *line;

	if (imsg_get_type(imsg) != IMSG_NETD_BLOCK ||
	    imsg_get_data(imsg, &b, sizeof(b)) == -1)
		fatalx("jb-netd: malformed NETD_BLOCK");
	b.name[sizeof(b.name) - 1] = '\0';
	b.kind[sizeof(b.kind) - 1] = '\0';
	b.what[sizeof(b.what) - 1] = '\0';
	b.allow[sizeof(b.allow) - 1] = '\0';
	if (b.last < nl->since)
		return;
	nl->n++;
	if (job->cmd.id == CMD_NET_LOG) {
		(void)job_reply(job, IMSG_CTL_NET_BLOCK, &b, sizeof(b), -1);
		return;
	}
	/*
	 * jb-netd made allow with the config's parser: a plain name, a name
	 * or address with a port; quoted, it pastes as it is.  Two
	 * addresses of one name give one line.
	 */
	if (b.allow[0] == '\0' || strchr(b.allow, '"') != NULL ||
	    strchr(b.allow, '\n') != NULL)
		return;
	if (asprintf(&line, "  - \"%s\"\n", b.allow) == -1)
		fatal("asprintf");
	if (nl->suggest != NULL && strstr(nl->suggest, line) != NULL) {
		free(line);
		return;
	}
	if (asprintf(&s, "%s%s", nl->suggest ? nl->suggest : "", line) == -1)
		fatal("asprintf");
	free(line);
	free(nl->suggest);
	nl->suggest = s;
}

static void
nlog_done(struct req *r, int ok, const char *err)
{
	struct job		*job = r->arg;
	struct nlog		*nl = job->state;
	struct jb_output	 o;

	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	if (job->cmd.id == CMD_NET_SUGGEST) {
		memset(&o, 0, sizeof(o));
		o.which = 1;
		if (nl->suggest == NULL)
			o.len = (uint32_t)strlcpy(o.data, "# nothing was refused "
			    "that an entry could admit\n", sizeof(o.data));
		else if ((size_t)snprintf(o.data, sizeof(o.data),
		    "egress_allow:\n%s", nl->suggest) >= sizeof(o.data)) {
			job_end(job, 0, "net suggest: the list is longer than "
			    "one reply (%zu bytes): see net log", sizeof(o.data));
			return;
		} else
			o.len = (uint32_t)strlen(o.data);
		(void)job_reply(job, IMSG_CTL_OUTPUT, &o, sizeof(o), -1);
	}
	job_end(job, 1, NULL);
}

int
net_log_since(struct job *job, int64_t *secs)
{
	const char	*since = job_opt(job, "since");
	char		 err[256];

	*secs = 0;
	if (since != NULL && duration_parse(since, 1, 30 * 24 * 60 * 60,
	    secs, err, sizeof(err)) == -1) {
		job_end(job, 0, "net log: --since: %s", err);
		return -1;
	}
	return 0;
}

void
net_log(struct job *job, const char *name)
{
	struct nlog		*nl;
	struct jb_incus_target	 t;
	int64_t			 secs;

	if (net_log_since(job, &secs) == -1)
		return;
	if ((nl = calloc(1, sizeof(*nl))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	nl->since = secs ? (int64_t)time(NULL) - secs : 0;
	job->state = nl;
	job->free_state = nlog_free;
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_NETD, IMSG_NETD_BLOCKED, &t, sizeof(t), -1,
	    nlog_block, nlog_done, job) == NULL)
		job_end(job, 0, "cannot reach jb-netd");
}
