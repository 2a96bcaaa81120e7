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
 * A terminated connection (mitm.h): two TLS sessions on memory BIOs and
 * the requests between them.
 */

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "httphead.h"
#include "mitm.h"
#include "tlsconf.h"

#define REQ_MAX		(2 * HTTPHEAD_MAX)	/* plaintext held for a head */
#define UP_MAX		(SUBST_HEAD_MAX + REQ_MAX)
#define IO_CHUNK	16384
#define TRUST_MAX	(16 * 1024 * 1024)	/* a trust store file */

enum rstate { R_HEAD, R_LENGTH, R_CHUNKED };

struct mitm {
	SSL		*cs;		/* the container's side: we serve */
	SSL		*ss;		/* the server's side: we connect */
	int		 chs, shs;	/* handshakes done */
	char		 host[HTTPHEAD_NAME_MAX + 1];
	struct subst_secret sec[SUBST_MAX];
	size_t		 nsec;
	/* plaintext from the container, not yet read as a request */
	char		*req;
	size_t		 reqlen;
	enum rstate	 rs;
	uint64_t	 left;
	struct httpchunk ch;
	/* plaintext for the server, held until its handshake is done */
	char		*up;
	size_t		 uplen;
	uint32_t	 used;
	uint64_t	 requests;
	int		 ceof, seof;	/* each side's end came */
	int		 cshut, sshut;	/* and was passed on */
	enum mitm_state	 state;
	char		 err[256];
};

/* what the PEM text in buf holds goes into st: how many certificates */
static int
store_pem(X509_STORE *st, const char *buf, size_t len)
{
	STACK_OF(X509_INFO)	*inf;
	X509_INFO		*xi;
	BIO			*b;
	int			 i, n = 0;

	if (len > INT_MAX || (b = BIO_new_mem_buf(buf, (int)len)) == NULL)
		return -1;
	inf = PEM_X509_INFO_read_bio(b, NULL, NULL, NULL);
	BIO_free(b);
	if (inf == NULL)
		return -1;
	for (i = 0; i < sk_X509_INFO_num(inf); i++) {
		xi = sk_X509_INFO_value(inf, i);
		if (xi->x509 != NULL) {
			if (X509_STORE_add_cert(st, xi->x509) != 1) {
				n = -1;
				break;
			}
			n++;
		}
		if (xi->crl != NULL && X509_STORE_add_crl(st, xi->crl) != 1) {
			n = -1;
			break;
		}
	}
	sk_X509_INFO_pop_free(inf, X509_INFO_free);
	return n;
}

SSL_CTX *
mitm_upstream_ctx(int fd, const char *name, char *why, size_t whylen)
{
	SSL_CTX		*ctx = NULL;
	struct stat	 sb;
	char		*buf = NULL;
	size_t		 off = 0;
	ssize_t		 r;
	unsigned long	 e;
	int		 n = -1;

	tlsconf_apply();
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		(void)snprintf(why, whylen, "%s: cannot load the trust store: "
		    "not a regular file", name);
		return NULL;
	}
	if (sb.st_size > TRUST_MAX) {
		(void)snprintf(why, whylen, "%s: cannot load the trust store: "
		    "larger than %d MiB", name, TRUST_MAX >> 20);
		return NULL;
	}
	if ((buf = malloc((size_t)sb.st_size + 1)) == NULL) {
		(void)snprintf(why, whylen, "%s: cannot load the trust store: "
		    "out of memory", name);
		return NULL;
	}
	while (off < (size_t)sb.st_size) {
		if ((r = pread(fd, buf + off, (size_t)sb.st_size - off,
		    (off_t)off)) == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			(void)snprintf(why, whylen, "%s: cannot load the trust "
			    "store: %s", name, r == 0 ? "shorter than it was" :
			    strerror(errno));
			free(buf);
			return NULL;
		}
		off += (size_t)r;
	}
	if ((ctx = SSL_CTX_new(TLS_client_method())) != NULL &&
	    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1)
		n = store_pem(SSL_CTX_get_cert_store(ctx), buf, off);
	free(buf);
	if (n <= 0) {
		e = ERR_get_error();
		(void)snprintf(why, whylen, "%s: cannot load the trust store: "
		    "%s", name, e ? ERR_reason_error_string(e) : n == 0 ?
		    "no certificate in it" : "unknown");
		ERR_clear_error();
		SSL_CTX_free(ctx);
		return NULL;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	return ctx;
}

static SSL *
ssl_mem(SSL_CTX *ctx)
{
	SSL	*s;
	BIO	*r, *w;

	if ((s = SSL_new(ctx)) == NULL)
		return NULL;
	if ((r = BIO_new(BIO_s_mem())) == NULL ||
	    (w = BIO_new(BIO_s_mem())) == NULL) {
		BIO_free(r);
		SSL_free(s);
		return NULL;
	}
	BIO_set_mem_eof_return(r, -1);
	SSL_set_bio(s, r, w);
	return s;
}

struct mitm *
mitm_new(SSL_CTX *cctx, SSL_CTX *sctx, const char *host,
    const struct subst_secret *s, size_t n)
{
	static const unsigned char	 alpn[] = "\x08http/1.1";
	struct mitm			*m;
	size_t				 i;

	if (n > SUBST_MAX || strlen(host) > HTTPHEAD_NAME_MAX ||
	    (m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	(void)strlcpy(m->host, host, sizeof(m->host));
	for (i = 0; i < n; i++) {
		m->sec[i].placeholder = strdup(s[i].placeholder);
		m->sec[i].value = strdup(s[i].value);
		m->sec[i].header = strdup(s[i].header != NULL ? s[i].header :
		    "");
		m->nsec++;
		if (m->sec[i].placeholder == NULL || m->sec[i].value == NULL ||
		    m->sec[i].header == NULL)
			goto fail;
	}
	if ((m->req = malloc(REQ_MAX)) == NULL ||
	    (m->up = malloc(UP_MAX)) == NULL ||
	    (m->cs = ssl_mem(cctx)) == NULL || (m->ss = ssl_mem(sctx)) == NULL)
		goto fail;
	SSL_set_accept_state(m->cs);
	SSL_set_connect_state(m->ss);
	if (SSL_set_tlsext_host_name(m->ss, m->host) != 1 ||
	    SSL_set1_host(m->ss, host) != 1 ||
	    SSL_set_alpn_protos(m->ss, alpn, sizeof(alpn) - 1) != 0)
		goto fail;
	/* the server's side starts at once: its ClientHello is ready */
	(void)SSL_do_handshake(m->ss);
	m->state = MITM_RUNNING;
	return m;
 fail:
	mitm_free(m);
	return NULL;
}

void
mitm_free(struct mitm *m)
{
	size_t	i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nsec; i++) {
		if (m->sec[i].value != NULL)
			explicit_bzero((char *)(uintptr_t)m->sec[i].value,
			    strlen(m->sec[i].value));
		free((char *)(uintptr_t)m->sec[i].placeholder);
		free((char *)(uintptr_t)m->sec[i].value);
		free((char *)(uintptr_t)m->sec[i].header);
	}
	if (m->up != NULL)
		explicit_bzero(m->up, UP_MAX);
	SSL_free(m->cs);
	SSL_free(m->ss);
	free(m->req);
	free(m->up);
	free(m);
}

static int
fail(struct mitm *m, enum mitm_state st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct mitm *m, enum mitm_state st, const char *fmt, ...)
{
	va_list	ap;

	if (m->state == MITM_RUNNING) {
		m->state = st;
		va_start(ap, fmt);
		(void)vsnprintf(m->err, sizeof(m->err), fmt, ap);
		va_end(ap);
	}
	ERR_clear_error();
	return -1;
}

static const char *
tls_reason(void)
{
	unsigned long	 e = ERR_peek_last_error();
	const char	*r;

	if (e == 0 || (r = ERR_reason_error_string(e)) == NULL)
		return "the connection broke";
	return r;
}

/* put len bytes of plaintext for the server after the held ones */
static int
up_add(struct mitm *m, const char *p, size_t len)
{
	if (len > UP_MAX - m->uplen)
		return fail(m, MITM_REFUSED, "more than %d bytes held for %s "
		    "before its handshake", UP_MAX, m->host);
	memcpy(m->up + m->uplen, p, len);
	m->uplen += len;
	return 0;
}

/* the requests in m->req: heads rewritten, bodies as they are */
static int
requests(struct mitm *m)
{
	struct httphead	 h;
	char		 why[128], *out;
	long		 n;
	size_t		 take;
	uint32_t	 u;
	int		 rc;

	while (m->reqlen > 0) {
		switch (m->rs) {
		case R_HEAD:
			rc = httphead_parse(m->req, m->reqlen, 0, &h, why,
			    sizeof(why));
			if (rc == 0) {
				if (m->reqlen >= REQ_MAX)
					return fail(m, MITM_REFUSED, "a "
					    "request head over %d bytes",
					    HTTPHEAD_MAX);
				return 0;
			}
			if (rc == -1)
				return fail(m, MITM_REFUSED, "a request "
				    "refused: %s", why);
			/* the secret is for the name of the handshake */
			if (strcmp(h.host, m->host) != 0)
				return fail(m, MITM_REFUSED, "a request for "
				    "%s on a connection to %s", h.host,
				    m->host);
			if ((out = malloc(SUBST_HEAD_MAX)) == NULL)
				return fail(m, MITM_REFUSED, "out of memory");
			n = subst_head(m->req, h.headlen, m->sec, m->nsec, out,
			    SUBST_HEAD_MAX, &u);
			if (n == -1) {
				free(out);
				return fail(m, MITM_REFUSED, "a request head "
				    "the secrets cannot be put in");
			}
			rc = up_add(m, out, (size_t)n);
			explicit_bzero(out, (size_t)n);
			free(out);
			if (rc == -1)
				return -1;
			m->used |= u;
			m->requests++;
			take = h.headlen;
			if (h.chunked) {
				m->rs = R_CHUNKED;
				httpchunk_init(&m->ch);
			} else if (h.length > 0) {
				m->rs = R_LENGTH;
				m->left = h.length;
			}
			break;
		case R_LENGTH:
			take = m->reqlen < m->left ? m->reqlen :
			    (size_t)m->left;
			if (up_add(m, m->req, take) == -1)
				return -1;
			if ((m->left -= take) == 0)
				m->rs = R_HEAD;
			break;
		case R_CHUNKED:
		default:
			if ((n = httpchunk_feed(&m->ch, m->req,
			    m->reqlen)) == -1)
				return fail(m, MITM_REFUSED, "a chunked body "
				    "with broken framing");
			take = (size_t)n;
			if (up_add(m, m->req, take) == -1)
				return -1;
			if (m->ch.done)
				m->rs = R_HEAD;
			break;
		}
		memmove(m->req, m->req + take, m->reqlen - take);
		m->reqlen -= take;
	}
	return 0;
}

static int
handshakes(struct mitm *m)
{
	long	 v;
	int	 r;

	if (!m->shs) {
		if ((r = SSL_do_handshake(m->ss)) == 1)
			m->shs = 1;
		else if (SSL_get_error(m->ss, r) != SSL_ERROR_WANT_READ &&
		    SSL_get_error(m->ss, r) != SSL_ERROR_WANT_WRITE) {
			if ((v = SSL_get_verify_result(m->ss)) != X509_V_OK)
				return fail(m, MITM_SERVER_FAILED, "the "
				    "certificate of %s does not verify: %s",
				    m->host, X509_verify_cert_error_string(v));
			return fail(m, MITM_SERVER_FAILED, "TLS with %s "
			    "failed: %s", m->host, tls_reason());
		}
	}
	if (!m->chs) {
		if ((r = SSL_do_handshake(m->cs)) == 1)
			m->chs = 1;
		else if (SSL_get_error(m->cs, r) != SSL_ERROR_WANT_READ &&
		    SSL_get_error(m->cs, r) != SSL_ERROR_WANT_WRITE)
			return fail(m, MITM_CLIENT_FAILED, "the client "
			    "refused the gateway's certificate for %s (%s): "
			    "it pins certificates or does not trust the "
			    "container's CA", m->host, tls_reason());
	}
	return 0;
}

static int
run(struct mitm *m)
{
	char	buf[IO_CHUNK];
	int	n, w;

	if (m->state != MITM_RUNNING)
		return -1;
	if (handshakes(m) == -1)
		return -1;
	/* the container's requests */
	while (m->chs && !m->ceof && m->reqlen < REQ_MAX) {
		n = SSL_read(m->cs, m->req + m->reqlen, REQ_MAX - m->reqlen);
		if (n <= 0) {
			w = SSL_get_error(m->cs, n);
			if (w == SSL_ERROR_WANT_READ)
				break;
			if (w == SSL_ERROR_ZERO_RETURN) {
				m->ceof = 1;
				break;
			}
			return fail(m, MITM_CLIENT_FAILED, "TLS with the "
			    "client failed: %s", tls_reason());
		}
		m->reqlen += (size_t)n;
		if (requests(m) == -1)
			return -1;
	}
	if (requests(m) == -1)
		return -1;
	if (m->shs && m->uplen > 0) {
		n = SSL_write(m->ss, m->up, (int)m->uplen);
		if (n <= 0)
			return fail(m, MITM_SERVER_FAILED, "TLS with %s "
			    "failed: %s", m->host, tls_reason());
		explicit_bzero(m->up, m->uplen);
		m->uplen = 0;
	}
	/* the server's answers, as they come */
	while (m->shs && m->chs && !m->seof) {
		n = SSL_read(m->ss, buf, sizeof(buf));
		if (n <= 0) {
			w = SSL_get_error(m->ss, n);
			if (w == SSL_ERROR_WANT_READ)
				break;
			if (w == SSL_ERROR_ZERO_RETURN) {
				m->seof = 1;
				break;
			}
			return fail(m, MITM_SERVER_FAILED, "TLS with %s "
			    "failed: %s", m->host, tls_reason());
		}
		if (SSL_write(m->cs, buf, n) <= 0)
			return fail(m, MITM_CLIENT_FAILED, "TLS with the "
			    "client failed: %s", tls_reason());
	}
	/* an end is passed on once what came before it went */
	if (m->ceof && m->shs && m->uplen == 0 && m->reqlen == 0 &&
	    !m->sshut) {
		(void)SSL_shutdown(m->ss);
		m->sshut = 1;
	}
	if (m->seof && m->chs && !m->cshut) {
		(void)SSL_shutdown(m->cs);
		m->cshut = 1;
	}
	if (m->cshut && m->sshut)
		m->state = MITM_DONE;
	ERR_clear_error();
	return 0;
}

static int
feed(struct mitm *m, SSL *s, const void *p, size_t len)
{
	if (m->state != MITM_RUNNING && m->state != MITM_DONE)
		return -1;
	if (len > 0 && BIO_write(SSL_get_rbio(s), p, (int)len) != (int)len)
		return fail(m, MITM_REFUSED, "out of memory");
	if (m->state == MITM_DONE)
		return 0;
	return run(m);
}

int
mitm_client_in(struct mitm *m, const void *p, size_t len)
{
	return feed(m, m->cs, p, len);
}

int
mitm_server_in(struct mitm *m, const void *p, size_t len)
{
	return feed(m, m->ss, p, len);
}

int
mitm_client_eof(struct mitm *m)
{
	/* a client gone without close_notify is gone all the same */
	m->ceof = 1;
	if (!m->chs)
		return fail(m, MITM_CLIENT_FAILED, "the client closed during "
		    "the handshake for %s: it pins certificates or does not "
		    "trust the container's CA", m->host);
	return run(m);
}

int
mitm_server_eof(struct mitm *m)
{
	m->seof = 1;
	if (!m->shs)
		return fail(m, MITM_SERVER_FAILED, "%s closed during the "
		    "handshake", m->host);
	return run(m);
}

size_t
mitm_client_pending(const struct mitm *m)
{
	return BIO_ctrl_pending(SSL_get_wbio(m->cs));
}

size_t
mitm_server_pending(const struct mitm *m)
{
	return BIO_ctrl_pending(SSL_get_wbio(m->ss));
}

static size_t
take(SSL *s, void *p, size_t len)
{
	int	n;

	if (len > INT32_MAX)
		len = INT32_MAX;
	n = BIO_read(SSL_get_wbio(s), p, (int)len);
	return n > 0 ? (size_t)n : 0;
}

size_t
mitm_client_out(struct mitm *m, void *p, size_t len)
{
	return take(m->cs, p, len);
}

size_t
mitm_server_out(struct mitm *m, void *p, size_t len)
{
	return take(m->ss, p, len);
}

int
mitm_finished(const struct mitm *m)
{
	return m->state != MITM_RUNNING && mitm_client_pending(m) == 0 &&
	    mitm_server_pending(m) == 0;
}

enum mitm_state
mitm_state(const struct mitm *m)
{
	return m->state;
}

const char *
mitm_error(const struct mitm *m)
{
	return m->err;
}

uint32_t
mitm_take_used(struct mitm *m)
{
	uint32_t	u = m->used;

	m->used = 0;
	return u;
}

uint64_t
mitm_requests(const struct mitm *m)
{
	return m->requests;
}
