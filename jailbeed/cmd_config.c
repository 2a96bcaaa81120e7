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
 * jbctl config show and config validate: the parent is the one
 * process that parses YAML, so the layers are read and printed here and
 * the text is sent to jbctl.  config init is jbctl's own (it writes in
 * the user's checkout, which no daemon does).
 */

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtab.h"
#include "jobs.h"
#include "log.h"

static void
config_send(struct job *job, const char *text, size_t len)
{
	struct jb_output	*o;
	size_t			 n;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		return;
	while (len > 0) {
		n = len < sizeof(o->data) ? len : sizeof(o->data);
		o->which = 1;
		o->len = n;
		memcpy(o->data, text, n);
		(void)job_reply(job, IMSG_CTL_OUTPUT, o, sizeof(*o), -1);
		text += n;
		len -= n;
	}
	free(o);
}

static void
config_dump(struct job *job, const struct repoconf *conf)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*fp;

	if ((fp = open_memstream(&buf, &len)) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	(void)repoconf_dump(conf, fp);
	fclose(fp);
	config_send(job, buf, len);
	free(buf);
	job_end(job, 1, NULL);
}

static void
config_repo(struct job *job, struct repo_ctx *ctx)
{
	struct repoconf	 layer;
	const char	*which = job_opt(job, "layer");
	const char	*path;
	char		 err[JB_ERR_TEXT_MAX];
	enum repoconf_layer l;

	job->state = ctx;
	job->free_state = repo_ctx_free;
	if (job->cmd.id == CMD_CONFIG_VALIDATE) {
		config_send(job, "configuration OK\n", 17);
		job_end(job, 1, NULL);
		return;
	}
	if (which == NULL || strcmp(which, "effective") == 0) {
		config_dump(job, &ctx->conf);
		return;
	}
	if (strcmp(which, "global") == 0) {
		l = RC_LAYER_GLOBAL;
		path = ctx->conf.paths.global;
	} else if (strcmp(which, "repo") == 0) {
		l = RC_LAYER_REPO;
		path = ctx->conf.paths.repo;
	} else {
		l = RC_LAYER_LOCAL;
		path = ctx->conf.paths.local;
	}
	repoconf_init(&layer);
	if (repoconf_load_layer(l, path, &layer, err, sizeof(err)) == -1) {
		job_end(job, 0, "%s", err);
		return;
	}
	config_dump(job, &layer);
	repoconf_free(&layer);
}

void
cmd_config(struct job *job)
{
	repo_resolve(job, "", 1, config_repo);
}
