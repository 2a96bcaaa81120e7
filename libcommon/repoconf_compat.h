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
 * YT_CUSTOM handlers for the original's config keys that JailBee does
 * not do (yet), so that a config of the original names them instead of
 * failing on unknown keys (repoconf_compat.c says what passes).
 */

#ifndef JB_REPOCONF_COMPAT_H
#define JB_REPOCONF_COMPAT_H

#include "yamltree.h"

/* the key at ctx->path: accepted while it asks for nothing */
int	rc_compat(struct yt_ctx *, const struct yt_node *, void *);
/* one of agents.claude's own keys (plugins_enabled, ai_pr_*, ...) */
int	rc_compat_claude(struct yt_ctx *, const struct yt_node *, void *);
/* merge, install_gie_skills: refused, naming the successor */
int	rc_retired(struct yt_ctx *, const struct yt_node *, void *);
/* remote: the SSH server's settings are jailbeed.yaml's */
int	rc_remote_elsewhere(struct yt_ctx *, const struct yt_node *, void *);

#endif /* JB_REPOCONF_COMPAT_H */
