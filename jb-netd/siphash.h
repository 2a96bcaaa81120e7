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
 * SipHash-2-4 (Aumasson and Bernstein), a keyed hash for tables whose keys
 * a container chooses: without the key, which is random per process, it
 * cannot aim its names at one chain.
 */

#ifndef JB_SIPHASH_H
#define JB_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define SIPHASH_KEY	16

uint64_t	siphash24(const uint8_t key[SIPHASH_KEY], const void *in,
		    size_t len);

#endif /* JB_SIPHASH_H */
