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
 * HTTP/1.x request heads and the framing of their bodies (RFC 9112), for
 * jb-egress, which must see the Host of every request a container sends
 * on a connection, pipelined ones included: pure, no I/O, so that unit
 * tests and a fuzzer reach every byte.
 *
 * Decisions (fail closed: whatever two servers could read two ways is
 * refused):
 *  - A head is a request line and header lines, each ending in CRLF (a
 *    bare LF or CR is refused), then an empty line; at most
 *    HTTPHEAD_MAX bytes.  Folded lines, control characters and a space
 *    before a header's colon are refused.
 *  - Only HTTP/1.0 and HTTP/1.1; the method a token; CONNECT only where
 *    the caller allows it (the explicit proxy), with an authority target.
 *  - Exactly one Host, a DNS name (letters, digits, '-', '.') with an
 *    optional port; it comes back lowercased, without a trailing dot.
 *    An absolute target (http://name[:port]/...) must name the same
 *    host.
 *  - The body: Content-Length (digits, one header) or Transfer-Encoding
 *    exactly "chunked", never both; any other transfer coding, and
 *    Upgrade, are refused.
 */

#ifndef JB_HTTPHEAD_H
#define JB_HTTPHEAD_H

#include <stddef.h>
#include <stdint.h>

#define HTTPHEAD_MAX		16384
#define HTTPHEAD_NAME_MAX	253

struct httphead {
	char		method[16];
	char		host[HTTPHEAD_NAME_MAX + 1];	/* lowercased */
	uint16_t	port;		/* Host's, 0 when it names none */
	int		absolute;	/* the target was an absolute URI */
	int		connect;	/* CONNECT host:port */
	int		chunked;
	uint64_t	length;		/* Content-Length; 0 without one */
	size_t		headlen;	/* bytes of the head, empty line too */
};

#define HTTPHEAD_CONNECT_OK	0x1	/* CONNECT is allowed */

/*
 * One head at the start of buf[0..len).  Returns 1 and fills *h when a
 * complete head is there, 0 when more bytes are needed, -1 when it is
 * refused (why gets a short reason).
 */
int	httphead_parse(const char *buf, size_t len, int flags,
	    struct httphead *h, char *why, size_t whylen);

/*
 * A chunked body, byte by byte as it comes: httpchunk_init, then
 * httpchunk_feed on each piece.  feed returns how many of the bytes
 * belong to the body (all of them, or fewer once it ended: the rest is
 * the next request), or -1 when the framing is broken.  done is set
 * once the last chunk and its trailers are through.
 */
struct httpchunk {
	int		state;
	uint64_t	left;		/* of the current chunk's data */
	size_t		linelen;	/* of the current size or trailer line */
	int		digits;
	int		done;
};
void	httpchunk_init(struct httpchunk *);
long	httpchunk_feed(struct httpchunk *, const char *buf, size_t len);

#endif /* JB_HTTPHEAD_H */
