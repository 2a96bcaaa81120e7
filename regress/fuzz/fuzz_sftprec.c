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
 * libFuzzer target for sftprec.c: the records jb-sftp sends from inside
 * a container, whatever the container made of them.  A record taken is
 * within the bytes given and its name has no slash.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sftprec.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sftprec	r;
	size_t			off = 0, used;
	int			rc;

	while (off < size &&
	    (rc = sftprec_next(data + off, size - off, &r, &used)) == 1) {
		if (used == 0 || used > size - off)
			abort();
		if (r.type == SFTPREC_ATTR && strchr(r.name, '/') != NULL)
			abort();
		off += used;
	}
	return 0;
}
