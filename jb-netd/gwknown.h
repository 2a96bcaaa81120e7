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
 * What the egress gateway already holds: a container's admission of an
 * address for a name, the number of the ADMIT that carried it, and until
 * when.  The resolver waits for the gateway's word only for what is not
 * held yet, so a name asked again costs no round trip.  A bounded table
 * keyed by SipHash (the names are the container's choice); what falls
 * out of it is waited for again, which is only slower.
 */

#ifndef JB_GWKNOWN_H
#define JB_GWKNOWN_H

#include <stdint.h>

#define GWKNOWN_SLOTS	4096	/* a power of two */
#define GWKNOWN_PROBE	8
/* seconds an admission must still have to count as held */
#define GWKNOWN_MARGIN	10

struct gwknown;

struct gwknown	*gwknown_new(void);
void		 gwknown_free(struct gwknown *);
/*
 * 1 if the gateway holds ctr's admission of addr for host: noted with a
 * number the gateway has confirmed (every ADMIT up to acked holds, 0:
 * none yet), lasting past now + GWKNOWN_MARGIN.
 */
int		 gwknown_held(const struct gwknown *, const char *ctr,
		    const char *host, uint32_t addr, int64_t now,
		    uint32_t acked);
/*
 * Until when the gateway holds ctr's admission of addr for host, noted
 * with a number it has confirmed; 0 when it is not known to hold it.
 */
int64_t		 gwknown_until(const struct gwknown *, const char *ctr,
		    const char *host, uint32_t addr, uint32_t acked);
/* the ADMIT numbered seq carries ctr's admission of addr for host */
void		 gwknown_note(struct gwknown *, const char *ctr,
		    const char *host, uint32_t addr, int64_t until,
		    uint32_t seq);

#endif /* JB_GWKNOWN_H */
