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
 * libFuzzer target for jb-egress's placeholder substitution (subst.c),
 * which rewrites every request head a container sends to a secret's
 * host: the first byte picks the secrets' headers, the rest is the head.
 * Besides the sanitizers it checks the promises: a head in which nothing
 * was put in comes out byte for byte as it went in; the request line is
 * never changed; a result fits the buffer; the value appears in the
 * result only where a placeholder was replaced (or the container sent
 * the value itself); and base64 decodes what it encodes.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "subst.h"

#define PH	"jbsecret-0123456789abcdef0123456789abcdef"
#define PH2	"jbsecret-00000000000000000000000000000000"
#define VAL	"VALUE_xyz"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
has(const char *h, size_t len, const char *s)
{
	return memmem(h, len, s, strlen(s)) != NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char		 out[SUBST_HEAD_MAX];
	static unsigned char	 dec[SUBST_HEAD_MAX];
	static char		 enc[SUBST_HEAD_MAX];
	struct subst_secret	 s[2] = {
		{ PH, VAL, NULL }, { PH2, "second value", NULL } };
	const char		*in = (const char *)data + 1;
	const char		*eol;
	size_t			 inlen, outsize;
	uint32_t		 used;
	long			 l, d;

	if (size < 1)
		return 0;
	inlen = size - 1;
	if (data[0] & 1)
		s[0].header = "Authorization";
	if (data[0] & 2)
		s[1].header = "X-Key";
	outsize = data[0] & 4 ? inlen + 16 : sizeof(out);
	if (outsize > sizeof(out))
		outsize = sizeof(out);
	l = subst_head(in, inlen, s, 2, out, outsize, &used);
	if (l == -1) {
		if (used != 0)
			abort();
	} else {
		if ((size_t)l > outsize || (used & ~3U) != 0)
			abort();
		if (used == 0 && ((size_t)l != inlen ||
		    memcmp(out, in, inlen) != 0))
			abort();
		/* the request line, unchanged */
		if ((eol = memchr(in, '\n', inlen)) == NULL ||
		    (size_t)l < (size_t)(eol - in) + 1 ||
		    memcmp(out, in, (size_t)(eol - in) + 1) != 0)
			abort();
		if (!(used & 1) && has(out, (size_t)l, VAL) &&
		    !has(in, inlen, VAL))
			abort();
	}

	/* base64 round trip of the same bytes */
	l = subst_b64_encode(data, size, enc, sizeof(enc));
	if (l >= 0) {
		d = subst_b64_decode(enc, (size_t)l, dec, sizeof(dec));
		if (size > 0 && (d != (long)size || memcmp(dec, data, size)))
			abort();
	}
	(void)subst_b64_decode((const char *)data, size, dec, sizeof(dec));
	return 0;
}
