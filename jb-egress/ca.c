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
 * A container's certificate authority and the leaves it issues (ca.h).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "ca.h"
#include "tlsconf.h"

#define CA_DAYS		365
#define LEAF_DAYS	30
#define LEAVES_MAX	64	/* server names per container */
#define NAME_MAX_LEN	253

struct leaf {
	char	 name[NAME_MAX_LEN + 1];
	SSL_CTX	*ctx;
};

struct ca {
	EVP_PKEY	*key;		/* the CA's, never written out */
	EVP_PKEY	*leafkey;	/* every leaf's */
	X509		*cert;
	char		*pem;
	struct leaf	 leaves[LEAVES_MAX];
	size_t		 nleaves;
};

static EVP_PKEY *
ec_key(void)
{
	return EVP_EC_gen("P-256");
}

static int
serial(X509 *x)
{
	BIGNUM	*bn;
	int	 rc = -1;

	if ((bn = BN_new()) == NULL)
		return -1;
	if (BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
	    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL)
		rc = 0;
	BN_free(bn);
	return rc;
}

static int
ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX	 v;
	X509_EXTENSION	*e;
	int		 rc;

	X509V3_set_ctx_nodb(&v);
	X509V3_set_ctx(&v, issuer, x, NULL, NULL, 0);
	if ((e = X509V3_EXT_conf_nid(NULL, &v, nid, value)) == NULL)
		return -1;
	rc = X509_add_ext(x, e, -1) == 1 ? 0 : -1;
	X509_EXTENSION_free(e);
	return rc;
}

static X509 *
cert_new(EVP_PKEY *pub, const char *cn, int days)
{
	X509		*x;
	X509_NAME	*n;

	if ((x = X509_new()) == NULL)
		return NULL;
	n = X509_get_subject_name(x);
	if (X509_set_version(x, 2) != 1 || serial(x) == -1 ||
	    X509_gmtime_adj(X509_getm_notBefore(x), -86400) == NULL ||
	    X509_gmtime_adj(X509_getm_notAfter(x), (long)days * 86400) ==
	    NULL || X509_set_pubkey(x, pub) != 1 ||
	    X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC,
	    (const unsigned char *)"JailBee egress", -1, -1, 0) != 1 ||
	    X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
	    (const unsigned char *)cn, -1, -1, 0) != 1) {
		X509_free(x);
		return NULL;
	}
	return x;
}

struct ca *
ca_new(const char *ctr)
{
	struct ca	*ca;
	BIO		*b = NULL;
	char		 cn[64 + 32];
	char		*p;
	long		 len;

	tlsconf_apply();
	if ((ca = calloc(1, sizeof(*ca))) == NULL)
		return NULL;
	(void)snprintf(cn, sizeof(cn), "JailBee egress CA for %.60s", ctr);
	if ((ca->key = ec_key()) == NULL || (ca->leafkey = ec_key()) == NULL ||
	    (ca->cert = cert_new(ca->key, cn, CA_DAYS)) == NULL ||
	    X509_set_issuer_name(ca->cert,
	    X509_get_subject_name(ca->cert)) != 1 ||
	    ext(ca->cert, ca->cert, NID_basic_constraints,
	    "critical,CA:TRUE,pathlen:0") == -1 ||
	    ext(ca->cert, ca->cert, NID_key_usage,
	    "critical,keyCertSign,cRLSign") == -1 ||
	    ext(ca->cert, ca->cert, NID_subject_key_identifier, "hash") == -1 ||
	    X509_sign(ca->cert, ca->key, EVP_sha256()) == 0 ||
	    (b = BIO_new(BIO_s_mem())) == NULL ||
	    PEM_write_bio_X509(b, ca->cert) != 1 ||
	    (len = BIO_get_mem_data(b, &p)) <= 0 ||
	    (ca->pem = strndup(p, (size_t)len)) == NULL) {
		BIO_free(b);
		ca_free(ca);
		return NULL;
	}
	BIO_free(b);
	return ca;
}

void
ca_free(struct ca *ca)
{
	size_t	i;

	if (ca == NULL)
		return;
	for (i = 0; i < ca->nleaves; i++)
		SSL_CTX_free(ca->leaves[i].ctx);
	EVP_PKEY_free(ca->key);
	EVP_PKEY_free(ca->leafkey);
	X509_free(ca->cert);
	free(ca->pem);
	free(ca);
}

const char *
ca_cert_pem(const struct ca *ca)
{
	return ca->pem;
}

X509 *
ca_cert(const struct ca *ca)
{
	return ca->cert;
}

/* HTTP/1.1 or nothing: the gateway reads HTTP/1.x alone */
static int
alpn_select(SSL *s, const unsigned char **out, unsigned char *outlen,
    const unsigned char *in, unsigned int inlen, void *arg)
{
	unsigned int	i;

	for (i = 0; i < inlen; i += 1 + in[i])
		if (in[i] == 8 && i + 9 <= inlen &&
		    memcmp(in + i + 1, "http/1.1", 8) == 0) {
			*out = in + i + 1;
			*outlen = 8;
			return SSL_TLSEXT_ERR_OK;
		}
	return SSL_TLSEXT_ERR_NOACK;
}

static X509 *
leaf_new(struct ca *ca, const char *name)
{
	X509	*x;
	char	 san[NAME_MAX_LEN + 8];

	(void)snprintf(san, sizeof(san), "DNS:%s", name);
	if ((x = cert_new(ca->leafkey, name, LEAF_DAYS)) == NULL)
		return NULL;
	if (X509_set_issuer_name(x, X509_get_subject_name(ca->cert)) != 1 ||
	    ext(x, ca->cert, NID_basic_constraints, "critical,CA:FALSE") ==
	    -1 || ext(x, ca->cert, NID_key_usage,
	    "critical,digitalSignature") == -1 ||
	    ext(x, ca->cert, NID_ext_key_usage, "serverAuth") == -1 ||
	    ext(x, ca->cert, NID_subject_alt_name, san) == -1 ||
	    ext(x, ca->cert, NID_authority_key_identifier, "keyid:always") ==
	    -1 || X509_sign(x, ca->key, EVP_sha256()) == 0) {
		X509_free(x);
		return NULL;
	}
	return x;
}

SSL_CTX *
ca_server_ctx(struct ca *ca, const char *name)
{
	SSL_CTX	*ctx;
	X509	*x;
	size_t	 i;

	if (strlen(name) > NAME_MAX_LEN)
		return NULL;
	for (i = 0; i < ca->nleaves; i++)
		if (strcmp(ca->leaves[i].name, name) == 0)
			return ca->leaves[i].ctx;
	if ((x = leaf_new(ca, name)) == NULL)
		return NULL;
	if ((ctx = SSL_CTX_new(TLS_server_method())) == NULL ||
	    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
	    SSL_CTX_use_certificate(ctx, x) != 1 ||
	    SSL_CTX_use_PrivateKey(ctx, ca->leafkey) != 1 ||
	    SSL_CTX_add1_chain_cert(ctx, ca->cert) != 1) {
		SSL_CTX_free(ctx);
		X509_free(x);
		return NULL;
	}
	X509_free(x);
	SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	(void)SSL_CTX_set_num_tickets(ctx, 0);
	if (ca->nleaves == LEAVES_MAX) {
		/* the oldest name makes room */
		SSL_CTX_free(ca->leaves[0].ctx);
		memmove(&ca->leaves[0], &ca->leaves[1],
		    (LEAVES_MAX - 1) * sizeof(ca->leaves[0]));
		ca->nleaves--;
	}
	(void)strlcpy(ca->leaves[ca->nleaves].name, name,
	    sizeof(ca->leaves[0].name));
	ca->leaves[ca->nleaves++].ctx = ctx;
	return ctx;
}
