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
 * A checkout's pack directory before and after a fetch, read without
 * running git.  The git bridge fetches with fetch.unpackLimit=1, so what
 * a fetch brings is one new pack and its index: the objects it brought
 * are those the new indexes count.  An interrupted fetch leaves tmp_*
 * files there: those that were not there before are removed.  An index
 * is read for its object count only (the last entry of its fan-out
 * table), never followed through a symlink.
 */

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitpacks.h"

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
is_idx(const char *name)
{
	size_t	len = strlen(name);

	return len > 4 && strcmp(name + len - 4, ".idx") == 0;
}

static int
is_tmp(const char *name)
{
	return strncmp(name, "tmp_", 4) == 0;
}

int
gitpacks_scan(struct gitpacks *p, const char *dir)
{
	DIR		 *d;
	struct dirent	 *de;
	char		**v;
	size_t		  cap = 0;

	memset(p, 0, sizeof(*p));
	if (strlen(dir) >= sizeof(p->dir) || (d = opendir(dir)) == NULL)
		return -1;
	(void)strcpy(p->dir, dir);
	while ((de = readdir(d)) != NULL) {
		if (!is_tmp(de->d_name) && !is_idx(de->d_name))
			continue;
		if (p->n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((v = reallocarray(p->names, cap,
			    sizeof(*v))) == NULL)
				goto fail;
			p->names = v;
		}
		if ((p->names[p->n] = strdup(de->d_name)) == NULL)
			goto fail;
		p->n++;
	}
	closedir(d);
	if (p->n > 0)
		qsort(p->names, p->n, sizeof(*p->names), cmp);
	return 0;
fail:
	/* unread, as the header says: nothing is taken for new after it */
	closedir(d);
	gitpacks_free(p);
	p->dir[0] = '\0';
	return -1;
}

void
gitpacks_free(struct gitpacks *p)
{
	size_t	i;

	for (i = 0; i < p->n; i++)
		free(p->names[i]);
	free(p->names);
	p->names = NULL;
	p->n = 0;
}

static int
had(const struct gitpacks *before, const char *name)
{
	return before->n > 0 && bsearch(&name, before->names, before->n,
	    sizeof(*before->names), cmp) != NULL;
}

static uint32_t
be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	    (uint32_t)b[2] << 8 | b[3];
}

/*
 * The objects an index counts: the fan-out table's last entry, after the
 * 8-byte header of version 2, at the start in version 1.  0 when the file
 * is not one.
 */
static unsigned long long
idx_objects(int dirfd, const char *name)
{
	unsigned char	 b[8];
	off_t		 at = 255 * 4;
	int		 fd;

	if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) == -1)
		return 0;
	if (pread(fd, b, 8, 0) != 8) {
		close(fd);
		return 0;
	}
	if (memcmp(b, "\377tOc", 4) == 0) {
		if (be32(b + 4) != 2) {
			close(fd);
			return 0;
		}
		at += 8;
	}
	if (pread(fd, b, 4, at) != 4) {
		close(fd);
		return 0;
	}
	close(fd);
	return be32(b);
}

/* the objects of the indexes that are in dir now and were not before */
unsigned long long
gitpacks_new_objects(const struct gitpacks *before)
{
	struct gitpacks		 now;
	unsigned long long	 n = 0;
	size_t			 i;
	int			 dfd;

	if (before->dir[0] == '\0' || gitpacks_scan(&now, before->dir) == -1)
		return 0;
	if ((dfd = open(now.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		for (i = 0; i < now.n; i++)
			if (is_idx(now.names[i]) && !had(before, now.names[i]))
				n += idx_objects(dfd, now.names[i]);
		close(dfd);
	}
	gitpacks_free(&now);
	return n;
}

/* nothing half-written stays: the tmp_* files that are new go */
void
gitpacks_clean(const struct gitpacks *before)
{
	struct gitpacks	 now;
	size_t		 i;
	int		 dfd;

	if (before->dir[0] == '\0' || gitpacks_scan(&now, before->dir) == -1)
		return;
	if ((dfd = open(now.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		for (i = 0; i < now.n; i++)
			if (is_tmp(now.names[i]) && !had(before, now.names[i]))
				(void)unlinkat(dfd, now.names[i], 0);
		close(dfd);
	}
	gitpacks_free(&now);
}
