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
 * libFuzzer target for jb-egress's ClientHello reader (tlshello.c), which
 * reads the first bytes a container sends on a connection to port 443:
 * every input gives one of the answers, a name only with TLSHELLO_NAME,
 * and that name is a lowercase host name of 1-253 bytes.  Every prefix
 * of an input the reader took whole is "more" or the same answer, never
 * a different verdict (a name cannot be read out of a cut ClientHello).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tlshello.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char			 name[TLSHELLO_NAME_MAX + 1], again[sizeof(name)];
	enum tlshello_rc	 rc, rc2;
	size_t			 i, n, used;

	rc = tlshello_parse(data, size, name, sizeof(name), &used);
	n = strlen(name);
	if (rc == TLSHELLO_NAME) {
		if (n == 0 || n > TLSHELLO_NAME_MAX || name[n - 1] == '.')
			abort();
		for (i = 0; i < n; i++)
			if (!((name[i] >= 'a' && name[i] <= 'z') ||
			    (name[i] >= '0' && name[i] <= '9') ||
			    name[i] == '-' || name[i] == '.'))
				abort();
	} else if (n != 0)
		abort();
	if (rc == TLSHELLO_NAME || rc == TLSHELLO_NONAME || rc == TLSHELLO_ECH) {
		if (used == 0 || used > size)
			abort();
		/* the bytes it used give the same answer, fewer give more */
		rc2 = tlshello_parse(data, used, again, sizeof(again), NULL);
		if (rc2 != rc || strcmp(again, name) != 0)
			abort();
		if (tlshello_parse(data, used - 1, again, sizeof(again),
		    NULL) != TLSHELLO_MORE)
			abort();
	}
	return 0;
}
