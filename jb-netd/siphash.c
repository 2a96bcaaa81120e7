/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include "siphash.h"

#define ROTL(x, b)	(uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND do {							\
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);	\
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;				\
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;				\
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);	\
} while (0)

static uint64_t
le64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	    (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	    (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
	    (uint64_t)p[7] << 56;
}

uint64_t
siphash24(const uint8_t key[SIPHASH_KEY], const void *in, size_t len)
{
	const uint8_t	*p = in;
	uint64_t	 k0 = le64(key), k1 = le64(key + 8), m, b;
	uint64_t	 v0 = 0x736f6d6570736575ULL ^ k0;
	uint64_t	 v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t	 v2 = 0x6c7967656e657261ULL ^ k0;
	uint64_t	 v3 = 0x7465646279746573ULL ^ k1;
	size_t		 i, left = len & 7;

	for (i = 0; i + 8 <= len; i += 8) {
		m = le64(p + i);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	b = (uint64_t)len << 56;
	switch (left) {
	case 7: b |= (uint64_t)p[i + 6] << 48;	/* FALLTHROUGH */
	case 6: b |= (uint64_t)p[i + 5] << 40;	/* FALLTHROUGH */
	case 5: b |= (uint64_t)p[i + 4] << 32;	/* FALLTHROUGH */
	case 4: b |= (uint64_t)p[i + 3] << 24;	/* FALLTHROUGH */
	case 3: b |= (uint64_t)p[i + 2] << 16;	/* FALLTHROUGH */
	case 2: b |= (uint64_t)p[i + 1] << 8;	/* FALLTHROUGH */
	case 1: b |= (uint64_t)p[i];		break;
	default: break;
	}
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}
