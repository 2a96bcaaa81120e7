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
 * libFuzzer target for the registry's file (reporeg.c).  Whatever the
 * bytes, a file that parses holds only valid entries, and what it is
 * written back as parses to the same entries.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reporeg.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct reporeg	r, back;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char	*buf;
	char		 err[256];
	long		 n;
	int		 i;

	if (buf == NULL && (buf = malloc(REPOREG_FILE_MAX)) == NULL)
		abort();
	if (reporeg_parse((const char *)data, size, &r, err, sizeof(err)) ==
	    -1) {
		if (r.n != 0 || memchr(err, '\0', sizeof(err)) == NULL)
			abort();
		return 0;
	}
	for (i = 0; i < r.n; i++)
		if (!name_prefix_ok(r.e[i].prefix) ||
		    !reporeg_path_ok(r.e[i].path))
			abort();
	if ((n = reporeg_format(&r, buf, REPOREG_FILE_MAX)) == -1 ||
	    reporeg_parse(buf, (size_t)n, &back, err, sizeof(err)) == -1 ||
	    back.n != r.n || memcmp(back.e, r.e, sizeof(r.e[0]) *
	    (size_t)r.n) != 0)
		abort();
	return 0;
}
