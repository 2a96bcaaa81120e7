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
 * Netlink attributes built byte for byte as the kernel lays them out,
 * for the tests of what jb-netd reads from netlink (t_nlset, t_nicstale).
 */

#ifndef JB_TEST_NLBUF_H
#define JB_TEST_NLBUF_H

#include <linux/netlink.h>

#include <stdint.h>
#include <string.h>

struct mb {
	unsigned char	b[8192];
	size_t		len;
	size_t		nest[8];
	int		depth;
};

static inline void
put(struct mb *m, uint16_t type, const void *p, size_t len)
{
	struct nlattr	a;

	a.nla_len = (uint16_t)(NLA_HDRLEN + len);
	a.nla_type = type;
	memcpy(m->b + m->len, &a, sizeof(a));
	if (len > 0)
		memcpy(m->b + m->len + NLA_HDRLEN, p, len);
	memset(m->b + m->len + NLA_HDRLEN + len, 0, NLA_ALIGN(a.nla_len) -
	    a.nla_len);
	m->len += NLA_ALIGN(a.nla_len);
}

static inline void
open_nest(struct mb *m, uint16_t type)
{
	m->nest[m->depth++] = m->len;
	put(m, type | NLA_F_NESTED, NULL, 0);
}

static inline void
close_nest(struct mb *m)
{
	struct nlattr	a;
	size_t		at = m->nest[--m->depth];

	memcpy(&a, m->b + at, sizeof(a));
	a.nla_len = (uint16_t)(m->len - at);
	memcpy(m->b + at, &a, sizeof(a));
}

#endif /* JB_TEST_NLBUF_H */
