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
 * With github.enabled, the token in force (github.token of the
 * host-local file, else global.yaml's legacy api_tokens entry for the
 * repo's prefix) is a secret like those of secrets: (secrets.c): the
 * container holds a placeholder as GH_TOKEN, and the egress gateway
 * puts the token in for api.github.com and github.com only.  The token
 * itself never enters the container.  When the gateway does not take
 * TLS (port 443 is not in network.gateway_ports) the token could only
 * be given by writing it inside: it is not given at all, and new and
 * net status say why.
 *
 * Containers made before kept the token in
 * /etc/profile.d/jailbee-github.sh; apply removes that file.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "jailbeed.h"
#include "log.h"
#include "mounts.h"
#include "secrets.h"

#define GH_FILE		"/etc/profile.d/jailbee-github.sh"

static const char *const github_hosts[] = { "api.github.com", "github.com" };

/* 1 when the gateway takes a strict container's TLS (port 443) */
static int
gateway_takes_tls(void)
{
	int	i;

	for (i = 0; i < env->conf.gw_nports; i++)
		if (strtonum(env->conf.gw_ports[i], 1, 65535, NULL) == 443)
			return 1;
	return 0;
}

int
github_secret(const struct repoconf *c, struct rc_secret *s, char *why,
    size_t whylen)
{
	size_t	i;

	why[0] = '\0';
	if (c->github_enabled != 1 || c->github_token[0] == '\0')
		return 0;
	memset(s, 0, sizeof(*s));
	(void)strlcpy(s->name, GITHUB_SECRET, sizeof(s->name));
	/* no file: the value is the configuration's github.token */
	for (i = 0; i < sizeof(github_hosts) / sizeof(github_hosts[0]); i++)
		(void)strlcpy(s->hosts[s->nhosts++], github_hosts[i],
		    sizeof(s->hosts[0]));
	(void)strlcpy(s->header, "Authorization", sizeof(s->header));
	if (!gateway_takes_tls()) {
		(void)snprintf(why, whylen, "github.token is not given to "
		    "containers: the egress gateway, which alone puts it in, "
		    "does not take port 443 (network.gateway_ports in "
		    "jailbeed.yaml), and the token is never written inside; "
		    "add 443 to network.gateway_ports to give it");
		return 0;
	}
	return 1;
}

int
github_secret_add(struct repoconf *c, char *why, size_t whylen)
{
	struct rc_secret	s;
	int			i;

	if (github_secret(c, &s, why, whylen) != 1)
		return 0;
	for (i = 0; i < c->nsecrets; i++)
		if (strcmp(c->secrets[i].name, GITHUB_SECRET) == 0) {
			/* added before: the one without a file */
			if (c->secrets[i].file[0] == '\0')
				return 1;
			(void)snprintf(why, whylen, "secrets.%s and "
			    "github.token both give the container %s: drop "
			    "one (github.token is put in for %s and %s)",
			    GITHUB_SECRET, GITHUB_SECRET, github_hosts[0],
			    github_hosts[1]);
			return -1;
		}
	if (c->nsecrets >= RC_SECRETS_MAX) {
		(void)snprintf(why, whylen, "github.token is a secret too, "
		    "and %d secrets are declared already (at most %d): drop "
		    "one", c->nsecrets, RC_SECRETS_MAX);
		return -1;
	}
	c->secrets[c->nsecrets++] = s;
	return 1;
}

static const char forget_script[] =
    "f=" GH_FILE "\n"
    "[ -e \"$f\" ] || [ -L \"$f\" ] || exit 0\n"
    "rm -f \"$f\" && echo removed\n";

int
github_forgotten(struct job *job, struct capture_result *res, char *err,
    size_t errlen)
{
	if (!res->ok || res->status != 0) {
		(void)snprintf(err, errlen, "removing " GH_FILE ", which holds "
		    "a GitHub token written by an earlier version, failed: "
		    "%.300s", res->ok ? res->err : res->error);
		return -1;
	}
	if (strncmp(res->out, "removed", 7) == 0)
		job_progress(job, "github.token: " GH_FILE ", where an earlier "
		    "version wrote the token itself, removed: a container "
		    "gets GH_TOKEN as a placeholder the egress gateway "
		    "replaces, from new");
	return 0;
}

int
github_forget(struct job *job, struct repo_ctx *ctx, const char *name,
    capture_next next)
{
	const char	*argv[] = { "/bin/sh", "-c", forget_script,
			    "jailbee-github", NULL };
	const char	*envp[] = { NULL };

	if (ctx->conf.github_token[0] == '\0')
		return 1;
	if (ctx->conf.github_enabled != 1)
		job_progress(job, "github.token is set but github.enabled is "
		    "not true: GH_TOKEN is not given (set github.enabled: "
		    "true in global.yaml or %s)", ctx->conf.paths.local);
	return capture_run(job, name, 0, 0, "/", argv, envp, next);
}
