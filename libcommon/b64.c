/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include "b64.h"

const char	b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int
b64_encode(const uint8_t *in, size_t len, char *out, size_t outlen, int pad)
{
	size_t		i, o = 0, need;
	uint32_t	v;

	need = len / 3 * 4;
	if (len % 3 != 0)
		need += pad ? 4 : len % 3 + 1;
	if (need >= outlen || need > 0x7fffffff)
		return -1;
	for (i = 0; i < len; i += 3) {
		v = (uint32_t)in[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		out[o++] = b64_alphabet[v >> 18 & 0x3f];
		out[o++] = b64_alphabet[v >> 12 & 0x3f];
		if (i + 1 < len)
			out[o++] = b64_alphabet[v >> 6 & 0x3f];
		else if (pad)
			out[o++] = '=';
		if (i + 2 < len)
			out[o++] = b64_alphabet[v & 0x3f];
		else if (pad)
			out[o++] = '=';
	}
	out[o] = '\0';
	return (int)o;
}
