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
 * libFuzzer target for jb-egress's HTTP reader (httphead.c), which reads
 * every request head a container sends on a connection to port 80, and
 * the chunked bodies between them: a head parses, asks for more or is
 * refused with a reason; a parsed head has a lowercase host name and a
 * length within the input; a complete head is refused or parsed the same
 * whatever follows it.  The chunk reader never claims more bytes than it
 * was given, byte by byte or at once.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httphead.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct httphead		 h, h2;
	struct httpchunk	 c1, c2;
	const char		*s = (const char *)data;
	char			 why[128];
	size_t			 i, n;
	long			 r = 0, total = 0, whole;
	int			 rc;

	rc = httphead_parse(s, size, (size & 1) ? HTTPHEAD_CONNECT_OK : 0, &h,
	    why, sizeof(why));
	if (rc == -1 && why[0] == '\0')
		abort();
	if (rc == 1) {
		n = strlen(h.host);
		if (n == 0 || n > HTTPHEAD_NAME_MAX || h.headlen > size ||
		    h.headlen < 4 || memcmp(s + h.headlen - 4, "\r\n\r\n", 4)
		    != 0 || (h.chunked && h.length != 0))
			abort();
		for (i = 0; i < n; i++)
			if (h.host[i] >= 'A' && h.host[i] <= 'Z')
				abort();
		/* the head alone says the same */
		if (httphead_parse(s, h.headlen, (size & 1) ?
		    HTTPHEAD_CONNECT_OK : 0, &h2, why, sizeof(why)) != 1 ||
		    strcmp(h.host, h2.host) != 0 || h.length != h2.length)
			abort();
	}
	httpchunk_init(&c1);
	whole = httpchunk_feed(&c1, s, size);
	if (whole < -1 || whole > (long)size)
		abort();
	httpchunk_init(&c2);
	for (i = 0; i < size && !c2.done; i++) {
		if ((r = httpchunk_feed(&c2, s + i, 1)) == -1)
			break;
		if (r > 1)
			abort();
		total += r;
	}
	if (whole != -1 && r != -1 && c1.done != c2.done)
		abort();
	if (whole != -1 && c1.done && total != whole)
		abort();
	return 0;
}
