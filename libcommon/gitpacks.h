/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_GITPACKS_H
#define JB_GITPACKS_H

#include <limits.h>
#include <stddef.h>

/* a pack directory's tmp_* and *.idx names, sorted; dir "" when unread */
struct gitpacks {
	char	  dir[PATH_MAX];
	char	**names;
	size_t	  n;
};

/* -1 (and dir "") when the directory cannot be read */
int	gitpacks_scan(struct gitpacks *, const char *dir);
void	gitpacks_free(struct gitpacks *);
/* the objects counted by the indexes that were not there before */
unsigned long long gitpacks_new_objects(const struct gitpacks *before);
/* removes the tmp_* files that were not there before */
void	gitpacks_clean(const struct gitpacks *before);

#endif /* JB_GITPACKS_H */
