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
 * repo's prefix) as GH_TOKEN in the container's login shells, through
 * /etc/profile.d/jailbee-github.sh.  The
 * token travels in the exec's environment, never in its argv (argv is
 * readable in every process list of the container); the file is root's
 * and the dev group's alone (0640).  A container is told only on new
 * and apply: turning the integration off removes nothing already
 * written, as the seed says.
 *
 * An image without /etc/profile gets a minimal one that reads the .sh
 * files of /etc/profile.d, so that a login shell sees the token as it
 * would on Debian.
 */

#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "log.h"
#include "mounts.h"

static const char github_script[] =
    "set -e\n"
    "umask 027\n"
    "f=/etc/profile.d/jailbee-github.sh\n"
    "[ -d /etc/profile.d ] || mkdir -m 0755 /etc/profile.d\n"
    "printf 'export GH_TOKEN=%s\\n' \"$JB_GH_TOKEN\" > \"$f.new\"\n"
    "chown 0:\"$1\" \"$f.new\"\n"
    "chmod 0640 \"$f.new\"\n"
    "mv -f \"$f.new\" \"$f\"\n"
    "if [ ! -e /etc/profile ]; then\n"
    "  printf 'for f in /etc/profile.d/*.sh; do [ -r \"$f\" ] && . "
    "\"$f\"; done\\nunset f\\n' > /etc/profile\n"
    "  chmod 0644 /etc/profile\n"
    "fi\n";

int
github_injected(struct job *job, struct capture_result *res, char *err,
    size_t errlen)
{
	if (!res->ok || res->status != 0) {
		(void)snprintf(err, errlen, "writing GH_TOKEN into "
		    "/etc/profile.d/jailbee-github.sh failed: %.300s",
		    res->ok ? res->err : res->error);
		return -1;
	}
	job_progress(job, "github.token: GH_TOKEN set for login shells "
	    "(/etc/profile.d/jailbee-github.sh)");
	return 0;
}

int
github_inject(struct job *job, struct repo_ctx *ctx, const char *name,
    capture_next next)
{
	char		 g[16], tok[RC_TOKEN_MAX + 16];
	const char	*argv[] = { "/bin/sh", "-c", github_script,
			    "jailbee-github", g, NULL };
	const char	*envp[] = { tok, NULL };
	int		 rv;

	if (ctx->conf.github_token[0] == '\0')
		return 1;
	/* a token alone does not turn the integration on */
	if (ctx->conf.github_enabled != 1) {
		job_progress(job, "github.token is set but github.enabled is "
		    "not true: GH_TOKEN is not written (set github.enabled: "
		    "true in global.yaml or %s)", ctx->conf.paths.local);
		return 1;
	}
	(void)snprintf(g, sizeof(g), "%u", (unsigned)env->owner_gid);
	(void)snprintf(tok, sizeof(tok), "JB_GH_TOKEN=%s",
	    ctx->conf.github_token);
	rv = capture_run(job, name, 0, 0, "/", argv, envp, next);
	explicit_bzero(tok, sizeof(tok));
	return rv;
}
