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
 * A container's own certificate authority, for the connections to a
 * secret's hosts that jb-egress terminates: made in jb-egress, its key
 * never leaving the process (only the certificate is handed out, to be
 * put in the container's trust store), and a leaf certificate per
 * server name it issues, kept for reuse.  P-256 keys; the CA is valid
 * for a year, a leaf for 30 days, both from a day back (clock skew).
 * The CA may sign only server leaves (pathlen 0).
 */

#ifndef JB_CA_H
#define JB_CA_H

#include <stddef.h>

#include <openssl/ssl.h>

struct ca;

/* a new CA named after the container; NULL on failure (errors logged) */
struct ca	*ca_new(const char *ctr);
void		 ca_free(struct ca *);
/* its certificate as PEM, NUL-terminated, owned by the CA */
const char	*ca_cert_pem(const struct ca *);
X509		*ca_cert(const struct ca *);
/*
 * A server context for name: the leaf for it (issued now or before),
 * the CA's certificate as its chain, TLS 1.2 or later, HTTP/1.1 alone by
 * ALPN.  The context is the CA's; NULL on failure.
 */
SSL_CTX		*ca_server_ctx(struct ca *, const char *name);

#endif /* JB_CA_H */
