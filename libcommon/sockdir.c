/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sockdir.h"

static int	fail(char *, size_t, int, const char *, ...)
		    __attribute__((__format__(printf, 4, 5)));

/* -1 with the reason, the fd closed when there is one */
static int
fail(char *err, size_t errlen, int fd, const char *fmt, ...)
{
	va_list	ap;
	int	save = errno;

	va_start(ap, fmt);
	(void)vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	if (fd != -1)
		(void)close(fd);
	errno = save;
	return -1;
}

int
sockdir_open(const char *dir, uid_t owner, int *taken, char *err,
    size_t errlen)
{
	struct stat	st;
	int		fd;

	*taken = 0;
	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		return fail(err, errlen, -1, "mkdir %s: %s", dir,
		    strerror(errno));
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return fail(err, errlen, -1, "socket directory %s: %s%s", dir,
		    strerror(errno), errno == ELOOP || errno == ENOTDIR ?
		    " (it must be a directory, not a symlink)" : "");
	if (fstat(fd, &st) == -1)
		return fail(err, errlen, fd, "socket directory %s: %s", dir,
		    strerror(errno));
	if (st.st_uid == owner && owner != 0) {
		/* made for the owner before: root's from now on */
		if (fchown(fd, 0, 0) == -1 || fchmod(fd, 0755) == -1)
			return fail(err, errlen, fd, "socket directory %s: "
			    "taking it back from uid %u: %s", dir,
			    (unsigned)owner, strerror(errno));
		*taken = 1;
		return fd;
	}
	if (st.st_uid != 0)
		return fail(err, errlen, fd, "socket directory %s belongs to "
		    "uid %u, not root: remove it, or set another socket path",
		    dir, (unsigned)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return fail(err, errlen, fd, "socket directory %s is writable "
		    "by group or others (mode %04o): anyone could replace the "
		    "socket; chmod go-w it, or set another socket path", dir,
		    (unsigned)(st.st_mode & 07777));
	return fd;
}

int
sockdir_bind(int fd, int dirfd, const char *name)
{
	struct sockaddr_un	sun;
	mode_t			old;
	int			cwd, rv, save;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strchr(name, '/') != NULL || strlcpy(sun.sun_path, name,
	    sizeof(sun.sun_path)) >= sizeof(sun.sun_path)) {
		errno = EINVAL;
		return -1;
	}
	/* bind(2) takes a path: a relative one, from the directory's fd */
	if ((cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if (fchdir(dirfd) == -1) {
		save = errno;
		(void)close(cwd);
		errno = save;
		return -1;
	}
	old = umask(0177);
	rv = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	save = errno;
	(void)umask(old);
	if (fchdir(cwd) == -1 && rv == 0) {
		save = errno;
		rv = -1;
	}
	(void)close(cwd);
	errno = save;
	return rv;
}

int
sockdir_give(int dirfd, const char *name, uid_t uid, gid_t gid, char *err,
    size_t errlen)
{
	struct stat	st;

	if (fchownat(dirfd, name, uid, gid, AT_SYMLINK_NOFOLLOW) == -1)
		return fail(err, errlen, -1, "chown %s: %s", name,
		    strerror(errno));
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return fail(err, errlen, -1, "%s: %s", name, strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return fail(err, errlen, -1, "%s is not the socket bound "
		    "there (something replaced it)", name);
	if (st.st_uid != uid || st.st_gid != gid ||
	    (st.st_mode & 07777) != 0600)
		return fail(err, errlen, -1, "%s: owner %u:%u mode %04o, not "
		    "%u:%u 0600", name, (unsigned)st.st_uid,
		    (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777),
		    (unsigned)uid, (unsigned)gid);
	return 0;
}
