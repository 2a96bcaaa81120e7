/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_B64_H
#define JB_B64_H

#include <stddef.h>
#include <stdint.h>

/* RFC 4648 base64's alphabet, in order */
extern const char	b64_alphabet[];

/*
 * in[len] as base64 into out, NUL-terminated; with '=' padding when pad
 * is set, without it otherwise (as ssh-keygen prints fingerprints).
 * Returns the length written, or -1 when out cannot hold it all.
 */
int	b64_encode(const uint8_t *in, size_t len, char *out, size_t outlen,
	    int pad);

#endif /* JB_B64_H */
