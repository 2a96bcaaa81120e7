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

/* the top of the checkout around the current directory, by git itself */
static int
toplevel(char *buf, size_t len)
{
	int	 p[2], status;
	pid_t	 pid;
	ssize_t	 n;
	size_t	 got = 0;

	if (pipe(p) == -1)
		return -1;
	switch (pid = fork()) {
	case -1:
		return -1;
	case 0:
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execl("/usr/bin/git", "git", "rev-parse", "--show-toplevel",
		    (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (got < len - 1 && (n = read(p[0], buf + got, len - 1 - got)) > 0)
		got += n;
	close(p[0]);
	buf[got] = '\0';
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || got == 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
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
