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
 * libFuzzer target for secrec.c: an instance's record of its secrets,
 * whatever bytes it holds.  A record taken is written back byte for
 * byte as it was, and what is written reads back the same; a record
 * refused says why and leaves no secret.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "secrec.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct secrec	r, again;
	static char		buf[64 * 1024], err[1024];
	int			i;

	err[0] = '\0';
	if (secrec_read((const char *)data, size, &r, err, sizeof(err)) ==
	    -1) {
		if (err[0] == '\0' || r.n != 0)
			abort();
		return 0;
	}
	if (r.n < 0 || r.n > RC_SECRETS_MAX || (size > 0 && r.n == 0))
		abort();
	if (secrec_write(&r, buf, sizeof(buf), err, sizeof(err)) == -1)
		abort();
	if (strlen(buf) != size || memcmp(buf, data, size) != 0)
		abort();
	if (secrec_read(buf, strlen(buf), &again, err, sizeof(err)) == -1 ||
	    again.n != r.n || strcmp(again.global, r.global) != 0 ||
	    strcmp(again.local, r.local) != 0 ||
	    strcmp(again.ghprefix, r.ghprefix) != 0)
		abort();
	for (i = 0; i < r.n; i++)
		if (strcmp(again.e[i].name, r.e[i].name) != 0 ||
		    strcmp(again.e[i].ph, r.e[i].ph) != 0 ||
		    again.e[i].github != r.e[i].github ||
		    (r.e[i].github && strcmp(r.e[i].name, SECREC_GITHUB) != 0))
			abort();
	return 0;
}
