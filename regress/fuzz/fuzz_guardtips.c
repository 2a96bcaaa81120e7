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
 * libFuzzer target for destroy's guard output on a cluster clone
 * (guardtips.c), which comes from the container.  Whatever the bytes,
 * what is taken is at most GUARD_TIPS_MAX tips, each a 40 or 64 digit
 * lowercase hex id and a branch of 1 to GUARD_BRANCH_MAX bytes with no
 * newline, and the rest fits its buffer.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guardtips.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct guard_tip	 tips[GUARD_TIPS_MAX];
	char			*s, rest[512], why[128];
	size_t			 n, i, l;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (guard_tips_parse(s, tips, &n, rest, sizeof(rest), why,
	    sizeof(why)) == 0) {
		if (n > GUARD_TIPS_MAX || strlen(rest) >= sizeof(rest))
			abort();
		for (i = 0; i < n; i++) {
			l = strlen(tips[i].oid);
			if ((l != 40 && l != 64) || strspn(tips[i].oid,
			    "0123456789abcdef") != l)
				abort();
			l = strlen(tips[i].branch);
			if (l == 0 || l > GUARD_BRANCH_MAX ||
			    strchr(tips[i].branch, '\n') != NULL)
				abort();
		}
	}
	free(s);
	return 0;
}
