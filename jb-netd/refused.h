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
 * The refused connection attempts the kernel counted: libnftables'
 * JSON listing of one of the sets of refused flows (nftgen.h), each
 * element a source, a destination, tcp or udp, a port, a packet count
 * and the seconds left before it expires.  Pure: no I/O, no clock.
 */

#ifndef JB_REFUSED_H
#define JB_REFUSED_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* one "ADDR:PORT/PROTO" */
#define REFUSED_WHAT_MAX	sizeof("255.255.255.255:65535/udp")

struct refused_elem {
	uint32_t		src;		/* host byte order */
	uint32_t		dst;
	enum egress_proto	proto;		/* TCP or UDP */
	uint16_t		port;
	uint64_t		packets;
	int64_t			expires;	/* seconds left, -1 unknown */
};

/*
 * Parse the listing text (len bytes, not necessarily terminated) into
 * *out (to be freed; NULL when none) and *np.  At most max elements;
 * a listing with more, or anything that is not such a set, is refused:
 * -1 with err saying what.
 */
int	refused_parse(const char *text, size_t len, size_t max,
	    struct refused_elem **out, size_t *np, char *err, size_t errlen);
/* "198.18.0.5:8080/tcp" */
char	*refused_what(const struct refused_elem *, char *buf, size_t len);
/*
 * Back from refused_what's text: dst, proto and port.  0, or -1 when
 * text is not such a string.
 */
int	refused_unwhat(const char *text, struct refused_elem *);
/*
 * The egress_allow entry that would admit e: name (the resolver
 * answered e's address for it) with e's port, else the address with
 * its port; "/udp" for UDP.  "" when none can (port 0).  Returns buf.
 */
char	*refused_allow(const struct refused_elem *e, const char *name,
	    char *buf, size_t len);

#endif /* JB_REFUSED_H */
