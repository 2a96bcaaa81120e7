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
 * A terminated connection (jb-egress/mitm.c, ca.c) with real TLS on both
 * sides, in one process: an OpenSSL client that trusts the container's
 * CA, the gateway's two sessions, and an OpenSSL server with a
 * certificate of another CA (the "real" one, in a trust store file).
 * The server answers each request head with the Authorization it got.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "ca.h"
#include "mitm.h"
#include "tlsconf.h"

#define HOST	"api.example.com"
#define PH	"jbsecret-0123456789abcdef0123456789abcdef"
#define VAL	"real-value-77"

struct world {
	struct ca	*ctrca, *realca;
	SSL_CTX		*cctx;		/* the client's */
	SSL_CTX		*up;		/* the gateway's, to the server */
	SSL		*c, *s;
	struct mitm	*m;
	char		 got[8192];	/* what the server read */
	size_t		 gotlen;
	char		 ans[8192];	/* what the client read */
	size_t		 anslen;
	int		 cfail;		/* the client's handshake failed */
};

static SSL *
mem_ssl(SSL_CTX *ctx)
{
	SSL	*s;

	ATF_REQUIRE((s = SSL_new(ctx)) != NULL);
	SSL_set_bio(s, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
	BIO_set_mem_eof_return(SSL_get_rbio(s), -1);
	return s;
}

/* trust: the CA the client trusts; cert_for: the server's name */
static void
world_init(struct world *w, struct ca *client_trusts, const char *cert_for,
    const char *upstream_store_pem)
{
	static const struct subst_secret sec[] = {
		{ PH, VAL, "Authorization" } };
	X509_STORE	*st;
	FILE		*fp;
	char		 why[256];
	int		 fd;

	memset(w, 0, sizeof(*w));
	ATF_REQUIRE((w->ctrca = ca_new("t-ctr")) != NULL);
	ATF_REQUIRE((w->realca = ca_new("real world")) != NULL);
	if (client_trusts == NULL)
		client_trusts = w->ctrca;
	else
		client_trusts = w->realca;
	/* the host's trust store: the real CA, or the one given */
	ATF_REQUIRE((fp = fopen("store.pem", "w")) != NULL);
	fputs(upstream_store_pem != NULL ? upstream_store_pem :
	    ca_cert_pem(w->realca), fp);
	ATF_REQUIRE(fclose(fp) == 0);
	/* read through the descriptor alone, as after the lock-down */
	ATF_REQUIRE((fd = open("store.pem", O_RDONLY)) != -1);
	ATF_REQUIRE(unlink("store.pem") == 0);
	w->up = mitm_upstream_ctx(fd, "store.pem", why, sizeof(why));
	ATF_REQUIRE_MSG(w->up != NULL, "%s", why);
	ATF_REQUIRE(close(fd) == 0);

	ATF_REQUIRE((w->cctx = SSL_CTX_new(TLS_client_method())) != NULL);
	st = SSL_CTX_get_cert_store(w->cctx);
	ATF_REQUIRE(X509_STORE_add_cert(st, ca_cert(client_trusts)) == 1);
	SSL_CTX_set_verify(w->cctx, SSL_VERIFY_PEER, NULL);
	w->c = mem_ssl(w->cctx);
	SSL_set_connect_state(w->c);
	SSL_set_tlsext_host_name(w->c, HOST);
	SSL_set1_host(w->c, HOST);
	SSL_set_alpn_protos(w->c, (const unsigned char *)"\x02h2\x08http/1.1",
	    12);

	w->s = mem_ssl(ca_server_ctx(w->realca, cert_for));
	SSL_set_accept_state(w->s);
	w->m = mitm_new(ca_server_ctx(w->ctrca, HOST), w->up, HOST, sec, 1);
	ATF_REQUIRE(w->m != NULL);
}

static void
world_free(struct world *w)
{
	mitm_free(w->m);
	SSL_free(w->c);
	SSL_free(w->s);
	SSL_CTX_free(w->cctx);
	SSL_CTX_free(w->up);
	ca_free(w->ctrca);
	ca_free(w->realca);
	(void)unlink("store.pem");
}

static size_t
drain(BIO *b, char *buf, size_t len)
{
	int	n = BIO_read(b, buf, (int)len);

	return n > 0 ? (size_t)n : 0;
}

/* the server answers every complete head it read with its Authorization */
static void
server_answer(struct world *w)
{
	char	*end, *a, line[512], out[1024];
	size_t	 hl;
	int	 n;

	while ((end = memmem(w->got, w->gotlen, "\r\n\r\n", 4)) != NULL) {
		hl = (size_t)(end + 4 - w->got);
		line[0] = '\0';
		if ((a = memmem(w->got, hl, "Authorization: ", 15)) != NULL)
			(void)sscanf(a + 15, "%511[^\r]", line);
		n = snprintf(out, sizeof(out), "HTTP/1.1 200 OK\r\n"
		    "Content-Length: %zu\r\n\r\n%s", strlen(line), line);
		ATF_REQUIRE(SSL_write(w->s, out, n) == n);
		memmove(w->got, w->got + hl, w->gotlen - hl);
		w->gotlen -= hl;
	}
}

/* move bytes until nothing moves; req is written once the client can */
static void
pump(struct world *w, const char *req)
{
	char	buf[32768];
	size_t	n;
	int	r, moved, rounds = 0, sent = req == NULL;

	do {
		moved = 0;
		if (!w->cfail) {
			r = SSL_do_handshake(w->c);
			if (r != 1 && SSL_get_error(w->c, r) == SSL_ERROR_SSL)
				w->cfail = 1;
			if (r == 1 && !sent) {
				ATF_REQUIRE(SSL_write(w->c, req,
				    (int)strlen(req)) > 0);
				sent = 1;
			}
			if (r == 1)
				while ((r = SSL_read(w->c, w->ans + w->anslen,
				    (int)(sizeof(w->ans) - w->anslen - 1))) > 0)
					w->anslen += (size_t)r;
		}
		(void)SSL_do_handshake(w->s);
		while ((r = SSL_read(w->s, w->got + w->gotlen,
		    (int)(sizeof(w->got) - w->gotlen))) > 0)
			w->gotlen += (size_t)r;
		server_answer(w);
		if ((n = drain(SSL_get_wbio(w->c), buf, sizeof(buf))) > 0) {
			(void)mitm_client_in(w->m, buf, n);
			moved = 1;
		}
		if ((n = drain(SSL_get_wbio(w->s), buf, sizeof(buf))) > 0) {
			(void)mitm_server_in(w->m, buf, n);
			moved = 1;
		}
		if ((n = mitm_client_out(w->m, buf, sizeof(buf))) > 0) {
			BIO_write(SSL_get_rbio(w->c), buf, (int)n);
			moved = 1;
		}
		if ((n = mitm_server_out(w->m, buf, sizeof(buf))) > 0) {
			BIO_write(SSL_get_rbio(w->s), buf, (int)n);
			moved = 1;
		}
		ERR_clear_error();
	} while ((moved || !sent) && ++rounds < 200);
	w->ans[w->anslen] = '\0';
}

ATF_TC_WITHOUT_HEAD(substitutes);
ATF_TC_BODY(substitutes, tc)
{
	struct world	w;
	const unsigned char *alpn;
	unsigned int	alen;

	world_init(&w, NULL, HOST, NULL);
	pump(&w, "GET /user HTTP/1.1\r\nHost: api.example.com\r\n"
	    "Authorization: Bearer " PH "\r\nX-Other: " PH "\r\n\r\n");
	ATF_CHECK_EQ_MSG(mitm_state(w.m), MITM_RUNNING, "%s",
	    mitm_error(w.m));
	ATF_CHECK_STREQ("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n"
	    "Bearer " VAL, w.ans);
	ATF_CHECK_EQ(mitm_take_used(w.m), 1);
	ATF_CHECK_EQ(mitm_take_used(w.m), 0);
	ATF_CHECK_EQ(mitm_requests(w.m), 1);
	/* the client was offered HTTP/1.1 alone */
	SSL_get0_alpn_selected(w.c, &alpn, &alen);
	ATF_CHECK(alen == 8 && memcmp(alpn, "http/1.1", 8) == 0);

	/* pipelined, a body carrying the placeholder passes untouched */
	pump(&w, "POST /a HTTP/1.1\r\nHost: api.example.com\r\n"
	    "Content-Length: 41\r\n\r\n" PH "GET /b HTTP/1.1\r\n"
	    "Host: api.example.com\r\nAuthorization: token " PH "\r\n\r\n");
	ATF_CHECK_EQ_MSG(mitm_state(w.m), MITM_RUNNING, "%s",
	    mitm_error(w.m));
	ATF_CHECK_STREQ("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n"
	    "Bearer " VAL "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
	    "HTTP/1.1 200 OK\r\nContent-Length: 19\r\n\r\ntoken " VAL, w.ans);
	ATF_CHECK_EQ(mitm_requests(w.m), 3);
	world_free(&w);
}

/* a request without the placeholder gets nothing added */
ATF_TC_WITHOUT_HEAD(nothing_added);
ATF_TC_BODY(nothing_added, tc)
{
	struct world	w;

	world_init(&w, NULL, HOST, NULL);
	pump(&w, "GET / HTTP/1.1\r\nHost: api.example.com\r\n\r\n");
	ATF_CHECK_STREQ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", w.ans);
	ATF_CHECK_EQ(mitm_take_used(w.m), 0);
	world_free(&w);
}

/* the secret is for the handshake's name: another Host is refused */
ATF_TC_WITHOUT_HEAD(other_host);
ATF_TC_BODY(other_host, tc)
{
	struct world	w;

	world_init(&w, NULL, HOST, NULL);
	pump(&w, "GET / HTTP/1.1\r\nHost: evil.example.net\r\n"
	    "Authorization: Bearer " PH "\r\n\r\n");
	ATF_CHECK_EQ(mitm_state(w.m), MITM_REFUSED);
	ATF_CHECK_STREQ("a request for evil.example.net on a connection to "
	    HOST, mitm_error(w.m));
	ATF_CHECK(strstr(w.got, VAL) == NULL);
	ATF_CHECK_EQ(w.gotlen, 0);
	world_free(&w);
}

/* a server certificate that does not verify: nothing is sent to it */
ATF_TC_WITHOUT_HEAD(upstream_unverified);
ATF_TC_BODY(upstream_unverified, tc)
{
	struct world	w;
	struct ca	*other;

	ATF_REQUIRE((other = ca_new("someone else")) != NULL);
	world_init(&w, NULL, HOST, ca_cert_pem(other));
	pump(&w, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
	    "Authorization: Bearer " PH "\r\n\r\n");
	ATF_CHECK_EQ(mitm_state(w.m), MITM_SERVER_FAILED);
	/* the server sends its CA along: one nobody here trusts */
	ATF_CHECK_STREQ("the certificate of " HOST " does not verify: "
	    "self-signed certificate in certificate chain", mitm_error(w.m));
	ATF_CHECK_EQ(w.gotlen, 0);
	ATF_CHECK_EQ(w.anslen, 0);
	world_free(&w);
	ca_free(other);

	/* a certificate for another name, from the trusted CA */
	world_init(&w, NULL, "other.example.com", NULL);
	pump(&w, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
	    "Authorization: Bearer " PH "\r\n\r\n");
	ATF_CHECK_EQ(mitm_state(w.m), MITM_SERVER_FAILED);
	ATF_CHECK_STREQ("the certificate of " HOST " does not verify: "
	    "hostname mismatch", mitm_error(w.m));
	ATF_CHECK_EQ(w.gotlen, 0);
	world_free(&w);
}

/* a client that trusts only the real CA (it pins): a clean failure */
ATF_TC_WITHOUT_HEAD(pinning_client);
ATF_TC_BODY(pinning_client, tc)
{
	struct world	w;

	world_init(&w, (struct ca *)1, HOST, NULL);
	pump(&w, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
	    "Authorization: Bearer " PH "\r\n\r\n");
	ATF_CHECK(w.cfail);
	ATF_CHECK_EQ(mitm_state(w.m), MITM_CLIENT_FAILED);
	ATF_CHECK_MATCH("^the client refused the gateway's certificate for "
	    HOST " \\(.*unknown ca.*\\): it pins certificates or does not "
	    "trust the container's CA$", mitm_error(w.m));
	ATF_CHECK_EQ(w.gotlen, 0);
	world_free(&w);
}

/* the CA: a CA certificate, its leaves for the name asked, kept */
ATF_TC_WITHOUT_HEAD(ca_leaves);
ATF_TC_BODY(ca_leaves, tc)
{
	struct ca	*ca;
	SSL_CTX		*a, *b;
	X509		*leaf;
	X509_STORE	*st;
	X509_STORE_CTX	*v;

	ATF_REQUIRE((ca = ca_new("c1")) != NULL);
	ATF_CHECK(strncmp(ca_cert_pem(ca), "-----BEGIN CERTIFICATE-----",
	    27) == 0);
	ATF_CHECK_EQ(X509_check_ca(ca_cert(ca)), 1);
	a = ca_server_ctx(ca, "a.example.com");
	b = ca_server_ctx(ca, "a.example.com");
	ATF_CHECK(a != NULL && a == b);
	leaf = SSL_CTX_get0_certificate(a);
	ATF_CHECK_EQ(X509_check_host(leaf, "a.example.com", 0, 0, NULL), 1);
	ATF_CHECK_EQ(X509_check_host(leaf, "b.example.com", 0, 0, NULL), 0);
	ATF_CHECK_EQ(X509_check_ca(leaf), 0);
	st = X509_STORE_new();
	X509_STORE_add_cert(st, ca_cert(ca));
	v = X509_STORE_CTX_new();
	X509_STORE_CTX_init(v, st, leaf, NULL);
	X509_STORE_CTX_set_purpose(v, X509_PURPOSE_SSL_SERVER);
	ATF_CHECK_EQ(X509_verify_cert(v), 1);
	X509_STORE_CTX_free(v);
	X509_STORE_free(st);
	ca_free(ca);
}

/* a trust store with no certificate, or not a file, is refused, named */
ATF_TC_WITHOUT_HEAD(store_refused);
ATF_TC_BODY(store_refused, tc)
{
	char	why[256];
	FILE	*fp;
	int	 fd;

	ATF_REQUIRE((fp = fopen("empty.pem", "w")) != NULL);
	fputs("# no certificate here\n", fp);
	ATF_REQUIRE(fclose(fp) == 0);
	ATF_REQUIRE((fd = open("empty.pem", O_RDONLY)) != -1);
	ATF_CHECK(mitm_upstream_ctx(fd, "empty.pem", why, sizeof(why)) ==
	    NULL);
	ATF_CHECK_STREQ(why, "empty.pem: cannot load the trust store: no "
	    "certificate in it");
	(void)close(fd);

	ATF_REQUIRE((fp = fopen("bad.pem", "w")) != NULL);
	fputs("-----BEGIN CERTIFICATE-----\nnot base64!\n"
	    "-----END CERTIFICATE-----\n", fp);
	ATF_REQUIRE(fclose(fp) == 0);
	ATF_REQUIRE((fd = open("bad.pem", O_RDONLY)) != -1);
	ATF_CHECK(mitm_upstream_ctx(fd, "bad.pem", why, sizeof(why)) == NULL);
	ATF_CHECK_MATCH("^bad.pem: cannot load the trust store: .", why);
	(void)close(fd);

	ATF_REQUIRE((fd = open(".", O_RDONLY | O_DIRECTORY)) != -1);
	ATF_CHECK(mitm_upstream_ctx(fd, "dir", why, sizeof(why)) == NULL);
	ATF_CHECK_STREQ(why, "dir: cannot load the trust store: not a "
	    "regular file");
	(void)close(fd);
}

/* the system default for new contexts: TLS 1.3 at least */
#define CONF_TLS13 \
	"[ssl]\nsystem_default = sys\n[sys]\nMinProtocol = TLSv1.3\n"

static void
write_file(const char *path, const char *text)
{
	FILE	*fp;

	ATF_REQUIRE((fp = fopen(path, "w")) != NULL);
	fputs(text, fp);
	ATF_REQUIRE(fclose(fp) == 0);
}

static int
min_proto(void)
{
	SSL_CTX	*ctx;
	int	 v;

	ATF_REQUIRE((ctx = SSL_CTX_new(TLS_server_method())) != NULL);
	v = (int)SSL_CTX_get_min_proto_version(ctx);
	SSL_CTX_free(ctx);
	return v;
}

/* which configuration text would open files when applied */
ATF_TC_WITHOUT_HEAD(conf_needs_files);
ATF_TC_BODY(conf_needs_files, tc)
{
	static const struct {
		const char	*text;
		int		 needs;
	} t[] = {
		{ "", 0 },
		{ "openssl_conf = openssl_init\n[openssl_init]\n", 0 },
		{ "# .include /etc/ssl/more.cnf\n# providers = p\n", 0 },
		{ "[openssl_init]\n#providers = provider_sect\n", 0 },
		{ "providers_x = 1\nmy_engines = e\n", 0 },
		{ "[provider_sect]\ndefault = default_sect\n", 0 },
		{ ".include /etc/crypto-policies/back-ends/opensslcnf.config\n",
		    1 },
		{ "  .include=/etc/ssl/more.cnf\n", 1 },
		{ "[openssl_init]\nproviders = provider_sect\n", 1 },
		{ "[openssl_init]\n\tProviders\t=p", 1 },
		{ "[openssl_init]\nengines=engine_sect\n", 1 },
	};
	size_t	i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ATF_CHECK_EQ_MSG(tlsconf_needs_files(t[i].text,
		    strlen(t[i].text)), t[i].needs, "%s", t[i].text);
}

/* read at start, applied at first use: the file may be gone by then */
ATF_TC_WITHOUT_HEAD(conf_read_at_start);
ATF_TC_BODY(conf_read_at_start, tc)
{
	write_file("ssl.cnf", "openssl_conf = init\n[init]\nssl_conf = ssl\n"
	    CONF_TLS13);
	ATF_REQUIRE(setenv("OPENSSL_CONF", "ssl.cnf", 1) == 0);
	tlsconf_read();
	ATF_REQUIRE(unlink("ssl.cnf") == 0);
	tlsconf_apply();
	ATF_CHECK_EQ(min_proto(), TLS1_3_VERSION);
}

/* a file that includes another is applied at start, while it can be read */
ATF_TC_WITHOUT_HEAD(conf_include_at_start);
ATF_TC_BODY(conf_include_at_start, tc)
{
	char	cwd[1024], text[1200];

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	write_file("tls13.cnf", CONF_TLS13);
	(void)snprintf(text, sizeof(text), "openssl_conf = init\n"
	    ".include %s/tls13.cnf\n[init]\nssl_conf = ssl\n", cwd);
	write_file("ssl.cnf", text);
	ATF_REQUIRE(setenv("OPENSSL_CONF", "ssl.cnf", 1) == 0);
	tlsconf_read();
	ATF_REQUIRE(unlink("tls13.cnf") == 0 && unlink("ssl.cnf") == 0);
	tlsconf_apply();
	ATF_CHECK_EQ(min_proto(), TLS1_3_VERSION);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, substitutes);
	ATF_TP_ADD_TC(tp, nothing_added);
	ATF_TP_ADD_TC(tp, other_host);
	ATF_TP_ADD_TC(tp, upstream_unverified);
	ATF_TP_ADD_TC(tp, pinning_client);
	ATF_TP_ADD_TC(tp, ca_leaves);
	ATF_TP_ADD_TC(tp, store_refused);
	ATF_TP_ADD_TC(tp, conf_needs_files);
	ATF_TP_ADD_TC(tp, conf_read_at_start);
	ATF_TP_ADD_TC(tp, conf_include_at_start);
	return atf_no_error();
}
