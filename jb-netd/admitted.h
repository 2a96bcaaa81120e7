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
 * What jb-netd last admitted into the containers' dynamic sets, and until
 * when, so that an answer repeated while its address is still admitted
 * for long enough costs no transaction, and no admission ever shortens
 * the life an element already has in the kernel (a pool address admitted
 * for a day is not cut to a DNS record's TTL).  Pure: the caller gives
 * the time.  Cleared whenever the table changes otherwise.
 */

#ifndef JB_ADMITTED_H
#define JB_ADMITTED_H

#include <stddef.h>
#include <stdint.h>

#include "nftgen.h"

/* an element with at least timeout - ADMITTED_SLACK s left is not sent */
#define ADMITTED_SLACK	30

size_t	admitted_filter(const char *ctr, struct nftgen_elem *el, size_t n,
	    unsigned int *timeout, int64_t now);
int	admitted_note(const char *ctr, const struct nftgen_elem *el, size_t n,
	    unsigned int timeout, int64_t now);
void	admitted_clear(void);
size_t	admitted_count(void);

#endif /* JB_ADMITTED_H */
