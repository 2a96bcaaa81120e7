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
 * jb-sftp: one SFTP file operation inside a container, as the dev user.
 * jailbeed pushes this static binary to /run/jb-sftp and runs it through
 * Incus exec with every input as an argument:
 *
 *	jb-sftp OP ROOT PATH [ARG...]
 *
 * ROOT is the repository directory, PATH a relative path in it.  Every
 * name is resolved with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * from ROOT, so "..", absolute symlinks and links that leave the
 * repository fail with EXDEV; operations on a name itself (lstat,
 * unlink, mkdir, rename, readlink) resolve its parent that way and act
 * on the last component, so an escaping link is shown and removed, not
 * followed.  A file read, written or truncated is opened without
 * blocking and must be a regular file (a FIFO or a device is refused
 * with ENXIO before anything waits on it).  No file grows past 2 GiB
 * (RLIMIT_FSIZE).  What it says on
 * stdout is records (sftprec.h); the exit status is 0 or an errno.
 */

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/openat2.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sftprec.h"

static int	rootfd = -1;

static void
out(const void *p, size_t len)
{
	const char	*c = p;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(1, c, len)) == -1) {
			if (errno == EINTR)
				continue;
			_exit(EPIPE);
		}
		c += n;
		len -= n;
	}
}

static __attribute__((__noreturn__)) void
status(int e)
{
	struct sftprec_hdr	h = { SFTPREC_STATUS, 0 };
	int32_t			v = e;

	h.len = sizeof(v);
	out(&h, sizeof(h));
	out(&v, sizeof(v));
	_exit(e);
}

static void
status_ok(void)
{
	struct sftprec_hdr	h = { SFTPREC_STATUS, sizeof(int32_t) };
	int32_t			v = 0;

	out(&h, sizeof(h));
	out(&v, sizeof(v));
}

static void
attr(const char *name, const struct stat *st)
{
	struct sftprec_hdr	h;
	struct sftprec_attr	a;
	size_t			nl = name == NULL ? 0 : strlen(name);

	memset(&a, 0, sizeof(a));
	a.size = st->st_size;
	a.uid = st->st_uid;
	a.gid = st->st_gid;
	a.mode = st->st_mode;
	a.atime = st->st_atim.tv_sec;
	a.mtime = st->st_mtim.tv_sec;
	a.namelen = nl;
	h.type = SFTPREC_ATTR;
	h.len = sizeof(a) + nl;
	out(&h, sizeof(h));
	out(&a, sizeof(a));
	if (nl > 0)
		out(name, nl);
}

static int
beneath(const char *rel, int flags, mode_t mode)
{
	struct open_how	how;
	long		fd;

	memset(&how, 0, sizeof(how));
	how.flags = flags | O_CLOEXEC;
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
	return fd == -1 ? -1 : (int)fd;
}

/*
 * A file to read or write: opened without blocking (a FIFO's open would
 * wait for a peer forever), then refused unless it is a regular file;
 * the descriptor blocks again afterwards.  ENXIO: not a regular file.
 */
static int
regular(const char *rel, int flags, mode_t mode, struct stat *st)
{
	int	fd, fl;

	if ((fd = beneath(rel, flags | O_NONBLOCK | O_NOCTTY, mode)) == -1)
		return -1;
	if (fstat(fd, st) == -1) {
		close(fd);
		return -1;
	}
	if (S_ISDIR(st->st_mode)) {
		close(fd);
		errno = EISDIR;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		errno = ENXIO;
		return -1;
	}
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* the parent directory, resolved beneath the root; *base its last name */
static int
parent(char *rel, const char **base)
{
	char	*slash;
	int	 fd;

	if ((slash = strrchr(rel, '/')) == NULL) {
		*base = rel;
		fd = beneath(".", O_PATH | O_DIRECTORY, 0);
	} else {
		*slash = '\0';
		*base = slash + 1;
		fd = beneath(rel, O_PATH | O_DIRECTORY, 0);
	}
	if (fd == -1)
		return -1;
	if (**base == '\0' || strcmp(*base, ".") == 0 ||
	    strcmp(*base, "..") == 0) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

static long long
num(const char *s, long long max)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || v < 0 || v > max)
		status(EINVAL);
	return v;
}

static void
do_stat(char *rel, int follow)
{
	struct stat	 st;
	const char	*base;
	int		 fd;

	if (follow || strcmp(rel, ".") == 0) {
		if ((fd = beneath(rel, O_PATH, 0)) == -1 ||
		    fstat(fd, &st) == -1)
			status(errno);
	} else {
		if ((fd = parent(rel, &base)) == -1 ||
		    fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) == -1)
			status(errno);
	}
	attr(NULL, &st);
	status(0);
}

static void
do_list(const char *rel)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	int		 fd;

	if ((fd = beneath(rel, O_RDONLY | O_DIRECTORY, 0)) == -1 ||
	    (d = fdopendir(fd)) == NULL)
		status(errno);
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		attr(de->d_name, &st);
	}
	status(errno);
}

static void
do_readlink(char *rel)
{
	struct sftprec_hdr	 h;
	const char		*base;
	char			 buf[PATH_MAX];
	ssize_t			 n;
	int			 fd;

	if ((fd = parent(rel, &base)) == -1 ||
	    (n = readlinkat(fd, base, buf, sizeof(buf))) == -1)
		status(errno);
	h.type = SFTPREC_LINK;
	h.len = n;
	out(&h, sizeof(h));
	out(buf, n);
	status(0);
}

static void
do_setstat(const char *rel, char **av)
{
	struct timespec	ts[2];
	struct stat	st;
	unsigned int	flags;
	long long	size, mode;
	int		fd;

	flags = num(av[0], 0xffff);
	size = num(av[1], SFTPREC_FILE_MAX);
	mode = num(av[2], 07777);
	ts[0].tv_sec = num(av[3], INT64_MAX);
	ts[1].tv_sec = num(av[4], INT64_MAX);
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	/*
	 * a link is not followed to somewhere else: it is not changed; a
	 * size is set on a regular file only, and nothing waits on a FIFO
	 */
	if ((flags & SFTPREC_SET_SIZE) ?
	    (fd = regular(rel, O_WRONLY, 0, &st)) == -1 :
	    (fd = beneath(rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
	    0)) == -1)
		status(errno);
	if ((flags & SFTPREC_SET_SIZE) && ftruncate(fd, size) == -1)
		status(errno);
	if ((flags & SFTPREC_SET_MODE) && fchmod(fd, mode & 07777) == -1)
		status(errno);
	if ((flags & SFTPREC_SET_TIMES) && futimens(fd, ts) == -1)
		status(errno);
	status(0);
}

static void
do_read(const char *rel, const char *off)
{
	static char	buf[256 * 1024];
	struct stat	st;
	long long	o = num(off, INT64_MAX);
	ssize_t		n;
	int		fd;

	if ((fd = regular(rel, O_RDONLY, 0, &st)) == -1)
		status(errno);
	if (lseek(fd, o, SEEK_SET) == -1)
		status(errno);
	status_ok();
	for (;;) {
		if ((n = read(fd, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			_exit(errno);
		}
		if (n == 0)
			_exit(0);
		out(buf, n);
	}
}

/*
 * Frames come in through a buffer of IN_MAX bytes filled by as large
 * reads as stdin gives, so a frame costs about one read, not two.
 */
#define IN_MAX	(1024 * 1024)
static char	inbuf[IN_MAX];
static size_t	in_off, in_len;

/* n bytes at inbuf + in_off: 1; 0 at the end before any; -1 short */
static int
in_need(size_t n)
{
	ssize_t	r;

	if (in_len - in_off >= n)
		return 1;
	if (in_off > 0) {
		memmove(inbuf, inbuf + in_off, in_len - in_off);
		in_len -= in_off;
		in_off = 0;
	}
	while (in_len < n) {
		if ((r = read(0, inbuf + in_len, sizeof(inbuf) - in_len)) ==
		    -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			return in_len == 0 ? 0 : -1;
		in_len += r;
	}
	return 1;
}

/* frames on stdin: struct sftprec_write then its bytes, until the end */
static void
do_write(const char *rel, char **av)
{
	struct sftprec_write	 w;
	struct stat		 st;
	unsigned int		 flags;
	long long		 mode;
	int			 fd, of = O_WRONLY, r;

	flags = num(av[0], 0xffff);
	mode = num(av[1], 0777);
	if (flags & SFTPREC_OPEN_READ)
		of = O_RDWR;
	if (flags & SFTPREC_OPEN_CREAT)
		of |= O_CREAT;
	if (flags & SFTPREC_OPEN_TRUNC)
		of |= O_TRUNC;
	if (flags & SFTPREC_OPEN_EXCL)
		of |= O_EXCL;
	if (flags & SFTPREC_OPEN_APPEND)
		of |= O_APPEND;
	if ((fd = regular(rel, of, mode, &st)) == -1)
		status(errno);
	/* a larger pipe, where stdin is one, lets more wait for us */
	(void)fcntl(0, F_SETPIPE_SZ, IN_MAX);
	status_ok();
	while ((r = in_need(sizeof(w))) == 1) {
		memcpy(&w, inbuf + in_off, sizeof(w));
		in_off += sizeof(w);
		if (w.len > SFTPREC_WRITE_MAX)
			status(EINVAL);
		if (w.len > 0 && in_need(w.len) != 1)
			status(EIO);
		if (w.offset > SFTPREC_FILE_MAX ||
		    w.len > SFTPREC_FILE_MAX - w.offset)
			status(EFBIG);
		errno = 0;
		if (pwrite(fd, inbuf + in_off, w.len, w.offset) !=
		    (ssize_t)w.len)
			status(errno ? errno : EIO);
		in_off += w.len;
	}
	if (r == -1)
		status(EIO);
	if (close(fd) == -1)
		status(errno);
	status(0);
}

int
main(int argc, char *argv[])
{
	struct rlimit	 rl = { SFTPREC_FILE_MAX, SFTPREC_FILE_MAX };
	char		*op, *rel;
	const char	*base;
	int		 fd, fd2;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	umask(022);
	if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
		status(errno);
	if (argc < 4)
		status(EINVAL);
	op = argv[1];
	rel = argv[3];
	if (getuid() == 0 || geteuid() == 0)
		status(EPERM);
	if ((rootfd = open(argv[2], O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		status(errno);
	if (strcmp(op, "stat") == 0 && argc == 4)
		do_stat(rel, 1);
	else if (strcmp(op, "lstat") == 0 && argc == 4)
		do_stat(rel, 0);
	else if (strcmp(op, "list") == 0 && argc == 4)
		do_list(rel);
	else if (strcmp(op, "readlink") == 0 && argc == 4)
		do_readlink(rel);
	else if (strcmp(op, "read") == 0 && argc == 5)
		do_read(rel, argv[4]);
	else if (strcmp(op, "write") == 0 && argc == 6)
		do_write(rel, argv + 4);
	else if (strcmp(op, "setstat") == 0 && argc == 9)
		do_setstat(rel, argv + 4);
	else if (strcmp(op, "mkdir") == 0 && argc == 5) {
		if ((fd = parent(rel, &base)) == -1 ||
		    mkdirat(fd, base, num(argv[4], 0777)) == -1)
			status(errno);
		status(0);
	} else if ((strcmp(op, "remove") == 0 || strcmp(op, "rmdir") == 0) &&
	    argc == 4) {
		if ((fd = parent(rel, &base)) == -1 ||
		    unlinkat(fd, base, op[1] == 'm' ? AT_REMOVEDIR : 0) == -1)
			status(errno);
		status(0);
	} else if (strcmp(op, "rename") == 0 && argc == 5) {
		const char	*base2;

		if ((fd = parent(rel, &base)) == -1 ||
		    (fd2 = parent(argv[4], &base2)) == -1 ||
		    renameat2(fd, base, fd2, base2, RENAME_NOREPLACE) == -1)
			status(errno);
		status(0);
	} else if (strcmp(op, "posix-rename") == 0 && argc == 5) {
		const char	*base2;

		if ((fd = parent(rel, &base)) == -1 ||
		    (fd2 = parent(argv[4], &base2)) == -1 ||
		    renameat(fd, base, fd2, base2) == -1)
			status(errno);
		status(0);
	}
	status(EINVAL);
}
