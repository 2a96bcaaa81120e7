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
 * The control socket's directory and the socket in it, as root before the privilege drop.  The directory is root's and
 * only root writes it, so the owner cannot swap the socket's name for a
 * symlink between bind and chown; the chown goes through the
 * directory's fd and never follows a link either.  The owner connects
 * through the socket's own owner and mode (0600).
 */

#ifndef JB_SOCKDIR_H
#define JB_SOCKDIR_H

#include <sys/types.h>

#include <stddef.h>

/*
 * dir opened O_DIRECTORY, never through a symlink at its last part:
 * made root's, 0755, when missing; an existing one of root's must not
 * be writable by group or others; one of owner's (the earlier
 * layout) is taken back (root's, 0755; *taken set).  The fd, or -1
 * with the reason.
 */
int	sockdir_open(const char *dir, uid_t owner, int *taken, char *err,
	    size_t errlen);
/*
 * Bind fd to name in dirfd (umask 0177: mode 0600), without a path
 * anyone else could redirect.  0, or -1 with errno.
 */
int	sockdir_bind(int fd, int dirfd, const char *name);
/*
 * The socket name in dirfd becomes uid's and gid's, never through a
 * link, and must then be a socket of theirs with mode 0600.  0, or -1
 * with the reason.
 */
int	sockdir_give(int dirfd, const char *name, uid_t uid, gid_t gid,
	    char *err, size_t errlen);

#endif /* JB_SOCKDIR_H */
