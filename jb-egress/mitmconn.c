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
 * The terminated connections on the event loop: the container's socket
 * (taken over from conn.c after its ClientHello was admitted), the
 * server's, and a struct mitm between them.  Each substitution is told
 * to the parent for the journal (container, secret, host, never the
 * value); a failure on either side is a refusal in the net log.
 */

#include <sys/queue.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event.h>

#include "ca.h"
#include "egress.h"
#include "egsecrets.h"
#include "log.h"
#include "mitm.h"

#define MITMC_MAX	256		/* terminated connections at once */
#define IDLE_SECS	300
#define OBUF		16384
/* a side is not read while this much waits to go to the other */
#define HIGH_WATER	(1024 * 1024)

struct obuf {
	char	b[OBUF];
	size_t	off, len;
};

struct mc {
	TAILQ_ENTRY(mc)	 entry;
	int		 cfd, sfd;
	int		 connected;
	struct mitm	*m;
	char		 ctr[JB_INSTANCE_MAX];
	char		 host[256];
	char		 names[SUBST_MAX][64];
	size_t		 nsec;
	uint32_t	 dst;
	uint16_t	 port;
	int		 ceof, seof;
	struct obuf	 co, so;	/* to the client, to the server */
	struct event	 crev, cwev, srev, swev, tmo;
};

TAILQ_HEAD(mcs, mc);
static struct mcs	 mcs = TAILQ_HEAD_INITIALIZER(mcs);
static size_t		 nmc;
/*
 * The trust store for the real servers: its file is opened before the
 * lock-down and read when the first terminated connection needs it, so
 * a gateway that terminates nothing holds no certificate store.
 */
static SSL_CTX		*upctx;
static int		 trustfd = -1;
static char		 trustname[PATH_MAX];

int
mitmc_init(const char *trustfile)
{
	(void)strlcpy(trustname, trustfile, sizeof(trustname));
	if ((trustfd = open(trustfile, O_RDONLY | O_CLOEXEC)) == -1) {
		log_warnx("network.gateway_trust: %s: cannot load the trust "
		    "store: %s: secrets are not put in (their hosts' "
		    "connections are refused)", trustfile, strerror(errno));
		return -1;
	}
	return 0;
}

/* the context for the real servers, made at its first use */
static SSL_CTX *
upstream(void)
{
	char	why[512];

	if (upctx != NULL || trustfd == -1)
		return upctx;
	if ((upctx = mitm_upstream_ctx(trustfd, trustname, why,
	    sizeof(why))) == NULL)
		log_warnx("network.gateway_trust: %s: secrets are not put in "
		    "(their hosts' connections are refused)", why);
	else
		log_debug("network.gateway_trust: %s read", trustname);
	(void)close(trustfd);
	trustfd = -1;
	return upctx;
}

size_t
mitmc_open(void)
{
	return nmc;
}

static void
mc_free(struct mc *c)
{
	event_del(&c->crev);
	event_del(&c->cwev);
	event_del(&c->srev);
	event_del(&c->swev);
	event_del(&c->tmo);
	if (c->cfd != -1)
		close(c->cfd);
	if (c->sfd != -1)
		close(c->sfd);
	mitm_free(c->m);
	TAILQ_REMOVE(&mcs, c, entry);
	nmc--;
	free(c);
}

static void
journal(struct mc *c)
{
	struct jb_egress_subst	s;
	uint32_t		u = mitm_take_used(c->m);
	size_t			i;

	for (i = 0; i < c->nsec; i++) {
		if (!(u & (1U << i)))
			continue;
		memset(&s, 0, sizeof(s));
		(void)strlcpy(s.ctr, c->ctr, sizeof(s.ctr));
		(void)strlcpy(s.name, c->names[i], sizeof(s.name));
		(void)strlcpy(s.host, c->host, sizeof(s.host));
		if (imsgev_compose(&chld->iev, IMSG_EGRESS_SUBST, 0, 0, -1,
		    &s, sizeof(s)) == -1)
			fatal("compose");
	}
}

/* what waits for fd goes out; -1 on a broken socket */
static int
flush(struct mc *c, int fd, struct obuf *o, struct event *wev, int client)
{
	ssize_t	n;

	for (;;) {
		if (o->off == o->len) {
			o->off = 0;
			o->len = client ? mitm_client_out(c->m, o->b,
			    sizeof(o->b)) : mitm_server_out(c->m, o->b,
			    sizeof(o->b));
			if (o->len == 0)
				return 0;
		}
		n = send(fd, o->b + o->off, o->len - o->off, MSG_NOSIGNAL);
		if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
			event_add(wev, NULL);
			return 0;
		}
		if (n <= 0)
			return -1;
		o->off += (size_t)n;
	}
}

static int
waiting(const struct mc *c)
{
	return c->co.off != c->co.len || c->so.off != c->so.len ||
	    mitm_client_pending(c->m) > 0 || mitm_server_pending(c->m) > 0;
}

/* after every step: out what can go, the end when it came */
static void
mc_step(struct mc *c)
{
	struct timeval		tv = { IDLE_SECS, 0 };
	enum mitm_state		st = mitm_state(c->m);

	journal(c);
	if (flush(c, c->cfd, &c->co, &c->cwev, 1) == -1 ||
	    (c->connected && flush(c, c->sfd, &c->so, &c->swev, 0) == -1)) {
		mc_free(c);
		return;
	}
	if (st == MITM_CLIENT_FAILED || st == MITM_SERVER_FAILED ||
	    st == MITM_REFUSED) {
		conn_refused(c->ctr, c->host, c->dst, c->port,
		    mitm_error(c->m), 0);
		/* an alert may still be on its way to the client */
		(void)flush(c, c->cfd, &c->co, &c->cwev, 1);
		mc_free(c);
		return;
	}
	if ((st == MITM_DONE || (c->ceof && c->seof)) && !waiting(c)) {
		mc_free(c);
		return;
	}
	/* each side is read while the other keeps up */
	if (!c->ceof && mitm_server_pending(c->m) < HIGH_WATER)
		event_add(&c->crev, NULL);
	else
		event_del(&c->crev);
	if (c->connected && !c->seof &&
	    mitm_client_pending(c->m) < HIGH_WATER)
		event_add(&c->srev, NULL);
	else if (c->connected)
		event_del(&c->srev);
	evtimer_add(&c->tmo, &tv);
}

static void
mc_read(struct mc *c, int client)
{
	char	buf[OBUF];
	ssize_t	n;
	int	fd = client ? c->cfd : c->sfd;

	n = recv(fd, buf, sizeof(buf), 0);
	if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
		mc_step(c);
		return;
	}
	if (n <= 0) {
		if (client) {
			c->ceof = 1;
			(void)mitm_client_eof(c->m);
		} else {
			c->seof = 1;
			(void)mitm_server_eof(c->m);
		}
	} else {
		if (client)
			(void)mitm_client_in(c->m, buf, (size_t)n);
		else
			(void)mitm_server_in(c->m, buf, (size_t)n);
	}
	explicit_bzero(buf, sizeof(buf));
	mc_step(c);
}

static void
crev_fire(int fd, short ev, void *arg)
{
	mc_read(arg, 1);
}

static void
srev_fire(int fd, short ev, void *arg)
{
	mc_read(arg, 0);
}

static void
wev_fire(int fd, short ev, void *arg)
{
	mc_step(arg);
}

static void
tmo_fire(int fd, short ev, void *arg)
{
	struct mc	*c = arg;

	log_info("%s: %s: a terminated connection idle for %d s: closed",
	    c->ctr, c->host, IDLE_SECS);
	mc_free(c);
}

static void
connected(int fd, short ev, void *arg)
{
	struct mc	*c = arg;
	int		 err = 0;
	socklen_t	 len = sizeof(err);

	if (getsockopt(c->sfd, SOL_SOCKET, SO_ERROR, &err, &len) == -1 ||
	    err != 0) {
		log_info("%s: %s: cannot reach the destination: %s", c->ctr,
		    c->host, strerror(err != 0 ? err : errno));
		mc_free(c);
		return;
	}
	c->connected = 1;
	event_set(&c->swev, c->sfd, EV_WRITE, wev_fire, c);
	event_set(&c->srev, c->sfd, EV_READ, srev_fire, c);
	mc_step(c);
}

int
mitmc_start(int cfd, uint32_t src, uint32_t dst, uint16_t port,
    const char *host, const char *hello, size_t hellolen)
{
	struct subst_secret	 s[SUBST_MAX];
	const char		*names[SUBST_MAX], *ctr = "";
	struct sockaddr_in	 sin;
	struct ca		*ca;
	SSL_CTX			*cctx;
	struct mc		*c;
	size_t			 n, i;

	if ((n = egsec_match(src, host, s, names, SUBST_MAX, &ctr)) == 0)
		return 1;
	if (upstream() == NULL || nmc >= MITMC_MAX ||
	    (ca = egsec_ca(ctr)) == NULL ||
	    (cctx = ca_server_ctx(ca, host)) == NULL ||
	    (c = calloc(1, sizeof(*c))) == NULL) {
		conn_refused(ctr, host, dst, port, upctx == NULL ?
		    "a secret's host, and the gateway has no trust store to "
		    "verify it with (network.gateway_trust)" :
		    "a secret's host, and no terminated connection can be "
		    "made now", 0);
		close(cfd);
		return -1;
	}
	c->cfd = cfd;
	c->sfd = -1;
	c->dst = dst;
	c->port = port;
	(void)strlcpy(c->ctr, ctr, sizeof(c->ctr));
	(void)strlcpy(c->host, host, sizeof(c->host));
	for (i = 0; i < n; i++)
		(void)strlcpy(c->names[i], names[i], sizeof(c->names[i]));
	c->nsec = n;
	TAILQ_INSERT_TAIL(&mcs, c, entry);
	nmc++;
	event_set(&c->crev, c->cfd, EV_READ, crev_fire, c);
	event_set(&c->cwev, c->cfd, EV_WRITE, wev_fire, c);
	evtimer_set(&c->tmo, tmo_fire, c);
	if ((c->m = mitm_new(cctx, upctx, host, s, n)) == NULL ||
	    (c->sfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		log_warn("%s: %s: a terminated connection", ctr, host);
		mc_free(c);
		return 0;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(dst);
	sin.sin_port = htons(port);
	event_set(&c->swev, c->sfd, EV_WRITE, connected, c);
	if (connect(c->sfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
	    errno != EINPROGRESS) {
		log_info("%s: %s: cannot reach the destination: %s", ctr, host,
		    strerror(errno));
		mc_free(c);
		return 0;
	}
	event_add(&c->swev, NULL);
	(void)mitm_client_in(c->m, hello, hellolen);
	mc_step(c);
	return 0;
}
