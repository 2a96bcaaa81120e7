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
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "errtext.h"
#include "gate.h"
#include "sockdir.h"

int
gate_dir(const char *socket, char *buf, size_t len)
{
	const char	*slash = strrchr(socket, '/');
	int		 n;

	/* the socket's path is absolute (config.c): its directory */
	if (slash == NULL)
		return -1;
	n = snprintf(buf, len, "%.*s/%s", (int)(slash - socket), socket,
	    GATE_SUBDIR);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int
gate_source(const char *socket, const char *name, char *buf, size_t len)
{
	size_t	n;

	if (gate_dir(socket, buf, len) == -1 || strchr(name, '/') != NULL ||
	    name[0] == '\0' || name[0] == '.')
		return -1;
	n = strlen(buf);
	return (size_t)snprintf(buf + n, len - n, "/%s", name) >= len - n ?
	    -1 : 0;
}

int
gate_prepare(const char *socket, uid_t owner, int *taken, char *err,
    size_t errlen)
{
	char		 dir[PATH_MAX];
	const char	*slash = strrchr(socket, '/');
	struct stat	 st;
	int		 dfd, fd;

	if (slash == NULL || (size_t)(slash - socket) >= sizeof(dir))
		return errtext(err, errlen, "socket %s: not an absolute path",
		    socket);
	(void)snprintf(dir, sizeof(dir), "%.*s", (int)(slash - socket),
	    socket);
	if (dir[0] == '\0')
		(void)strlcpy(dir, "/", sizeof(dir));
	if ((dfd = sockdir_open(dir, owner, taken, err, errlen)) == -1)
		return -1;
	if (mkdirat(dfd, GATE_SUBDIR, 0755) == -1 && errno != EEXIST) {
		(void)close(dfd);
		return errtext(err, errlen, "mkdir %s/%s: %s", dir, GATE_SUBDIR,
		    strerror(errno));
	}
	fd = openat(dfd, GATE_SUBDIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	(void)close(dfd);
	if (fd == -1)
		return errtext(err, errlen, "start gate directory %s/%s: %s%s",
		    dir, GATE_SUBDIR, strerror(errno), errno == ELOOP ||
		    errno == ENOTDIR ? " (it must be a directory, not a "
		    "symlink)" : "");
	if (fstat(fd, &st) == -1) {
		(void)close(fd);
		return errtext(err, errlen, "%s/%s: %s", dir, GATE_SUBDIR,
		    strerror(errno));
	}
	/* made by someone else before: root's alone from now on */
	if ((st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & 07777) !=
	    0755) && (fchown(fd, 0, 0) == -1 || fchmod(fd, 0755) == -1)) {
		(void)close(fd);
		return errtext(err, errlen, "start gate directory %s/%s: "
		    "making it root's: %s", dir, GATE_SUBDIR, strerror(errno));
	}
	(void)close(fd);
	return 0;
}

int
gate_by_creator(const char *value, int64_t now, int64_t *until)
{
	const char	*p;
	char		*end;
	long long	 t;

	if (value == NULL || strncmp(value, GATE_BY_CREATOR,
	    sizeof(GATE_BY_CREATOR) - 1) != 0)
		return 0;
	p = value + sizeof(GATE_BY_CREATOR) - 1;
	if (*p < '0' || *p > '9')
		return 0;
	errno = 0;
	t = strtoll(p, &end, 10);
	if (errno != 0 || *end != '\0' || t > INT64_MAX - GATE_CREATOR_SECS)
		return 0;
	/* too old, or from a clock far ahead of this one */
	if (now >= t + GATE_CREATOR_SECS || t > now + GATE_CREATOR_SECS)
		return 0;
	*until = t + GATE_CREATOR_SECS;
	return 1;
}
