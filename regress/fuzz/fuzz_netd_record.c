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
 * libFuzzer target for the policy Incus holds (user.jailbee.* keys, as
 * jb-incus sends them to jb-netd): the input is split at its first two
 * NUL bytes into the mode, egress and egress_extra keys.  Whatever is
 * taken gives keys that are taken to the same keys again.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netd_record.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static size_t
field(char *dst, size_t len, const uint8_t *data, size_t size)
{
	const uint8_t	*z = memchr(data, '\0', size);
	size_t		 n = z != NULL ? (size_t)(z - data) : size;

	if (n >= len)
		n = len - 1;
	memcpy(dst, data, n);
	dst[n] = '\0';
	return z != NULL ? (size_t)(z - data) + 1 : size;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct jb_policy	 p, back, again;
	struct netd_ctr		 c, c2;
	char			 err[512];
	size_t			 off;

	memset(&p, 0, sizeof(p));
	(void)strlcpy(p.name, "jb-f", sizeof(p.name));
	(void)strlcpy(p.ipv4, "10.213.0.9", sizeof(p.ipv4));
	(void)strlcpy(p.prefix, "jb", sizeof(p.prefix));
	p.has_egress = 1;
	p.loose_until = size > 0 ? (long long)data[0] * 1000 : 0;
	off = field(p.net, sizeof(p.net), data, size);
	off += field(p.egress, sizeof(p.egress), data + off, size - off);
	(void)field(p.egress_extra, sizeof(p.egress_extra), data + off,
	    size - off);
	if (netd_record_to_ctr(&p, 100000, &c, err, sizeof(err)) == -1)
		return 0;
	if (netd_record_from_ctr(&c, &back, err, sizeof(err)) == -1) {
		netd_ctr_free(&c);
		return 0;
	}
	if (netd_record_to_ctr(&back, 100000, &c2, err, sizeof(err)) == -1)
		abort();
	if (netd_record_from_ctr(&c2, &again, err, sizeof(err)) == -1 ||
	    strcmp(back.egress, again.egress) != 0 ||
	    strcmp(back.egress_extra, again.egress_extra) != 0 ||
	    strcmp(back.net, again.net) != 0 ||
	    back.loose_until != again.loose_until)
		abort();
	netd_ctr_free(&c);
	netd_ctr_free(&c2);
	return 0;
}
