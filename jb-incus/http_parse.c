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
 * The HTTP/1.1 response parser: bytes in, a response (status, headers,
 * body, chunked or not) out, every limit checked.  Pure: no I/O here; the
 * client (http_client.c) feeds it what its connections read.
 */

#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/bufferevent.h>

#include "http.h"

/*
 * The response parser.
 */

static void
parser_fail(struct http_parser *p, const char *why)
{
	p->state = HP_ERROR;
	p->error = why;
}

void
http_parser_init(struct http_parser *p, int head_request, size_t max_body)
{
	memset(p, 0, sizeof(*p));
	p->state = HP_STATUS;
	p->head_request = head_request;
	p->max_body = max_body ? max_body : HTTP_MAX_BODY;
}

void
http_parser_free(struct http_parser *p)
{
	free(p->line);
	http_response_free(p->resp);
	p->line = NULL;
	p->resp = NULL;
}

const char *
http_parser_error(const struct http_parser *p)
{
	return p->error ? p->error : "no error";
}

struct http_response *
http_parser_take(struct http_parser *p)
{
	struct http_response	*r;

	if (p->state != HP_DONE)
		return NULL;
	r = p->resp;
	p->resp = NULL;
	return r;
}

void
http_response_free(struct http_response *r)
{
	size_t	i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nheaders; i++) {
		free(r->headers[i].name);
		free(r->headers[i].value);
	}
	free(r->headers);
	free(r->reason);
	free(r->body);
	if (r->upgraded != NULL)
		bufferevent_free(r->upgraded);
	free(r);
}

const char *
http_response_header(const struct http_response *r, const char *name)
{
	size_t	i;

	for (i = 0; i < r->nheaders; i++)
		if (strcasecmp(r->headers[i].name, name) == 0)
			return r->headers[i].value;
	return NULL;
}

struct bufferevent *
http_response_take_bev(struct http_response *r)
{
	struct bufferevent	*bev = r->upgraded;

	r->upgraded = NULL;
	return bev;
}

/* RFC 9110 tchar */
int
http_is_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* field-vchar, SP or HTAB: no other control byte may hide in a value */
int
http_is_fieldc(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static int
is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* Does the comma-separated list in v hold the token tok? */
static int
list_has_token(const char *v, const char *tok)
{
	size_t		 n = strlen(tok), len;
	const char	*e;

	for (;;) {
		while (is_ows(*v) || *v == ',')
			v++;
		if (*v == '\0')
			return 0;
		e = v;
		while (*e != '\0' && *e != ',')
			e++;
		len = e - v;
		while (len > 0 && is_ows(v[len - 1]))
			len--;
		if (len == n && strncasecmp(v, tok, n) == 0)
			return 1;
		v = e;
	}
}

/* Every element of the list must be the same decimal length. */
static int
parse_content_length(const char *v, size_t *out)
{
	size_t	val, have = 0, any = 0;

	for (;;) {
		while (is_ows(*v))
			v++;
		if (*v < '0' || *v > '9')
			return -1;
		val = 0;
		while (*v >= '0' && *v <= '9') {
			if (val > (SIZE_MAX - 9) / 10)
				return -1;
			val = val * 10 + (*v++ - '0');
		}
		while (is_ows(*v))
			v++;
		if (any && val != have)
			return -1;
		have = val;
		any = 1;
		if (*v == '\0')
			break;
		if (*v++ != ',')
			return -1;
	}
	*out = have;
	return 0;
}

static int
parse_status(struct http_parser *p, char *s, size_t len)
{
	struct http_response	*r;
	size_t			 i;

	if (len < 12 || strncmp(s, "HTTP/1.", 7) != 0 ||
	    s[7] < '0' || s[7] > '9' || s[8] != ' ')
		return -1;
	for (i = 9; i < 12; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	if (s[9] == '0' || (len > 12 && s[12] != ' '))
		return -1;
	for (i = 13; i < len; i++)
		if (!http_is_fieldc((unsigned char)s[i]))
			return -1;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return -1;
	r->minor = s[7] - '0';
	r->status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
	if ((r->reason = strndup(len > 12 ? s + 13 : "",
	    len > 12 ? len - 13 : 0)) == NULL) {
		free(r);
		return -1;
	}
	http_response_free(p->resp);
	p->resp = r;
	p->te_chunked = p->have_length = p->conn_close = 0;
	p->conn_keepalive = 0;
	p->length = 0;
	return 0;
}

static const char *
parse_field(char *s, size_t len, char **name, char **value)
{
	size_t	i, n, vs, ve;

	for (n = 0; n < len && s[n] != ':'; n++)
		if (!http_is_tchar((unsigned char)s[n]))
			return "bad header name";
	if (n == 0 || n == len)
		return "bad header line";
	for (vs = n + 1; vs < len && is_ows(s[vs]); vs++)
		;
	for (ve = len; ve > vs && is_ows(s[ve - 1]); ve--)
		;
	for (i = vs; i < ve; i++)
		if (!http_is_fieldc((unsigned char)s[i]))
			return "bad header value";
	if ((*name = strndup(s, n)) == NULL)
		return "out of memory";
	if ((*value = strndup(s + vs, ve - vs)) == NULL) {
		free(*name);
		return "out of memory";
	}
	return NULL;
}

static const char *
add_header(struct http_parser *p, char *s, size_t len)
{
	struct http_response	*r = p->resp;
	struct http_header	*h;
	const char		*err;
	char			*name, *value;
	size_t			 cl = 0;

	if (is_ows(s[0]))
		return "obsolete header line folding";
	if (r->nheaders >= HTTP_MAX_HEADERS)
		return "too many headers";
	if ((err = parse_field(s, len, &name, &value)) != NULL)
		return err;

	if (strcasecmp(name, "Content-Length") == 0) {
		if (parse_content_length(value, &cl) == -1 ||
		    (p->have_length && cl != p->length))
			err = "bad Content-Length";
		p->length = cl;
		p->have_length = 1;
	} else if (strcasecmp(name, "Transfer-Encoding") == 0) {
		/* we send no TE header, so chunked is all we accept */
		if (p->te_chunked || !list_has_token(value, "chunked") ||
		    strchr(value, ',') != NULL)
			err = "unsupported Transfer-Encoding";
		p->te_chunked = 1;
	} else if (strcasecmp(name, "Connection") == 0) {
		if (list_has_token(value, "close"))
			p->conn_close = 1;
		if (list_has_token(value, "keep-alive"))
			p->conn_keepalive = 1;
	}
	if (err != NULL) {
		free(name);
		free(value);
		return err;
	}

	h = reallocarray(r->headers, r->nheaders + 1, sizeof(*h));
	if (h == NULL) {
		free(name);
		free(value);
		return "out of memory";
	}
	r->headers = h;
	h[r->nheaders].name = name;
	h[r->nheaders].value = value;
	r->nheaders++;
	return NULL;
}

static int
body_reserve(struct http_parser *p, size_t more)
{
	struct http_response	*r = p->resp;
	size_t			 want, ncap;
	char			*nb;

	if (more > p->max_body - r->bodylen)
		return -1;
	want = r->bodylen + more + 1;
	if (want <= p->bodycap)
		return 0;
	/* a known length is allocated exactly, a stream grows by doubling */
	ncap = p->bodycap ? p->bodycap : want > 4096 ? want : 4096;
	while (ncap < want)
		ncap = ncap > SIZE_MAX / 2 ? want : ncap * 2;
	if (ncap > p->max_body + 1)
		ncap = p->max_body + 1;
	if ((nb = realloc(r->body, ncap)) == NULL)
		return -1;
	r->body = nb;
	p->bodycap = ncap;
	return 0;
}

static void
finish(struct http_parser *p)
{
	struct http_response	*r = p->resp;

	if (r->body == NULL && body_reserve(p, 0) == -1) {
		parser_fail(p, "out of memory");
		return;
	}
	r->body[r->bodylen] = '\0';
	p->state = HP_DONE;
}

/* The blank line after the headers: decide how the body is framed. */
static void
end_of_head(struct http_parser *p)
{
	struct http_response	*r = p->resp;
	int			 st = r->status;

	if (r->minor == 0)
		r->keepalive = p->conn_keepalive && !p->conn_close;
	else
		r->keepalive = !p->conn_close;

	if (st >= 100 && st < 200 && st != 101) {
		if (++p->interim > HTTP_MAX_INTERIM) {
			parser_fail(p, "too many interim responses");
			return;
		}
		p->state = HP_STATUS;
		return;
	}
	if (st == 101 || st == 204 || st == 304 || p->head_request) {
		finish(p);
		return;
	}
	if (p->te_chunked) {
		/* both framings at once smell of smuggling: do not reuse */
		if (p->have_length)
			r->keepalive = 0;
		p->state = HP_CHUNK_SIZE;
		return;
	}
	if (p->have_length) {
		if (body_reserve(p, p->length) == -1) {
			parser_fail(p, "response body too large");
			return;
		}
		p->remain = p->length;
		if (p->remain == 0)
			finish(p);
		else
			p->state = HP_BODY_LENGTH;
		return;
	}
	r->keepalive = 0;
	p->state = HP_BODY_EOF;
}

static void
chunk_size(struct http_parser *p, const char *s, size_t len)
{
	size_t	i, v = 0;
	int	c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			break;
		if (v > (SIZE_MAX >> 4)) {
			parser_fail(p, "response body too large");
			return;
		}
		v = (v << 4) | (size_t)c;
	}
	if (i == 0) {
		parser_fail(p, "bad chunk size");
		return;
	}
	while (i < len && is_ows(s[i]))
		i++;
	if (i < len && s[i] != ';') {
		parser_fail(p, "bad chunk size");
		return;
	}
	/* extensions carry nothing we use; they only must be clean */
	for (; i < len; i++)
		if (!http_is_fieldc((unsigned char)s[i])) {
			parser_fail(p, "bad chunk extension");
			return;
		}
	if (v == 0) {
		p->state = HP_TRAILER;
		return;
	}
	if (body_reserve(p, v) == -1) {
		parser_fail(p, "response body too large");
		return;
	}
	p->remain = v;
	p->state = HP_CHUNK_DATA;
}

/* One complete line, CR LF or bare LF already stripped. */
static void
parse_line(struct http_parser *p, char *s, size_t len)
{
	const char	*err;
	char		*name, *value;

	switch (p->state) {
	case HP_STATUS:
		if (parse_status(p, s, len) == -1)
			parser_fail(p, "bad status line");
		else
			p->state = HP_HEADER;
		break;
	case HP_HEADER:
		if (len == 0)
			end_of_head(p);
		else if ((err = add_header(p, s, len)) != NULL)
			parser_fail(p, err);
		break;
	case HP_CHUNK_SIZE:
		chunk_size(p, s, len);
		break;
	case HP_CHUNK_END:
		if (len != 0)
			parser_fail(p, "missing CRLF after chunk data");
		else
			p->state = HP_CHUNK_SIZE;
		break;
	case HP_TRAILER:
		if (len == 0) {
			finish(p);
			break;
		}
		/* validated but dropped: nothing we ask for comes there */
		if ((err = parse_field(s, len, &name, &value)) != NULL) {
			parser_fail(p, err);
			break;
		}
		free(name);
		free(value);
		break;
	default:
		parser_fail(p, "parser state error");
		break;
	}
}

/* Take bytes up to and including LF; returns bytes used. */
static size_t
feed_line(struct http_parser *p, const char *buf, size_t len)
{
	const char	*nl;
	size_t		 take, n;
	int		 head;
	char		*nb;

	nl = memchr(buf, '\n', len);
	take = nl ? (size_t)(nl - buf) + 1 : len;
	head = p->state == HP_STATUS || p->state == HP_HEADER ||
	    p->state == HP_TRAILER;
	if (head && take > HTTP_MAX_HEAD - p->headbytes) {
		parser_fail(p, "response head too large");
		return 0;
	}
	if (!head && take > HTTP_MAX_CHUNKLINE - p->linelen) {
		parser_fail(p, "chunk size line too long");
		return 0;
	}
	if (p->linelen + take > p->linecap) {
		n = p->linecap ? p->linecap : 256;
		while (n < p->linelen + take)
			n *= 2;
		if ((nb = realloc(p->line, n)) == NULL) {
			parser_fail(p, "out of memory");
			return 0;
		}
		p->line = nb;
		p->linecap = n;
	}
	memcpy(p->line + p->linelen, buf, take);
	p->linelen += take;
	if (head)
		p->headbytes += take;
	if (nl == NULL)
		return take;

	n = p->linelen - 1;
	if (n > 0 && p->line[n - 1] == '\r')
		n--;
	/* a CR anywhere else could split a line differently elsewhere */
	if (memchr(p->line, '\r', n) != NULL || memchr(p->line, '\0', n)) {
		parser_fail(p, "stray CR or NUL in line");
		return take;
	}
	p->line[n] = '\0';
	p->linelen = 0;
	parse_line(p, p->line, n);
	return take;
}

static size_t
feed_body(struct http_parser *p, const char *buf, size_t len)
{
	struct http_response	*r = p->resp;
	size_t			 take;

	if (p->state == HP_BODY_EOF) {
		if (body_reserve(p, len) == -1) {
			parser_fail(p, "response body too large");
			return 0;
		}
		take = len;
	} else
		take = len < p->remain ? len : p->remain;
	memcpy(r->body + r->bodylen, buf, take);
	r->bodylen += take;
	if (p->state == HP_BODY_EOF)
		return take;
	p->remain -= take;
	if (p->remain == 0) {
		if (p->state == HP_CHUNK_DATA)
			p->state = HP_CHUNK_END;
		else
			finish(p);
	}
	return take;
}

enum http_parse
http_parser_feed(struct http_parser *p, const void *data, size_t len,
    size_t *used)
{
	const char	*buf = data;
	size_t		 off = 0;

	while (off < len && p->state != HP_DONE && p->state != HP_ERROR) {
		switch (p->state) {
		case HP_BODY_LENGTH:
		case HP_BODY_EOF:
		case HP_CHUNK_DATA:
			off += feed_body(p, buf + off, len - off);
			break;
		default:
			off += feed_line(p, buf + off, len - off);
			break;
		}
	}
	if (used != NULL)
		*used = off;
	if (p->state == HP_DONE)
		return HTTP_PARSE_DONE;
	if (p->state == HP_ERROR)
		return HTTP_PARSE_ERROR;
	return HTTP_PARSE_MORE;
}

enum http_parse
http_parser_eof(struct http_parser *p)
{
	switch (p->state) {
	case HP_DONE:
		return HTTP_PARSE_DONE;
	case HP_ERROR:
		return HTTP_PARSE_ERROR;
	case HP_BODY_EOF:
		finish(p);
		return p->state == HP_DONE ? HTTP_PARSE_DONE : HTTP_PARSE_ERROR;
	case HP_STATUS:
		if (p->linelen == 0 && p->resp == NULL && p->interim == 0) {
			parser_fail(p, "connection closed before a response");
			return HTTP_PARSE_ERROR;
		}
		break;
	default:
		break;
	}
	parser_fail(p, "connection closed in the middle of a response");
	return HTTP_PARSE_ERROR;
}

char *
http_escape(const char *s)
{
	static const char	 hex[] = "0123456789ABCDEF";
	size_t			 n = strlen(s);
	unsigned char		 c;
	char			*out, *o;

	if (n > (SIZE_MAX - 1) / 3 || (out = malloc(n * 3 + 1)) == NULL)
		return NULL;
	for (o = out; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~')
			*o++ = c;
		else {
			*o++ = '%';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	*o = '\0';
	return out;
}

