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
 * secrets: values that never enter a container.  Each entry names a
 * file on the host holding the value, the hosts it is meant for and,
 * optionally, the one request header it may be put in:
 *
 *	secrets:
 *	  NAME: {file: PATH, hosts: [api.example.com, "*.example.com"],
 *	         header: Authorization}
 *
 * Accepted in global.yaml and the host-local file only: a repo's
 * tracked file is written by whoever can push to it, and must not be
 * able to name a host file to be read or the hosts it is sent to.
 * Entries merge by name, a later layer's entry replacing an earlier
 * one whole; NAME: null drops it.  The config holds the file's path,
 * never its content.
 */

#ifndef JB_REPOCONF_SECRETS_H
#define JB_REPOCONF_SECRETS_H

#include <stdio.h>

#include "yamltree.h"

struct repoconf;

#define RC_SECRETS_MAX		16
#define RC_SECRET_NAME_MAX	63	/* an environment variable's name */
#define RC_SECRET_FILE_MAX	1023
#define RC_SECRET_HOSTS_MAX	8
#define RC_SECRET_HOST_MAX	253	/* a DNS name, "*." included */
#define RC_SECRET_HEADER_MAX	63
/* what the container's environment holds instead of a value */
#define RC_SECRET_PREFIX	"jbsecret-"

struct rc_secret {
	char	name[RC_SECRET_NAME_MAX + 1];
	char	file[RC_SECRET_FILE_MAX + 1];	/* absolute or ~/... */
	char	hosts[RC_SECRET_HOSTS_MAX][RC_SECRET_HOST_MAX + 1];
	int	nhosts;
	char	header[RC_SECRET_HEADER_MAX + 1];	/* "" every header */
};

/* secrets in any layer; dst is the struct repoconf */
int	rc_secrets(struct yt_ctx *, const struct yt_node *, void *);
void	rc_secrets_dump(const struct repoconf *, FILE *);
/* a secret's name is the container's variable: container.env may not set it */
int	rc_secrets_finish(const struct repoconf *, char *err, size_t errlen);
/* a new placeholder: RC_SECRET_PREFIX and 32 random hex digits */
#define RC_PLACEHOLDER_LEN	(sizeof(RC_SECRET_PREFIX) - 1 + 32)
void	rc_secret_placeholder(char *out, size_t outlen);

/* 1 when s is a secret's name (an environment variable's) */
int	rc_secret_name_ok(const char *s);
/* 1 when s is a host a secret takes: a DNS name or *.name, lowercase */
int	rc_secret_host_ok(const char *s);
/* 1 when host (lowercase) is one of s's hosts, *.name by suffix */
/* one of a secret's hosts: a name, or *.domain for the names below */
int	rc_secret_host_matches(const char *pattern, const char *host);
int	rc_secret_matches(const struct rc_secret *s, const char *host);

#endif /* JB_REPOCONF_SECRETS_H */
