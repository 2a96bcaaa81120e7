/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_MOUNTD_MOUNT_H
#define JB_MOUNTD_MOUNT_H

#include <stddef.h>

#include "jb_msg.h"
#include "gitdescribe.h"

#define MOUNT_HELD_MAX		64	/* sources checked, not yet verified */

/*
 * Check one source as the owner sees it and hold it open: 0 with *out
 * filled (its token names it from then on), or -1 with the reason.
 */
int	mount_check(const struct repo_owner *, const struct jb_mount_check *,
	    struct jb_mount_checked *out, char *err, size_t errlen);
/*
 * After the attach: the path still names the held object, and the
 * container's mount at path holds it.  The token is released either way.
 */
int	mount_verify(const struct jb_mount_verify *, char *err, size_t errlen);
void	mount_release(uint32_t token);
/*
 * The path of a configured host path as a mount would take it (no
 * symlink followed), for the remote mount_roots decision: 0 with
 * out->realpath ("" when it does not exist), or -1 with the reason.
 */
int	mount_resolve(const struct repo_owner *, const struct jb_mount_check *,
	    struct jb_mount_resolved *out, char *err, size_t errlen);

/*
 * Before a start: a disk source (q->host, absolute) of the
 * container is still a canonical path with no symlink in it, naming a
 * directory or a regular file.  0, or -1 with the reason.
 */
int	mount_recheck(const struct repo_owner *, const struct jb_mount_check *,
	    char *err, size_t errlen);

#endif /* JB_MOUNTD_MOUNT_H */
