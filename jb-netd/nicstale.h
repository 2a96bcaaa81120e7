/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_NICSTALE_H
#define JB_NICSTALE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The host interface a new container's NIC is to be named (jbc and its
 * address, nicname.h), when one is there already: a veth pair with both
 * ends on the host is what is left when Incus was stopped in the middle
 * of a start (the machine, or incusd, killed).  Incus fails every start
 * at that address ("File exists"), and addresses are given lowest free
 * first, so every new would fail until it is gone.
 */

/* what the kernel answered about a name (nicstale_parse) */
#define NICSTALE_NONE	0	/* no such interface */
#define NICSTALE_LIVE	1	/* there, and not a leftover: left alone */
#define NICSTALE_LEFT	2	/* a veth whose peer is on the host too */

/*
 * The kernel's answer to RTM_GETLINK of one name, len bytes of buf, for
 * request seq: NICSTALE_* (*index set for NICSTALE_LEFT), or -1 with err
 * set when it is not such an answer.
 */
int	nicstale_parse(const void *buf, size_t len, uint32_t seq, int *index,
	    char *err, size_t errlen);

/*
 * Removes the leftover named for addr (host order), if there is one:
 * 1 removed, 0 none (or an interface that is not a leftover, left
 * alone), -1 with err set.
 */
int	nicstale_drop(uint32_t addr, char *err, size_t errlen);

#endif /* JB_NICSTALE_H */
