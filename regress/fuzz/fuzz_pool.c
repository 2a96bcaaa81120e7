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
 * libFuzzer target for jb-netd's pool file (pool.c): whatever parses
 * prints back to text that parses to the same text again, a refusal
 * names the file and leaves the pool empty, and every container's pin
 * is a block jb-incus would accept.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostspin.h"
#include "pool.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pool	 p, again;
	char		 err[1024];
	char		*out, *out2, *pin;
	size_t		 i;

	memset(&p, 0, sizeof(p));
	if (pool_parse("f", (const char *)data, size, &p, err,
	    sizeof(err)) == -1) {
		if (p.n != 0 || strncmp(err, "f:", 2) != 0)
			abort();
		return 0;
	}
	if ((out = pool_fmt(&p)) == NULL)
		abort();
	memset(&again, 0, sizeof(again));
	if (pool_parse("g", out, strlen(out), &again, err,
	    sizeof(err)) == -1 || again.n != p.n)
		abort();
	if ((out2 = pool_fmt(&again)) == NULL || strcmp(out, out2) != 0)
		abort();
	for (i = 0; i < p.n; i++) {
		if ((pin = pool_pin(&p, p.v[i].ctr)) == NULL ||
		    !hostspin_valid(pin, strlen(pin)))
			abort();
		free(pin);
	}
	free(out);
	free(out2);
	pool_free(&p);
	pool_free(&again);
	return 0;
}
