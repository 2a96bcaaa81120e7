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
 * The shared ~/.ssh of ssh.enabled (seed: "ssh.enabled seeds the
 * top-level config, known_hosts and config.d/ into an initially empty
 * shared ~/.ssh").  jb-mountd does the copy because it is the process
 * that reads as the owner; the directory lives under the one it may
 * already write (its state directory), so its lock-down widens by three
 * calls (mkdirat, fchmod, unlinkat) and no path.
 *
 * The directory is mounted read-write into containers, so a container
 * may have put anything in it: every name is opened relative to a
 * directory fd, never following a symlink, and files are created with
 * O_EXCL.  The sources follow symlinks, as the seed says.
 */

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "sshseed.h"

static const char	*mdir;

struct seedrun {
	int	 files;
	char	*warn;
	size_t	 warnlen;
};

void
sshseed_init(const char *mountdir)
{
	mdir = mountdir;
}

static void
warn_once(struct seedrun *r, const char *name, const char *why)
{
	if (r->warn[0] == '\0')
		(void)snprintf(r->warn, r->warnlen, "ssh seed: ~/.ssh/%s "
		    "skipped: %s", name, why);
}

/* a directory under dfd, made if missing, opened without following */
static int
subdir(int dfd, const char *name, int *made)
{
	int	fd;

	if (made != NULL)
		*made = 0;
	if (mkdirat(dfd, name, 0700) == 0) {
		if (made != NULL)
			*made = 1;
	} else if (errno != EEXIST)
		return -1;
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fchmod(fd, 0700) == -1) {
		(void)close(fd);
		return -1;
	}
	return fd;
}

static int
dir_empty(int fd)
{
	DIR		*d;
	struct dirent	*e;
	int		 dup_fd, empty = 1;

	if ((dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC))
	    == -1 || (d = fdopendir(dup_fd)) == NULL) {
		if (dup_fd != -1)
			(void)close(dup_fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = 0;
	(void)closedir(d);
	return empty;
}

static int
copy_file(int sfd, int dfd, const char *name, const char *shown,
    mode_t mode, struct seedrun *r)
{
	struct stat	 st;
	char		 buf[8192];
	ssize_t		 n;
	size_t		 total = 0;
	int		 in, out;

	if ((in = openat(sfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) ==
	    -1) {
		if (errno != ENOENT)
			warn_once(r, shown, strerror(errno));
		return 0;
	}
	if (fstat(in, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > SSHSEED_FILE_MAX) {
		warn_once(r, shown, "not a regular file of at most 1 MiB");
		(void)close(in);
		return 0;
	}
	if (r->files >= SSHSEED_FILES_MAX) {
		warn_once(r, shown, "more than 256 files");
		(void)close(in);
		return 0;
	}
	if ((out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, mode)) == -1) {
		warn_once(r, shown, strerror(errno));
		(void)close(in);
		return 0;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0 ||
	    (n == -1 && errno == EINTR)) {
		if (n <= 0)
			continue;
		if ((total += n) > SSHSEED_FILE_MAX ||
		    write(out, buf, n) != n) {
			n = -1;
			break;
		}
	}
	(void)close(in);
	if (n == -1 || fchmod(out, mode) == -1) {
		warn_once(r, shown, "copy failed");
		(void)close(out);
		(void)unlinkat(dfd, name, 0);
		return 0;
	}
	(void)close(out);
	r->files++;
	return 0;
}

static void
copy_tree(int sfd, int dfd, const char *shown, int depth, struct seedrun *r)
{
	DIR		*d;
	struct dirent	*e;
	struct stat	 st;
	char		 sub[PATH_MAX];
	int		 fd, s2, d2;

	if ((fd = openat(sfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			(void)close(fd);
		warn_once(r, shown, strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		(void)snprintf(sub, sizeof(sub), "%s/%s", shown, e->d_name);
		if (fstatat(sfd, e->d_name, &st, 0) == -1)
			continue;	/* a dangling link: nothing to copy */
		if (S_ISREG(st.st_mode)) {
			(void)copy_file(sfd, dfd, e->d_name, sub, 0600, r);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if (depth >= SSHSEED_DEPTH_MAX) {
			warn_once(r, sub, "nested too deep");
			continue;
		}
		if ((s2 = openat(sfd, e->d_name, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1) {
			warn_once(r, sub, strerror(errno));
			continue;
		}
		if ((d2 = subdir(dfd, e->d_name, NULL)) == -1) {
			warn_once(r, sub, strerror(errno));
			(void)close(s2);
			continue;
		}
		copy_tree(s2, d2, sub, depth + 1, r);
		(void)close(s2);
		(void)close(d2);
	}
	(void)closedir(d);
}

static int
valid_key(const char *k)
{
	size_t	n = strlen(k);

	return n > 0 && n < 64 && strspn(k, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789-") == n && k[0] != '-';
}

int
sshseed(const struct repo_owner *owner, const char *key,
    struct jb_ssh_dir *out, char *err, size_t errlen)
{
	struct seedrun	 r;
	char		 src[PATH_MAX];
	int		 top = -1, sdir = -1, dfd = -1, sfd = -1, cd = -1;
	int		 d2, empty, ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	r.warn = out->warning;
	r.warnlen = sizeof(out->warning);
	if (mdir == NULL || !valid_key(key))
		fatalx("ssh seed for \"%s\"", key);
	if ((size_t)snprintf(out->path, sizeof(out->path), "%s/ssh/%s", mdir,
	    key) >= sizeof(out->path) ||
	    (size_t)snprintf(src, sizeof(src), "%s/.ssh", owner->home) >=
	    sizeof(src)) {
		(void)snprintf(err, errlen, "ssh.enabled: path too long");
		return -1;
	}
	if ((top = open(mdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (sdir = subdir(top, "ssh", NULL)) == -1 ||
	    (dfd = subdir(sdir, key, NULL)) == -1 ||
	    (empty = dir_empty(dfd)) == -1) {
		(void)snprintf(err, errlen, "ssh.enabled: shared ~/.ssh %s: "
		    "%s", out->path, strerror(errno));
		goto done;
	}
	ret = 0;
	if (!empty) {
		out->seeded = -1;
		goto done;
	}
	if ((sfd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		if (errno != ENOENT)
			(void)snprintf(out->warning, sizeof(out->warning),
			    "ssh seed: ~/.ssh: %s (as user %s)",
			    strerror(errno), owner->name);
		goto done;
	}
	(void)copy_file(sfd, dfd, "config", "config", 0600, &r);
	(void)copy_file(sfd, dfd, "known_hosts", "known_hosts", 0644, &r);
	if ((cd = openat(sfd, "config.d", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) != -1) {
		if ((d2 = subdir(dfd, "config.d", NULL)) == -1)
			warn_once(&r, "config.d", strerror(errno));
		else {
			copy_tree(cd, d2, "config.d", 1, &r);
			(void)close(d2);
		}
	}
	out->seeded = r.files;
done:
	if (cd != -1)
		(void)close(cd);
	if (sfd != -1)
		(void)close(sfd);
	if (dfd != -1)
		(void)close(dfd);
	if (sdir != -1)
		(void)close(sdir);
	if (top != -1)
		(void)close(top);
	return ret;
}
