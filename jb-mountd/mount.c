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
 * Mount sources, as the owner sees them.
 *
 * Incus runs as root and resolves a disk device's source path itself,
 * following symlinks, at the moment it mounts.  A path that the owner
 * could read when it was checked may therefore name something else by
 * the time Incus mounts it, if anyone who can write along the path (a
 * container with a read-write mount above it, say) swaps a component
 * for a symlink.  So:
 *
 *  1. check: the configured path is expanded (~ is the owner's home
 *     as the system resolves it: its own path may hold a symlink, such
 *     as /home -> /var/home, which sits above every mount and is not
 *     the owner's to change), made canonical without lookups, and
 *     opened O_PATH with openat2(RESOLVE_NO_SYMLINKS): a symlink in any
 *     part after the home is refused, naming it, never followed, since
 *     one planted through a read-write mount would redirect this one.
 *     That fd is the object checked, and it is held.  It must be a
 *     directory or a regular file the owner can read (faccessat through
 *     the fd, so the answer is about that object, not whatever the path
 *     names later).
 *     Where the object sits inside its filesystem is worked out from our
 *     own mountinfo, as a bind mount of it would show it.
 *  2. the parent attaches that path through jb-incus (a running
 *     container only) and gets the container's init pid.
 *  3. verify: the path, opened again with RESOLVE_NO_SYMLINKS, is
 *     still the held object (same device and inode); and the mount
 *     point in /proc/PID/mountinfo, which the kernel fills for the mount
 *     Incus actually made, holds the same device and the same root
 *     within it.  A path swapped to a symlink and back again between 1
 *     and 3 still fails here: the mount's root names what was mounted.
 *     On any mismatch the parent detaches (fail closed).
 *
 * Incus resolves the source again at every start of the container.
 * Two things close that window: the parent refuses a source that
 * overlaps another mount of any suite container where either is
 * read-write (mnt_overlap()), so no container can write any part of
 * another mount's path; and before each start or restart the suite
 * asks again here (mount_recheck()) that every disk source of the
 * container is still a path with no symlink in it, and refuses the
 * start otherwise.  A start the suite does not make (incus start by
 * hand, Incus's own start at boot) is covered by the first only.
 */

#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/openat2.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "mount.h"
#include "mountspec.h"

#define INFO_MAX	(1024 * 1024)	/* of one mountinfo */

struct held {
	uint32_t	token;		/* 0: free */
	int		fd;		/* O_PATH */
	char		real[PATH_MAX];
	char		shown[JB_MSG_TEXT_MAX];
	dev_t		dev;
	ino_t		ino;
	char		root[PATH_MAX];	/* within its filesystem */
};

static struct held	held[MOUNT_HELD_MAX];
static uint32_t		next_token = 1;

static int
open_nofollow(const char *path)
{
	struct open_how	how;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

/* a whole /proc file, NUL-terminated; NULL with errno */
static char *
read_proc(const char *path)
{
	char	*buf;
	size_t	 len = 0;
	ssize_t	 n;
	int	 fd, save;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if ((buf = malloc(INFO_MAX + 1)) == NULL) {
		save = errno;
		(void)close(fd);
		errno = save;
		return NULL;
	}
	while (len < INFO_MAX && ((n = read(fd, buf + len, INFO_MAX - len)) >
	    0 || (n == -1 && errno == EINTR)))
		if (n > 0)
			len += n;
	(void)close(fd);
	buf[len] = '\0';
	return buf;
}

/*
 * A path that openat2(RESOLVE_NO_SYMLINKS) refused with ELOOP: the first
 * part that is a symlink, and where it points, for the message.
 */
static void
first_link(const char *path, char *link, size_t linklen, char *to,
    size_t tolen)
{
	struct stat	 st;
	char		 part[PATH_MAX];
	const char	*e = path;
	ssize_t		 n;

	(void)strlcpy(link, path, linklen);
	(void)strlcpy(to, "?", tolen);
	while (*e != '\0') {
		e = strchrnul(e + 1, '/');
		if ((size_t)(e - path) >= sizeof(part))
			return;
		memcpy(part, path, (size_t)(e - path));
		part[e - path] = '\0';
		if (fstatat(AT_FDCWD, part, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode)) {
			(void)strlcpy(link, part, linklen);
			if ((n = readlink(part, to, tolen - 1)) >= 0)
				to[n] = '\0';
			return;
		}
	}
}

/*
 * The source a configured host path names (see the top): its canonical
 * path in real, opened O_PATH without following any symlink.  The fd,
 * or -1 with the reason; *missing says the path does not exist.
 */
static int
source_open(const struct repo_owner *owner, const char *host,
    const char *what, const char *shown, char *real, size_t reallen,
    int *missing, char *err, size_t errlen)
{
	char	 home[PATH_MAX], path[PATH_MAX], link[PATH_MAX], to[PATH_MAX];
	char	 vlink[200], vto[200];
	int	 fd;

	*missing = 0;
	/* the home as the system has it; ~ is the only part followed */
	if (owner->home == NULL || realpath(owner->home, home) == NULL)
		(void)strlcpy(home, owner->home ? owner->home : "",
		    sizeof(home));
	if (mnt_expand(host, home, path, sizeof(path), err, errlen) == -1 ||
	    mnt_clean(path, real, reallen, err, errlen) == -1)
		return -1;
	if ((fd = open_nofollow(real)) != -1)
		return fd;
	if (errno == ENOENT || errno == ENOTDIR) {
		*missing = 1;
		(void)snprintf(err, errlen, "host path %s (%s) does not "
		    "exist: create it, or remove the entry", shown, what);
	} else if (errno == ELOOP) {
		first_link(real, link, sizeof(link), to, sizeof(to));
		repo_vis(vlink, sizeof(vlink), link);
		repo_vis(vto, sizeof(vto), to);
		(void)snprintf(err, errlen, "host path %s (%s): %s is a "
		    "symlink (to %s): refused, a mount source is never "
		    "followed through a link (a container could have planted "
		    "it); name the real path", shown, what, vlink, vto);
	} else
		(void)snprintf(err, errlen, "host path %s (%s): %s (as user "
		    "%s)", shown, what, strerror(errno), owner->name);
	return -1;
}

static struct held *
held_find(uint32_t token)
{
	size_t	i;

	for (i = 0; i < MOUNT_HELD_MAX; i++)
		if (token != 0 && held[i].token == token)
			return &held[i];
	return NULL;
}

void
mount_release(uint32_t token)
{
	struct held	*h;

	if ((h = held_find(token)) == NULL)
		return;
	(void)close(h->fd);
	memset(h, 0, sizeof(*h));
}

int
mount_check(const struct repo_owner *owner, const struct jb_mount_check *q,
    struct jb_mount_checked *out, char *err, size_t errlen)
{
	struct held	*h = NULL;
	struct stat	 st;
	char		 real[PATH_MAX], proc[64], shown[JB_MSG_TEXT_MAX * 3];
	char		*info;
	size_t		 i;
	int		 fd, missing;

	memset(out, 0, sizeof(*out));
	repo_vis(shown, sizeof(shown), q->host);
	/*
	 * The checkout's own mount point is the suite's: only CREATE puts
	 * a device there (jb-incus refuses it to any other disk, and the
	 * parent checks every other mount's path itself before it asks).
	 */
	if (strcmp(q->container, MNT_HOST_SOURCE) != 0 &&
	    mnt_target_ok(q->container, q->reserved, err, errlen) == -1)
		return -1;
	if ((fd = source_open(owner, q->host, q->what, shown, real,
	    sizeof(real), &missing, err, errlen)) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		(void)snprintf(err, errlen, "host path %s: %s", shown,
		    strerror(errno));
		goto fail;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		(void)snprintf(err, errlen, "host path %s (%s) is neither a "
		    "directory nor a regular file", shown, q->what);
		goto fail;
	}
	/* about the object held, whatever the path names by now */
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (faccessat(AT_FDCWD, proc, S_ISDIR(st.st_mode) ? R_OK | X_OK :
	    R_OK, 0) == -1) {
		(void)snprintf(err, errlen, "host path %s (%s) is not "
		    "readable by user %s: %s", shown, q->what, owner->name,
		    strerror(errno));
		goto fail;
	}
	for (i = 0; i < MOUNT_HELD_MAX && h == NULL; i++)
		if (held[i].token == 0)
			h = &held[i];
	if (h == NULL) {
		(void)snprintf(err, errlen, "too many mounts being attached "
		    "at once; try again");
		goto fail;
	}
	if ((info = read_proc("/proc/self/mountinfo")) == NULL) {
		(void)snprintf(err, errlen, "cannot read /proc/self/"
		    "mountinfo: %s", strerror(errno));
		goto fail;
	}
	if (mnt_info_root_of(info, real, st.st_dev, h->root,
	    sizeof(h->root)) == -1) {
		free(info);
		(void)snprintf(err, errlen, "host path %s (%s): no mount of "
		    "its filesystem holds it", shown, q->what);
		memset(h, 0, sizeof(*h));
		goto fail;
	}
	free(info);
	h->fd = fd;
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	(void)strlcpy(h->real, real, sizeof(h->real));
	(void)strlcpy(h->shown, shown, sizeof(h->shown));
	if ((h->token = next_token++) == 0)
		h->token = next_token++;

	out->token = h->token;
	(void)strlcpy(out->realpath, real, sizeof(out->realpath));
	out->is_dir = S_ISDIR(st.st_mode);
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	if (!out->is_dir)
		(void)snprintf(out->warning, sizeof(out->warning), "%s is "
		    "a single file: mount the directory, not the file (a "
		    "bind mount pins its inode: a tool that replaces the "
		    "file leaves the container reading the old one)", shown);
	return 0;
 fail:
	(void)close(fd);
	return -1;
}

int
mount_resolve(const struct repo_owner *owner, const struct jb_mount_check *q,
    struct jb_mount_resolved *out, char *err, size_t errlen)
{
	char	shown[200];
	int	fd, missing;

	memset(out, 0, sizeof(*out));
	repo_vis(shown, sizeof(shown), q->host);
	if ((fd = source_open(owner, q->host, q->what, shown, out->realpath,
	    sizeof(out->realpath), &missing, err, errlen)) != -1) {
		(void)close(fd);
		return 0;
	}
	out->realpath[0] = '\0';
	return missing ? 0 : -1;
}

int
mount_recheck(const struct repo_owner *owner, const struct jb_mount_check *q,
    char *err, size_t errlen)
{
	struct stat	st;
	char		real[PATH_MAX], shown[200];
	int		fd, missing, rv = -1;

	repo_vis(shown, sizeof(shown), q->host);
	if (q->host[0] != '/') {
		(void)snprintf(err, errlen, "%s: source %s is not an absolute "
		    "path", q->what, shown);
		return -1;
	}
	if ((fd = source_open(owner, q->host, q->what, shown, real,
	    sizeof(real), &missing, err, errlen)) == -1)
		return -1;
	if (strcmp(real, q->host) != 0)
		(void)snprintf(err, errlen, "host path %s (%s) is not "
		    "canonical: remove the device and attach it again",
		    shown, q->what);
	else if (fstat(fd, &st) == -1)
		(void)snprintf(err, errlen, "host path %s (%s): %s", shown,
		    q->what, strerror(errno));
	else if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		(void)snprintf(err, errlen, "host path %s (%s) is neither a "
		    "directory nor a regular file", shown, q->what);
	else
		rv = 0;
	(void)close(fd);
	return rv;
}

int
mount_verify(const struct jb_mount_verify *q, char *err, size_t errlen)
{
	struct held	*h;
	struct stat	 now;
	char		 proc[64], root[PATH_MAX], *info;
	uint64_t	 dev;
	int		 fd, rv = -1;

	if ((h = held_find(q->token)) == NULL) {
		(void)snprintf(err, errlen, "no checked mount source %u",
		    q->token);
		return -1;
	}
	if ((fd = open_nofollow(h->real)) == -1 || fstat(fd, &now) == -1 ||
	    now.st_dev != h->dev || now.st_ino != h->ino) {
		(void)snprintf(err, errlen, "host path %s changed between its "
		    "check and the attach: refused, the mount was removed",
		    h->shown);
		goto done;
	}
	(void)snprintf(proc, sizeof(proc), "/proc/%d/mountinfo", (int)q->pid);
	if (q->pid <= 1 || (info = read_proc(proc)) == NULL) {
		(void)snprintf(err, errlen, "cannot read what container "
		    "process %d mounted: %s", (int)q->pid, strerror(errno));
		goto done;
	}
	if (mnt_info_find(info, q->container, &dev, root, sizeof(root)) ==
	    -1) {
		(void)snprintf(err, errlen, "nothing is mounted at %.200s in "
		    "the container", q->container);
		free(info);
		goto done;
	}
	free(info);
	if (dev != (uint64_t)h->dev || strcmp(root, h->root) != 0) {
		(void)snprintf(err, errlen, "the mount at %.150s holds %.150s, "
		    "not the checked %s (was a path swapped?): refused, the "
		    "mount was removed", q->container, root, h->shown);
		goto done;
	}
	rv = 0;
 done:
	if (fd != -1)
		(void)close(fd);
	mount_release(q->token);
	return rv;
}
