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
 * The owner's git identity as the container gets it: which
 * user.name and user.email values may travel, and the dev user's
 * ~/.gitconfig that holds them.  Pure: jb-mountd checks what it read,
 * jb-incus checks again what the parent hands it and renders the file.
 */

#ifndef JB_GITIDENT_H
#define JB_GITIDENT_H

#include <stddef.h>

#include "jb_msg.h"

#define GITIDENT_PATH		"/home/dev/.gitconfig"
/* the header, [user], two keys, every byte of both values escaped */
#define GITIDENT_FILE_MAX	(4 * JB_GIT_IDENT_MAX + 256)

/*
 * A value the container may have: 1 to JB_GIT_IDENT_MAX - 1 bytes, no
 * control character (a newline would start a new line of config, and no
 * ident has a use for the others).  NULL when good, else why.
 */
const char	*gitident_check(const char *);

/*
 * The whole file for name and email ("" when unset, at least one set):
 * a [user] section with each value quoted, '"' and '\' escaped, so git
 * reads back exactly the bytes given.  The length, or -1 when a value
 * fails gitident_check, both are unset, or out is too short.
 */
int		 gitident_render(const char *name, const char *email,
		    char *out, size_t outlen);

#endif /* JB_GITIDENT_H */
