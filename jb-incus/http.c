/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

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
static int
is_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* field-vchar, SP or HTAB: no other control byte may hide in a value */
static int
is_fieldc(unsigned char c)
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
		if (!is_fieldc((unsigned char)s[i]))
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
		if (!is_tchar((unsigned char)s[n]))
			return "bad header name";
	if (n == 0 || n == len)
		return "bad header line";
	for (vs = n + 1; vs < len && is_ows(s[vs]); vs++)
		;
	for (ve = len; ve > vs && is_ows(s[ve - 1]); ve--)
		;
	for (i = vs; i < ve; i++)
		if (!is_fieldc((unsigned char)s[i]))
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
		if (!is_fieldc((unsigned char)s[i])) {
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

/*
 * The connection pool.
 */

struct http_conn;

/* A transport makes a connected (or connecting) bufferevent. */
struct http_transport {
	const char	*name;
	struct bufferevent *(*open)(struct http_client *, char *, size_t);
};

struct http_request {
	TAILQ_ENTRY(http_request) qentry;	/* in queue */
	TAILQ_ENTRY(http_request) aentry;	/* in all */
	struct http_client	*client;
	struct http_conn	*conn;
	char			*method;
	char			*path;
	struct evbuffer		*hdrs;		/* extra header lines */
	char			*body;
	size_t			 bodylen;
	int			 has_body;
	int			 body_fd;	/* streamed body, or -1 */
	int			 timeout_ms;
	size_t			 max_body;
	int			 retried;
	int			 queued;
	int			 submitted;
	struct event		*timer;
	int			 failed;	/* deferred failure ... */
	char			*fail;		/* ... and why */
	http_cb			 cb;
	void			*arg;
};
TAILQ_HEAD(http_reqq, http_request);

struct http_conn {
	TAILQ_ENTRY(http_conn)	 entry;
	struct http_client	*client;
	struct bufferevent	*bev;
	struct http_request	*req;		/* in flight, or NULL */
	struct http_parser	 parser;
	int			 reused;	/* served a request before */
	int			 got_bytes;	/* of the current response */
	int			 body_fd;	/* streamed body being sent */
	off_t			 body_off;
	size_t			 body_left;
};
TAILQ_HEAD(http_connq, http_conn);

struct http_client {
	struct event_base	*base;
	const struct http_transport *tr;
	char			*endpoint;
	char			*host;		/* Host: header */
	struct sockaddr_storage	 ss;
	socklen_t		 sslen;
	SSL_CTX			*ssl_ctx;
	char			*sni;
	int			 max_conns;
	int			 nconns;
	int			 timeout_ms;
	struct http_reqq	 queue;
	struct http_reqq	 all;		/* not yet completed */
	struct http_connq	 conns;
};

#define HTTP_DEFAULT_TIMEOUT	30000
#define HTTP_DEFAULT_CONNS	4
#define HTTP_STREAM_CHUNK	(64 * 1024)	/* read from a body fd at once */
#define HTTP_STREAM_QUEUE	(256 * 1024)	/* queued before we wait */

static void	conn_free(struct http_conn *);
static void	client_dispatch(struct http_client *);
static void	req_complete(struct http_request *, struct http_response *,
		    const char *);

static void	errf(char *, size_t, const char *, ...)
		    __attribute__((__format__(__printf__, 3, 4)));

static void
errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static struct bufferevent *
unix_open(struct http_client *c, char *err, size_t errlen)
{
	struct bufferevent	*bev;

	bev = bufferevent_socket_new(c->base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (bev == NULL) {
		errf(err, errlen, "bufferevent_socket_new failed");
		return NULL;
	}
	if (bufferevent_socket_connect(bev, (struct sockaddr *)&c->ss,
	    c->sslen) == -1) {
		errf(err, errlen, "connect %s: %s", c->endpoint,
		    strerror(errno));
		bufferevent_free(bev);
		return NULL;
	}
	return bev;
}

static struct bufferevent *
tls_open(struct http_client *c, char *err, size_t errlen)
{
	struct bufferevent	*bev;
	SSL			*ssl;

	if ((ssl = SSL_new(c->ssl_ctx)) == NULL) {
		errf(err, errlen, "SSL_new failed");
		return NULL;
	}
	if (c->sni != NULL)
		SSL_set_tlsext_host_name(ssl, c->sni);
	bev = bufferevent_openssl_socket_new(c->base, -1, ssl,
	    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
	if (bev == NULL) {
		SSL_free(ssl);
		errf(err, errlen, "bufferevent_openssl_socket_new failed");
		return NULL;
	}
	/* Incus closes idle connections without close_notify */
	bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	if (bufferevent_socket_connect(bev, (struct sockaddr *)&c->ss,
	    c->sslen) == -1) {
		errf(err, errlen, "connect %s: %s", c->endpoint,
		    strerror(errno));
		bufferevent_free(bev);
		return NULL;
	}
	return bev;
}

static const struct http_transport transport_unix = { "unix", unix_open };
static const struct http_transport transport_tls = { "https", tls_open };

static int
setup_unix(struct http_client *c, const char *path, char *err, size_t errlen)
{
	struct sockaddr_un	*sun = (struct sockaddr_un *)&c->ss;

	if (*path == '\0' ||
	    strlcpy(sun->sun_path, path, sizeof(sun->sun_path)) >=
	    sizeof(sun->sun_path)) {
		errf(err, errlen, "bad unix socket path \"%s\"", path);
		return -1;
	}
	sun->sun_family = AF_UNIX;
	c->sslen = sizeof(*sun);
	c->tr = &transport_unix;
	c->host = strdup("incus");
	return c->host == NULL ? -1 : 0;
}

static const char *
ssl_errstr(void)
{
	static char	buf[256];
	unsigned long	e = ERR_get_error();

	if (e == 0)
		return "unknown error";
	ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return buf;
}

/*
 * The host is resolved once here, before any sandbox is applied: name
 * lookups later would need NSS files the process should no longer see.
 * No host name check is made on the server certificate: as with the
 * Incus CLI, trust comes from the pinned certificate in ca_file.
 */
static int
setup_tls(struct http_client *c, const char *hostport,
    const struct http_tls *tls, char *err, size_t errlen)
{
	struct addrinfo	 hints, *res;
	struct in6_addr	 a6;
	char		 host[256], port[16] = "8443";
	const char	*h, *e, *p = NULL;
	size_t		 len;
	int		 rv;

	if (tls == NULL || tls->cert_file == NULL || tls->key_file == NULL ||
	    tls->ca_file == NULL) {
		errf(err, errlen, "https endpoint needs a client certificate, "
		    "its key and the server certificate");
		return -1;
	}
	len = strcspn(hostport, "/");
	if (hostport[len] != '\0' && hostport[len + 1] != '\0') {
		errf(err, errlen, "https endpoint \"%s\" has a path", hostport);
		return -1;
	}
	h = hostport;
	if (*h == '[') {
		/* [v6addr] or [v6addr]:port */
		if ((e = memchr(h, ']', len)) == NULL ||
		    (e + 1 != hostport + len && e[1] != ':')) {
			errf(err, errlen, "bad address in \"%s\"", hostport);
			return -1;
		}
		h++;
		if (e + 1 != hostport + len)
			p = e + 2;
	} else if ((e = memchr(h, ':', len)) != NULL)
		p = e + 1;
	else
		e = hostport + len;
	if (e == h || (size_t)(e - h) >= sizeof(host) || (p != NULL &&
	    (p == hostport + len ||
	    (size_t)(hostport + len - p) >= sizeof(port)))) {
		errf(err, errlen, "bad host or port in \"%s\"", hostport);
		return -1;
	}
	memcpy(host, h, e - h);
	host[e - h] = '\0';
	if (p != NULL) {
		memcpy(port, p, hostport + len - p);
		port[hostport + len - p] = '\0';
	}
	if ((c->host = strndup(hostport, len)) == NULL)
		return -1;
	/* SNI carries names only, never address literals (RFC 6066) */
	if (inet_pton(AF_INET, host, &a6) != 1 &&
	    inet_pton(AF_INET6, host, &a6) != 1 &&
	    (c->sni = strdup(host)) == NULL)
		return -1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if ((rv = getaddrinfo(host, port, &hints, &res)) != 0) {
		errf(err, errlen, "%s: %s", hostport, gai_strerror(rv));
		return -1;
	}
	memcpy(&c->ss, res->ai_addr, res->ai_addrlen);
	c->sslen = res->ai_addrlen;
	freeaddrinfo(res);

	if ((c->ssl_ctx = SSL_CTX_new(TLS_client_method())) == NULL) {
		errf(err, errlen, "SSL_CTX_new: %s", ssl_errstr());
		return -1;
	}
	SSL_CTX_set_min_proto_version(c->ssl_ctx, TLS1_2_VERSION);
	if (SSL_CTX_use_certificate_chain_file(c->ssl_ctx,
	    tls->cert_file) != 1) {
		errf(err, errlen, "%s: %s", tls->cert_file, ssl_errstr());
		return -1;
	}
	if (SSL_CTX_use_PrivateKey_file(c->ssl_ctx, tls->key_file,
	    SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(c->ssl_ctx)
	    != 1) {
		errf(err, errlen, "%s: %s", tls->key_file, ssl_errstr());
		return -1;
	}
	if (SSL_CTX_load_verify_locations(c->ssl_ctx, tls->ca_file,
	    NULL) != 1) {
		errf(err, errlen, "%s: %s", tls->ca_file, ssl_errstr());
		return -1;
	}
	SSL_CTX_set_verify(c->ssl_ctx, SSL_VERIFY_PEER, NULL);
	c->tr = &transport_tls;
	return 0;
}

struct http_client *
http_client_new(struct event_base *base, const char *endpoint,
    const struct http_tls *tls, char *err, size_t errlen)
{
	struct http_client	*c;
	int			 rv;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		errf(err, errlen, "out of memory");
		return NULL;
	}
	c->base = base;
	c->max_conns = HTTP_DEFAULT_CONNS;
	c->timeout_ms = HTTP_DEFAULT_TIMEOUT;
	TAILQ_INIT(&c->queue);
	TAILQ_INIT(&c->all);
	TAILQ_INIT(&c->conns);
	if ((c->endpoint = strdup(endpoint)) == NULL) {
		errf(err, errlen, "out of memory");
		free(c);
		return NULL;
	}
	if (strncmp(endpoint, "unix:", 5) == 0)
		rv = setup_unix(c, endpoint + 5, err, errlen);
	else if (strncmp(endpoint, "https://", 8) == 0)
		rv = setup_tls(c, endpoint + 8, tls, err, errlen);
	else {
		errf(err, errlen, "endpoint \"%s\" is neither unix:PATH nor "
		    "https://HOST[:PORT]", endpoint);
		rv = -1;
	}
	if (rv == -1 || c->host == NULL) {
		if (rv == 0)
			errf(err, errlen, "out of memory");
		http_client_free(c);
		return NULL;
	}
	return c;
}

static void
req_free(struct http_request *r)
{
	if (r == NULL)
		return;
	if (r->timer != NULL)
		event_free(r->timer);
	if (r->hdrs != NULL)
		evbuffer_free(r->hdrs);
	free(r->method);
	free(r->path);
	free(r->body);
	free(r->fail);
	free(r);
}

/* Outstanding requests are dropped without their callbacks. */
void
http_client_free(struct http_client *c)
{
	struct http_request	*r;
	struct http_conn	*conn;

	if (c == NULL)
		return;
	while ((conn = TAILQ_FIRST(&c->conns)) != NULL) {
		conn->req = NULL;
		conn_free(conn);
	}
	while ((r = TAILQ_FIRST(&c->all)) != NULL) {
		TAILQ_REMOVE(&c->all, r, aentry);
		req_free(r);
	}
	if (c->ssl_ctx != NULL)
		SSL_CTX_free(c->ssl_ctx);
	free(c->sni);
	free(c->host);
	free(c->endpoint);
	free(c);
}

void
http_client_set_max_conns(struct http_client *c, int n)
{
	c->max_conns = n > 0 ? n : 1;
}

void
http_client_set_timeout(struct http_client *c, int ms)
{
	c->timeout_ms = ms > 0 ? ms : HTTP_DEFAULT_TIMEOUT;
}

const char *
http_client_endpoint(const struct http_client *c)
{
	return c->endpoint;
}

int
http_client_nconns(const struct http_client *c)
{
	return c->nconns;
}

static void
conn_free(struct http_conn *conn)
{
	struct http_client	*c = conn->client;

	TAILQ_REMOVE(&c->conns, conn, entry);
	c->nconns--;
	if (conn->bev != NULL)
		bufferevent_free(conn->bev);
	http_parser_free(&conn->parser);
	free(conn);
}

/*
 * The request on conn failed at the transport level.  A reused keep-alive
 * connection the server closed just as we wrote is the classic race:
 * repeat the request once on a fresh connection if nothing came back and
 * repeating is harmless.
 */
static void
conn_fail(struct http_conn *conn, const char *why)
{
	struct http_client	*c = conn->client;
	struct http_request	*r = conn->req;
	char			 msg[512];
	int			 idempotent;

	conn->req = NULL;
	if (r == NULL) {
		conn_free(conn);
		return;
	}
	r->conn = NULL;
	idempotent = strcmp(r->method, "GET") == 0 ||
	    strcmp(r->method, "HEAD") == 0 || strcmp(r->method, "PUT") == 0 ||
	    strcmp(r->method, "DELETE") == 0;
	if (conn->reused && !conn->got_bytes && !r->retried && idempotent) {
		conn_free(conn);
		r->retried = 1;
		r->queued = 1;
		TAILQ_INSERT_HEAD(&c->queue, r, qentry);
		client_dispatch(c);
		return;
	}
	conn_free(conn);
	snprintf(msg, sizeof(msg), "%s %s via %s: %s", r->method, r->path,
	    c->endpoint, why);
	req_complete(r, NULL, msg);
}

static void
conn_readcb(struct bufferevent *bev, void *arg)
{
	struct http_conn	*conn = arg;
	struct http_request	*r = conn->req;
	struct http_response	*resp;
	struct evbuffer		*in = bufferevent_get_input(bev);
	enum http_parse		 st = HTTP_PARSE_MORE;
	size_t			 n, used;
	unsigned char		*data;
	char			 msg[512];

	if (r == NULL) {
		/* nothing is asked of an idle connection */
		conn_free(conn);
		return;
	}
	while ((n = evbuffer_get_contiguous_space(in)) > 0) {
		conn->got_bytes = 1;
		data = evbuffer_pullup(in, n);
		st = http_parser_feed(&conn->parser, data, n, &used);
		evbuffer_drain(in, used);
		if (st != HTTP_PARSE_MORE)
			break;
	}
	if (st == HTTP_PARSE_MORE)
		return;
	if (st == HTTP_PARSE_ERROR) {
		snprintf(msg, sizeof(msg), "bad response: %s",
		    http_parser_error(&conn->parser));
		conn->got_bytes = 1;
		conn_fail(conn, msg);
		return;
	}

	resp = http_parser_take(&conn->parser);
	conn->req = NULL;
	r->conn = NULL;
	if (resp->status == 101) {
		/* the stream now belongs to whoever asked for the upgrade */
		bufferevent_setcb(bev, NULL, NULL, NULL, NULL);
		bufferevent_disable(bev, EV_READ | EV_WRITE);
		resp->upgraded = bev;
		conn->bev = NULL;
		conn_free(conn);
	} else if (!resp->keepalive || evbuffer_get_length(in) > 0 ||
	    evbuffer_get_length(bufferevent_get_output(bev)) > 0 ||
	    conn->body_left > 0)
		conn_free(conn);
	else {
		conn->reused = 1;
		http_parser_free(&conn->parser);
	}
	req_complete(r, resp, NULL);
}

static void
conn_eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct http_conn	*conn = arg;
	struct http_request	*r = conn->req;
	struct http_response	*resp;
	unsigned long		 e;
	const char		*why;
	char			 msg[256];
	int			 saved = EVUTIL_SOCKET_ERROR();

	if (what & BEV_EVENT_CONNECTED)
		return;
	if (r == NULL) {
		conn_free(conn);
		return;
	}
	if ((what & BEV_EVENT_EOF) && !(what & BEV_EVENT_ERROR)) {
		if (http_parser_eof(&conn->parser) == HTTP_PARSE_DONE) {
			resp = http_parser_take(&conn->parser);
			conn->req = NULL;
			r->conn = NULL;
			conn_free(conn);
			req_complete(r, resp, NULL);
			return;
		}
		conn_fail(conn, http_parser_error(&conn->parser));
		return;
	}
	if (conn->client->tr == &transport_tls &&
	    (e = bufferevent_get_openssl_error(bev)) != 0) {
		why = ERR_reason_error_string(e);
		snprintf(msg, sizeof(msg), "TLS: %s", why ? why :
		    "handshake failed");
		while (bufferevent_get_openssl_error(bev) != 0)
			;
	} else
		snprintf(msg, sizeof(msg), "%s",
		    saved ? strerror(saved) : "connection error");
	conn_fail(conn, msg);
}

/*
 * A streamed body goes out a chunk at a time, topped up whenever the
 * output queue drains below the low-water mark, so however large the
 * file, only HTTP_STREAM_QUEUE of it is ever in memory.
 */
static void
conn_fill(struct http_conn *conn)
{
	struct evbuffer		*out = bufferevent_get_output(conn->bev);
	struct evbuffer_iovec	 v;
	size_t			 want;
	ssize_t			 n;

	while (conn->body_left > 0 &&
	    evbuffer_get_length(out) < HTTP_STREAM_QUEUE) {
		want = conn->body_left < HTTP_STREAM_CHUNK ? conn->body_left :
		    HTTP_STREAM_CHUNK;
		if (evbuffer_reserve_space(out, (ev_ssize_t)want, &v, 1) < 1) {
			conn_fail(conn, "out of memory");
			return;
		}
		if (v.iov_len > want)
			v.iov_len = want;
		n = pread(conn->body_fd, v.iov_base, v.iov_len,
		    conn->body_off);
		if (n <= 0) {
			conn_fail(conn, n == 0 ? "the body's file is shorter "
			    "than it was" : "reading the body's file failed");
			return;
		}
		v.iov_len = (size_t)n;
		if (evbuffer_commit_space(out, &v, 1) == -1) {
			conn_fail(conn, "out of memory");
			return;
		}
		conn->body_off += n;
		conn->body_left -= (size_t)n;
	}
}

static void
conn_writecb(struct bufferevent *bev, void *arg)
{
	struct http_conn	*conn = arg;

	if (conn->req != NULL && conn->body_left > 0)
		conn_fill(conn);
}

static struct http_conn *
conn_new(struct http_client *c, char *err, size_t errlen)
{
	struct http_conn	*conn;

	if ((conn = calloc(1, sizeof(*conn))) == NULL) {
		errf(err, errlen, "out of memory");
		return NULL;
	}
	if ((conn->bev = c->tr->open(c, err, errlen)) == NULL) {
		free(conn);
		return NULL;
	}
	conn->client = c;
	bufferevent_setcb(conn->bev, conn_readcb, conn_writecb, conn_eventcb,
	    conn);
	bufferevent_setwatermark(conn->bev, EV_WRITE, HTTP_STREAM_QUEUE / 2,
	    0);
	bufferevent_enable(conn->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&c->conns, conn, entry);
	c->nconns++;
	return conn;
}

static int
conn_send(struct http_conn *conn, struct http_request *r)
{
	struct http_client	*c = conn->client;
	struct evbuffer		*out = bufferevent_get_output(conn->bev);

	http_parser_init(&conn->parser, strcmp(r->method, "HEAD") == 0,
	    r->max_body);
	conn->req = r;
	conn->got_bytes = 0;
	r->conn = conn;
	if (evbuffer_add_printf(out, "%s %s HTTP/1.1\r\nHost: %s\r\n"
	    "User-Agent: jailbee\r\n", r->method, r->path, c->host) == -1)
		return -1;
	if (r->has_body && evbuffer_add_printf(out, "Content-Length: %zu\r\n",
	    r->bodylen) == -1)
		return -1;
	if (evbuffer_add(out, evbuffer_pullup(r->hdrs, -1),
	    evbuffer_get_length(r->hdrs)) == -1 ||
	    evbuffer_add(out, "\r\n", 2) == -1)
		return -1;
	if (r->body_fd != -1) {
		conn->body_fd = r->body_fd;
		conn->body_off = 0;
		conn->body_left = r->bodylen;
		return 0;
	}
	conn->body_left = 0;
	if (r->bodylen > 0 && evbuffer_add(out, r->body, r->bodylen) == -1)
		return -1;
	return 0;
}

/*
 * Failures found while dispatching are reported from the request's timer:
 * dispatch runs inside http_request_submit, where no callback may run.
 */
static void
req_defer_fail(struct http_request *r, const char *why)
{
	struct timeval	 tv = { 0, 0 };

	if (r->queued) {
		TAILQ_REMOVE(&r->client->queue, r, qentry);
		r->queued = 0;
	}
	free(r->fail);
	r->fail = strdup(why);
	r->failed = 1;
	evtimer_add(r->timer, &tv);
}

static void
client_dispatch(struct http_client *c)
{
	struct http_request	*r;
	struct http_conn	*conn;
	char			 err[256];

	while ((r = TAILQ_FIRST(&c->queue)) != NULL) {
		TAILQ_FOREACH(conn, &c->conns, entry)
			if (conn->req == NULL)
				break;
		if (conn == NULL) {
			if (c->nconns >= c->max_conns)
				return;
			if ((conn = conn_new(c, err, sizeof(err))) == NULL) {
				req_defer_fail(r, err);
				continue;
			}
		}
		TAILQ_REMOVE(&c->queue, r, qentry);
		r->queued = 0;
		if (conn_send(conn, r) == -1) {
			conn->req = NULL;
			r->conn = NULL;
			conn_free(conn);
			req_defer_fail(r, "out of memory");
			continue;
		}
		/* a failed read ends the request from the loop, not here */
		if (conn->body_left > 0)
			bufferevent_trigger(conn->bev, EV_WRITE,
			    BEV_TRIG_IGNORE_WATERMARKS | BEV_TRIG_DEFER_CALLBACKS);
	}
}

static void
req_timer(evutil_socket_t fd, short ev, void *arg)
{
	struct http_request	*r = arg;
	struct http_client	*c = r->client;
	struct http_conn	*conn;
	char			 msg[512];

	if (r->failed) {
		snprintf(msg, sizeof(msg), "%s %s via %s: %s", r->method,
		    r->path, c->endpoint, r->fail ? r->fail : "out of memory");
		req_complete(r, NULL, msg);
		return;
	}
	if (r->queued) {
		TAILQ_REMOVE(&c->queue, r, qentry);
		r->queued = 0;
	}
	if ((conn = r->conn) != NULL) {
		/* the answer may still come: the connection is unusable */
		conn->req = NULL;
		r->conn = NULL;
		conn_free(conn);
	}
	snprintf(msg, sizeof(msg), "%s %s via %s: no response within %d ms",
	    r->method, r->path, c->endpoint, r->timeout_ms);
	req_complete(r, NULL, msg);
}

/*
 * Runs the callback as the very last thing: it may free the client, so
 * the pool is settled (and the next request started) before.
 */
static void
req_complete(struct http_request *r, struct http_response *resp,
    const char *err)
{
	struct http_client	*c = r->client;
	http_cb			 cb = r->cb;
	void			*arg = r->arg;

	if (r->queued)
		TAILQ_REMOVE(&c->queue, r, qentry);
	TAILQ_REMOVE(&c->all, r, aentry);
	req_free(r);
	client_dispatch(c);
	cb(resp, err, arg);
	http_response_free(resp);
}

struct http_request *
http_request_new(struct http_client *c, const char *method, const char *path)
{
	struct http_request	*r;
	const char		*s;

	for (s = method; *s != '\0'; s++)
		if (!is_tchar((unsigned char)*s))
			return NULL;
	/* the target must not be able to break the request line */
	for (s = path; *s != '\0'; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return NULL;
	if (*method == '\0' || *path != '/')
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->client = c;
	r->body_fd = -1;
	r->timeout_ms = c->timeout_ms;
	r->max_body = HTTP_MAX_BODY;
	if ((r->method = strdup(method)) == NULL ||
	    (r->path = strdup(path)) == NULL ||
	    (r->hdrs = evbuffer_new()) == NULL ||
	    (r->timer = evtimer_new(c->base, req_timer, r)) == NULL) {
		req_free(r);
		return NULL;
	}
	return r;
}

int
http_request_header(struct http_request *r, const char *name,
    const char *value)
{
	const char	*s;

	for (s = name; *s != '\0'; s++)
		if (!is_tchar((unsigned char)*s))
			return -1;
	for (s = value; *s != '\0'; s++)
		if (!is_fieldc((unsigned char)*s))
			return -1;
	if (*name == '\0' || strcasecmp(name, "Content-Length") == 0 ||
	    strcasecmp(name, "Host") == 0 ||
	    strcasecmp(name, "Transfer-Encoding") == 0)
		return -1;
	return evbuffer_add_printf(r->hdrs, "%s: %s\r\n", name, value) == -1 ?
	    -1 : 0;
}

int
http_request_body(struct http_request *r, const char *content_type,
    const void *data, size_t len)
{
	char	*copy = NULL;

	if (r->has_body)
		return -1;
	if (len > 0) {
		if ((copy = malloc(len)) == NULL)
			return -1;
		memcpy(copy, data, len);
	}
	if (content_type != NULL &&
	    http_request_header(r, "Content-Type", content_type) == -1) {
		free(copy);
		return -1;
	}
	r->body = copy;
	r->bodylen = len;
	r->has_body = 1;
	return 0;
}

int
http_request_body_fd(struct http_request *r, const char *content_type,
    int fd, size_t len)
{
	if (r->has_body || fd < 0 || (content_type != NULL &&
	    http_request_header(r, "Content-Type", content_type) == -1))
		return -1;
	r->body_fd = fd;
	r->bodylen = len;
	r->has_body = 1;
	return 0;
}

void
http_request_timeout(struct http_request *r, int ms)
{
	r->timeout_ms = ms > 0 ? ms : r->client->timeout_ms;
}

void
http_request_max_body(struct http_request *r, size_t max)
{
	r->max_body = max > 0 && max < HTTP_MAX_BODY ? max : HTTP_MAX_BODY;
}

void
http_request_submit(struct http_request *r, http_cb cb, void *arg)
{
	struct http_client	*c = r->client;
	struct timeval		 tv;

	r->cb = cb;
	r->arg = arg;
	r->submitted = 1;
	TAILQ_INSERT_TAIL(&c->all, r, aentry);
	tv.tv_sec = r->timeout_ms / 1000;
	tv.tv_usec = (r->timeout_ms % 1000) * 1000;
	evtimer_add(r->timer, &tv);
	r->queued = 1;
	TAILQ_INSERT_TAIL(&c->queue, r, qentry);
	client_dispatch(c);
}

/* Drop a request whose callback has not run yet; the callback never will. */
void
http_request_cancel(struct http_request *r)
{
	struct http_client	*c = r->client;
	struct http_conn	*conn;

	if (r->queued)
		TAILQ_REMOVE(&c->queue, r, qentry);
	if (r->submitted)
		TAILQ_REMOVE(&c->all, r, aentry);
	if ((conn = r->conn) != NULL) {
		conn->req = NULL;
		conn_free(conn);
	}
	req_free(r);
	client_dispatch(c);
}
