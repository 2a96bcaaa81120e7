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
 * jbctl secret ls [NAME]: the repository's secrets as its configuration
 * declares them (global.yaml and the host-local file): name, hosts,
 * header and file, and github.token when it is given as GH_TOKEN.  The
 * value is never read here.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtab.h"
#include "jobs.h"
#include "log.h"
#include "secrets.h"

static void
secret_line(struct job *job, const struct rc_secret *s)
{
	struct jb_output	*o;
	char			 hosts[RC_SECRET_HOSTS_MAX *
				    (RC_SECRET_HOST_MAX + 2)];
	int			 i, n;

	hosts[0] = '\0';
	for (i = 0; i < s->nhosts; i++) {
		if (i > 0)
			(void)strlcat(hosts, ", ", sizeof(hosts));
		(void)strlcat(hosts, s->hosts[i], sizeof(hosts));
	}
	if ((o = calloc(1, sizeof(*o))) == NULL)
		return;
	n = snprintf(o->data, sizeof(o->data), "%s\thosts: %s\theader: %s\t"
	    "file: %s\n", s->name, hosts, s->header[0] != '\0' ? s->header :
	    "(every header)", s->file[0] != '\0' ? s->file :
	    "(github.token)");
	if (n > 0) {
		o->which = 1;
		o->len = (size_t)n < sizeof(o->data) ? (size_t)n :
		    sizeof(o->data) - 1;
		(void)job_reply(job, IMSG_CTL_OUTPUT, o, sizeof(*o), -1);
	}
	free(o);
}

static void
secret_repo(struct job *job, struct repo_ctx *ctx)
{
	const struct repoconf	*conf = &ctx->conf;
	const char		*want = job->nargs > 0 ? job->args[0] : NULL;
	struct rc_secret	 gh;
	char			 why[JB_ERR_TEXT_MAX];
	int			 i, found = 0;

	job->state = ctx;
	job->free_state = repo_ctx_free;
	for (i = 0; i < conf->nsecrets; i++) {
		if (want != NULL && strcmp(conf->secrets[i].name, want) != 0)
			continue;
		secret_line(job, &conf->secrets[i]);
		found = 1;
	}
	/* github.token, when it is given */
	if (github_secret(conf, &gh, why, sizeof(why)) == 1 &&
	    (want == NULL || strcmp(gh.name, want) == 0)) {
		secret_line(job, &gh);
		found = 1;
	}
	if (want != NULL && !found) {
		job_end(job, 0, "no secret %s in this repository's "
		    "configuration: secrets are declared in global.yaml or %s",
		    want, conf->paths.local);
		return;
	}
	job_end(job, 1, NULL);
}

void
cmd_secret(struct job *job)
{
	repo_resolve(job, "", 1, secret_repo);
}
