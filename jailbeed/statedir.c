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
 * The state directory is root's.  Root opens files there before it
 * drops its privileges (the audit journal, the registry, the SSH host
 * key, jb-netd's state), so anyone who can create or rename a name there
 * could point root at a file of their choice.  At start the directory
 * must therefore be a real directory (not a symlink), owned by root and
 * writable by neither group nor others; and every directory above it
 * up to / must be root's too, writable by group or others only with the
 * sticky bit (as /tmp is), since whoever can rename the state directory
 * away can put another in its place.  Anything else is refused, naming
 * the directory and the fix: nothing is repaired behind the user's back.
 */

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jailbeed.h"

static int
dir_ok(const char *dir, const char *what, const char *state, int sticky_ok,
    char *err, size_t errlen)
{
	struct stat	st;

	if (lstat(dir, &st) == -1) {
		(void)snprintf(err, errlen, "state_dir %s: %s %s: %s", state,
		    what, dir, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		(void)snprintf(err, errlen, "state_dir %s: %s %s is a symlink: "
		    "name the real directory in state_dir", state, what, dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(void)snprintf(err, errlen, "state_dir %s: %s %s is not a "
		    "directory", state, what, dir);
		return -1;
	}
	if (st.st_uid != 0) {
		(void)snprintf(err, errlen, "state_dir %s: %s %s belongs to "
		    "uid %u, not root: root opens files there before it drops "
		    "its privileges; make it root's (chown root:root %s) or "
		    "name a directory of root's in state_dir", state, what,
		    dir, (unsigned)st.st_uid, dir);
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    (!sticky_ok || (st.st_mode & S_ISVTX) == 0)) {
		(void)snprintf(err, errlen, "state_dir %s: %s %s is writable "
		    "by %s (mode %04o): chmod go-w %s, or name another "
		    "directory in state_dir", state, what, dir,
		    (st.st_mode & S_IWOTH) ? "others" : "its group",
		    (unsigned)(st.st_mode & 07777), dir);
		return -1;
	}
	return 0;
}

int
statedir_check(const char *state, char *err, size_t errlen)
{
	char	real[PATH_MAX], *slash;

	if (dir_ok(state, "the directory", state, 0, err, errlen) == -1)
		return -1;
	if (realpath(state, real) == NULL) {
		(void)snprintf(err, errlen, "state_dir %s: %s", state,
		    strerror(errno));
		return -1;
	}
	/* each directory above the real one, up to / */
	while ((slash = strrchr(real, '/')) != NULL && slash != real) {
		*slash = '\0';
		if (dir_ok(real, "the directory above it,", state, 1, err,
		    errlen) == -1)
			return -1;
	}
	return dir_ok("/", "the directory above it,", state, 1, err, errlen);
}
