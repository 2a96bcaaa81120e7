/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_GITD_H
#define JB_GITD_H

#include "jb_msg.h"

/*
 * In a fork of jb-gitd: lock down to f's checkout, fetch through fd,
 * write one struct jb_gitd_result to resfd and exit.
 */
__attribute__((__noreturn__)) void gitd_worker(const struct jb_gitd_fetch *f,
    int fd, int resfd, const char *home);

/*
 * Why a pull over SSH may not move refs/heads/into, or NULL when it
 * may: checked out in a worktree, or a name that would shadow a
 * remote-tracking branch, a tag or a remote's names.
 */
const char	*into_refused(const char *into);

#endif /* JB_GITD_H */
