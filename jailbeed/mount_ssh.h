/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_MOUNT_REMOTE_H
#define JAILBEED_MOUNT_REMOTE_H

#include "jobs.h"

/*
 * A remote mount's repo: the container args[1] names it; next gets its
 * context as repo_resolve_brief() gives it, or the job ends.
 */
void	mount_ssh_repo(struct job *, repo_next next);
/* does the mount_roots check apply to this job? */
int	mount_ssh_restricted(const struct job *);
/*
 * The mount_roots decision for opt: cb gets the source
 * (the root's spelling) and the effective read-only flag, or the job
 * ends with the reason.
 */
typedef void	(*roots_cb)(struct job *, const char *source, int readonly);
void	mount_ssh_decide(struct job *, struct repo_ctx *,
	    const struct rc_optional *, roots_cb);

#endif /* JAILBEED_MOUNT_REMOTE_H */
