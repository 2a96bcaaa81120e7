/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdlib.h>
#include <string.h>

#include "gwknown.h"
#include "siphash.h"

struct slot {
	uint64_t	h;		/* 0: empty */
	int64_t		until;
	uint32_t	seq;
};

struct gwknown {
	uint8_t		key[SIPHASH_KEY];
	struct slot	s[GWKNOWN_SLOTS];
};

struct gwknown *
gwknown_new(void)
{
	struct gwknown	*k;

	if ((k = calloc(1, sizeof(*k))) == NULL)
		return NULL;
	arc4random_buf(k->key, sizeof(k->key));
	return k;
}

void
gwknown_free(struct gwknown *k)
{
	free(k);
}

/* ctr NUL host NUL addr, hashed; never 0 */
static uint64_t
hash(const struct gwknown *k, const char *ctr, const char *host,
    uint32_t addr)
{
	char		buf[512];
	size_t		a = strnlen(ctr, 200), b = strnlen(host, 280);
	uint64_t	h;

	memcpy(buf, ctr, a);
	buf[a] = '\0';
	memcpy(buf + a + 1, host, b);
	buf[a + 1 + b] = '\0';
	memcpy(buf + a + 2 + b, &addr, sizeof(addr));
	h = siphash24(k->key, buf, a + 2 + b + sizeof(addr));
	return h == 0 ? 1 : h;
}

/* seq is confirmed when every ADMIT up to acked holds */
static int
confirmed(uint32_t seq, uint32_t acked)
{
	return acked != 0 && seq != 0 && (int32_t)(acked - seq) >= 0;
}

int64_t
gwknown_until(const struct gwknown *k, const char *ctr, const char *host,
    uint32_t addr, uint32_t acked)
{
	uint64_t		 h = hash(k, ctr, host, addr);
	const struct slot	*s;
	size_t			 i;

	for (i = 0; i < GWKNOWN_PROBE; i++) {
		s = &k->s[(h + i) & (GWKNOWN_SLOTS - 1)];
		if (s->h == h)
			return confirmed(s->seq, acked) ? s->until : 0;
	}
	return 0;
}

int
gwknown_held(const struct gwknown *k, const char *ctr, const char *host,
    uint32_t addr, int64_t now, uint32_t acked)
{
	return gwknown_until(k, ctr, host, addr, acked) > now + GWKNOWN_MARGIN;
}

void
gwknown_note(struct gwknown *k, const char *ctr, const char *host,
    uint32_t addr, int64_t until, uint32_t seq)
{
	uint64_t	 h = hash(k, ctr, host, addr);
	struct slot	*s, *v = NULL;
	size_t		 i;

	for (i = 0; i < GWKNOWN_PROBE; i++) {
		s = &k->s[(h + i) & (GWKNOWN_SLOTS - 1)];
		if (s->h == h) {
			v = s;
			break;
		}
		/* else the empty slot, or the one ending first */
		if (v == NULL || (v->h != 0 && (s->h == 0 ||
		    s->until < v->until)))
			v = s;
	}
	v->h = h;
	v->until = until;
	v->seq = seq;
}
