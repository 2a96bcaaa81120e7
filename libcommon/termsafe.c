/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stddef.h>

#include "termsafe.h"

/* how long the well-formed UTF-8 sequence at p is; 0 when it is not one */
static size_t
utf8_len(const unsigned char *p)
{
	size_t		 n, i;
	unsigned int	 cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* overlong, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	/* the C1 controls: CSI is U+009B */
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;
	return n;
}

char *
termsafe(char *s)
{
	unsigned char	*p = (unsigned char *)s;
	size_t		 n;

	while (*p != '\0') {
		if (*p < 0x80) {
			if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
				*p = '?';
			p++;
		} else if ((n = utf8_len(p)) > 0)
			p += n;
		else
			*p++ = '?';
	}
	return s;
}
