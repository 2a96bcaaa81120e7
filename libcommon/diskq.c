/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/ioctl.h>

#include <linux/btrfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskq.h"

#define SYS_BTRFS	"/sys/fs/btrfs"
#define MOUNTINFO_MAX	(1024 * 1024)

/* a text cut to len, as it must be */
static void	put(char *, size_t, const char *, ...)
		    __attribute__((__format__(__printf__, 3, 4)));

static void
put(char *buf, size_t len, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* one space-separated field of mountinfo, its \ooo escapes undone */
static const char *
field(const char *p, char *out, size_t len)
{
	size_t	n = 0;

	while (*p == ' ')
		p++;
	while (*p != '\0' && *p != ' ' && *p != '\n') {
		char	c = *p++;

		if (c == '\\' && p[0] >= '0' && p[0] <= '3' &&
		    p[1] >= '0' && p[1] <= '7' && p[2] >= '0' && p[2] <= '7') {
			c = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 +
			    (p[2] - '0'));
			p += 3;
		}
		if (n + 1 < len)
			out[n++] = c;
	}
	if (len > 0)
		out[n] = '\0';
	return p;
}

/* point is path itself or one of its parents */
static size_t
holds(const char *point, const char *path)
{
	size_t	n = strlen(point);

	if (strcmp(point, "/") == 0)
		return 1;
	if (strncmp(point, path, n) != 0 || (path[n] != '\0' &&
	    path[n] != '/'))
		return 0;
	return n;
}

/* one line of mountinfo; returns the start of the next, NULL at the end */
static const char *
parse_line(const char *p, struct diskq_mount *m)
{
	const char	*q = p, *nl;
	char		 skip[1024];
	int		 i;

	memset(m, 0, sizeof(*m));
	/* id, parent, major:minor, root, mount point */
	for (i = 0; i < 4; i++)
		q = field(q, skip, sizeof(skip));
	q = field(q, m->point, sizeof(m->point));
	/* options, then optional fields up to "-" */
	for (;;) {
		q = field(q, skip, sizeof(skip));
		if (skip[0] == '\0' || strcmp(skip, "-") == 0)
			break;
	}
	if (strcmp(skip, "-") == 0) {
		q = field(q, m->fstype, sizeof(m->fstype));
		(void)field(q, m->source, sizeof(m->source));
	} else
		m->fstype[0] = '\0';
	if (m->point[0] != '/')
		m->fstype[0] = '\0';
	if ((nl = strchr(p, '\n')) == NULL)
		return NULL;
	return nl + 1;
}

int
diskq_mount_of(const char *text, const char *path, struct diskq_mount *m)
{
	struct diskq_mount	 cur;
	const char		*p = text;
	size_t			 best = 0, n;

	memset(m, 0, sizeof(*m));
	while (p != NULL && *p != '\0') {
		p = parse_line(p, &cur);
		if (cur.fstype[0] != '\0' && (n = holds(cur.point, path)) > 0 &&
		    n >= best) {
			best = n;
			*m = cur;
		}
	}
	return best > 0 ? 0 : -1;
}

int
diskq_pools_dir(const char *url, char *out, size_t len)
{
	const char	*sock, *slash;
	int		 n;

	if (strncmp(url, "unix:", 5) != 0)
		return -1;
	sock = url + 5;
	if (sock[0] != '/' || (slash = strrchr(sock, '/')) == NULL)
		return -1;
	n = snprintf(out, len, "%.*s/storage-pools", (int)(slash - sock),
	    sock);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* the whole of a small file, or -1 */
static ssize_t
slurp(const char *path, char *buf, size_t len)
{
	ssize_t	n, got = 0;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while ((size_t)got + 1 < len && (n = read(fd, buf + got,
	    len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

static char *
mountinfo(void)
{
	char	*buf;

	if ((buf = malloc(MOUNTINFO_MAX)) == NULL)
		return NULL;
	if (slurp("/proc/self/mountinfo", buf, MOUNTINFO_MAX) == -1) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* /sys/fs/btrfs/<uuid> of the filesystem on device source */
static int
btrfs_sysdir(const char *source, char *dir, size_t len)
{
	char		 real[PATH_MAX], dev[PATH_MAX];
	const char	*base;
	DIR		*d;
	struct dirent	*de;
	int		 found = -1;

	if (realpath(source, real) == NULL)
		(void)strlcpy(real, source, sizeof(real));
	base = strrchr(real, '/') != NULL ? strrchr(real, '/') + 1 : real;
	if (*base == '\0' || (d = opendir(SYS_BTRFS)) == NULL)
		return -1;
	while (found == -1 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "features") ==
		    0)
			continue;
		put(dev, sizeof(dev), "%s/%s/devices/%s",
		    SYS_BTRFS, de->d_name, base);
		if (access(dev, F_OK) == 0) {
			put(dir, len, "%s/%s", SYS_BTRFS,
			    de->d_name);
			found = 0;
		}
	}
	closedir(d);
	return found;
}

/* "0" or "1" in dir/name; -1 when missing */
static int
flag(const char *dir, const char *name)
{
	char	path[PATH_MAX], buf[16];

	put(path, sizeof(path), "%s/%s", dir, name);
	if (slurp(path, buf, sizeof(buf)) <= 0)
		return -1;
	return buf[0] == '1';
}

void
diskq_read(const char *pooldir, struct jb_diskq *out)
{
	struct diskq_mount	 m;
	char			*mi, sys[PATH_MAX], q[PATH_MAX + 16];
	int			 on, bad;

	memset(out, 0, sizeof(*out));
	out->state = DISKQ_UNCHECKED;
	if ((mi = mountinfo()) == NULL) {
		put(out->text, sizeof(out->text), "/proc/self/"
		    "mountinfo cannot be read: %s", strerror(errno));
		return;
	}
	if (diskq_mount_of(mi, pooldir, &m) == -1) {
		free(mi);
		put(out->text, sizeof(out->text), "no mount holds "
		    "%s", pooldir);
		return;
	}
	free(mi);
	(void)strlcpy(out->fstype, m.fstype, sizeof(out->fstype));
	if (strcmp(m.fstype, "btrfs") != 0) {
		put(out->text, sizeof(out->text), "%s is on %s "
		    "(%s), not btrfs: the pool's driver holds the size, not "
		    "checked here", pooldir, m.fstype, m.point);
		return;
	}
	if (btrfs_sysdir(m.source, sys, sizeof(sys)) == -1) {
		out->state = DISKQ_NOT_ENFORCED;
		put(out->text, sizeof(out->text), "%s is btrfs on "
		    "%s, which has no directory under %s: its quota state "
		    "cannot be read, so no size on it is known to hold",
		    pooldir, m.source, SYS_BTRFS);
		return;
	}
	put(q, sizeof(q), "%s/qgroups", sys);
	on = flag(q, "enabled");
	bad = flag(q, "inconsistent");
	if (on != 1) {
		out->state = DISKQ_NOT_ENFORCED;
		put(out->text, sizeof(out->text), "btrfs quotas "
		    "are off on %s (%s): no size is enforced; Incus turns them "
		    "on when it first sets one", pooldir, sys);
	} else if (bad != 0) {
		out->state = DISKQ_NOT_ENFORCED;
		put(out->text, sizeof(out->text), "the btrfs quota "
		    "accounting of %s is inconsistent (%s/inconsistent): the "
		    "kernel counts no write and refuses none past a size until "
		    "it is rescanned; restart jailbeed, which rescans at start, "
		    "or run as root: btrfs quota rescan -w %s", pooldir, q,
		    pooldir);
	} else {
		out->state = DISKQ_ENFORCED;
		put(out->text, sizeof(out->text), "btrfs qgroup "
		    "limit, quota accounting of %s consistent", pooldir);
	}
}

/* rescan the filesystem mounted at point, waiting until it has ended */
static int
rescan(const char *point, char *err, size_t len)
{
	struct btrfs_ioctl_quota_rescan_args	 a;
	int					 fd, rc = 0;

	if ((fd = open(point, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		put(err, len, "open: %s", strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	/* one may already run (quotas just turned on): then wait for it */
	if (ioctl(fd, BTRFS_IOC_QUOTA_RESCAN, &a) == -1 && errno !=
	    EINPROGRESS) {
		put(err, len, "rescan: %s", strerror(errno));
		rc = -1;
	} else if (ioctl(fd, BTRFS_IOC_QUOTA_RESCAN_WAIT) == -1) {
		put(err, len, "waiting for the rescan: %s",
		    strerror(errno));
		rc = -1;
	}
	close(fd);
	return rc;
}

void
diskq_each(const char *poolsdir, void (*fn)(const char *, void *), void *arg)
{
	struct diskq_mount	 m;
	char			*mi;
	const char		*p;
	size_t			 plen = strlen(poolsdir);

	if ((mi = mountinfo()) == NULL)
		return;
	for (p = mi; p != NULL && *p != '\0'; ) {
		p = parse_line(p, &m);
		/* a pool's own mount: one level under poolsdir, btrfs */
		if (strcmp(m.fstype, "btrfs") == 0 && strncmp(m.point,
		    poolsdir, plen) == 0 && m.point[plen] == '/' &&
		    m.point[plen + 1] != '\0' && strchr(m.point + plen + 1,
		    '/') == NULL)
			fn(m.point, arg);
	}
	free(mi);
}

struct repair {
	void	(*say)(const char *, ...);
	int	  rc;
};

static void
repair_one(const char *point, void *arg)
{
	struct repair	*rp = arg;
	struct jb_diskq	 st;
	char		 err[256];

	diskq_read(point, &st);
	if (st.state != DISKQ_NOT_ENFORCED ||
	    strstr(st.text, "inconsistent") == NULL)
		return;
	rp->say("%s: the btrfs quota accounting is inconsistent, so no "
	    "disk size on the pool holds: rescanning it", point);
	if (rescan(point, err, sizeof(err)) == -1) {
		rp->say("%s: %s", point, err);
		rp->rc = -1;
		return;
	}
	diskq_read(point, &st);
	rp->say("%s: rescanned: %s", point, st.text);
}

int
diskq_repair(const char *poolsdir, void (*say)(const char *, ...))
{
	struct repair	rp = { say, 0 };

	diskq_each(poolsdir, repair_one, &rp);
	return rp.rc;
}
