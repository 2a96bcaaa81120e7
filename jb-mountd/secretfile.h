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
 * A secret's file (secrets.NAME.file), read by jb-mountd as the owner:
 * "~/" is the owner's home; the last component is not followed if it
 * is a symlink; it must be a regular file of the owner's that only the
 * owner may read (mode 0600 or tighter: the rule the suite sets for
 * token files, enforced here, not warned); its content, without one
 * trailing newline, is the value: printable ASCII, at most 4096 bytes.
 */

#ifndef JB_SECRETFILE_H
#define JB_SECRETFILE_H

#include <sys/types.h>

#include <stddef.h>

#define SECRETFILE_MAX	4096

/*
 * The value into out (NUL-terminated, outlen > SECRETFILE_MAX); -1 and
 * a sentence naming the file and what to do in why.
 */
int	secretfile_read(const char *path, const char *home, uid_t uid,
	    char *out, size_t outlen, char *why, size_t whylen);

#endif /* JB_SECRETFILE_H */
