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
 * libFuzzer target for the netlink dump of a set of refused flows
 * (nlset.c): the input is what one read of the socket gave.  A refusal
 * says why; what is kept is within the bound and TCP or UDP.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nlset.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlset_dump	d;
	struct refused_elem	v[16];
	char			err[256];
	uint32_t		seq;
	size_t			i;
	int			grow;

	/* the sequence number the messages answer, as the first 4 bytes */
	if (size < 4)
		return 0;
	memcpy(&seq, data, 4);
	/* the sequence's low bit: a dump read whole, its array growing */
	grow = seq & 1;
	memset(&d, 0, sizeof(d));
	d.max = grow ? 1 : 16;
	d.grow = grow;
	if ((d.v = grow ? calloc(1, sizeof(*d.v)) : v) == NULL)
		return 0;
	d.seq = seq;
	err[0] = '\0';
	if (nlset_parse(&d, data + 4, size - 4, err, sizeof(err)) == -1 &&
	    strncmp(err, "refused flows: ", 15) != 0)
		abort();
	if (d.n > d.max || (!grow && d.n > 16))
		abort();
	/* TCP or UDP with a port, or any protocol (allowany) */
	for (i = 0; i < d.n; i++)
		if (d.v[i].proto != EGRESS_PROTO_TCP &&
		    d.v[i].proto != EGRESS_PROTO_UDP &&
		    (d.v[i].proto != EGRESS_PROTO_ANY || d.v[i].port != 0))
			abort();
	if (grow)
		free(d.v);
	return 0;
}
