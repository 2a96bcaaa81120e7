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
 * An agent's shared state: <mountdir>/shared/<prefix>/<subpath>, the
 * suite's shared directory for one repository, made here because this
 * is the process that acts as the owner and may write under the state
 * directory (as the shared ~/.ssh of sshseed.c).  Every directory on the
 * way is the owner's and 0700.
 *
 * Those directories are mounted read-write into containers, so a
 * container may have put anything in them, symlinks included: each
 * component is made or opened relative to its parent's fd and never
 * followed (O_NOFOLLOW), and a new file is made with O_EXCL.  A symlink
 * anywhere on the way is refused, naming it.  jb-mountd's mount check
 * then opens the whole path again without following any link.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "shared.h"

static const char	*mdir;

void
shared_init(const char *mountdir)
{
	mdir = mountdir;
}

static int
key_ok(const char *k)
{
	size_t	n = strlen(k);

	return n > 0 && n < 64 && strspn(k, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789-") == n && k[0] != '-';
}

/* relative, no empty, "." or ".." component, no control byte */
static int
subpath_ok(const char *s)
{
	const char	*p;
	size_t		 l;

	if (*s == '\0' || *s == '/')
		return 0;
	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	for (p = s; *p != '\0'; p += l + (p[l] == '/')) {
		l = strcspn(p, "/");
		if (l == 0 || (l == 1 && p[0] == '.') ||
		    (l == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
	}
	return 1;
}

/* why name under dfd could not be opened as a directory or file */
static void
refused(int dfd, const char *name, const char *shown, const char *what,
    int save, char *err, size_t errlen)
{
	struct stat	st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		(void)snprintf(err, errlen, "%s: %s in the shared directory is "
		    "a symlink: refused, a shared path is never followed "
		    "through a link (a container could have planted it); "
		    "remove it", what, shown);
	else
		(void)snprintf(err, errlen, "%s: %s in the shared directory: "
		    "%s", what, shown, strerror(save));
}

/* a directory under dfd, made if missing (0700), never followed */
static int
subdir(int dfd, const char *name, const char *shown, const char *what,
    int *made, char *err, size_t errlen)
{
	int	fd;

	*made = 0;
	if (mkdirat(dfd, name, 0700) == 0)
		*made = 1;
	else if (errno != EEXIST) {
		refused(dfd, name, shown, what, errno, err, errlen);
		return -1;
	}
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		refused(dfd, name, shown, what, errno, err, errlen);
		return -1;
	}
	if (fchmod(fd, 0700) == -1) {
		(void)snprintf(err, errlen, "%s: %s: %s", what, shown,
		    strerror(errno));
		(void)close(fd);
		return -1;
	}
	return fd;
}

/* a regular file under dfd: made with seed (0600) or the one there */
static int
file_at(int dfd, const char *name, const char *seed, const char *shown,
    const char *what, int *made, char *err, size_t errlen)
{
	struct stat	st;
	size_t		len = strlen(seed);
	int		fd;

	*made = 0;
	if ((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) != -1) {
		*made = 1;
		if ((len > 0 && write(fd, seed, len) != (ssize_t)len) ||
		    close(fd) == -1) {
			(void)snprintf(err, errlen, "%s: writing %s: %s", what,
			    shown, strerror(errno));
			(void)unlinkat(dfd, name, 0);
			return -1;
		}
		return 0;
	}
	if (errno != EEXIST ||
	    (fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		refused(dfd, name, shown, what, errno, err, errlen);
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		(void)snprintf(err, errlen, "%s: %s in the shared directory is "
		    "not a regular file (type: file): remove it", what, shown);
		(void)close(fd);
		return -1;
	}
	(void)close(fd);
	return 0;
}

int
shared_make(const struct jb_shared_req *q, struct jb_shared_path *out,
    char *err, size_t errlen)
{
	char		 part[sizeof(q->subpath)];
	char		 shown[sizeof(q->subpath)];
	const char	*p;
	size_t		 l;
	int		 top, fd, next, made = 0, isfile;

	memset(out, 0, sizeof(*out));
	if (mdir == NULL)
		fatalx("%s: no state directory", __func__);
	isfile = strcmp(q->type, "file") == 0;
	if (!key_ok(q->key) || !subpath_ok(q->subpath) || (!isfile &&
	    strcmp(q->type, "dir") != 0)) {
		(void)snprintf(err, errlen, "%s: subpath must be a relative "
		    "path below the shared directory, without \".\" or "
		    "\"..\"", q->what);
		return -1;
	}
	if ((size_t)snprintf(out->path, sizeof(out->path), "%s/shared/%s/%s",
	    mdir, q->key, q->subpath) >= sizeof(out->path)) {
		(void)snprintf(err, errlen, "%s: path too long", q->what);
		return -1;
	}
	if ((top = open(mdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		(void)snprintf(err, errlen, "%s: %s: %s", q->what, mdir,
		    strerror(errno));
		return -1;
	}
	if ((fd = subdir(top, "shared", "shared", q->what, &made, err,
	    errlen)) == -1 || (next = subdir(fd, q->key, q->key, q->what,
	    &made, err, errlen)) == -1) {
		if (fd != -1)
			(void)close(fd);
		(void)close(top);
		return -1;
	}
	(void)close(top);
	(void)close(fd);
	fd = next;
	/* each component below, the last as its type says */
	for (p = q->subpath; *p != '\0'; p += l + (p[l] == '/')) {
		l = strcspn(p, "/");
		memcpy(part, p, l);
		part[l] = '\0';
		memcpy(shown, q->subpath, (size_t)(p - q->subpath) + l);
		shown[(p - q->subpath) + l] = '\0';
		if (p[l] == '\0' && isfile) {
			next = file_at(fd, part, q->seed, shown, q->what,
			    &made, err, errlen) == -1 ? -1 : fd;
			if (next == -1) {
				(void)close(fd);
				return -1;
			}
			break;
		}
		next = subdir(fd, part, shown, q->what, &made, err, errlen);
		(void)close(fd);
		if ((fd = next) == -1)
			return -1;
	}
	(void)close(fd);
	out->made = made;
	return 0;
}
