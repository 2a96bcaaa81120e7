/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "httphead.h"

#define CHUNKLINE_MAX	4096

static int
tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static int
refuse(char *why, size_t whylen, const char *what)
{
	(void)snprintf(why, whylen, "%s", what);
	return -1;
}

/*
 * "name[:port]" of n bytes into h->host and *port (0: none).  -1 when it
 * is not a DNS name (an IP literal in brackets, userinfo, junk).
 */
static int
authority(const char *s, size_t n, char *host, size_t hostlen,
    uint16_t *port)
{
	size_t		i, hn = n;
	unsigned long	p = 0;

	*port = 0;
	for (i = 0; i < n; i++)
		if (s[i] == ':') {
			hn = i;
			break;
		}
	if (hn < n) {
		if (hn + 1 == n || n - hn - 1 > 5)
			return -1;
		for (i = hn + 1; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return -1;
			p = p * 10 + (unsigned long)(s[i] - '0');
		}
		if (p == 0 || p > 65535)
			return -1;
		*port = (uint16_t)p;
	}
	if (hn > 0 && s[hn - 1] == '.')
		hn--;
	if (hn == 0 || hn > HTTPHEAD_NAME_MAX || hn + 1 > hostlen)
		return -1;
	for (i = 0; i < hn; i++) {
		char	c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.'))
			return -1;
		host[i] = c;
	}
	host[hn] = '\0';
	return 0;
}

/* OWS-trimmed value of a header line [p, e) after its colon */
static void
trim(const char **p, const char **e)
{
	while (*p < *e && (**p == ' ' || **p == '\t'))
		(*p)++;
	while (*e > *p && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

int
httphead_parse(const char *buf, size_t len, int flags, struct httphead *h,
    char *why, size_t whylen)
{
	const char	*end = NULL, *p, *eol, *sp1, *sp2, *v, *ve;
	char		 thost[HTTPHEAD_NAME_MAX + 1];
	uint16_t	 tport = 0;
	size_t		 i, n, lim;
	int		 nhost = 0, nlen = 0, nte = 0;

	memset(h, 0, sizeof(*h));
	if (why != NULL && whylen > 0)
		why[0] = '\0';
	/* every CR must begin a CRLF, every LF end one; find the blank line */
	lim = len < HTTPHEAD_MAX ? len : HTTPHEAD_MAX;
	for (i = 0; i < lim; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\r') {
			if (i + 1 < lim && buf[i + 1] != '\n')
				return refuse(why, whylen, "a CR without LF");
		} else if (c == '\n') {
			if (i == 0 || buf[i - 1] != '\r')
				return refuse(why, whylen, "a bare LF");
			if (i >= 3 && buf[i - 2] == '\n') {
				end = buf + i + 1;
				break;
			}
			if (i == 1)
				return refuse(why, whylen, "an empty line "
				    "before the request");
		} else if ((c < ' ' && c != '\t') || c == 0x7f)
			return refuse(why, whylen, "a control character");
	}
	if (end == NULL) {
		if (len >= HTTPHEAD_MAX)
			return refuse(why, whylen, "a request head over "
			    "16 KiB");
		return 0;
	}
	h->headlen = (size_t)(end - buf);

	/* request line: method SP target SP version */
	eol = memchr(buf, '\r', h->headlen);
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (sp1 == NULL || sp1 == buf || (size_t)(sp1 - buf) >=
	    sizeof(h->method))
		return refuse(why, whylen, "not an HTTP request line");
	for (p = buf; p < sp1; p++)
		if (!tchar((unsigned char)*p))
			return refuse(why, whylen, "not an HTTP method");
	memcpy(h->method, buf, (size_t)(sp1 - buf));
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (sp2 == NULL || sp2 == sp1 + 1 || eol - sp2 - 1 != 8 ||
	    (memcmp(sp2 + 1, "HTTP/1.1", 8) != 0 &&
	    memcmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return refuse(why, whylen, "not an HTTP/1.0 or 1.1 request "
		    "line");
	for (p = sp1 + 1; p < sp2; p++)
		if (*p == ' ' || *p == '\t')
			return refuse(why, whylen, "a space in the target");
	n = (size_t)(sp2 - sp1 - 1);
	if (strcmp(h->method, "CONNECT") == 0) {
		if (!(flags & HTTPHEAD_CONNECT_OK))
			return refuse(why, whylen, "CONNECT is for the proxy "
			    "port");
		if (authority(sp1 + 1, n, thost, sizeof(thost), &tport) == -1
		    || tport == 0)
			return refuse(why, whylen, "CONNECT needs a host name "
			    "and port");
		h->connect = 1;
	} else if (n >= 7 && strncasecmp(sp1 + 1, "http://", 7) == 0) {
		const char	*a = sp1 + 8, *ae = a;

		while (ae < sp2 && *ae != '/' && *ae != '?' && *ae != '#')
			ae++;
		if (authority(a, (size_t)(ae - a), thost, sizeof(thost),
		    &tport) == -1)
			return refuse(why, whylen, "the target's host is not "
			    "a name");
		h->absolute = 1;
	} else if (sp1[1] != '/' && !(n == 1 && sp1[1] == '*'))
		return refuse(why, whylen, "a target that is neither a path "
		    "nor an http:// URI");

	/* header lines */
	for (p = eol + 2; p < end - 2; p = eol + 2) {
		const char	*colon;

		eol = memchr(p, '\r', (size_t)(end - p));
		if (*p == ' ' || *p == '\t')
			return refuse(why, whylen, "a folded header line");
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon == NULL || colon == p)
			return refuse(why, whylen, "a header line without a "
			    "name");
		for (v = p; v < colon; v++)
			if (!tchar((unsigned char)*v))
				return refuse(why, whylen, "a bad header "
				    "name");
		v = colon + 1;
		ve = eol;
		trim(&v, &ve);
		n = (size_t)(colon - p);
		if (n == 4 && strncasecmp(p, "host", 4) == 0) {
			if (nhost++ > 0)
				return refuse(why, whylen, "two Host headers");
			if (authority(v, (size_t)(ve - v), h->host,
			    sizeof(h->host), &h->port) == -1)
				return refuse(why, whylen, "a Host that is not "
				    "a DNS name");
		} else if (n == 14 && strncasecmp(p, "content-length", 14)
		    == 0) {
			if (nlen++ > 0 || v == ve || ve - v > 18)
				return refuse(why, whylen, "a bad "
				    "Content-Length");
			for (; v < ve; v++) {
				if (*v < '0' || *v > '9')
					return refuse(why, whylen, "a bad "
					    "Content-Length");
				h->length = h->length * 10 +
				    (uint64_t)(*v - '0');
			}
		} else if (n == 17 && strncasecmp(p, "transfer-encoding", 17)
		    == 0) {
			if (nte++ > 0 || ve - v != 7 ||
			    strncasecmp(v, "chunked", 7) != 0)
				return refuse(why, whylen, "a transfer coding "
				    "other than chunked");
			h->chunked = 1;
		} else if (n == 7 && strncasecmp(p, "upgrade", 7) == 0)
			return refuse(why, whylen, "a protocol upgrade");
	}
	if (nhost == 0) {
		if (!h->connect && !h->absolute)
			return refuse(why, whylen, "no Host header");
		(void)memcpy(h->host, thost, sizeof(h->host));
		h->port = tport;
	} else if ((h->connect || h->absolute) &&
	    (strcmp(thost, h->host) != 0 || (tport != h->port &&
	    tport != 0 && h->port != 0)))
		return refuse(why, whylen, "the target and Host name "
		    "different hosts");
	if (nlen > 0 && nte > 0)
		return refuse(why, whylen, "both Content-Length and "
		    "Transfer-Encoding");
	if (h->connect && (nlen > 0 || nte > 0))
		return refuse(why, whylen, "CONNECT with a body");
	return 1;
}

enum { CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF,
    CH_TRAILER, CH_TRAILER_LF, CH_DONE };

void
httpchunk_init(struct httpchunk *c)
{
	memset(c, 0, sizeof(*c));
	c->state = CH_SIZE;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long
httpchunk_feed(struct httpchunk *c, const char *buf, size_t len)
{
	size_t	i = 0, take;
	int	x;

	if (len > (size_t)0x7fffffff)
		len = 0x7fffffff;
	while (i < len && c->state != CH_DONE) {
		char	ch = buf[i];

		switch (c->state) {
		case CH_SIZE:
			if ((x = hexval(ch)) >= 0) {
				if (c->digits++ >= 15)
					return -1;
				c->left = c->left << 4 | (uint64_t)x;
			} else if (c->digits == 0)
				return -1;
			else if (ch == ';' || ch == ' ' || ch == '\t')
				c->state = CH_EXT;
			else if (ch == '\r')
				c->state = CH_SIZE_LF;
			else
				return -1;
			c->linelen++;
			i++;
			break;
		case CH_EXT:
			if (ch == '\r')
				c->state = CH_SIZE_LF;
			else if (ch == '\n' || (unsigned char)ch < ' ' ||
			    ch == 0x7f)
				if (ch != '\t')
					return -1;
			if (++c->linelen > CHUNKLINE_MAX)
				return -1;
			i++;
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				return -1;
			i++;
			c->digits = 0;
			c->linelen = 0;
			c->state = c->left == 0 ? CH_TRAILER : CH_DATA;
			break;
		case CH_DATA:
			take = len - i;
			if (take > c->left)
				take = (size_t)c->left;
			c->left -= take;
			i += take;
			if (c->left == 0)
				c->state = CH_DATA_CR;
			break;
		case CH_DATA_CR:
			if (ch != '\r')
				return -1;
			c->state = CH_DATA_LF;
			i++;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				return -1;
			c->state = CH_SIZE;
			i++;
			break;
		case CH_TRAILER:
			if (ch == '\r')
				c->state = CH_TRAILER_LF;
			else if (ch == '\n' || ((unsigned char)ch < ' ' &&
			    ch != '\t') || ch == 0x7f)
				return -1;
			else
				c->linelen++;
			if (c->linelen > CHUNKLINE_MAX)
				return -1;
			i++;
			break;
		case CH_TRAILER_LF:
			if (ch != '\n')
				return -1;
			i++;
			if (c->linelen == 0)
				c->state = CH_DONE;
			else {
				c->linelen = 0;
				c->state = CH_TRAILER;
			}
			break;
		}
	}
	c->done = c->state == CH_DONE;
	return (long)i;
}
