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
 * The test switch (testhook.h), and what it lets a test ask: perform the
 * operation a test names, from inside a locked-down process, and
 * describe the outcome.  The tests expect these to fail; the point is to
 * show that the lock-down, not luck, stops them.  The lock-down is the
 * one users get: an operation its filter does not allow kills the
 * process (SIGSYS), one the filter allows meets Landlock.
 */

#include <sys/socket.h>
#include <sys/un.h>

#include <linux/netlink.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "testhook.h"

int	jb_testing;

int
jb_test_secs(int prod, int test)
{
	return jb_testing ? test : prod;
}

static int
attempt(const struct jb_test_attempt *a)
{
	struct sockaddr_un	 sun;
	int			 fd, rc;

	if (strcmp(a->verb, "read") == 0)
		fd = open(a->path, O_RDONLY | O_CLOEXEC);
	else if (strcmp(a->verb, "write") == 0)
		fd = open(a->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	else if (strcmp(a->verb, "netlink") == 0)
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
		    NETLINK_NETFILTER);
	else if (strcmp(a->verb, "connect") == 0) {
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
			return -1;
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		strlcpy(sun.sun_path, a->path, sizeof(sun.sun_path));
		rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
		if (rc == -1) {
			int	e = errno;

			close(fd);
			errno = e;
			return -1;
		}
	} else {
		errno = EINVAL;
		return -1;
	}
	if (fd == -1)
		return -1;
	close(fd);
	return 0;
}

void
testhook_attempt(const struct jb_test_attempt *a, char *out, size_t len)
{
	if (attempt(a) == 0)
		snprintf(out, len, "allowed: %s %s", a->verb, a->path);
	else
		snprintf(out, len, "denied: %s %s: %s", a->verb, a->path,
		    strerror(errno));
}
