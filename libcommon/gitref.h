/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_GITREF_H
#define JB_GITREF_H

#include <stddef.h>

#define GITREF_BRANCH_MAX	200	/* longer branch names are refused */

/*
 * Is s a branch name git accepts (git check-ref-format --branch, for
 * refs/heads/<s>), and one the git bridge puts in a ref or a command
 * line: printable ASCII only, not "HEAD", not starting with '-', at most
 * GITREF_BRANCH_MAX bytes?  Returns NULL when it is, else why not.
 */
const char	*gitref_branch_bad(const char *s);

/* the same for one path component (a container's name in a ref): no '/' */
const char	*gitref_component_bad(const char *s);

#endif /* JB_GITREF_H */
