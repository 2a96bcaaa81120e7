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
 * github: the GitHub integration's keys, as the original reads them and
 * where each may live.
 *
 *	global.yaml	enabled, api_tokens {PREFIX: TOKEN} (the original's
 *			legacy map, one token per container prefix)
 *	repo file	nothing: the settings are the host's, not the repo's
 *	host-local	enabled, token
 *
 * The token in force is the host-local file's github.token, else the
 * api_tokens entry of the repo's container_prefix (repoconf_finish).  It
 * reaches a container only while github.enabled is true, which also
 * adds api.github.com:443 to the container's allowlist.
 */

#ifndef JB_REPOCONF_GITHUB_H
#define JB_REPOCONF_GITHUB_H

#include <stdio.h>

#include "yamltree.h"

struct repoconf;

/* the destination GitHub integration adds to every allowlist */
#define RC_GITHUB_EGRESS	"api.github.com:443"

/* github in global.yaml and the repo file; dst is the struct repoconf */
int	rc_github(struct yt_ctx *, const struct yt_node *, void *);
/* github in the host-local file; dst is the struct repoconf */
int	rc_github_local(struct yt_ctx *, const struct yt_node *, void *);
/* 1 when a global.yaml tree holds github.api_tokens (tokens inside) */
int	rc_github_holds_tokens(const struct yt_node *root);
/* defaults, and the legacy token of the repo's prefix */
void	rc_github_finish(struct repoconf *);
void	rc_github_dump(const struct repoconf *, int all, FILE *);

#endif /* JB_REPOCONF_GITHUB_H */
