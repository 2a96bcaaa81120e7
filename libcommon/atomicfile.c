/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "atomicfile.h"

int
atomic_save_at(int dirfd, const char *name, const void *buf, size_t len,
    mode_t mode)
{
	const char	*p = buf;
	char		 tmp[PATH_MAX];
	size_t		 off = 0;
	ssize_t		 w;
	int		 fd, saved;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", name) >=
	    sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC | O_NOFOLLOW, mode)) == -1)
		return -1;
	while (off < len) {
		if ((w = write(fd, p + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fsync(fd) == -1)
		goto fail;
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (renameat(dirfd, tmp, dirfd, name) == -1)
		goto fail;
	return 0;
 fail:
	saved = errno;
	if (fd != -1)
		(void)close(fd);
	errno = saved;
	return -1;
}
