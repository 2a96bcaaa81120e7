/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SHARED_H
#define JB_SHARED_H

#include <stddef.h>

#include "jb_msg.h"

/*
 * An agent's shared entry: <mountdir>/shared/<key>/<subpath> made as
 * the owner when missing (directories 0700; type file: a new file 0600
 * holding seed), a symlink anywhere below mountdir refused.  0 with
 * *out filled, or -1 with a message naming q->what in err.
 */
void	shared_init(const char *mountdir);
int	shared_make(const struct jb_shared_req *q,
	    struct jb_shared_path *out, char *err, size_t errlen);

#endif /* JB_SHARED_H */
