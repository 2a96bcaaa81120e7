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
 * What jbctl does itself: writing .jailbee/config.yaml in the user's own
 * checkout, as the user, so that no daemon ever writes into a checkout.
 */

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jbctl.h"
#include "repoconf.h"

/*
 * The top of the checkout around the current directory: the nearest
 * directory, this one or above, that holds a .git (a directory, or the
 * file of a worktree).  No git runs: as root in the owner's checkout git
 * would refuse it as dubious ownership, and root should not read a
 * checkout's own configuration anyway.
 */
static int
toplevel(char *buf, size_t len)
{
	struct stat	 st;
	char		 probe[PATH_MAX], *slash;

	if (getcwd(buf, len) == NULL || buf[0] != '/')
		return -1;
	for (;;) {
		if ((size_t)snprintf(probe, sizeof(probe), "%s/.git",
		    strcmp(buf, "/") == 0 ? "" : buf) >= sizeof(probe))
			return -1;
		if (lstat(probe, &st) == 0 &&
		    (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			return 0;
		if (strcmp(buf, "/") == 0)
			return -1;
		slash = strrchr(buf, '/');
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

static int
config_path(char *path, size_t len, char *dir, size_t dlen)
{
	char	top[PATH_MAX];

	if (toplevel(top, sizeof(top)) == -1) {
		fprintf(stderr, "jbctl: not inside a git checkout: run jbctl "
		    "in your repository\n");
		return -1;
	}
	if ((size_t)snprintf(dir, dlen, "%s/.jailbee", top) >= dlen ||
	    (size_t)snprintf(path, len, "%s/config.yaml", dir) >= len) {
		fprintf(stderr, "jbctl: %s: path too long\n", top);
		return -1;
	}
	return 0;
}

int
local_has_config(void)
{
	char		path[PATH_MAX], dir[PATH_MAX];
	struct stat	st;

	if (config_path(path, sizeof(path), dir, sizeof(dir)) == -1)
		return -1;
	return stat(path, &st) == 0;
}

int
local_config_init(int force)
{
	char	path[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX];
	size_t	len = strlen(repoconf_template);
	int	fd;

	if (config_path(path, sizeof(path), dir, sizeof(dir)) == -1)
		return 1;
	if (!force && access(path, F_OK) == 0) {
		fprintf(stderr, "jbctl: %s exists; --force replaces it\n",
		    path);
		return 1;
	}
	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		fprintf(stderr, "jbctl: mkdir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	/* written aside and renamed, so a failure loses nothing */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >=
	    sizeof(tmp)) {
		fprintf(stderr, "jbctl: %s: path too long\n", path);
		return 1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644))
	    == -1 || write(fd, repoconf_template, len) != (ssize_t)len ||
	    fsync(fd) == -1 || close(fd) == -1 || rename(tmp, path) == -1) {
		fprintf(stderr, "jbctl: writing %s: %s\n", path,
		    strerror(errno));
		(void)unlink(tmp);
		return 1;
	}
	fprintf(stderr, "jbctl: wrote %s\n", path);
	return 0;
}
