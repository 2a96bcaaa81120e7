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
 * A terminated connection to one of a secret's hosts: TLS from the
 * container ended here with a leaf of the container's CA (ca.h), TLS to
 * the real server verified against the host's trust store, and between
 * them every request head read (httphead.c), checked to name the same
 * host as the handshake, and passed through the substitution (subst.h);
 * bodies and answers pass as they are.
 *
 * No I/O of its own: the caller hands in the bytes each side sent and
 * sends what comes out, so that the event loop, the unit tests and the
 * benchmark drive the same code.
 */

#ifndef JB_MITM_H
#define JB_MITM_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "subst.h"

struct mitm;

enum mitm_state {
	MITM_RUNNING,
	MITM_DONE,		/* both sides closed cleanly */
	MITM_CLIENT_FAILED,	/* the container's side: see mitm_error */
	MITM_SERVER_FAILED,	/* the server's side, its certificate too */
	MITM_REFUSED,		/* a request head the gateway refuses */
};

/*
 * The context for the real servers: TLS 1.2 or later, the peer's
 * certificate verified against the certificates (and CRLs) of the PEM
 * file open on fd, named name in messages, read now from its start
 * through fd (the gateway opens it before its lock-down and has no file
 * access later).  NULL and why on failure.
 */
SSL_CTX	*mitm_upstream_ctx(int fd, const char *name, char *why,
	    size_t whylen);

/*
 * cctx: the container's side (ca_server_ctx for host); sctx: the real
 * server's (mitm_upstream_ctx).  The secrets' strings are copied; their
 * values are wiped when the connection is freed.
 */
struct mitm	*mitm_new(SSL_CTX *cctx, SSL_CTX *sctx, const char *host,
		    const struct subst_secret *s, size_t n);
void		 mitm_free(struct mitm *);

/* bytes each side sent, and its end; -1 once it failed */
int		 mitm_client_in(struct mitm *, const void *, size_t);
int		 mitm_server_in(struct mitm *, const void *, size_t);
int		 mitm_client_eof(struct mitm *);
int		 mitm_server_eof(struct mitm *);
/* bytes to send to each side: how many are waiting, and take them */
size_t		 mitm_client_pending(const struct mitm *);
size_t		 mitm_server_pending(const struct mitm *);
size_t		 mitm_client_out(struct mitm *, void *, size_t);
size_t		 mitm_server_out(struct mitm *, void *, size_t);
/* both sides said all they had to and it was taken */
int		 mitm_finished(const struct mitm *);

enum mitm_state	 mitm_state(const struct mitm *);
const char	*mitm_error(const struct mitm *);
/* the secrets put in since the last call, a bit each (subst_head) */
uint32_t	 mitm_take_used(struct mitm *);
/* requests sent on to the server */
uint64_t	 mitm_requests(const struct mitm *);

#endif /* JB_MITM_H */
