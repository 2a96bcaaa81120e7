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
 * libFuzzer target for the listing of a set of refused flows
 * (refused.c): a refusal leaves nothing and says so; every element
 * parsed is TCP or UDP, its key text comes back to the same element,
 * and any entry suggested for it parses as an egress_allow entry.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "refused.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct refused_elem	*v, back;
	struct egress_entry	 e;
	char			 err[256], w[REFUSED_WHAT_MAX], a[300];
	size_t			 i, n;

	if (refused_parse((const char *)data, size, 64, &v, &n, err,
	    sizeof(err)) == -1) {
		if (v != NULL || n != 0 || (strstr(err, "refused flows") == NULL
		    && strcmp(err, "out of memory") != 0))
			abort();
		return 0;
	}
	if (n > 64 || (n == 0) != (v == NULL))
		abort();
	for (i = 0; i < n; i++) {
		if (v[i].proto != EGRESS_PROTO_TCP &&
		    v[i].proto != EGRESS_PROTO_UDP)
			abort();
		memset(&back, 0, sizeof(back));
		if (refused_unwhat(refused_what(&v[i], w, sizeof(w)), &back)
		    == -1 || back.dst != v[i].dst || back.port != v[i].port ||
		    back.proto != v[i].proto)
			abort();
		(void)refused_allow(&v[i], NULL, a, sizeof(a));
		if ((a[0] == '\0') != (v[i].port == 0))
			abort();
		if (a[0] != '\0' && policy_parse_entry(a, &e, err,
		    sizeof(err)) == -1)
			abort();
	}
	free(v);
	return 0;
}
