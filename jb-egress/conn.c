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
 * The gateway's connections.  Each one: accepted from the socket the
 * parent handed in, its source the container, its original destination
 * read from conntrack (SO_ORIGINAL_DST); then its first bytes decide:
 *
 *  - a TLS ClientHello: its server name, checked (gwpolicy.c); admitted,
 *    the destination is connected, the ClientHello sent on, and both
 *    directions spliced by the kernel; refused, a fatal access_denied
 *    alert.
 *  - an HTTP/1.x request head: its Host, checked; admitted, the
 *    destination is connected and every later head on the connection is
 *    read and checked the same way before it is sent on (the bodies
 *    between by their framing); the answers are spliced.  Refused, a 403
 *    naming the host, the container and the command that would admit it
 *    (a later head refused ends the connection).
 *  - anything else: closed.
 *
 * Nothing waits forever: a connection must show its first head within
 * HEAD_SECS and reach its destination within as long; past that it is
 * closed, and its slot is free.
 */

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/queue.h>

#include <arpa/inet.h>
#include <linux/netfilter_ipv4.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event.h>

#include "egress.h"
#include "egsecrets.h"
#include "gwpolicy.h"
#include "httphead.h"
#include "log.h"
#include "pump.h"
#include "testhook.h"
#include "tlshello.h"

#define HEAD_SECS	jb_test_secs(10, 2)
#define LINGER_SECS	2
#define BUF_INIT	4096
#define TLS_BUF_MAX	(TLSHELLO_MAX + 8 * 1024)
#define HTTP_BUF_MAX	(2 * HTTPHEAD_MAX)

enum cstate { C_HEAD, C_CONNECTING, C_RELAY, C_LINGER };
enum ckind { K_UNKNOWN, K_TLS, K_HTTP };
enum hstate { H_HEAD, H_LENGTH, H_CHUNKED };

struct conn;

struct conn {
	TAILQ_ENTRY(conn) entry;
	int		 cfd, sfd;
	uint32_t	 src, dst;
	uint16_t	 dport;
	char		 ctr[JB_INSTANCE_MAX];
	char		 host[HTTPHEAD_NAME_MAX + 1];
	enum cstate	 state;
	enum ckind	 kind;
	struct event	 crev, cwev, srev, swev, tmo;
	/* client to server, through us: the head(s) and, for HTTP, all */
	char		*buf;
	size_t		 cap, blen, boff, checked;
	int		 ceof;		/* the client is done sending */
	int		 updone;	/* and we passed that on */
	/* HTTP's framing of what comes after each head */
	enum hstate	 hs;
	uint64_t	 left;
	struct httpchunk ch;
	struct pump	 down, up;	/* server to client; TLS's client up */
	uint32_t	 fresh;		/* waiting for its secrets anew: id */
};

TAILQ_HEAD(conns, conn);
static struct conns	 conns = TAILQ_HEAD_INITIALIZER(conns);
static struct event	 acc_ev, acc_pause;
static int		 listen_fd = -1;
size_t			 conns_max;
static uint32_t		 local_addr;

static void	conn_free(struct conn *);
static void	conn_tls_go(struct conn *);
static uint32_t	fresh_id;
static void	up_run(struct conn *);
static int64_t
time_mono(void)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static char *
a4(uint32_t a, char *buf, size_t len)
{
	struct in_addr	in;

	in.s_addr = htonl(a);
	(void)inet_ntop(AF_INET, &in, buf, len);
	return buf;
}

void
conn_refused(const char *ctr, const char *host, uint32_t dst, uint16_t port,
    const char *why, int fixable)
{
	struct jb_egress_refused	r;
	char				a[INET_ADDRSTRLEN];

	stats.refused++;
	memset(&r, 0, sizeof(r));
	(void)strlcpy(r.name, ctr, sizeof(r.name));
	(void)strlcpy(r.host, host, sizeof(r.host));
	(void)strlcpy(r.ipv4, a4(dst, a, sizeof(a)), sizeof(r.ipv4));
	r.port = port;
	(void)strlcpy(r.why, why, sizeof(r.why));
	r.fixable = fixable;
	log_info("refused %s to %s:%u%s%s: %s", ctr[0] != '\0' ? ctr :
	    "an unknown source", r.ipv4, (unsigned)port,
	    host[0] != '\0' ? " for " : "", host, why);
	if (imsgev_compose(&chld->iev, IMSG_EGRESS_REFUSED, 0, 0, -1, &r,
	    sizeof(r)) == -1)
		fatal("compose");
}

static void
ctr_count(const char *ctr, size_t *n)
{
	struct conn	*c;

	*n = 0;
	TAILQ_FOREACH(c, &conns, entry)
		if (strcmp(c->ctr, ctr) == 0)
			(*n)++;
}

static void
tmo_fire(int fd, short ev, void *arg)
{
	struct conn	*c = arg;

	if (c->state == C_HEAD && c->fresh != 0)
		conn_refused(c->ctr, c->host, c->dst, c->dport,
		    "the secrets' current values did not come in time", 0);
	else if (c->state == C_HEAD)
		conn_refused(c->ctr, c->host, c->dst, c->dport,
		    "no complete request head in time", 0);
	else if (c->state == C_CONNECTING)
		log_info("%s: %s: the destination did not answer in time",
		    c->ctr, c->host);
	conn_free(c);
}

static void
conn_free(struct conn *c)
{
	event_del(&c->crev);
	event_del(&c->cwev);
	event_del(&c->srev);
	event_del(&c->swev);
	event_del(&c->tmo);
	pump_stop(&c->down);
	pump_stop(&c->up);
	if (c->cfd != -1)
		close(c->cfd);
	if (c->sfd != -1)
		close(c->sfd);
	free(c->buf);
	TAILQ_REMOVE(&conns, c, entry);
	stats.open--;
	free(c);
}

/* both directions through: the connection is over (1: freed) */
static int
conn_maybe_end(struct conn *c)
{
	int	upok = c->kind == K_TLS ? c->up.done : c->updone;

	if (upok && c->down.done) {
		conn_free(c);
		return 1;
	}
	return 0;
}

/* what a pump of the connection calls */
static void
conn_free_cb(void *c)
{
	conn_free(c);
}

static int
conn_end_cb(void *c)
{
	return conn_maybe_end(c);
}

/* after a refusal: say nothing more, read what still comes, then close */
static void
linger_read(int fd, short ev, void *arg)
{
	struct conn	*c = arg;
	char		 junk[4096];
	ssize_t		 n;

	n = recv(c->cfd, junk, sizeof(junk), 0);
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		conn_free(c);
		return;
	}
	event_add(&c->crev, NULL);
}

static void
conn_linger(struct conn *c, const char *msg, size_t len)
{
	struct timeval	tv = { LINGER_SECS, 0 };

	if (len > 0)
		(void)send(c->cfd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)shutdown(c->cfd, SHUT_WR);
	if (c->sfd != -1) {
		close(c->sfd);
		c->sfd = -1;
	}
	event_del(&c->crev);
	event_del(&c->cwev);
	event_del(&c->srev);
	event_del(&c->swev);
	event_del(&c->down.rev);
	event_del(&c->down.wev);
	event_del(&c->up.rev);
	event_del(&c->up.wev);
	c->state = C_LINGER;
	event_set(&c->crev, c->cfd, EV_READ, linger_read, c);
	event_add(&c->crev, NULL);
	event_del(&c->tmo);
	evtimer_add(&c->tmo, &tv);
}

/* TLS: a fatal access_denied alert, then close */
static void
refuse_tls(struct conn *c, const char *why, int fixable)
{
	static const char alert[] = { 0x15, 0x03, 0x03, 0x00, 0x02, 0x02,
	    0x31 };

	conn_refused(c->ctr, c->host, c->dst, c->dport, why, fixable);
	conn_linger(c, alert, sizeof(alert));
}

/* HTTP: 403 with a body the agent can read */
static void
refuse_http(struct conn *c, const char *why, int fixable)
{
	char	body[1024], msg[1536];
	int	blen, mlen;

	conn_refused(c->ctr, c->host, c->dst, c->dport, why, fixable);
	if (fixable)
		blen = snprintf(body, sizeof(body), "jailbee: %s:%u is not "
		    "on the egress allowlist of container %s (%s).\n"
		    "To allow it: jbctl net egress add %s:%u %s\n", c->host,
		    (unsigned)c->dport, c->ctr, why, c->host,
		    (unsigned)c->dport, c->ctr);
	else
		blen = snprintf(body, sizeof(body), "jailbee: request from "
		    "container %s refused: %s\n", c->ctr, why);
	if (blen < 0 || (size_t)blen >= sizeof(body))
		blen = (int)strlen(body);
	mlen = snprintf(msg, sizeof(msg), "HTTP/1.1 403 Forbidden\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Length: %d\r\nConnection: close\r\n\r\n%s", blen, body);
	if (mlen < 0 || (size_t)mlen >= sizeof(msg))
		mlen = (int)strlen(msg);
	conn_linger(c, msg, (size_t)mlen);
}

/*
 * The HTTP bytes after checked: heads parsed and judged, bodies passed
 * by their framing.  0 when all that can be judged now is, -1 when the
 * connection was refused (and is lingering or gone).
 */
static int
http_judge(struct conn *c)
{
	struct httphead		 h;
	const struct gw_ctr	*ctr;
	enum gw_verdict		 v;
	char			 why[128];
	size_t			 avail, take;
	long			 r;
	int			 rc;

	while (c->checked < c->blen) {
		avail = c->blen - c->checked;
		switch (c->hs) {
		case H_HEAD:
			rc = httphead_parse(c->buf + c->checked, avail, 0, &h,
			    why, sizeof(why));
			if (rc == 0)
				return 0;
			if (rc == -1) {
				refuse_http(c, why, 0);
				return -1;
			}
			(void)strlcpy(c->host, h.host, sizeof(c->host));
			if (h.port != 0 && h.port != c->dport) {
				refuse_http(c, "the Host names another port",
				    0);
				return -1;
			}
			v = gwpol_check(c->src, h.host, c->dst, c->dport,
			    (int64_t)time_mono(), &ctr);
			if (v != GW_ADMIT) {
				refuse_http(c, gwpol_str(v),
				    v == GW_NOT_ALLOWED);
				return -1;
			}
			c->checked += h.headlen;
			if (h.chunked) {
				c->hs = H_CHUNKED;
				httpchunk_init(&c->ch);
			} else if (h.length > 0) {
				c->hs = H_LENGTH;
				c->left = h.length;
			}
			break;
		case H_LENGTH:
			take = avail < c->left ? avail : (size_t)c->left;
			c->checked += take;
			c->left -= take;
			if (c->left == 0)
				c->hs = H_HEAD;
			break;
		case H_CHUNKED:
			if ((r = httpchunk_feed(&c->ch, c->buf + c->checked,
			    avail)) == -1) {
				conn_refused(c->ctr, c->host, c->dst,
				    c->dport, "a broken chunked body", 0);
				conn_free(c);
				return -1;
			}
			c->checked += (size_t)r;
			if (c->ch.done)
				c->hs = H_HEAD;
			break;
		}
	}
	return 0;
}

/* room to read into: grow up to max, or move what is left down */
static int
buf_room(struct conn *c, size_t max)
{
	char	*nb;
	size_t	 ncap;

	if (c->boff > 0 && c->boff == c->checked) {
		memmove(c->buf, c->buf + c->boff, c->blen - c->boff);
		c->blen -= c->boff;
		c->checked -= c->boff;
		c->boff = 0;
	}
	if (c->blen < c->cap)
		return 0;
	if (c->cap >= max)
		return -1;
	ncap = c->cap == 0 ? BUF_INIT : c->cap * 2;
	if (ncap > max)
		ncap = max;
	if ((nb = realloc(c->buf, ncap)) == NULL)
		return -1;
	c->buf = nb;
	c->cap = ncap;
	return 0;
}

static void
up_ev(int fd, short ev, void *arg)
{
	up_run(arg);
}

/*
 * Client to server through our buffer: what was judged goes out, what
 * comes in is judged.  TLS passes to the kernel's splice once the
 * ClientHello is out.
 */
static void
up_run(struct conn *c)
{
	ssize_t	n;

	for (;;) {
		if (c->boff < c->checked) {
			n = send(c->sfd, c->buf + c->boff, c->checked -
			    c->boff, MSG_NOSIGNAL);
			if (n == -1 && errno == EAGAIN) {
				event_add(&c->swev, NULL);
				return;
			}
			if (n <= 0) {
				conn_free(c);
				return;
			}
			c->boff += (size_t)n;
			continue;
		}
		if (c->kind == K_TLS) {
			/* what followed the ClientHello, and the rest */
			c->checked = c->blen;
			if (c->boff < c->checked)
				continue;
			free(c->buf);
			c->buf = NULL;
			c->blen = c->boff = c->checked = c->cap = 0;
			(void)pump_run(&c->up);
			return;
		}
		if (c->checked < c->blen && http_judge(c) == -1)
			return;
		if (c->boff < c->checked)
			continue;
		if (c->ceof) {
			/* a head cut short by the end is not sent on */
			(void)shutdown(c->sfd, SHUT_WR);
			c->updone = 1;
			(void)conn_maybe_end(c);
			return;
		}
		if (buf_room(c, HTTP_BUF_MAX) == -1) {
			refuse_http(c, "a request head over 16 KiB", 0);
			return;
		}
		n = recv(c->cfd, c->buf + c->blen, c->cap - c->blen, 0);
		if (n == -1 && errno == EAGAIN) {
			event_add(&c->crev, NULL);
			return;
		}
		if (n == -1) {
			conn_free(c);
			return;
		}
		if (n == 0)
			c->ceof = 1;
		c->blen += (size_t)n;
	}
}

static void
connected(int fd, short ev, void *arg)
{
	struct conn	*c = arg;
	int		 err = 0;
	socklen_t	 len = sizeof(err);

	if (getsockopt(c->sfd, SOL_SOCKET, SO_ERROR, &err, &len) == -1 ||
	    err != 0) {
		log_info("%s: %s: cannot reach the destination: %s", c->ctr,
		    c->host, strerror(err));
		if (c->kind == K_HTTP) {
			static const char bad[] = "HTTP/1.1 502 Bad Gateway\r\n"
			    "Content-Length: 0\r\nConnection: close\r\n\r\n";

			conn_linger(c, bad, sizeof(bad) - 1);
		} else
			conn_free(c);
		return;
	}
	event_del(&c->tmo);
	c->state = C_RELAY;
	stats.admitted++;
	event_set(&c->crev, c->cfd, EV_READ, up_ev, c);
	event_set(&c->swev, c->sfd, EV_WRITE, up_ev, c);
	if (pump_init(&c->down, c, conn_free_cb, conn_end_cb, c->sfd,
	    c->cfd) == -1 || (c->kind == K_TLS && pump_init(&c->up, c,
	    conn_free_cb, conn_end_cb, c->cfd, c->sfd) == -1)) {
		log_warn("pipe");
		conn_free(c);
		return;
	}
	/* the answers may end it at once: only a live one goes on */
	if (pump_run(&c->down) == 1)
		return;
	up_run(c);
}

static void
conn_connect(struct conn *c)
{
	struct sockaddr_in	sin;

	if ((c->sfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		log_warn("socket");
		conn_free(c);
		return;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(c->dst);
	sin.sin_port = htons(c->dport);
	c->state = C_CONNECTING;
	event_set(&c->swev, c->sfd, EV_WRITE, connected, c);
	if (connect(c->sfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
	    errno != EINPROGRESS) {
		log_info("%s: %s: cannot reach the destination: %s", c->ctr,
		    c->host, strerror(errno));
		conn_free(c);
		return;
	}
	event_add(&c->swev, NULL);
}

/* the first bytes: which protocol, which name, and the verdict */
static void
head_read(int fd, short ev, void *arg)
{
	struct conn		*c = arg;
	const struct gw_ctr	*ctr;
	enum tlshello_rc	 rc;
	enum gw_verdict		 v;
	char			 name[TLSHELLO_NAME_MAX + 1];
	ssize_t			 n;
	size_t			 max;

	max = c->kind == K_HTTP ? HTTP_BUF_MAX : TLS_BUF_MAX;
	if (buf_room(c, max) == -1) {
		if (c->kind == K_HTTP)
			refuse_http(c, "a request head over 16 KiB", 0);
		else
			refuse_tls(c, "a ClientHello too long", 0);
		return;
	}
	n = recv(c->cfd, c->buf + c->blen, c->cap - c->blen, 0);
	if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
		event_add(&c->crev, NULL);
		return;
	}
	if (n <= 0) {
		if (c->blen > 0)
			conn_refused(c->ctr, c->host, c->dst, c->dport,
			    "the client closed before its first request "
			    "head was complete", 0);
		conn_free(c);
		return;
	}
	c->blen += (size_t)n;
	if (c->kind == K_UNKNOWN) {
		unsigned char	b = (unsigned char)c->buf[0];

		if (b == 0x16)
			c->kind = K_TLS;
		else if (b >= 'A' && b <= 'Z')
			c->kind = K_HTTP;
		else {
			conn_refused(c->ctr, "", c->dst, c->dport, "neither "
			    "TLS nor HTTP/1.x", 0);
			conn_linger(c, NULL, 0);
			return;
		}
	}
	if (c->kind == K_HTTP) {
		if (http_judge(c) == -1)
			return;
		if (c->checked == 0) {
			event_add(&c->crev, NULL);
			return;
		}
		event_del(&c->crev);
		conn_connect(c);
		return;
	}
	rc = tlshello_parse((const uint8_t *)c->buf, c->blen, name,
	    sizeof(name), NULL);
	switch (rc) {
	case TLSHELLO_MORE:
		event_add(&c->crev, NULL);
		return;
	case TLSHELLO_NAME:
		break;
	default:
		refuse_tls(c, tlshello_str(rc), 0);
		return;
	}
	(void)strlcpy(c->host, name, sizeof(c->host));
	v = gwpol_check(c->src, name, c->dst, c->dport, (int64_t)time_mono(),
	    &ctr);
	if (v != GW_ADMIT) {
		refuse_tls(c, gwpol_str(v), v == GW_NOT_ALLOWED);
		return;
	}
	/*
	 * a secret's host: the parent reads the container's configuration
	 * and files again first, so that a changed value or a removed
	 * entry holds from this connection on
	 */
	event_del(&c->crev);
	if (egsec_wanted(c->src, name)) {
		c->fresh = conn_fresh_ask(c->ctr);
		return;
	}
	conn_tls_go(c);
}

uint32_t
conn_fresh_ask(const char *ctr)
{
	struct jb_egress_fresh	f;

	if (++fresh_id == 0)
		fresh_id = 1;
	memset(&f, 0, sizeof(f));
	(void)strlcpy(f.ctr, ctr, sizeof(f.ctr));
	f.id = fresh_id;
	if (imsgev_compose(&chld->iev, IMSG_EGRESS_FRESH_ASK, 0, 0, -1, &f,
	    sizeof(f)) == -1)
		fatal("compose");
	return fresh_id;
}

/* terminated (egsecrets.h) when a secret applies, else spliced */
static void
conn_tls_go(struct conn *c)
{
	c->fresh = 0;
	switch (mitmc_start(c->cfd, c->src, c->dst, c->dport, c->host,
	    c->buf, c->blen)) {
	case 0:
		stats.admitted++;
		/* FALLTHROUGH */
	case -1:
		c->cfd = -1;
		conn_free(c);
		return;
	}
	/* the ClientHello goes on as it came, with whatever followed */
	c->checked = c->blen;
	conn_connect(c);
}

void
conn_fresh(uint32_t id)
{
	struct conn	*c;

	TAILQ_FOREACH(c, &conns, entry)
		if (c->fresh == id) {
			conn_tls_go(c);
			return;
		}
	/* else one of the explicit proxy's */
	proxy_fresh(id);
}

static void
conn_accept(int fd, short ev, void *arg)
{
	struct sockaddr_in	 peer, orig, self;
	socklen_t		 len;
	struct conn		*c;
	struct timeval		 tv = { HEAD_SECS, 0 };
	const struct gw_ctr	*ctr;
	char			 a[INET_ADDRSTRLEN];
	size_t			 n;
	int			 s;

	len = sizeof(peer);
	if ((s = accept4(listen_fd, (struct sockaddr *)&peer, &len,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			/* out of descriptors: wait a little, do not spin */
			struct timeval	pause = { 0, 100 * 1000 };

			log_warn("accept");
			evtimer_add(&acc_pause, &pause);
			return;
		}
		if (errno != EAGAIN && errno != EINTR &&
		    errno != ECONNABORTED)
			log_warn("accept");
		event_add(&acc_ev, NULL);
		return;
	}
	event_add(&acc_ev, NULL);
	len = sizeof(orig);
	if (peer.sin_family != AF_INET || getsockopt(s, SOL_IP,
	    SO_ORIGINAL_DST, &orig, &len) == -1) {
		close(s);
		return;
	}
	len = sizeof(self);
	if (getsockname(s, (struct sockaddr *)&self, &len) == -1) {
		close(s);
		return;
	}
	ctr = gwpol_find(ntohl(peer.sin_addr.s_addr));
	/* not redirected here: someone connected to the gateway itself */
	if (orig.sin_addr.s_addr == self.sin_addr.s_addr &&
	    orig.sin_port == self.sin_port) {
		conn_refused(ctr != NULL ? ctr->name : "",
		    "", ntohl(orig.sin_addr.s_addr), ntohs(orig.sin_port),
		    "a connection to the gateway itself", 0);
		close(s);
		return;
	}
	if (ctr == NULL) {
		conn_refused("", "", ntohl(orig.sin_addr.s_addr),
		    ntohs(orig.sin_port), "no container has the source "
		    "address", 0);
		log_info("(source %s)", a4(ntohl(peer.sin_addr.s_addr), a,
		    sizeof(a)));
		close(s);
		return;
	}
	ctr_count(ctr->name, &n);
	if (stats.open >= conns_max || n >= CONNS_PER_CTR) {
		conn_refused(ctr->name, "", ntohl(orig.sin_addr.s_addr),
		    ntohs(orig.sin_port), "too many connections open", 0);
		close(s);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		close(s);
		return;
	}
	c->cfd = s;
	c->sfd = -1;
	pump_prepare(&c->down);
	pump_prepare(&c->up);
	c->src = ntohl(peer.sin_addr.s_addr);
	c->dst = ntohl(orig.sin_addr.s_addr);
	c->dport = ntohs(orig.sin_port);
	(void)strlcpy(c->ctr, ctr->name, sizeof(c->ctr));
	TAILQ_INSERT_TAIL(&conns, c, entry);
	stats.open++;
	event_set(&c->crev, s, EV_READ, head_read, c);
	event_set(&c->cwev, s, EV_WRITE, up_ev, c);
	evtimer_set(&c->srev, tmo_fire, c);
	evtimer_set(&c->tmo, tmo_fire, c);
	event_set(&c->swev, -1, EV_WRITE, up_ev, c);
	evtimer_add(&c->tmo, &tv);
	event_add(&c->crev, NULL);
}

static void
accept_resume(int fd, short ev, void *arg)
{
	event_add(&acc_ev, NULL);
}

void
conn_limits(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		fatal("getrlimit");
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1024 * 1024)
		rl.rlim_cur = 1024 * 1024;
	if (rl.rlim_cur < FDS_SPARE + FDS_PER_CONN)
		fatalx("%llu open files are too few for the gateway",
		    (unsigned long long)rl.rlim_cur);
	conns_max = (size_t)(rl.rlim_cur - FDS_SPARE) / FDS_PER_CONN;
	evtimer_set(&acc_pause, accept_resume, NULL);
}

void
conn_listen(int fd)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	char			a[INET_ADDRSTRLEN];

	if (listen_fd != -1)
		fatalx("a second listening socket");
	if (getsockname(fd, (struct sockaddr *)&sin, &len) == -1 ||
	    sin.sin_family != AF_INET)
		fatalx("the listening socket is not IPv4");
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		fatal("fcntl");
	listen_fd = fd;
	local_addr = ntohl(sin.sin_addr.s_addr);
	event_set(&acc_ev, fd, EV_READ, conn_accept, NULL);
	event_add(&acc_ev, NULL);
	log_info("gateway listening on %s:%u", a4(local_addr, a, sizeof(a)),
	    (unsigned)ntohs(sin.sin_port));
}
