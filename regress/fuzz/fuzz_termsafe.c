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
 * libFuzzer target for termsafe.c, which sees whatever bytes a container
 * chose.  Whatever they are, the result has the same length, holds no
 * C0 control but tab, no DEL and no C1 control, and is well-formed UTF-8
 * (checked here by a decoder of its own).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "termsafe.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* the code point at p and its length; aborts when p is not UTF-8 */
static size_t
decode(const unsigned char *p, unsigned int *cp)
{
	size_t	n, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0)
		n = 2, *cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, *cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4, *cp = p[0] & 0x07;
	else
		abort();
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			abort();
		*cp = (*cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 2 && *cp < 0x80) || (n == 3 && *cp < 0x800) ||
	    (n == 4 && *cp < 0x10000) || *cp > 0x10ffff ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		abort();
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*s;
	const unsigned char *p;
	size_t		 len;
	unsigned int	 cp;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	len = strlen(s);
	if (termsafe(s) != s || strlen(s) != len)
		abort();
	for (p = (const unsigned char *)s; *p != '\0'; p += decode(p, &cp))
		if ((p[0] < 0x80 && ((p[0] < 0x20 && p[0] != '\t') ||
		    p[0] == 0x7f)) || (p[0] >= 0x80 && (decode(p, &cp),
		    cp >= 0x80 && cp <= 0x9f)))
			abort();
	free(s);
	return 0;
}
