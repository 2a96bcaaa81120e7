/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_MOUNTD_DEADLINE_H
#define JB_MOUNTD_DEADLINE_H

#include "jb_msg.h"

#define DEADLINE_FILE	"deadlines"
#define DEADLINE_MAX	1024

struct child;

/*
 * Open the state directory (before the lock-down) and load what it
 * holds; deadlines that passed while the suite was down fire at once.
 */
void	deadline_init(struct child *, const char *dir);
/* 0, or -1 with the reason (the file could not be written) */
int	deadline_set(const struct jb_mount_deadline *, char *, size_t);
/* until 0: whatever is recorded; else only that very deadline */
int	deadline_clear(const struct jb_mount_deadline *, char *, size_t);
/* send one IMSG_MOUNTD_DEADLINE per entry of name ("" all) */
void	deadline_list(struct child *, uint32_t rid, const char *name);

#endif /* JB_MOUNTD_DEADLINE_H */
