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
 * secrets_tls: what terminating a secret's connection costs the gateway
 * (jb-egress/mitm.c, ca.c), in one process on memory BIOs, so that only
 * the TLS work is measured, not the network:
 *  - the handshake: client and server directly, against client, the
 *    gateway's two sessions and server (a leaf already issued), median
 *    of N; and the first leaf's issuance;
 *  - the throughput of one answer stream of MIB MiB, server to client:
 *    directly (what the spliced path costs the two ends) against through
 *    the gateway (decrypted and encrypted again), all on one core, and
 *    the rate of the gateway's own work alone (what one core of
 *    jb-egress can carry while the ends run elsewhere);
 *  - the gateway's heap per terminated connection, N held open after
 *    their handshakes (mallinfo2).
 * Prints "name value unit" lines for regress/bench/secrets.
 */

#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "ca.h"
#include "mitm.h"

#define HOST	"api.example.com"

static struct ca	*ctrca, *realca;
static SSL_CTX		*cctx, *up;

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static SSL *
mem_ssl(SSL_CTX *ctx)
{
	SSL	*s = SSL_new(ctx);

	SSL_set_bio(s, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
	BIO_set_mem_eof_return(SSL_get_rbio(s), -1);
	return s;
}

static SSL *
client(struct ca *trust)
{
	SSL	*c;

	if (cctx == NULL) {
		cctx = SSL_CTX_new(TLS_client_method());
		X509_STORE_add_cert(SSL_CTX_get_cert_store(cctx),
		    ca_cert(trust));
		SSL_CTX_set_verify(cctx, SSL_VERIFY_PEER, NULL);
	}
	c = mem_ssl(cctx);
	SSL_set_connect_state(c);
	SSL_set_tlsext_host_name(c, HOST);
	SSL_set1_host(c, HOST);
	return c;
}

static int
move(BIO *from, BIO *to, char *buf, size_t len)
{
	int	n = BIO_read(from, buf, (int)len);

	if (n > 0)
		BIO_write(to, buf, n);
	return n > 0;
}

/* direct: until both handshakes are done */
static void
hs_direct(SSL *c, SSL *s)
{
	char	buf[32768];
	int	moved, dc = 0, ds = 0;

	do {
		moved = 0;
		if (!dc)
			dc = SSL_do_handshake(c) == 1;
		if (!ds)
			ds = SSL_do_handshake(s) == 1;
		moved |= move(SSL_get_wbio(c), SSL_get_rbio(s), buf, sizeof(buf));
		moved |= move(SSL_get_wbio(s), SSL_get_rbio(c), buf, sizeof(buf));
	} while (moved || !dc || !ds);
}

/* through the gateway, bytes moved both ways until nothing moves */
static void
shuttle(SSL *c, struct mitm *m, SSL *s, int *dc)
{
	char	buf[32768];
	size_t	n;
	int	moved, r;

	do {
		moved = 0;
		if (!*dc)
			*dc = SSL_do_handshake(c) == 1;
		(void)SSL_do_handshake(s);
		if ((r = BIO_read(SSL_get_wbio(c), buf, sizeof(buf))) > 0) {
			mitm_client_in(m, buf, (size_t)r);
			moved = 1;
		}
		if ((r = BIO_read(SSL_get_wbio(s), buf, sizeof(buf))) > 0) {
			mitm_server_in(m, buf, (size_t)r);
			moved = 1;
		}
		if ((n = mitm_client_out(m, buf, sizeof(buf))) > 0) {
			BIO_write(SSL_get_rbio(c), buf, (int)n);
			moved = 1;
		}
		if ((n = mitm_server_out(m, buf, sizeof(buf))) > 0) {
			BIO_write(SSL_get_rbio(s), buf, (int)n);
			moved = 1;
		}
	} while (moved);
}

static struct mitm *
gateway(void)
{
	static const struct subst_secret sec[] = {
		{ "jbsecret-0123456789abcdef0123456789abcdef", "v", NULL } };

	return mitm_new(ca_server_ctx(ctrca, HOST), up, HOST, sec, 1);
}

static int
cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char *argv[])
{
	int		 n = argc > 1 ? atoi(argv[1]) : 200;
	int		 mib = argc > 2 ? atoi(argv[2]) : 64;
	double		*dt, *tt, t, t0, gw, direct, term, rate_d, rate_t;
	SSL_CTX		*sctx;
	SSL		*c, *s, **cs, **ss;
	struct mitm	*m, **ms;
	struct mallinfo2 a, b;
	FILE		*fp;
	char		 why[256], *chunk, *sink;
	int		 i, dc, fd;
	size_t		 left, got;

	ctrca = ca_new("bench");
	realca = ca_new("real");
	fp = fopen("/tmp/secrets_tls_store.pem", "w");
	fputs(ca_cert_pem(realca), fp);
	fclose(fp);
	/* read through the descriptor alone, as jb-egress does */
	if ((fd = open("/tmp/secrets_tls_store.pem", O_RDONLY)) == -1 ||
	    (up = mitm_upstream_ctx(fd, "/tmp/secrets_tls_store.pem", why,
	    sizeof(why))) == NULL) {
		fprintf(stderr, "%s\n", fd == -1 ? "cannot open the store" :
		    why);
		return 1;
	}
	close(fd);
	unlink("/tmp/secrets_tls_store.pem");
	sctx = ca_server_ctx(realca, HOST);
	dt = calloc((size_t)n, sizeof(*dt));
	tt = calloc((size_t)n, sizeof(*tt));

	t = now();
	(void)ca_server_ctx(ctrca, "first.example.com");
	printf("leaf_issue %.3f ms\n", (now() - t) * 1e3);

	for (i = 0; i < n; i++) {
		c = client(realca);
		s = mem_ssl(sctx);
		SSL_set_accept_state(s);
		t = now();
		hs_direct(c, s);
		dt[i] = now() - t;
		SSL_free(c);
		SSL_free(s);
	}
	SSL_CTX_free(cctx);
	cctx = NULL;
	for (i = 0; i < n; i++) {
		c = client(ctrca);
		s = mem_ssl(sctx);
		SSL_set_accept_state(s);
		dc = 0;
		t = now();
		m = gateway();
		shuttle(c, m, s, &dc);
		tt[i] = now() - t;
		if (!dc || mitm_state(m) != MITM_RUNNING) {
			fprintf(stderr, "handshake through the gateway: %s\n",
			    mitm_error(m));
			return 1;
		}
		mitm_free(m);
		SSL_free(c);
		SSL_free(s);
	}
	qsort(dt, (size_t)n, sizeof(*dt), cmp);
	qsort(tt, (size_t)n, sizeof(*tt), cmp);
	direct = dt[n / 2] * 1e3;
	term = tt[n / 2] * 1e3;
	printf("handshake_direct %.3f ms\nhandshake_terminated %.3f ms\n"
	    "handshake_added %.3f ms\n", direct, term, term - direct);

	/* one answer stream, server to client */
	chunk = malloc(16384);
	sink = malloc(65536);
	memset(chunk, 'x', 16384);
	SSL_CTX_free(cctx);
	cctx = NULL;
	c = client(realca);
	s = mem_ssl(sctx);
	SSL_set_accept_state(s);
	hs_direct(c, s);
	t = now();
	for (left = (size_t)mib << 20; left > 0; left -= 16384) {
		SSL_write(s, chunk, 16384);
		move(SSL_get_wbio(s), SSL_get_rbio(c), sink, 65536);
		for (got = 0; got < 16384; )
			got += (size_t)SSL_read(c, sink, 65536);
	}
	rate_d = mib / (now() - t);
	SSL_free(c);
	SSL_free(s);
	SSL_CTX_free(cctx);
	cctx = NULL;
	c = client(ctrca);
	s = mem_ssl(sctx);
	SSL_set_accept_state(s);
	m = gateway();
	dc = 0;
	shuttle(c, m, s, &dc);
	SSL_write(c, "GET / HTTP/1.1\r\nHost: " HOST "\r\n\r\n", 37);
	shuttle(c, m, s, &dc);
	while (SSL_read(s, sink, 65536) > 0)
		;
	t = now();
	gw = 0;
	for (left = (size_t)mib << 20; left > 0; left -= 16384) {
		SSL_write(s, chunk, 16384);
		t0 = now();
		shuttle(c, m, s, &dc);
		gw += now() - t0;
		for (got = 0; got < 16384; ) {
			int r = SSL_read(c, sink, 65536);
			if (r <= 0) {
				fprintf(stderr, "stream through the gateway "
				    "broke: %s\n", mitm_error(m));
				return 1;
			}
			got += (size_t)r;
		}
	}
	rate_t = mib / (now() - t);
	printf("stream_direct %.1f MiB/s\nstream_terminated %.1f MiB/s\n"
	    "stream_ratio %.2f x\ngateway_alone %.1f MiB/s\n", rate_d, rate_t,
	    rate_t / rate_d, mib / gw);
	mitm_free(m);
	SSL_free(c);
	SSL_free(s);

	/* memory: n connections held after their handshakes */
	cs = calloc((size_t)n, sizeof(*cs));
	ss = calloc((size_t)n, sizeof(*ss));
	ms = calloc((size_t)n, sizeof(*ms));
	for (i = 0; i < n; i++) {
		cs[i] = client(ctrca);
		ss[i] = mem_ssl(sctx);
		SSL_set_accept_state(ss[i]);
	}
	a = mallinfo2();
	for (i = 0; i < n; i++) {
		ms[i] = gateway();
		dc = 0;
		shuttle(cs[i], ms[i], ss[i], &dc);
	}
	b = mallinfo2();
	/* the two ends' own growth in the handshakes counts too: measured */
	printf("heap_per_conn_with_ends %.1f KiB\n",
	    (double)(b.uordblks - a.uordblks) / n / 1024);
	a = mallinfo2();
	for (i = 0; i < n; i++)
		mitm_free(ms[i]);
	b = mallinfo2();
	printf("heap_per_conn %.1f KiB\n",
	    (double)(a.uordblks - b.uordblks) / n / 1024);
	return 0;
}
