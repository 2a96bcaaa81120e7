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
 * libFuzzer target for the explicit proxy's head reader (proxyhead.c):
 * on any bytes, and on every head httphead_parse accepts with CONNECT
 * allowed, the port is found or refused and the origin form is written
 * within its buffer; an accepted absolute-URI head always has an origin
 * form, which httphead_parse accepts again for the same host, and which
 * carries no Connection header but the one added.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httphead.h"
#include "proxyhead.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*s = (const char *)data;
	struct httphead	 h, o;
	char		 why[128], *out;
	size_t		 outlen = size + 64, i, nconn = 0;
	long		 n;

	(void)proxyhead_port(s, size);
	if ((out = malloc(outlen + 1)) == NULL)
		return 0;
	/* too small a buffer is refused, never overrun: the guard stays */
	out[outlen / 2] = 'G';
	n = proxyhead_origin(s, size, out, outlen / 2);
	if (n > (long)(outlen / 2) || out[outlen / 2] != 'G')
		abort();
	if (httphead_parse(s, size, HTTPHEAD_CONNECT_OK, &h, why,
	    sizeof(why)) == 1) {
		if (h.absolute) {
			if (proxyhead_port(s, h.headlen) == 0)
				abort();
			n = proxyhead_origin(s, h.headlen, out, outlen);
			if (n < 0)
				abort();
			/* the server gets a head of the same host */
			if (httphead_parse(out, (size_t)n, 0, &o, why,
			    sizeof(why)) == 1 && strcmp(o.host, h.host) != 0)
				abort();
			for (i = 0; i + 11 <= (size_t)n; i++)
				if ((i == 0 || out[i - 1] == '\n') &&
				    strncasecmp(out + i, "connection:", 11) == 0)
					nconn++;
			if (nconn != 1)
				abort();
		}
		if (h.connect && proxyhead_port(s, h.headlen) == 0)
			abort();
	}
	free(out);
	return 0;
}
