/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_ATOMICFILE_H
#define JB_ATOMICFILE_H

#include <sys/types.h>

#include <stddef.h>

/*
 * Replace name in the directory dirfd (or AT_FDCWD) with len bytes of buf,
 * whole or not at all: written to name.tmp (never through a symlink),
 * synced, then renamed over name.  On failure name is as it was, -1 is
 * returned with errno saying why, and name.tmp may remain until the next
 * save replaces it (removing it would cost jb-netd a system call).
 */
int	atomic_save_at(int dirfd, const char *name, const void *buf,
	    size_t len, mode_t mode);

#endif /* JB_ATOMICFILE_H */
