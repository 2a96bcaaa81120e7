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
 * libFuzzer target for jb-mountd's image kind check: any first bytes of
 * a file, read only within what is given; a verdict must not depend on
 * bytes past the first IMAGE_HEAD, and "tar" needs a whole header.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	const char	*k, *k2;
	uint8_t		*copy;

	/* an exact-size copy, so ASan sees any read past the end */
	if ((copy = malloc(len ? len : 1)) == NULL)
		abort();
	memcpy(copy, data, len);
	k = image_kind(copy, len);
	if (k != NULL && strcmp(k, "tar") == 0 && len < 512)
		abort();
	if (len > IMAGE_HEAD) {
		k2 = image_kind(copy, IMAGE_HEAD);
		if ((k == NULL) != (k2 == NULL) ||
		    (k != NULL && strcmp(k, k2) != 0))
			abort();
	}
	free(copy);
	return 0;
}
