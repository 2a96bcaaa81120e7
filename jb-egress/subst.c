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
 * Placeholders replaced by values in a request head (subst.h).
 */

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "subst.h"

struct out {
	char	*p;
	size_t	 len;
	size_t	 size;
	int	 over;
};

static void
put(struct out *o, const void *p, size_t len)
{
	if (o->over || len > o->size - o->len) {
		o->over = 1;
		return;
	}
	memcpy(o->p + o->len, p, len);
	o->len += len;
}

int
subst_value_ok(const char *v, size_t len)
{
	size_t	i;

	if (len == 0 || len > SUBST_VALUE_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			return 0;
	return 1;
}

size_t
subst_value_trim(const char *v, size_t len)
{
	if (len > 0 && v[len - 1] == '\n')
		len--;
	if (len > 0 && v[len - 1] == '\r')
		len--;
	return len;
}

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

long
subst_b64_encode(const unsigned char *in, size_t len, char *out,
    size_t outsize)
{
	size_t		i, o = 0;
	uint32_t	v;

	if (len > (outsize / 4) * 3 || (len + 2) / 3 * 4 > outsize)
		return -1;
	for (i = 0; i + 2 < len; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = b64[v >> 18];
		out[o++] = b64[(v >> 12) & 63];
		out[o++] = b64[(v >> 6) & 63];
		out[o++] = b64[v & 63];
	}
	if (len - i == 1) {
		v = (uint32_t)in[i] << 16;
		out[o++] = b64[v >> 18];
		out[o++] = b64[(v >> 12) & 63];
		out[o++] = '=';
		out[o++] = '=';
	} else if (len - i == 2) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		out[o++] = b64[v >> 18];
		out[o++] = b64[(v >> 12) & 63];
		out[o++] = b64[(v >> 6) & 63];
		out[o++] = '=';
	}
	return (long)o;
}

static int
b64_val(char c)
{
	const char	*p;

	if (c == '\0' || (p = strchr(b64, c)) == NULL)
		return -1;
	return (int)(p - b64);
}

long
subst_b64_decode(const char *in, size_t len, unsigned char *out,
    size_t outsize)
{
	size_t		i, o = 0, pad = 0;
	uint32_t	v;
	int		d, j;

	if (len == 0 || len % 4 != 0)
		return -1;
	if (in[len - 1] == '=')
		pad++;
	if (in[len - 2] == '=')
		pad++;
	if (len / 4 * 3 - pad > outsize)
		return -1;
	for (i = 0; i < len; i += 4) {
		v = 0;
		for (j = 0; j < 4; j++) {
			if (in[i + j] == '=' && i + 4 == len &&
			    (size_t)j >= 4 - pad) {
				d = 0;
			} else if ((d = b64_val(in[i + j])) == -1)
				return -1;
			v = v << 6 | (uint32_t)d;
		}
		out[o++] = (unsigned char)(v >> 16);
		if (i + 4 < len || pad < 2)
			out[o++] = (unsigned char)(v >> 8);
		if (i + 4 < len || pad < 1)
			out[o++] = (unsigned char)v;
	}
	return (long)o;
}

/* every placeholder of the secrets in mask replaced in in[0..len) */
static int
replace(const char *in, size_t len, const struct subst_secret *s,
    size_t n, uint32_t mask, struct out *o, uint32_t *used)
{
	size_t	i, j, pl;
	int	hits = 0;

	for (i = 0; i < len; ) {
		for (j = 0; j < n; j++) {
			if (!(mask & (1U << j)))
				continue;
			pl = strlen(s[j].placeholder);
			if (pl > 0 && pl <= len - i &&
			    memcmp(in + i, s[j].placeholder, pl) == 0)
				break;
		}
		if (j == n) {
			put(o, in + i, 1);
			i++;
			continue;
		}
		put(o, s[j].value, strlen(s[j].value));
		*used |= 1U << j;
		hits++;
		i += strlen(s[j].placeholder);
	}
	return hits;
}

static int
ows(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * "Basic TOKEN" in v[0..len) (OWS around it kept): the pair decoded,
 * replaced and re-encoded.  0 when v is no Basic pair or holds no
 * placeholder (the caller then replaces as text), 1 when put, -1 when
 * out of memory.
 */
static int
basic(const char *v, size_t len, const struct subst_secret *s, size_t n,
    uint32_t mask, struct out *o, uint32_t *used)
{
	struct out	 pair;
	unsigned char	*dec = NULL;
	char		*enc = NULL;
	size_t		 a = 0, b = len, declen;
	long		 l;
	uint32_t	 u = 0;
	int		 rc = 0;

	while (a < b && ows(v[a]))
		a++;
	while (b > a && ows(v[b - 1]))
		b--;
	if (b - a < 7 || strncasecmp(v + a, "Basic", 5) != 0 ||
	    v[a + 5] != ' ')
		return 0;
	declen = (b - a - 6) / 4 * 3 + 3;
	memset(&pair, 0, sizeof(pair));
	pair.size = SUBST_HEAD_MAX;
	if ((dec = malloc(declen)) == NULL ||
	    (pair.p = malloc(pair.size)) == NULL ||
	    (enc = malloc(SUBST_HEAD_MAX)) == NULL) {
		rc = -1;
		goto out;
	}
	if ((l = subst_b64_decode(v + a + 6, b - a - 6, dec, declen)) == -1)
		goto out;
	if (replace((char *)dec, (size_t)l, s, n, mask, &pair, &u) == 0 ||
	    pair.over)
		goto out;
	if ((l = subst_b64_encode((unsigned char *)pair.p, pair.len, enc,
	    SUBST_HEAD_MAX)) == -1)
		goto out;
	put(o, v, a + 6);		/* OWS, the scheme as sent, one space */
	put(o, enc, (size_t)l);
	put(o, v + b, len - b);
	*used |= u;
	rc = 1;
 out:
	if (dec != NULL)
		explicit_bzero(dec, declen);
	if (pair.p != NULL)
		explicit_bzero(pair.p, pair.size);
	free(dec);
	free(pair.p);
	free(enc);
	return rc;
}

long
subst_head(const char *in, size_t inlen, const struct subst_secret *s,
    size_t n, char *out, size_t outsize, uint32_t *used)
{
	struct out	 o = { out, 0, outsize, 0 };
	const char	*line, *eol, *colon;
	size_t		 i, nl, vl;
	uint32_t	 mask;
	int		 first = 1, rc;

	*used = 0;
	if (n > SUBST_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (!subst_value_ok(s[i].value, strlen(s[i].value)))
			return -1;
	for (line = in; ; line = eol + 2) {
		eol = memchr(line, '\r', inlen - (size_t)(line - in));
		if (eol == NULL || (size_t)(eol - in) + 1 >= inlen ||
		    eol[1] != '\n')
			goto fail;
		if (eol == line) {		/* the empty line: the end */
			if ((size_t)(eol + 2 - in) != inlen || first)
				goto fail;
			put(&o, "\r\n", 2);
			break;
		}
		if (first) {			/* the request line */
			first = 0;
			put(&o, line, (size_t)(eol + 2 - line));
			continue;
		}
		if ((colon = memchr(line, ':', (size_t)(eol - line))) == NULL)
			goto fail;
		nl = (size_t)(colon - line);
		mask = 0;
		for (i = 0; i < n; i++)
			if (s[i].header == NULL || s[i].header[0] == '\0' ||
			    (strlen(s[i].header) == nl &&
			    strncasecmp(s[i].header, line, nl) == 0))
				mask |= 1U << i;
		put(&o, line, nl + 1);
		vl = (size_t)(eol - colon - 1);
		rc = 0;
		if (mask != 0 && nl == 13 &&
		    strncasecmp(line, "Authorization", 13) == 0 &&
		    (rc = basic(colon + 1, vl, s, n, mask, &o, used)) == -1)
			goto fail;
		if (rc == 0)
			(void)replace(colon + 1, vl, s, n, mask, &o, used);
		put(&o, "\r\n", 2);
	}
	if (!o.over)
		return (long)o.len;
 fail:
	/* nothing of a refused head is left behind, values least of all */
	explicit_bzero(out, o.len < outsize ? o.len : outsize);
	*used = 0;
	return -1;
}
