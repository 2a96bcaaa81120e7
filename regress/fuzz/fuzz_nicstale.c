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
 * libFuzzer target for the kernel's answer to RTM_GETLINK of one name
 * (nicstale.c): the input is the request's sequence number (4 bytes),
 * then what one read of the socket gave.  A refusal says why, and only
 * a leftover has an index.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nicstale.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		err[256];
	uint32_t	seq;
	int		rc, index = -12345;

	if (size < 4)
		return 0;
	memcpy(&seq, data, 4);
	err[0] = '\0';
	rc = nicstale_parse(data + 4, size - 4, seq, &index, err,
	    sizeof(err));
	if (rc == -1 && err[0] == '\0')
		abort();
	if (rc != -1 && rc != NICSTALE_NONE && rc != NICSTALE_LIVE &&
	    rc != NICSTALE_LEFT)
		abort();
	if (rc != NICSTALE_LEFT && index != -12345)
		abort();
	return 0;
}
