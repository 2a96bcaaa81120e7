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
 * libFuzzer target for jb-netd's state file: whatever parses prints back
 * to text that parses to the same text again, and a refusal names the
 * file and line and leaves the state untouched.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netd_state.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netd_state	 st, again;
	char			 err[1024];
	char			*out, *out2;

	memset(&st, 0, sizeof(st));
	if (netd_state_parse("f", (const char *)data, size, &st, err,
	    sizeof(err)) == -1) {
		if (st.n != 0 || (strncmp(err, "f:", 2) != 0 &&
		    strcmp(err, "out of memory") != 0))
			abort();
		return 0;
	}
	if ((out = netd_state_fmt(&st)) == NULL)
		abort();
	memset(&again, 0, sizeof(again));
	if (netd_state_parse("g", out, strlen(out), &again, err,
	    sizeof(err)) == -1 || again.n != st.n)
		abort();
	if ((out2 = netd_state_fmt(&again)) == NULL || strcmp(out, out2) != 0)
		abort();
	free(out);
	free(out2);
	netd_state_free(&st);
	netd_state_free(&again);
	return 0;
}
