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
 * Secrets on the wire: in a request head a container sent to one of a
 * secret's hosts, its placeholder is replaced by the value.  Pure, no
 * I/O: the caller has already checked the head (httphead_parse) and
 * which secrets apply to the connection's server name.
 *
 * What is replaced, and nothing else:
 *  - header values only: the request line (its target is logged and
 *    cached by servers) and header names are never touched;
 *  - when a secret names a header, only in header lines of that name
 *    (case-insensitive); otherwise in every header line;
 *  - an "Authorization: Basic" pair (base64 of user:password, as git
 *    over HTTPS sends it) is decoded, the placeholder replaced in the
 *    pair, and the pair re-encoded; any other value by plain text.
 * A head without a placeholder comes out unchanged: nothing is added
 * where the container did not ask for it.
 */

#ifndef JB_SUBST_H
#define JB_SUBST_H

#include <stddef.h>
#include <stdint.h>

#define SUBST_MAX		32	/* secrets per head, a bit each */
#define SUBST_VALUE_MAX		4096	/* bytes of one value */
#define SUBST_HEAD_MAX		65536	/* of a head after substitution */

struct subst_secret {
	const char	*placeholder;	/* what the container holds */
	const char	*value;		/* subst_value_ok() */
	const char	*header;	/* "" or NULL: every header */
};

/*
 * 1 when v may be put in a header: 1..SUBST_VALUE_MAX bytes, no control
 * character (CR, LF and NUL would end or split the header) and no byte
 * above 0x7e.  A value read from a file loses one trailing newline
 * before this check (subst_value_trim).
 */
int	subst_value_ok(const char *v, size_t len);
/* len without one trailing "\n" or "\r\n" */
size_t	subst_value_trim(const char *v, size_t len);

/*
 * The head in[0..inlen) (request line, header lines each ending in
 * CRLF, the empty line) with the secrets s[0..n) put in, into
 * out[0..outsize).  Returns the length written and sets bit i of *used
 * for each secret put in at least once; -1 when the head is not one
 * (a line without CRLF, no empty line at its end) or the result does
 * not fit.
 */
long	subst_head(const char *in, size_t inlen,
	    const struct subst_secret *s, size_t n, char *out,
	    size_t outsize, uint32_t *used);

/* base64 (RFC 4648, padded): -1 when it does not fit or is not base64 */
long	subst_b64_encode(const unsigned char *in, size_t len, char *out,
	    size_t outsize);
long	subst_b64_decode(const char *in, size_t len, unsigned char *out,
	    size_t outsize);

#endif /* JB_SUBST_H */
