/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef SFTPPATH_H
#define SFTPPATH_H

#include <stddef.h>

/*
 * An SFTP client's path in the virtual tree: "/" (SFTPPATH_ROOT),
 * "/CONTAINER" (SFTPPATH_TOP: rel is ".") or "/CONTAINER/REL..."
 * (SFTPPATH_IN).  Repeated slashes and "." are dropped; ".." anywhere,
 * a name that is not UTF-8 or holds a control character, or one too
 * long gives -1 and *why says which.
 */
enum { SFTPPATH_ROOT, SFTPPATH_TOP, SFTPPATH_IN };

int	sftppath_split(const char *, char *, size_t, char *, size_t,
	    const char **);
/* REALPATH: ".." taken lexically (never above "/"), the rest as above */
int	sftppath_canon(const char *, const char *, char *, size_t);
int	sftppath_utf8(const char *, size_t);
size_t	sftppath_utf8_seq(const unsigned char *, size_t);

#endif /* SFTPPATH_H */
