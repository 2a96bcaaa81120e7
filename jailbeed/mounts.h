/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JAILBEED_MOUNTS_H
#define JAILBEED_MOUNTS_H

#include "jobs.h"

/* one mount to attach to a running container */
struct mount_spec {
	char	name[JB_INSTANCE_MAX];	/* the container */
	char	device[JB_DEVICE_MAX];	/* host-<n> or optional-<kind> */
	char	host[PATH_MAX];		/* as configured */
	char	container[PATH_MAX];
	char	reserved[PATH_MAX];	/* the clone's directory */
	char	what[JB_MSG_TEXT_MAX];	/* "optional_mounts.aws" */
	int	readonly;
	char	exact[PATH_MAX];	/* "" or the real path it must be */
};

/* ok 1: attached and verified; else err says why, nothing is left */
typedef void	(*mount_cb)(struct job *, int ok, const char *err, void *);

/*
 * jb-mountd checks the source as the owner sees it, jb-incus attaches
 * the checked realpath, jb-mountd verifies what the container got; a
 * failed verification detaches again (fail closed).
 */
void	mount_attach(struct job *, const struct mount_spec *, mount_cb,
	    void *);

/* attach the repo's host_mounts a running container lacks (new, apply) */
void	mounts_host_apply(struct job *, struct repo_ctx *, const char *name,
	    mount_cb, void *);

void	cmd_mount(struct job *);

/*
 * github.c: apply removes /etc/profile.d/jailbee-github.sh, where an
 * earlier version wrote the token itself.  forget: 0 sent (next gets
 * the result), 1 no token configured, -1 jb-incus unreachable.
 * forgotten: 0, or -1 with the reason.
 */
struct capture_result;
int	github_forget(struct job *, struct repo_ctx *, const char *,
	    void (*)(struct job *, struct capture_result *));
int	github_forgotten(struct job *, struct capture_result *, char *,
	    size_t);

#endif /* JAILBEED_MOUNTS_H */
