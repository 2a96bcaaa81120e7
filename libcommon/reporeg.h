/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_REPOREG_H
#define JB_REPOREG_H

#include <limits.h>
#include <stddef.h>

#include "repoconf.h"

/*
 * The registry of repositories: which checkout each container prefix
 * comes from, so that an SSH session, which has no checkout, can name a
 * repository by its prefix (--repo).  One line per repository,
 * "PREFIX<TAB>PATH\n"; the parent alone reads and writes it.
 */
#define REPOREG_MAX		64
#define REPOREG_FILE_MAX	(REPOREG_MAX * (NAME_PREFIX_MAX + PATH_MAX + 2))

struct reporeg_entry {
	char	prefix[NAME_PREFIX_MAX + 1];
	char	path[PATH_MAX];		/* the checkout's top level */
};

struct reporeg {
	struct reporeg_entry	e[REPOREG_MAX];
	int			n;
};

int	reporeg_path_ok(const char *);
int	reporeg_parse(const char *, size_t, struct reporeg *, char *, size_t);
/* the file's bytes into buf; the length, or -1 when buf is too small */
long	reporeg_format(const struct reporeg *, char *, size_t);
/* add or replace; -1 when full or either field is not valid */
int	reporeg_set(struct reporeg *, const char *prefix, const char *path);
int	reporeg_rm(struct reporeg *, const char *prefix);
const struct reporeg_entry *reporeg_find(const struct reporeg *,
	    const char *);

#endif /* JB_REPOREG_H */
