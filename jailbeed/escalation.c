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
 * The escalation gate of new.  The checkout's config (what new
 * uses) is compared with the same layers over the repository's default
 * branch's committed .jailbee/config.yaml, which jb-mountd reads as the
 * owner: a loose step, or an agent that runs with egress entries or a
 * loose install the default branch's config does not grant, widens the
 * container's privileges.  What cannot be read or parsed on the default
 * branch counts as granting nothing (fail closed).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escalation.h"
#include "log.h"
#include "repoconf_autostart.h"
#include "termsafe.h"

struct gate {
	struct job		*job;
	struct repo_ctx		*ctx;
	char			 agent[JB_AGENT_MAX];
	int			 has_agent;
	void			(*next)(struct job *);
	struct jb_repo_conf	*rc;
	int			 got;
};

static void
gate_text(struct req *r, struct imsg *imsg)
{
	struct gate	*g = r->arg;

	if (imsg_get_type(imsg) != IMSG_MOUNTD_DEFCONF_TEXT ||
	    imsg_get_data(imsg, g->rc, sizeof(*g->rc)) == -1 ||
	    g->rc->len >= sizeof(g->rc->text))
		fatalx("jb-mountd: malformed DEFCONF_TEXT");
	g->rc->ref[sizeof(g->rc->ref) - 1] = '\0';
	g->rc->text[g->rc->len] = '\0';
	g->got = 1;
}

/* the layers of conf with the default branch's repo file */
static void
gate_base(struct gate *g, struct repoconf *b, char *note, size_t notelen)
{
	const struct repoconf	*c = &g->ctx->conf;
	char			 name[JB_BRANCH_MAX + 128], err[RC_ERR_MAX];

	note[0] = '\0';
	repoconf_init(b);
	b->paths = c->paths;
	if (repoconf_load_layer(RC_LAYER_GLOBAL, c->paths.global, b, err,
	    sizeof(err)) == -1)
		log_debug("escalation gate: %s", err);
	if (!g->got || g->rc->found == 0)
		(void)snprintf(note, notelen, "the default branch has no "
		    ".jailbee/config.yaml");
	else if (g->rc->found == -1)
		(void)snprintf(note, notelen, "%s:.jailbee/config.yaml is "
		    "longer than %d bytes: taken as granting nothing",
		    g->rc->ref, JB_REPO_CONF_MAX - 1);
	else {
		(void)snprintf(name, sizeof(name), "%s:.jailbee/config.yaml",
		    g->rc->ref);
		if (repoconf_parse_layer(RC_LAYER_REPO, name, g->rc->text,
		    g->rc->len, b, err, sizeof(err)) == -1)
			(void)snprintf(note, notelen, "%.600s: taken as "
			    "granting nothing", err);
	}
	if (repoconf_load_layer(RC_LAYER_LOCAL, c->paths.local, b, err,
	    sizeof(err)) == -1)
		log_debug("escalation gate: %s", err);
	if (repoconf_finish(b, g->ctx->info.toplevel, env->owner_uid,
	    env->owner_gid, err, sizeof(err)) == -1) {
		/* the presets alone, under nothing */
		repoconf_free(b);
		repoconf_init(b);
		if (repoconf_finish(b, g->ctx->info.toplevel, env->owner_uid,
		    env->owner_gid, err, sizeof(err)) == -1)
			log_warnx("escalation gate: %s", err);
		(void)snprintf(note, notelen, "%.600s: taken as granting "
		    "nothing", err);
	}
}

static void
gate_done(struct req *r, int ok, const char *err)
{
	struct gate	*g = r->arg;
	struct job	*job = g->job;
	void		(*next)(struct job *) = g->next;
	struct repoconf	 b;
	char		 diff[JB_ERR_TEXT_MAX / 2], note[RC_ERR_MAX];
	char		*p, *nl;
	int		 n;

	if (!ok) {
		free(g->rc);
		free(g);
		job_end(job, 0, ESCALATION_MARK "the default branch's config "
		    "cannot be read: %s", err);
		return;
	}
	gate_base(g, &b, note, sizeof(note));
	n = repoconf_widening(&g->ctx->conf, &b, g->has_agent ? g->agent :
	    NULL, diff, sizeof(diff));
	repoconf_free(&b);
	if (n == 0) {
		free(g->rc);
		free(g);
		next(job);
		return;
	}
	job_progress(job, "the checkout's autostart and agents grant what "
	    "the default branch's config (%s) does not:", g->got &&
	    g->rc->ref[0] ? g->rc->ref : "none");
	if (note[0] != '\0')
		job_progress(job, "  (%s)", termsafe(note));
	for (p = diff; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		job_progress(job, "  %s", termsafe(p));
	}
	free(g->rc);
	free(g);
	if (job->remote) {
		job_end(job, 0, ESCALATION_MARK "%d privilege(s) wider than the "
		    "default branch's config: refused over SSH, --yes "
		    "included (R27); run new on the host", n);
		return;
	}
	if (job_opt(job, "yes") == NULL) {
		job_end(job, 0, ESCALATION_MARK "%d privilege(s) wider than the "
		    "default branch's config: confirm on a terminal, or give "
		    "--yes", n);
		return;
	}
	job_progress(job, "--yes: accepted");
	next(job);
}

void
escalation_gate(struct job *job, struct repo_ctx *ctx, const char *agent,
    void (*next)(struct job *))
{
	struct jb_repo_req	 q;
	struct gate		*g;

	if ((g = calloc(1, sizeof(*g))) == NULL ||
	    (g->rc = calloc(1, sizeof(*g->rc))) == NULL) {
		free(g);
		job_end(job, 0, "out of memory");
		return;
	}
	g->job = job;
	g->ctx = ctx;
	g->next = next;
	if (agent != NULL) {
		(void)strlcpy(g->agent, agent, sizeof(g->agent));
		g->has_agent = 1;
	}
	memset(&q, 0, sizeof(q));
	(void)strlcpy(q.path, ctx->info.toplevel, sizeof(q.path));
	/* what the repo's resolution found: jb-mountd need not look again */
	(void)strlcpy(q.branch, ctx->info.default_branch, sizeof(q.branch));
	(void)strlcpy(q.remote, ctx->info.upstream_remote, sizeof(q.remote));
	if (req_send(PROC_MOUNTD, IMSG_MOUNTD_DEFCONF, &q, sizeof(q), -1,
	    gate_text, gate_done, g) == NULL) {
		free(g->rc);
		free(g);
		job_end(job, 0, "cannot reach jb-mountd");
	}
}
