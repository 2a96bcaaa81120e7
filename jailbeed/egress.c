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
 * The parent's side of the egress gateway (jb-egress): the listening
 * socket it binds on the bridge's address while still root, and the
 * messages it passes on: jb-netd's policy snapshots and admissions
 * down to the gateway, the gateway's refusals to the log.
 */

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <errno.h>
#include <event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditrec.h"
#include "jailbeed.h"
#include "log.h"
#include "proc.h"
#include "testhook.h"

/* the explicit proxy's URL, "" without one */
static char	proxy_url[64];

const char *
egress_proxy_url(void)
{
	return proxy_url;
}

/* a TCP socket listening on sin, handed down to the gateway as kind */
static void
listen_hand(struct sockaddr_in *sin, uint16_t port, const char *kind,
    const char *what)
{
	struct jb_egress_listen	 l;
	int			 fd, on = 1;

	sin->sin_port = htons(port);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fatal("egress: socket");
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1)
		fatal("egress: setsockopt");
	if (bind(fd, (struct sockaddr *)sin, sizeof(*sin)) == -1)
		fatal("egress: bind %s:%u for the %s", inet_ntoa(sin->sin_addr),
		    (unsigned)port, what);
	if (listen(fd, 1024) == -1)
		fatal("egress: listen");
	memset(&l, 0, sizeof(l));
	(void)strlcpy(l.kind, kind, sizeof(l.kind));
	if (imsgev_compose(&children[PROC_EGRESS].iev, IMSG_EGRESS_LISTEN, 0,
	    0, fd, &l, sizeof(l)) == -1)
		fatal("compose");
	log_info("egress %s: listening on %s:%u", what,
	    inet_ntoa(sin->sin_addr), (unsigned)port);
}

/*
 * Bind the gateway's socket on the bridge's IPv4 address and hand it
 * down, and the explicit proxy's (network.proxy_port) unless it is 0.
 * A bridge without an address stops the start: jb-netd refuses
 * it too, and without the gateway no strict container could reach a
 * name on the gateway's ports.
 */
void
egress_start(void)
{
	struct ifaddrs		*ifa, *i;
	struct sockaddr_in	 sin;
	int			 found = 0;

	if (getifaddrs(&ifa) == -1)
		fatal("getifaddrs");
	memset(&sin, 0, sizeof(sin));
	for (i = ifa; i != NULL && !found; i = i->ifa_next)
		if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET &&
		    strcmp(i->ifa_name, env->conf.bridge) == 0) {
			memcpy(&sin, i->ifa_addr, sizeof(sin));
			found = 1;
		}
	freeifaddrs(ifa);
	if (!found)
		fatalx("bridge %s has no IPv4 address: the egress gateway "
		    "cannot listen on it", env->conf.bridge);
	listen_hand(&sin, JB_EGRESS_PORT, "transparent", "gateway");
	if (env->conf.proxy_port != 0) {
		listen_hand(&sin, (uint16_t)env->conf.proxy_port, "proxy",
		    "proxy (network.proxy_port)");
		(void)snprintf(proxy_url, sizeof(proxy_url), "http://%s:%d",
		    inet_ntoa(sin.sin_addr), env->conf.proxy_port);
	}
}

/*
 * With the test switch on (jailbeed -T): JB_TEST_ADMIT_DELAY_MS in
 * jailbeed's environment holds every ADMIT that long, in order, on its
 * way to the gateway, so that a test can show the resolver's answer
 * waits for it.  Without the switch the variable means nothing.
 */
struct held {
	TAILQ_ENTRY(held)	 entry;
	struct timeval		 due;
	struct jb_egress_admit	 a;
};
static TAILQ_HEAD(, held)	 helds = TAILQ_HEAD_INITIALIZER(helds);
static struct event		 held_ev;

static long
admit_delay_ms(void)
{
	const char	*v;
	long		 ms;

	if (!jb_testing || (v = getenv("JB_TEST_ADMIT_DELAY_MS")) == NULL ||
	    (ms = strtol(v, NULL, 10)) <= 0 || ms > 60000)
		return 0;
	return ms;
}

static void
held_arm(void)
{
	struct held	*h;
	struct timeval	 now, tv = { 0, 0 };

	if ((h = TAILQ_FIRST(&helds)) == NULL)
		return;
	(void)gettimeofday(&now, NULL);
	if (timercmp(&h->due, &now, >))
		timersub(&h->due, &now, &tv);
	evtimer_add(&held_ev, &tv);
}

static void
held_fire(int fd, short events, void *arg)
{
	struct held	*h;

	if ((h = TAILQ_FIRST(&helds)) == NULL)
		return;
	TAILQ_REMOVE(&helds, h, entry);
	if (imsgev_compose(&children[PROC_EGRESS].iev, IMSG_EGRESS_ADMIT, 0,
	    0, -1, &h->a, sizeof(h->a)) == -1)
		fatal("compose");
	free(h);
	held_arm();
}

static int
admit_hold(const void *buf, size_t len, long ms)
{
	struct held	*h;
	struct timeval	 tv;

	if (len != sizeof(h->a) || (h = calloc(1, sizeof(*h))) == NULL)
		return -1;
	memcpy(&h->a, buf, len);
	(void)gettimeofday(&h->due, NULL);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = ms % 1000 * 1000;
	timeradd(&h->due, &tv, &h->due);
	if (TAILQ_EMPTY(&helds)) {
		log_info("test switch: admissions held %ld ms on their way "
		    "to the gateway", ms);
		evtimer_set(&held_ev, held_fire, NULL);
	}
	log_debug("test switch: ADMIT %u of %.*s for %.*s held", h->a.seq,
	    (int)sizeof(h->a.host), h->a.host, (int)sizeof(h->a.name),
	    h->a.name);
	TAILQ_INSERT_TAIL(&helds, h, entry);
	if (h == TAILQ_FIRST(&helds))
		held_arm();
	return 0;
}

/* jb-netd's POLICY and ADMIT, on to the gateway as they are */
int
egress_relay(struct imsg *imsg)
{
	size_t	len = imsg_get_len(imsg);
	char	buf[sizeof(struct jb_egress_policy)];
	long	ms;

	if (imsg_get_id(imsg) != 0 || len > sizeof(buf) ||
	    imsg_get_data(imsg, buf, len) == -1)
		return -1;
	if (imsg_get_type(imsg) == IMSG_EGRESS_ADMIT &&
	    (ms = admit_delay_ms()) > 0)
		return admit_hold(buf, len, ms);
	if (imsgev_compose(&children[PROC_EGRESS].iev, imsg_get_type(imsg), 0,
	    0, -1, buf, len) == -1)
		fatal("compose");
	return 0;
}

/* the gateway holds the admissions up to a number: on to jb-netd */
int
egress_admitted(struct imsg *imsg)
{
	struct jb_egress_admitted	a;

	if (imsg_get_id(imsg) != 0 ||
	    imsg_get_data(imsg, &a, sizeof(a)) == -1)
		return -1;
	if (imsgev_compose(&children[PROC_NETD].iev, IMSG_EGRESS_ADMITTED, 0,
	    0, -1, &a, sizeof(a)) == -1)
		fatal("compose");
	return 0;
}

/*
 * A connection the gateway refused: logged, and on to jb-netd, which
 * counts it with the names and connections it refused itself.
 */
int
egress_refused(struct imsg *imsg)
{
	struct jb_egress_refused	r;

	if (imsg_get_id(imsg) != 0 ||
	    imsg_get_data(imsg, &r, sizeof(r)) == -1)
		return -1;
	if (imsgev_compose(&children[PROC_NETD].iev, IMSG_EGRESS_REFUSED, 0,
	    0, -1, &r, sizeof(r)) == -1)
		fatal("compose");
	log_info("egress: refused %s to %s:%u%s%s: %s", r.name[0] != '\0' ?
	    r.name : "an unknown source", r.ipv4, (unsigned)r.port,
	    r.host[0] != '\0' ? " for " : "", r.host, r.why);
	return 0;
}

/*
 * The explicit proxy's questions go to jb-netd, its answers back to the
 * gateway, as they are.
 */
int
egress_resolve(struct imsg *imsg, int to)
{
	size_t	len = imsg_get_len(imsg);
	char	buf[sizeof(struct jb_egress_resolved) >
		    sizeof(struct jb_egress_resolve) ?
		    sizeof(struct jb_egress_resolved) :
		    sizeof(struct jb_egress_resolve)];

	if (imsg_get_id(imsg) != 0 || len > sizeof(buf) ||
	    imsg_get_data(imsg, buf, len) == -1)
		return -1;
	if (imsgev_compose(&children[to].iev, imsg_get_type(imsg), 0, 0, -1,
	    buf, len) == -1)
		fatal("compose");
	return 0;
}

/*
 * A secret the gateway put in a request: logged and journalled with the
 * container, the secret's name and the host, never the value.
 */
int
egress_subst(struct imsg *imsg)
{
	struct jb_egress_subst	s;
	struct audit_rec	r;

	if (imsg_get_id(imsg) != 0 ||
	    imsg_get_data(imsg, &s, sizeof(s)) == -1)
		return -1;
	log_info("egress: secret %s put in for %s by %s", s.name, s.host,
	    s.ctr);
	audit_rec_job(&r, NULL, "secret", s.ctr, "");
	r.decision = "accept";
	audit_str(&r, "secret", s.name);
	audit_str(&r, "host", s.host);
	audit_write(&r);
	return 0;
}
