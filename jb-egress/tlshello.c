/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdlib.h>
#include <string.h>

#include "tlshello.h"

#define REC_HANDSHAKE	0x16
#define HS_CLIENTHELLO	0x01
#define EXT_SERVER_NAME	0x0000
#define EXT_ECH		0xfe0d
#define EXT_ESNI	0xffce
#define EXTS_MAX	128	/* distinct extensions remembered */

struct rd {
	const uint8_t	*p;
	size_t		 left;
};

static int
get8(struct rd *r, unsigned int *v)
{
	if (r->left < 1)
		return -1;
	*v = r->p[0];
	r->p++;
	r->left--;
	return 0;
}

static int
get16(struct rd *r, unsigned int *v)
{
	if (r->left < 2)
		return -1;
	*v = (unsigned int)r->p[0] << 8 | r->p[1];
	r->p += 2;
	r->left -= 2;
	return 0;
}

/* a sub-reader of n bytes, taken off r */
static int
sub(struct rd *r, size_t n, struct rd *s)
{
	if (r->left < n)
		return -1;
	s->p = r->p;
	s->left = n;
	r->p += n;
	r->left -= n;
	return 0;
}

/* a vector with a length of lenbytes (1 or 2) in front */
static int
vec(struct rd *r, int lenbytes, struct rd *s)
{
	unsigned int	n;

	if ((lenbytes == 1 ? get8(r, &n) : get16(r, &n)) == -1)
		return -1;
	return sub(r, n, s);
}

/* server_name's list: exactly one host_name */
static enum tlshello_rc
server_name(struct rd *ext, char *name, size_t namelen)
{
	struct rd	list, host;
	unsigned int	type;
	size_t		i, n, lab;

	if (vec(ext, 2, &list) == -1 || ext->left != 0 || list.left == 0)
		return TLSHELLO_BAD;
	if (get8(&list, &type) == -1 || type != 0 ||
	    vec(&list, 2, &host) == -1 || list.left != 0)
		return TLSHELLO_BAD;
	n = host.left;
	if (n > 0 && host.p[n - 1] == '.')
		n--;
	if (n == 0 || n > TLSHELLO_NAME_MAX || n + 1 > namelen)
		return TLSHELLO_BAD;
	for (i = 0; i < n; i++) {
		uint8_t	c = host.p[i];

		if (c >= 'A' && c <= 'Z')
			c = (uint8_t)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.'))
			return TLSHELLO_BAD;
		name[i] = (char)c;
	}
	name[n] = '\0';
	/* labels of 1 to 63 bytes: no empty one, at either end or within */
	for (i = 0, lab = 0; i <= n; i++) {
		if (i == n || name[i] == '.') {
			if (lab == 0 || lab > 63) {
				name[0] = '\0';
				return TLSHELLO_BAD;
			}
			lab = 0;
		} else
			lab++;
	}
	return TLSHELLO_NAME;
}

/* the body of a complete ClientHello */
static enum tlshello_rc
hello(const uint8_t *p, size_t len, char *name, size_t namelen)
{
	struct rd	 r = { p, len }, v, exts, ext;
	unsigned int	 x, type, seen[EXTS_MAX];
	size_t		 nseen = 0, i;
	enum tlshello_rc rc = TLSHELLO_NONAME;
	int		 ech = 0;

	/* legacy_version 3.x, random */
	if (get8(&r, &x) == -1 || x != 3 || get8(&r, &x) == -1 ||
	    sub(&r, 32, &v) == -1)
		return TLSHELLO_BAD;
	/* legacy_session_id, cipher_suites, legacy_compression_methods */
	if (vec(&r, 1, &v) == -1 || v.left > 32 ||
	    vec(&r, 2, &v) == -1 || v.left < 2 || v.left % 2 != 0 ||
	    vec(&r, 1, &v) == -1 || v.left < 1)
		return TLSHELLO_BAD;
	if (r.left == 0)
		return TLSHELLO_NONAME;
	if (vec(&r, 2, &exts) == -1 || r.left != 0)
		return TLSHELLO_BAD;
	while (exts.left > 0) {
		if (get16(&exts, &type) == -1 || vec(&exts, 2, &ext) == -1)
			return TLSHELLO_BAD;
		for (i = 0; i < nseen; i++)
			if (seen[i] == type)
				return TLSHELLO_BAD;
		if (nseen == EXTS_MAX)
			return TLSHELLO_BAD;
		seen[nseen++] = type;
		if (type == EXT_ECH || type == EXT_ESNI)
			ech = 1;
		else if (type == EXT_SERVER_NAME &&
		    (rc = server_name(&ext, name, namelen)) == TLSHELLO_BAD)
			return TLSHELLO_BAD;
	}
	if (ech) {
		name[0] = '\0';
		return TLSHELLO_ECH;
	}
	return rc;
}

enum tlshello_rc
tlshello_parse(const uint8_t *buf, size_t len, char *name, size_t namelen,
    size_t *used)
{
	uint8_t			*hs = NULL;
	size_t			 off = 0, have = 0, want = 0, frag;
	enum tlshello_rc	 rc = TLSHELLO_MORE;

	if (namelen > 0)
		name[0] = '\0';
	if (used != NULL)
		*used = 0;
	if (namelen < TLSHELLO_NAME_MAX + 1)
		return TLSHELLO_BAD;
	for (;;) {
		/* the record header as far as it came */
		if (len - off >= 1 && buf[off] != REC_HANDSHAKE)
			rc = TLSHELLO_BAD;
		else if (len - off >= 2 && buf[off + 1] != 3)
			rc = TLSHELLO_BAD;
		else if (len - off >= 3 && buf[off + 2] > 4)
			rc = TLSHELLO_BAD;
		if (rc != TLSHELLO_MORE || len - off < 5)
			break;
		frag = (size_t)buf[off + 3] << 8 | buf[off + 4];
		if (frag == 0 || frag > TLSHELLO_RECORD_MAX) {
			rc = TLSHELLO_BAD;
			break;
		}
		if (len - off - 5 < frag) {
			/* what came of the first fragment may already tell */
			if (have == 0 && len - off - 5 >= 1 &&
			    buf[off + 5] != HS_CLIENTHELLO)
				rc = TLSHELLO_BAD;
			break;
		}
		if (hs == NULL) {
			/* the handshake header in the first record */
			if (frag < 4 || buf[off + 5] != HS_CLIENTHELLO) {
				rc = TLSHELLO_BAD;
				break;
			}
			want = (size_t)buf[off + 6] << 16 |
			    (size_t)buf[off + 7] << 8 | buf[off + 8];
			if (want > TLSHELLO_MAX) {
				rc = TLSHELLO_TOOBIG;
				break;
			}
			want += 4;
			if ((hs = malloc(want)) == NULL) {
				rc = TLSHELLO_BAD;
				break;
			}
		}
		/* a record past the ClientHello's end belongs to the next */
		if (frag > want - have)
			frag = want - have;
		memcpy(hs + have, buf + off + 5, frag);
		have += frag;
		off += 5 + ((size_t)buf[off + 3] << 8 | buf[off + 4]);
		if (have == want) {
			rc = hello(hs + 4, want - 4, name, namelen);
			if (used != NULL)
				*used = off;
			break;
		}
	}
	free(hs);
	/* a name read from a ClientHello refused later is no name */
	if (rc != TLSHELLO_NAME)
		name[0] = '\0';
	return rc;
}

const char *
tlshello_str(enum tlshello_rc rc)
{
	switch (rc) {
	case TLSHELLO_MORE:
		return "incomplete ClientHello";
	case TLSHELLO_NAME:
		return "server name";
	case TLSHELLO_NONAME:
		return "ClientHello without a server name (SNI)";
	case TLSHELLO_ECH:
		return "ClientHello with Encrypted Client Hello";
	case TLSHELLO_BAD:
		return "not a TLS ClientHello";
	case TLSHELLO_TOOBIG:
		return "ClientHello too long";
	}
	return "?";
}
