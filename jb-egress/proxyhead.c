/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "proxyhead.h"

/* the request line's target: [*t, *t + *tlen), and where the line ends */
static int
target(const char *head, size_t len, const char **t, size_t *tlen,
    const char **eol)
{
	const char	*sp1, *sp2;

	if ((*eol = memchr(head, '\r', len)) == NULL ||
	    (size_t)(*eol - head) + 1 >= len || (*eol)[1] != '\n')
		return -1;
	if ((sp1 = memchr(head, ' ', (size_t)(*eol - head))) == NULL ||
	    (sp2 = memchr(sp1 + 1, ' ', (size_t)(*eol - sp1 - 1))) == NULL)
		return -1;
	*t = sp1 + 1;
	*tlen = (size_t)(sp2 - *t);
	return 0;
}

/* digits after a ':' in [a, e): the port, 0 none or bad */
static uint16_t
port_of(const char *a, const char *e)
{
	const char	*c;
	uint32_t	 v = 0;

	/* an IPv6 literal's colons are not a port's */
	if (a < e && *a == '[')
		return 0;
	if ((c = memchr(a, ':', (size_t)(e - a))) == NULL)
		return 0;
	if (++c == e || e - c > 5)
		return 0;
	for (; c < e; c++) {
		if (*c < '0' || *c > '9')
			return 0;
		v = v * 10 + (uint32_t)(*c - '0');
	}
	return v >= 1 && v <= 65535 ? (uint16_t)v : 0;
}

/* the authority of an http:// target: [*a, *ae) */
static int
authority(const char *t, size_t tlen, const char **a, const char **ae)
{
	if (tlen < 7 || strncasecmp(t, "http://", 7) != 0)
		return -1;
	*a = *ae = t + 7;
	while (*ae < t + tlen && **ae != '/' && **ae != '?' && **ae != '#')
		(*ae)++;
	return *a == *ae ? -1 : 0;
}

/* the Host header's port, 0 when none */
static uint16_t
host_port(const char *head, size_t len, const char *from)
{
	const char	*p, *eol, *v, *ve, *end = head + len;

	for (p = from; p < end; p = eol + 2) {
		if ((eol = memchr(p, '\r', (size_t)(end - p))) == NULL ||
		    eol == p)
			return 0;
		if (eol - p > 5 && strncasecmp(p, "host:", 5) == 0) {
			v = p + 5;
			ve = eol;
			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			return port_of(v, ve);
		}
	}
	return 0;
}

uint16_t
proxyhead_port(const char *head, size_t len)
{
	const char	*t, *eol, *a, *ae;
	size_t		 tlen;
	uint16_t	 p;

	if (target(head, len, &t, &tlen, &eol) == -1)
		return 0;
	if (len >= 8 && memcmp(head, "CONNECT ", 8) == 0)
		return port_of(t, t + tlen);
	if (authority(t, tlen, &a, &ae) == -1)
		return 0;
	if ((p = port_of(a, ae)) != 0)
		return p;
	if ((p = host_port(head, len, eol + 2)) != 0)
		return p;
	return 80;
}

/* a header line the origin server does not get from the proxy */
static int
hop(const char *p, size_t n)
{
	static const char *const	names[] = { "connection:",
	    "proxy-connection:", "keep-alive:", "proxy-authorization:" };
	size_t				i, l;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		l = strlen(names[i]);
		if (n >= l && strncasecmp(p, names[i], l) == 0)
			return 1;
	}
	return 0;
}

#define PUT(s, n) do {							\
	if ((size_t)(n) > outlen - o)					\
		return -1;						\
	memcpy(out + o, (s), (size_t)(n));				\
	o += (size_t)(n);						\
} while (0)

long
proxyhead_origin(const char *head, size_t len, char *out, size_t outlen)
{
	static const char	 close[] = "Connection: close\r\n\r\n";
	const char		*t, *eol, *a, *ae, *path, *pe, *p, *end;
	size_t			 tlen, o = 0;

	if (len < 4 || memcmp(head + len - 4, "\r\n\r\n", 4) != 0 ||
	    target(head, len, &t, &tlen, &eol) == -1 ||
	    authority(t, tlen, &a, &ae) == -1)
		return -1;
	/* the method and its space */
	PUT(head, t - head);
	path = ae;
	pe = t + tlen;
	if ((p = memchr(path, '#', (size_t)(pe - path))) != NULL)
		pe = p;
	if (path == pe || *path != '/')
		PUT("/", 1);
	PUT(path, pe - path);
	/* " HTTP/1.x\r\n" */
	PUT(t + tlen, eol + 2 - (t + tlen));
	end = head + len - 2;	/* the empty line's CRLF */
	for (p = eol + 2; p < end; p = eol + 2) {
		if ((eol = memchr(p, '\r', (size_t)(end - p))) == NULL)
			return -1;
		if (!hop(p, (size_t)(eol - p)))
			PUT(p, eol + 2 - p);
	}
	PUT(close, sizeof(close) - 1);
	return (long)o;
}
