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
 * A secret's file (secretfile.h).
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "secretfile.h"

int
secretfile_read(const char *path, const char *home, uid_t uid, char *out,
    size_t outlen, char *why, size_t whylen)
{
	struct stat	 st;
	char		 p[PATH_MAX], buf[SECRETFILE_MAX + 3];
	ssize_t		 n;
	size_t		 len = 0, i;
	int		 fd;

	if (strncmp(path, "~/", 2) == 0) {
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", home, path + 2) >=
		    sizeof(p)) {
			(void)snprintf(why, whylen, "%s: path too long", path);
			return -1;
		}
	} else if (strlcpy(p, path, sizeof(p)) >= sizeof(p)) {
		(void)snprintf(why, whylen, "%s: path too long", path);
		return -1;
	}
	if ((fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) ==
	    -1) {
		(void)snprintf(why, whylen, "%s: %s%s", p, strerror(errno),
		    errno == ELOOP ? " (a symlink: name the file itself)" : "");
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		(void)snprintf(why, whylen, "%s: not a regular file", p);
		goto fail;
	}
	if (st.st_uid != uid) {
		(void)snprintf(why, whylen, "%s: not the owner's file (uid %u)",
		    p, (unsigned int)st.st_uid);
		goto fail;
	}
	if ((st.st_mode & 077) != 0) {
		(void)snprintf(why, whylen, "%s is open to group/other (mode "
		    "%04o): run chmod 600 %s", p,
		    (unsigned int)(st.st_mode & 07777), p);
		goto fail;
	}
	while (len < sizeof(buf) && (n = read(fd, buf + len,
	    sizeof(buf) - len)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			(void)snprintf(why, whylen, "%s: %s", p,
			    strerror(errno));
			goto fail;
		}
		len += (size_t)n;
	}
	(void)close(fd);
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	if (len == 0 || len > SECRETFILE_MAX || len + 1 > outlen) {
		explicit_bzero(buf, sizeof(buf));
		(void)snprintf(why, whylen, "%s: %s", p, len == 0 ? "empty" :
		    "longer than 4096 bytes");
		return -1;
	}
	for (i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 ||
		    (unsigned char)buf[i] > 0x7e) {
			explicit_bzero(buf, sizeof(buf));
			(void)snprintf(why, whylen, "%s: the value must be one "
			    "line of printable ASCII (byte %zu is not)", p,
			    i + 1);
			return -1;
		}
	memcpy(out, buf, len);
	out[len] = '\0';
	explicit_bzero(buf, sizeof(buf));
	return 0;
 fail:
	(void)close(fd);
	return -1;
}
