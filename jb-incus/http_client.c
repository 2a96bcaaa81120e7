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
 * The HTTP client of the Incus API: a pool of connections over the unix
 * socket or TLS, requests queued, timed out and retried once on a reused
 * connection; responses come from the parser (http_parse.c).
 *
 * Built twice: with JB_INCUS_TLS (jb-incus-tls, the test drivers) it
 * speaks https through OpenSSL; without it (jb-incus) it speaks to the
 * local unix socket only, and libssl and libcrypto are never loaded.
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
#include <event2/event.h>

#ifdef JB_INCUS_TLS
#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#endif

#include "http.h"

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
#ifdef JB_INCUS_TLS
	SSL_CTX			*ssl_ctx;
#endif
	char			*sni;
	int			 max_conns;
	int			 nconns;
	unsigned long		 nsubmitted;	/* requests ever submitted */
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

static const struct http_transport transport_unix = { "unix", unix_open };

#ifdef JB_INCUS_TLS
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

static const struct http_transport transport_tls = { "https", tls_open };
#endif

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

#ifdef JB_INCUS_TLS
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
#else
static int
setup_tls(struct http_client *c, const char *hostport,
    const struct http_tls *tls, char *err, size_t errlen)
{
	errf(err, errlen, "https endpoint \"%s\": this program speaks to "
	    "a local Incus only; jailbeed runs jb-incus-tls, installed "
	    "beside it, for an https incus.url", hostport);
	return -1;
}
#endif

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
#ifdef JB_INCUS_TLS
	if (c->ssl_ctx != NULL)
		SSL_CTX_free(c->ssl_ctx);
#endif
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

unsigned long
http_client_nrequests(const struct http_client *c)
{
	return c->nsubmitted;
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
#ifdef JB_INCUS_TLS
	unsigned long		 e;
	const char		*why;
#endif
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
#ifdef JB_INCUS_TLS
	if (conn->client->tr == &transport_tls &&
	    (e = bufferevent_get_openssl_error(bev)) != 0) {
		why = ERR_reason_error_string(e);
		snprintf(msg, sizeof(msg), "TLS: %s", why ? why :
		    "handshake failed");
		while (bufferevent_get_openssl_error(bev) != 0)
			;
		conn_fail(conn, msg);
		return;
	}
#endif
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
		if (!http_is_tchar((unsigned char)*s))
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
		if (!http_is_tchar((unsigned char)*s))
			return -1;
	for (s = value; *s != '\0'; s++)
		if (!http_is_fieldc((unsigned char)*s))
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
	c->nsubmitted++;
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
