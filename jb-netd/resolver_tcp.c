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
 * jb-netd's resolver over TCP (FEATURES N3; RFC 1035 4.2.2, RFC 7766).
 * libevent's evdns serves UDP only, yet a strict container's TCP port 53
 * is redirected here too: without this a client falling back to TCP (a
 * truncated answer, or one that always asks over TCP) would get nothing.
 * Each message is framed by a two-byte length; the question is read by
 * dnswire.c and decided by resolver_ask(), the very code the UDP server
 * uses, so an admitted name's addresses are in the kernel before its
 * answer is written.  Pipelined queries are answered in the order they
 * came.  Bounds: TCP_CLIENTS_MAX connections, TCP_CLIENTS_CTR of them
 * from one container (so that one cannot hold them all), TCP_PENDING_MAX
 * queries in
 * flight per connection (reading pauses beyond), DNSWIRE_QUERY_MAX bytes
 * per query, TCP_IDLE seconds without a byte while nothing is pending.
 * Anything that is no DNS stream (a frame of 0 or too many bytes, or
 * shorter than a header) closes the connection.
 */

#include <sys/queue.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnswire.h"
#include "log.h"
#include "resolver.h"
#include "testhook.h"

#define TCP_CLIENTS_MAX		256
#define TCP_CLIENTS_CTR		16	/* of one container */
#define TCP_PENDING_MAX		16
#define TCP_IDLE		jb_test_secs(10, 5)	/* seconds; test switch: 5 */
#define TCP_BACKLOG		32

struct tcp_client;

/* one query of a connection, answered in turn */
struct tcp_query {
	TAILQ_ENTRY(tcp_query)	 entry;
	struct tcp_client	*cl;
	struct resolver_lookup	*lookup;	/* while asked upstream */
	struct dnswire_query	 q;
	uint8_t			*ans;		/* framed, once decided */
	size_t			 anslen;
};

struct tcp_client {
	TAILQ_ENTRY(tcp_client)	 entry;
	struct bufferevent	*bev;
	uint32_t		 src;		/* host order */
	TAILQ_HEAD(, tcp_query)	 queries;
	size_t			 nqueries;
	int			 closing;	/* the peer is done sending */
};

static TAILQ_HEAD(, tcp_client)	 clients = TAILQ_HEAD_INITIALIZER(clients);
static size_t			 nclients;
static struct event_base	*tcp_base;

static void
client_free(struct tcp_client *cl)
{
	struct tcp_query	*tq;

	while ((tq = TAILQ_FIRST(&cl->queries)) != NULL) {
		TAILQ_REMOVE(&cl->queries, tq, entry);
		if (tq->lookup != NULL)
			resolver_forget(tq->lookup);
		free(tq->ans);
		free(tq);
	}
	bufferevent_free(cl->bev);
	TAILQ_REMOVE(&clients, cl, entry);
	nclients--;
	free(cl);
}

/* write the answers that are ready, in the order their queries came */
static void
flush(struct tcp_client *cl)
{
	struct evbuffer		*out = bufferevent_get_output(cl->bev);
	struct tcp_query	*tq;
	ssize_t			 n;
	size_t			 off;

	while ((tq = TAILQ_FIRST(&cl->queries)) != NULL && tq->ans != NULL) {
		TAILQ_REMOVE(&cl->queries, tq, entry);
		cl->nqueries--;
		/*
		 * Nothing queued before it: straight to the socket, not a
		 * turn of the event loop later.  What the socket does not
		 * take now (a full buffer) is libevent's to drain, not ours.
		 */
		off = 0;
		if (evbuffer_get_length(out) == 0 && (n = send(
		    bufferevent_getfd(cl->bev), tq->ans, tq->anslen,
		    MSG_NOSIGNAL | MSG_DONTWAIT)) > 0)
			off = (size_t)n;
		if (off < tq->anslen && bufferevent_write(cl->bev,
		    tq->ans + off, tq->anslen - off) == -1)
			log_warnx("resolver: tcp: cannot queue an "
			    "answer");
		free(tq->ans);
		free(tq);
	}
}

/* the answer of tq with rcode, framed, then whatever is ready goes out */
static void
decided(struct tcp_query *tq, int rcode, const uint32_t *addrs, int naddrs,
    int ttl)
{
	size_t	max;
	int	n;

	tq->lookup = NULL;
	/* more records than an answer carries: they are admitted anyway */
	if (naddrs > DNSWIRE_ANSWERS_MAX)
		naddrs = DNSWIRE_ANSWERS_MAX;
	if (rcode != DNSWIRE_NOERROR || naddrs < 0)
		naddrs = 0;
	max = 2 + DNSWIRE_HEADER + tq->q.questionlen + (size_t)naddrs * 16;
	if ((tq->ans = malloc(max)) == NULL)
		fatal("resolver: tcp answer");
	if ((n = dnswire_answer(&tq->q, rcode, addrs, naddrs,
	    ttl > 0 ? (uint32_t)ttl : 0, tq->ans + 2, max - 2)) == -1 &&
	    (n = dnswire_answer(&tq->q, DNSWIRE_SERVFAIL, NULL, 0, 0,
	    tq->ans + 2, max - 2)) == -1)
		fatalx("resolver: tcp answer does not fit");
	tq->ans[0] = (uint8_t)(n >> 8);
	tq->ans[1] = (uint8_t)n;
	tq->anslen = 2 + (size_t)n;
	flush(tq->cl);
}

static void	 process(struct tcp_client *);

static void
answered(int rcode, const char *name, const uint32_t *addrs, int naddrs,
    int ttl, void *arg)
{
	struct tcp_query	*tq = arg;
	struct tcp_client	*cl = tq->cl;

	decided(tq, rcode, addrs, naddrs, ttl);
	/* a slot is free: read what waited behind the full queue */
	process(cl);
}

/* one framed message: -1 if it is no query at all (close) */
static int
query(struct tcp_client *cl, const uint8_t *msg, size_t len)
{
	struct tcp_query	*tq;
	int			 rc;

	if ((tq = calloc(1, sizeof(*tq))) == NULL)
		fatal("resolver: tcp query");
	if ((rc = dnswire_query_parse(msg, len, &tq->q)) == -1) {
		free(tq);
		return -1;
	}
	tq->cl = cl;
	TAILQ_INSERT_TAIL(&cl->queries, tq, entry);
	cl->nqueries++;
	if (rc == DNSWIRE_NOERROR && tq->q.qclass != DNSWIRE_CLASS_IN)
		rc = DNSWIRE_NOTIMP;
	if (rc == DNSWIRE_NOERROR)
		rc = resolver_ask(cl->src, tq->q.name, tq->q.qtype, answered,
		    tq, &tq->lookup);
	if (rc != RESOLVER_PENDING)
		decided(tq, rc, NULL, 0, 0);
	return 0;
}

/* read the complete frames in the input while a query slot is free */
static void
process(struct tcp_client *cl)
{
	struct evbuffer	*in = bufferevent_get_input(cl->bev);
	uint8_t		 hdr[2], msg[DNSWIRE_QUERY_MAX];
	size_t		 len;

	/* after the peer's EOF too: frames that waited for a slot count */
	while (cl->nqueries < TCP_PENDING_MAX) {
		if (evbuffer_copyout(in, hdr, 2) != 2)
			break;
		len = (size_t)hdr[0] << 8 | hdr[1];
		if (len == 0 || len > DNSWIRE_QUERY_MAX) {
			log_debug("resolver: tcp: a %zu-byte message: "
			    "closing", len);
			client_free(cl);
			return;
		}
		if (evbuffer_get_length(in) < 2 + len)
			break;
		(void)evbuffer_drain(in, 2);
		(void)evbuffer_remove(in, msg, len);
		if (query(cl, msg, len) == -1) {
			log_debug("resolver: tcp: no DNS header: "
			    "closing");
			client_free(cl);
			return;
		}
	}
	if (cl->closing && TAILQ_EMPTY(&cl->queries) &&
	    evbuffer_get_length(bufferevent_get_output(cl->bev)) == 0)
		client_free(cl);
}

static void
readcb(struct bufferevent *bev, void *arg)
{
	process(arg);
}

static void
writecb(struct bufferevent *bev, void *arg)
{
	struct tcp_client	*cl = arg;

	if (cl->closing && TAILQ_EMPTY(&cl->queries))
		client_free(cl);
}

static void
eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct tcp_client	*cl = arg;

	if ((what & BEV_EVENT_TIMEOUT) && (what & BEV_EVENT_READING) &&
	    !TAILQ_EMPTY(&cl->queries)) {
		/* not idle: its answers are on their way from upstream */
		(void)bufferevent_enable(bev, EV_READ);
		return;
	}
	if ((what & BEV_EVENT_EOF) && (!TAILQ_EMPTY(&cl->queries) ||
	    evbuffer_get_length(bufferevent_get_output(bev)) > 0)) {
		/* half closed: what was asked is still answered */
		cl->closing = 1;
		(void)bufferevent_disable(bev, EV_READ);
		return;
	}
	client_free(cl);
}

/* the connections container src holds now */
static size_t
clients_of(uint32_t src)
{
	struct tcp_client	*cl;
	size_t			 n = 0;

	TAILQ_FOREACH(cl, &clients, entry)
		if (cl->src == src)
			n++;
	return n;
}

static void
accepted(struct evconnlistener *lev, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct tcp_client	*cl;
	struct timeval		 idle = { TCP_IDLE, 0 };
	uint32_t		 src;
	const char		*why = NULL;

	if (sa->sa_family != AF_INET || (size_t)salen < sizeof(struct
	    sockaddr_in)) {
		close(fd);
		return;
	}
	src = ntohl(((struct sockaddr_in *)(void *)sa)->sin_addr.s_addr);
	/* only the containers jb-netd enforces are answered at all */
	if (!resolver_is_container(src))
		why = "no container";
	else if (nclients >= TCP_CLIENTS_MAX)
		why = "too many clients";
	else if (clients_of(src) >= TCP_CLIENTS_CTR)
		why = "too many clients from this container";
	if (why != NULL) {
		log_debug("resolver: tcp: %s: refused (%s)",
		    inet_ntoa(((struct sockaddr_in *)(void *)sa)->sin_addr),
		    why);
		close(fd);
		return;
	}
	if ((cl = calloc(1, sizeof(*cl))) == NULL)
		fatal("resolver: tcp client");
	if ((cl->bev = bufferevent_socket_new(tcp_base, fd,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		log_warnx("resolver: tcp: cannot serve a client");
		close(fd);
		free(cl);
		return;
	}
	cl->src = src;
	TAILQ_INIT(&cl->queries);
	TAILQ_INSERT_TAIL(&clients, cl, entry);
	nclients++;
	bufferevent_setcb(cl->bev, readcb, writecb, eventcb, cl);
	bufferevent_set_timeouts(cl->bev, &idle, &idle);
	/* reading pauses while the queue is full and this much waits */
	bufferevent_setwatermark(cl->bev, EV_READ, 0,
	    TCP_PENDING_MAX * (2 + DNSWIRE_QUERY_MAX));
	(void)bufferevent_enable(cl->bev, EV_READ);
}

static void
accept_failed(struct evconnlistener *lev, void *arg)
{
	/* out of descriptors, most likely: the listener keeps trying */
	log_warn("resolver: tcp: accept");
}

int
resolver_tcp_init(struct event_base *base, uint32_t host, uint16_t port,
    char *err, size_t errlen)
{
	struct evconnlistener	*lev;
	struct sockaddr_in	 sin;
	int			 fd, on = 1;

	tcp_base = base;
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1) {
		snprintf(err, errlen, "resolver tcp socket: %s",
		    strerror(errno));
		return -1;
	}
	/* a restart must not wait for the last run's connections to expire */
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(host);
	sin.sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, TCP_BACKLOG) == -1) {
		snprintf(err, errlen, "resolver: cannot listen on tcp port %u "
		    "of the bridge address: %s", (unsigned)port,
		    strerror(errno));
		close(fd);
		return -1;
	}
	/* backlog -1: listening already, before the lock-down */
	if ((lev = evconnlistener_new(base, accepted, NULL,
	    LEV_OPT_CLOSE_ON_FREE, -1, fd)) == NULL) {
		snprintf(err, errlen, "cannot serve DNS over tcp");
		close(fd);
		return -1;
	}
	evconnlistener_set_error_cb(lev, accept_failed);
	return 0;
}
