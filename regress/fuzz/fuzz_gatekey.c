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
 * libFuzzer target for user.jailbee.gate's value (gate.c), read from
 * Incus: whatever the bytes and the time, a value taken leaves the gate
 * to the creator for at most GATE_CREATOR_SECS past a time no more than
 * GATE_CREATOR_SECS ahead of now.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*s;
	int64_t	 now = 1000000000, until = -1;

	if (size > 0 && data[0] < 8) {
		/* the first byte, if small, moves the clock a little */
		now += data[0] * 20;
		data++;
		size--;
	}
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (gate_by_creator(s, now, &until) == 1 && (until <= now ||
	    until > now + 2 * GATE_CREATOR_SECS))
		abort();
	free(s);
	return 0;
}
