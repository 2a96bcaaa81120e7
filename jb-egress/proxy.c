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
 * The explicit proxy, for tools that want one (HTTP_PROXY): on the
 * bridge address, network.proxy_port.  A strict container's client
 * sends one request head, "CONNECT name:port" or an absolute-URI
 * request ("GET http://name/path"); the name is checked against the
 * container's allowlist on that port as the gateway checks a server
 * name (gwpolicy.c), then jb-netd resolves it through the suite's
 * upstream under the resolver's rule for private ranges (asked through
 * the parent: this process has no resolver and no file), and the
 * proxy connects to the first address it gave:
 *
 *  - CONNECT: "200 Connection established", then both directions
 *    spliced by the kernel, as the gateway splices TLS; to one of the
 *    container's secrets' hosts, the tunnel's TLS is terminated as the
 *    gateway's is (mitmconn.c), so that the value is put in there too;
 *  - absolute URI: the head, in origin form with "Connection: close"
 *    (proxyhead.c), and its body by its framing go to the server; any
 *    later request on the connection is not sent on; the answer is
 *    spliced back until the server closes.
 *
 * The proxy reaches only the gateway's ports (network.gateway_ports):
 * they are the ports its Landlock rules let it connect to.  A refusal
 * is a 403 with a text body naming the host, the container and, when an
 * entry would admit it, the jbctl line that adds it; it is counted with
 * the gateway's (net log, net suggest, the journal).  A connection
 * whose source is no container the suite enforces strictly is refused.
 */

#include <sys/socket.h>
#include <sys/queue.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event.h>

#include "egress.h"
#include "egsecrets.h"
#include "gwpolicy.h"
#include "httphead.h"
#include "log.h"
#include "proxyhead.h"
#include "pump.h"
#include "testhook.h"

#define P_HEAD_SECS	jb_test_secs(10, 2)
#define P_REACH_SECS	15	/* resolved and connected in */
#define P_LINGER_SECS	2
#define P_OUT_MAX	(HTTPHEAD_MAX + 64)

enum pstate { P_HEAD, P_RESOLVING, P_FRESH, P_CONNECTING, P_RELAY,
    P_LINGER };
enum pbody { B_NONE, B_LENGTH, B_CHUNKED };

struct pconn;

struct pconn {
	TAILQ_ENTRY(pconn) entry;
	int		 cfd, sfd;
	uint32_t	 src, dst, qid;
	uint32_t	 fresh;		/* waiting for its secrets anew: id */
	int		 told;		/* the 200 went out already */
	uint16_t	 port;
	char		 ctr[JB_INSTANCE_MAX];
	char		 host[HTTPHEAD_NAME_MAX + 1];
	enum pstate	 state;
	int		 connect;	/* CONNECT, else an absolute URI */
	/* the client's bytes: the head, then what came with it */
	char		 buf[HTTPHEAD_MAX];
	size_t		 blen, headlen;
	/* to send to the server before the rest flows */
	char		*out;
	size_t		 olen, ooff;
	/* an absolute-URI request's body */
	enum pbody	 body;
	uint64_t	 left;
	struct httpchunk ch;
	int		 updone;
	struct pump	 down, up;
	struct event	 crev, swev, tmo;
};

TAILQ_HEAD(pconns, pconn);
static struct pconns	 pconns = TAILQ_HEAD_INITIALIZER(pconns);
static struct event	 pacc_ev, pacc_pause;
static int		 plisten_fd = -1;
static uint32_t		 next_qid;
static const uint16_t	*ports;		/* what it may connect to */
static size_t		 nports;

static void	pc_free(struct pconn *);
static void	up_run(struct pconn *);
static void	proxy_connect(struct pconn *);

static char *
a4(uint32_t a, char *buf, size_t len)
{
	struct in_addr	in;

	in.s_addr = htonl(a);
	(void)inet_ntop(AF_INET, &in, buf, len);
	return buf;
}

static void
pc_free(struct pconn *pc)
{
	event_del(&pc->crev);
	event_del(&pc->swev);
	event_del(&pc->tmo);
	pump_stop(&pc->down);
	pump_stop(&pc->up);
	if (pc->cfd != -1)
		close(pc->cfd);
	if (pc->sfd != -1)
		close(pc->sfd);
	free(pc->out);
	TAILQ_REMOVE(&pconns, pc, entry);
	stats.open--;
	free(pc);
}

static void
linger_read(int fd, short ev, void *arg)
{
	struct pconn	*pc = arg;
	char		 junk[4096];
	ssize_t		 n;

	if (ev & EV_TIMEOUT) {
		pc_free(pc);
		return;
	}
	n = recv(pc->cfd, junk, sizeof(junk), 0);
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		pc_free(pc);
		return;
	}
	event_add(&pc->crev, NULL);
}

/* say msg, then read what still comes for a moment, and close */
static void
pc_linger(struct pconn *pc, const char *msg, size_t len)
{
	struct timeval	tv = { P_LINGER_SECS, 0 };

	if (len > 0)
		(void)send(pc->cfd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)shutdown(pc->cfd, SHUT_WR);
	if (pc->sfd != -1) {
		event_del(&pc->swev);
		close(pc->sfd);
		pc->sfd = -1;
	}
	event_del(&pc->crev);
	event_del(&pc->tmo);
	event_del(&pc->down.rev);
	event_del(&pc->down.wev);
	event_del(&pc->up.rev);
	event_del(&pc->up.wev);
	pc->state = P_LINGER;
	event_set(&pc->crev, pc->cfd, EV_READ, linger_read, pc);
	event_add(&pc->crev, NULL);
	evtimer_set(&pc->tmo, linger_read, pc);
	evtimer_add(&pc->tmo, &tv);
}

/* an answer with a text body */
static void
pc_answer(struct pconn *pc, const char *status, const char *body)
{
	char	msg[2048];
	int	n;

	n = snprintf(msg, sizeof(msg), "HTTP/1.1 %s\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", status,
	    strlen(body), body);
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = (int)strlen(msg);
	pc_linger(pc, msg, (size_t)n);
}

/* 403, counted with the gateway's refusals */
static void
pc_refuse(struct pconn *pc, const char *why, int fixable)
{
	char	body[1024], w[JB_MSG_TEXT_MAX];

	(void)snprintf(w, sizeof(w), "proxy: %s", why);
	conn_refused(pc->ctr, pc->host, pc->dst, pc->port, w, fixable);
	if (fixable)
		(void)snprintf(body, sizeof(body), "jailbee: %s:%u is not on "
		    "the egress allowlist of container %s (%s).\n"
		    "To allow it: jbctl net egress add %s:%u %s\n", pc->host,
		    (unsigned)pc->port, pc->ctr, why, pc->host,
		    (unsigned)pc->port, pc->ctr);
	else if (pc->host[0] != '\0')
		(void)snprintf(body, sizeof(body), "jailbee: the proxy refused "
		    "%s:%u for container %s: %s\n", pc->host,
		    (unsigned)pc->port, pc->ctr[0] != '\0' ? pc->ctr :
		    "(none)", why);
	else
		(void)snprintf(body, sizeof(body), "jailbee: the proxy refused "
		    "a request%s%s: %s\n", pc->ctr[0] != '\0' ?
		    " from container " : "", pc->ctr, why);
	pc_answer(pc, "403 Forbidden", body);
}

static void
tmo_fire(int fd, short ev, void *arg)
{
	struct pconn	*pc = arg;

	if (pc->state == P_HEAD)
		pc_refuse(pc, "no complete request head in time", 0);
	else if (pc->state == P_FRESH)
		pc_refuse(pc, "the secrets' current values did not come in "
		    "time", 0);
	else {
		log_info("proxy: %s: %s:%u: not reached in time", pc->ctr,
		    pc->host, (unsigned)pc->port);
		pc_answer(pc, "504 Gateway Timeout", "jailbee: the proxy "
		    "could not reach the destination in time\n");
	}
}

/* both ways through: over (1: freed) */
static int
maybe_end(struct pconn *pc)
{
	int	upok = pc->connect ? pc->up.done : pc->updone;

	/* the server's answer is all an absolute-URI request waits for */
	if (pc->down.done && (upok || !pc->connect)) {
		pc_free(pc);
		return 1;
	}
	return 0;
}

/* what a pump of the connection calls */
static void
pc_free_cb(void *pc)
{
	pc_free(pc);
}

static int
pc_end_cb(void *pc)
{
	return maybe_end(pc);
}

/* of n body bytes at b, how many belong to the request's body */
static size_t
body_take(struct pconn *pc, const char *b, size_t n, int *broken)
{
	size_t	take = 0;
	long	r;

	*broken = 0;
	switch (pc->body) {
	case B_NONE:
		return 0;
	case B_LENGTH:
		take = n < pc->left ? n : (size_t)pc->left;
		pc->left -= take;
		if (pc->left == 0)
			pc->body = B_NONE;
		return take;
	case B_CHUNKED:
		if ((r = httpchunk_feed(&pc->ch, b, n)) == -1) {
			*broken = 1;
			return 0;
		}
		if (pc->ch.done)
			pc->body = B_NONE;
		return (size_t)r;
	}
	return 0;
}

static void
up_ev(int fd, short ev, void *arg)
{
	up_run(arg);
}

/*
 * Client to server: what is in out first; then, for CONNECT, the
 * kernel's splice; for an absolute-URI request, the rest of its body,
 * and nothing after it.
 */
static void
up_run(struct pconn *pc)
{
	char	b[16384];
	ssize_t	n;
	size_t	take;
	int	broken;

	for (;;) {
		if (pc->ooff < pc->olen) {
			n = send(pc->sfd, pc->out + pc->ooff, pc->olen -
			    pc->ooff, MSG_NOSIGNAL);
			if (n == -1 && errno == EAGAIN) {
				event_add(&pc->swev, NULL);
				return;
			}
			if (n <= 0) {
				pc_free(pc);
				return;
			}
			pc->ooff += (size_t)n;
			continue;
		}
		if (pc->connect) {
			(void)pump_run(&pc->up);
			return;
		}
		if (pc->updone)
			return;
		n = recv(pc->cfd, b, sizeof(b), 0);
		if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
			event_add(&pc->crev, NULL);
			return;
		}
		if (n <= 0) {
			/* the client is done: so is the server's side */
			pc->updone = 1;
			(void)shutdown(pc->sfd, SHUT_WR);
			return;
		}
		if (pc->body == B_NONE) {
			/*
			 * a later request on the connection is not sent on:
			 * the answer to the first ends it, and the client
			 * asks again on a new one
			 */
			pc->updone = 1;
			return;
		}
		take = body_take(pc, b, (size_t)n, &broken);
		if (broken) {
			conn_refused(pc->ctr, pc->host, pc->dst, pc->port,
			    "proxy: a broken chunked body", 0);
			pc_free(pc);
			return;
		}
		/* out holds a head and more: a read's worth fits */
		memcpy(pc->out, b, take);
		pc->olen = take;
		pc->ooff = 0;
	}
}

static void
connected(int fd, short ev, void *arg)
{
	static const char	 est[] = "HTTP/1.1 200 Connection established"
	    "\r\n\r\n";
	struct pconn		*pc = arg;
	int			 err = 0, broken;
	socklen_t		 len = sizeof(err);
	char			 a[INET_ADDRSTRLEN];
	size_t			 rest, take;
	long			 ol;

	if (getsockopt(pc->sfd, SOL_SOCKET, SO_ERROR, &err, &len) == -1 ||
	    err != 0) {
		log_info("proxy: %s: %s:%u at %s: %s", pc->ctr, pc->host,
		    (unsigned)pc->port, a4(pc->dst, a, sizeof(a)),
		    strerror(err));
		pc_answer(pc, "502 Bad Gateway", "jailbee: the proxy could "
		    "not reach the destination\n");
		return;
	}
	event_del(&pc->tmo);
	pc->state = P_RELAY;
	stats.admitted++;
	rest = pc->blen - pc->headlen;
	if ((pc->out = malloc(P_OUT_MAX + sizeof(pc->buf))) == NULL) {
		pc_free(pc);
		return;
	}
	if (pc->connect) {
		if (!pc->told && send(pc->cfd, est, sizeof(est) - 1,
		    MSG_NOSIGNAL) != (ssize_t)sizeof(est) - 1) {
			pc_free(pc);
			return;
		}
		/* what the client sent before it heard the 200 */
		memcpy(pc->out, pc->buf + pc->headlen, rest);
		pc->olen = rest;
	} else {
		if ((ol = proxyhead_origin(pc->buf, pc->headlen, pc->out,
		    P_OUT_MAX)) == -1) {
			pc_refuse(pc, "a request head the proxy cannot pass on",
			    0);
			return;
		}
		pc->olen = (size_t)ol;
		take = body_take(pc, pc->buf + pc->headlen, rest, &broken);
		if (broken) {
			pc_refuse(pc, "a broken chunked body", 0);
			return;
		}
		memcpy(pc->out + pc->olen, pc->buf + pc->headlen, take);
		pc->olen += take;
	}
	event_set(&pc->crev, pc->cfd, EV_READ, up_ev, pc);
	event_set(&pc->swev, pc->sfd, EV_WRITE, up_ev, pc);
	if (pump_init(&pc->down, pc, pc_free_cb, pc_end_cb, pc->sfd,
	    pc->cfd) == -1 || (pc->connect && pump_init(&pc->up, pc,
	    pc_free_cb, pc_end_cb, pc->cfd, pc->sfd) == -1)) {
		log_warn("pipe");
		pc_free(pc);
		return;
	}
	if (pump_run(&pc->down) == 1)
		return;
	up_run(pc);
}

/*
 * A CONNECT to a secret's host, its secrets current: the client is told
 * the tunnel is up, and its TLS is terminated as the gateway's is
 * (mitmconn.c), with the per-container CA's certificate for the name
 * it asked for; the connection is mitmc's from here on.
 */
static void
pc_terminate(struct pconn *pc)
{
	static const char	 est[] = "HTTP/1.1 200 Connection established"
	    "\r\n\r\n";
	int			 cfd = pc->cfd;

	pc->fresh = 0;
	if (send(cfd, est, sizeof(est) - 1, MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(est) - 1) {
		pc_free(pc);
		return;
	}
	pc->told = 1;
	switch (mitmc_start(cfd, pc->src, pc->dst, pc->port, pc->host,
	    pc->buf + pc->headlen, pc->blen - pc->headlen)) {
	case 1:
		/* no longer a secret's host: spliced, as any other */
		proxy_connect(pc);
		return;
	case 0:
		stats.admitted++;
		break;
	}
	/* mitmc holds the client's socket, or closed it */
	pc->cfd = -1;
	pc_free(pc);
}

void
proxy_fresh(uint32_t id)
{
	struct pconn	*pc;

	TAILQ_FOREACH(pc, &pconns, entry)
		if (pc->state == P_FRESH && pc->fresh == id) {
			pc_terminate(pc);
			return;
		}
}

/* jb-netd's answer to the question of connection qid */
void
proxy_resolved(const struct jb_egress_resolved *r)
{
	struct pconn		*pc;
	char			 why[JB_MSG_TEXT_MAX];

	TAILQ_FOREACH(pc, &pconns, entry)
		if (pc->state == P_RESOLVING && pc->qid == r->qid)
			break;
	if (pc == NULL)
		return;		/* gone meanwhile */
	if (!r->ok || r->naddr == 0 || r->naddr > JB_EGRESS_ADMIT_MAX) {
		(void)strlcpy(why, r->why, sizeof(why));
		pc_refuse(pc, why[0] != '\0' ? why : "no address", r->fixable);
		return;
	}
	pc->dst = r->addr[0];
	/*
	 * a tunnel to a secret's host: terminated, once the parent has
	 * read the container's configuration and files again
	 */
	if (pc->connect && egsec_wanted(pc->src, pc->host)) {
		pc->state = P_FRESH;
		pc->fresh = conn_fresh_ask(pc->ctr);
		return;
	}
	proxy_connect(pc);
}

/* a connection to pc->dst, spliced once it is made */
static void
proxy_connect(struct pconn *pc)
{
	struct sockaddr_in	 sin;

	if ((pc->sfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		log_warn("socket");
		pc_free(pc);
		return;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(pc->dst);
	sin.sin_port = htons(pc->port);
	pc->state = P_CONNECTING;
	event_set(&pc->swev, pc->sfd, EV_WRITE, connected, pc);
	if (connect(pc->sfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
	    errno != EINPROGRESS) {
		log_info("proxy: %s: %s: %s", pc->ctr, pc->host,
		    strerror(errno));
		pc_answer(pc, "502 Bad Gateway", "jailbee: the proxy could "
		    "not reach the destination\n");
		return;
	}
	event_add(&pc->swev, NULL);
}

static int
port_served(uint16_t p)
{
	size_t	i;

	for (i = 0; i < nports; i++)
		if (ports[i] == p)
			return 1;
	return 0;
}

/* a complete head: judged, then its name asked of jb-netd */
static void
head_done(struct pconn *pc, const struct httphead *h)
{
	struct jb_egress_resolve	 q;
	const struct gw_ctr		*ctr;
	enum gw_verdict			 v;
	char				 why[128], list[64], a[INET_ADDRSTRLEN];
	size_t				 i;
	struct timeval			 tv = { P_REACH_SECS, 0 };

	(void)strlcpy(pc->host, h->host, sizeof(pc->host));
	pc->headlen = h->headlen;
	pc->connect = h->connect;
	if (!h->connect && !h->absolute) {
		pc_refuse(pc, "not a proxy request (CONNECT name:port, or an "
		    "http:// URI as the target)", 0);
		return;
	}
	if ((pc->port = proxyhead_port(pc->buf, pc->headlen)) == 0) {
		pc_refuse(pc, "no port in the target", 0);
		return;
	}
	if (!port_served(pc->port)) {
		list[0] = '\0';
		for (i = 0; i < nports; i++) {
			(void)snprintf(why, sizeof(why), "%s%u", i > 0 ? "," :
			    "", (unsigned)ports[i]);
			(void)strlcat(list, why, sizeof(list));
		}
		(void)snprintf(why, sizeof(why), "the proxy reaches only the "
		    "ports of network.gateway_ports (%s)", list);
		pc_refuse(pc, why, 0);
		return;
	}
	if ((v = gwpol_allowed(pc->src, pc->host, pc->port, &ctr)) !=
	    GW_ADMIT) {
		pc_refuse(pc, gwpol_str(v), v == GW_NOT_ALLOWED);
		return;
	}
	if (h->chunked) {
		pc->body = B_CHUNKED;
		httpchunk_init(&pc->ch);
	} else if (h->length > 0) {
		pc->body = B_LENGTH;
		pc->left = h->length;
	}
	memset(&q, 0, sizeof(q));
	pc->qid = q.qid = ++next_qid;
	(void)strlcpy(q.name, pc->ctr, sizeof(q.name));
	(void)strlcpy(q.ipv4, a4(pc->src, a, sizeof(a)), sizeof(q.ipv4));
	(void)strlcpy(q.host, pc->host, sizeof(q.host));
	if (imsgev_compose(&chld->iev, IMSG_EGRESS_RESOLVE, 0, 0, -1, &q,
	    sizeof(q)) == -1)
		fatal("compose");
	pc->state = P_RESOLVING;
	event_del(&pc->crev);
	event_del(&pc->tmo);
	evtimer_add(&pc->tmo, &tv);
}

static void
head_read(int fd, short ev, void *arg)
{
	struct pconn	*pc = arg;
	struct httphead	 h;
	char		 why[128];
	ssize_t		 n;
	int		 rc;

	if (pc->blen == sizeof(pc->buf)) {
		pc_refuse(pc, "a request head over 16 KiB", 0);
		return;
	}
	n = recv(pc->cfd, pc->buf + pc->blen, sizeof(pc->buf) - pc->blen, 0);
	if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
		event_add(&pc->crev, NULL);
		return;
	}
	if (n <= 0) {
		pc_free(pc);
		return;
	}
	pc->blen += (size_t)n;
	rc = httphead_parse(pc->buf, pc->blen, HTTPHEAD_CONNECT_OK, &h, why,
	    sizeof(why));
	if (rc == 0) {
		event_add(&pc->crev, NULL);
		return;
	}
	if (rc == -1) {
		pc_refuse(pc, why, 0);
		return;
	}
	head_done(pc, &h);
}

static void
paccept(int fd, short ev, void *arg)
{
	struct sockaddr_in	 peer;
	socklen_t		 len = sizeof(peer);
	struct pconn		*pc, *o;
	const struct gw_ctr	*ctr;
	struct timeval		 tv = { P_HEAD_SECS, 0 };
	char			 a[INET_ADDRSTRLEN];
	size_t			 n = 0;
	int			 s;

	if ((s = accept4(plisten_fd, (struct sockaddr *)&peer, &len,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			struct timeval	pause = { 0, 100 * 1000 };

			log_warn("proxy: accept");
			evtimer_add(&pacc_pause, &pause);
			return;
		}
		event_add(&pacc_ev, NULL);
		return;
	}
	event_add(&pacc_ev, NULL);
	if (peer.sin_family != AF_INET) {
		close(s);
		return;
	}
	ctr = gwpol_find(ntohl(peer.sin_addr.s_addr));
	if (ctr != NULL)
		TAILQ_FOREACH(o, &pconns, entry)
			if (strcmp(o->ctr, ctr->name) == 0)
				n++;
	if (ctr != NULL && (stats.open >= conns_max || n >= CONNS_PER_CTR)) {
		conn_refused(ctr->name, "", 0, 0, "proxy: too many "
		    "connections open", 0);
		close(s);
		return;
	}
	if ((pc = calloc(1, sizeof(*pc))) == NULL) {
		close(s);
		return;
	}
	pc->cfd = s;
	pc->sfd = -1;
	pump_prepare(&pc->down);
	pump_prepare(&pc->up);
	pc->src = ntohl(peer.sin_addr.s_addr);
	TAILQ_INSERT_TAIL(&pconns, pc, entry);
	stats.open++;
	event_set(&pc->crev, s, EV_READ, head_read, pc);
	event_set(&pc->swev, -1, EV_WRITE, up_ev, pc);
	evtimer_set(&pc->tmo, tmo_fire, pc);
	if (ctr == NULL) {
		log_info("proxy: a connection from %s, no container the suite "
		    "enforces strictly", a4(pc->src, a, sizeof(a)));
		pc_refuse(pc, "the source address is no strict container of "
		    "the suite", 0);
		return;
	}
	(void)strlcpy(pc->ctr, ctr->name, sizeof(pc->ctr));
	evtimer_add(&pc->tmo, &tv);
	event_add(&pc->crev, NULL);
}

static void
paccept_resume(int fd, short ev, void *arg)
{
	event_add(&pacc_ev, NULL);
}

void
proxy_init(const uint16_t *p, size_t n)
{
	ports = p;
	nports = n;
	evtimer_set(&pacc_pause, paccept_resume, NULL);
}

void
proxy_listen(int fd)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	char			a[INET_ADDRSTRLEN];

	if (plisten_fd != -1)
		fatalx("a second proxy socket");
	if (getsockname(fd, (struct sockaddr *)&sin, &len) == -1 ||
	    sin.sin_family != AF_INET)
		fatalx("the proxy's socket is not IPv4");
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		fatal("fcntl");
	plisten_fd = fd;
	event_set(&pacc_ev, fd, EV_READ, paccept, NULL);
	event_add(&pacc_ev, NULL);
	log_info("proxy listening on %s:%u", a4(ntohl(sin.sin_addr.s_addr), a,
	    sizeof(a)), (unsigned)ntohs(sin.sin_port));
}

size_t
proxy_open(void)
{
	struct pconn	*pc;
	size_t		 n = 0;

	TAILQ_FOREACH(pc, &pconns, entry)
		n++;
	return n;
}
