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
 * The server name of a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3), for
 * jb-egress: pure, no I/O, so that unit tests and a fuzzer reach every
 * byte.  The bytes are what a container sent first on a connection: TLS
 * records of type handshake (0x16) whose fragments, put together, begin
 * with one ClientHello; it may span many records and arrive in many
 * segments, so a short input is "more", not an error.
 *
 * Decisions (fail closed):
 *  - Only handshake records until the ClientHello is complete; a record
 *    longer than 2^14 + 2048, a version other than 3.x, an empty
 *    handshake record, or a first message that is not a ClientHello is
 *    refused as not TLS.
 *  - A ClientHello longer than TLSHELLO_MAX is refused.
 *  - Every length inside must agree with its container; extensions may
 *    not repeat.
 *  - server_name must hold exactly one host_name, 1-253 bytes of
 *    letters, digits, '-' and '.', no other name type; it is returned
 *    lowercased without a trailing dot.
 *  - encrypted_client_hello (0xfe0d, and the draft ESNI 0xffce) is
 *    reported as such: the real name is encrypted, the outer one is not
 *    the name the client reaches.
 */

#ifndef JB_TLSHELLO_H
#define JB_TLSHELLO_H

#include <stddef.h>
#include <stdint.h>

#define TLSHELLO_MAX		(64 * 1024)	/* a ClientHello's body */
#define TLSHELLO_RECORD_MAX	(16384 + 2048)	/* one record's fragment */
#define TLSHELLO_NAME_MAX	253

enum tlshello_rc {
	TLSHELLO_MORE,		/* a ClientHello so far: give more bytes */
	TLSHELLO_NAME,		/* complete, with a server name in name */
	TLSHELLO_NONAME,	/* complete, without server_name */
	TLSHELLO_ECH,		/* complete, with Encrypted Client Hello */
	TLSHELLO_BAD,		/* not TLS, or a malformed ClientHello */
	TLSHELLO_TOOBIG		/* a ClientHello over TLSHELLO_MAX */
};

/*
 * Parse buf[0..len).  name (at least TLSHELLO_NAME_MAX + 1 bytes) gets
 * the server name on TLSHELLO_NAME, "" otherwise.  *used (may be NULL)
 * gets the bytes the records holding the ClientHello take on a complete
 * answer.
 */
enum tlshello_rc tlshello_parse(const uint8_t *buf, size_t len, char *name,
	    size_t namelen, size_t *used);
/* a short word for rc, for logs and messages */
const char	*tlshello_str(enum tlshello_rc);

#endif /* JB_TLSHELLO_H */
