/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_IMAGE_H
#define JB_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "jb_msg.h"

#define IMAGE_MAX_SIZE	(8ULL << 30)	/* a base image larger is a mistake */
#define IMAGE_HEAD	512		/* bytes image_kind() wants to see */

/*
 * What the first bytes of a file say it is: "gzip", "xz", "zstd",
 * "bzip2" or "tar" (a ustar header with a valid checksum), the forms of
 * a unified Incus image; NULL for anything else.
 */
const char	*image_kind(const unsigned char *, size_t);

/*
 * Open path for reading, as the process's user, and check that it may be
 * an image: a regular file, not empty, at most IMAGE_MAX_SIZE, of a kind
 * image_kind() knows.  The fd, or -1 with a message naming path in err.
 */
int	image_open(const char *path, struct jb_image_file *, char *err,
	    size_t errlen);

#endif /* JB_IMAGE_H */
