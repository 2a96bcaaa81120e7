/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnswire.h"
#include "log.h"
#include "upstream.h"

/* ports a query is sent from: above the privileged ones */
#define PORT_LOW	1024
#define PORT_TRIES	16	/* random ports tried before the kernel's */

struct upq {
	upstream_cb		 cb;
	void			*arg;
	char			 name[DNSWIRE_TEXT_MAX + 2];
	uint8_t			 ask[DNSWIRE_HEADER + DNSWIRE_NAME_MAX + 4];
	size_t			 asklen;
	int			 fd;
	int			 tries;
	struct event		*ev;
};

static struct event_base	*ubase;
static struct sockaddr_in	 servers[UPSTREAM_SERVERS];
static int			 nservers, next_server;
static size_t			 pending;

int
upstream_count(void)
{
	return nservers;
}

size_t
upstream_pending(void)
{
	return pending;
}

/* the nameserver lines of /etc/resolv.conf: IPv4 ones only */
static void
resolv_conf(void)
{
	FILE		*f;
	char		 line[512], *p, *e;
	struct in_addr	 in;

	if ((f = fopen("/etc/resolv.conf", "re")) == NULL)
		return;
	while (nservers < UPSTREAM_SERVERS && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "nameserver", 10) != 0 ||
		    (line[10] != ' ' && line[10] != '\t'))
			continue;
		for (p = line + 10; *p == ' ' || *p == '\t'; p++)
			;
		for (e = p; *e != '\0' && *e != ' ' && *e != '\t' &&
		    *e != '\n' && *e != '#' && *e != ';'; e++)
			;
		*e = '\0';
		if (inet_pton(AF_INET, p, &in) != 1)
			continue;
		memset(&servers[nservers], 0, sizeof(servers[0]));
		servers[nservers].sin_family = AF_INET;
		servers[nservers].sin_port = htons(53);
		servers[nservers].sin_addr = in;
		nservers++;
	}
	fclose(f);
}

int
upstream_init(struct event_base *base, const char *up, char *err,
    size_t errlen)
{
	struct in_addr	in;

	ubase = base;
	nservers = 0;
	if (up == NULL || *up == '\0') {
		resolv_conf();
		return 0;
	}
	if (inet_pton(AF_INET, up, &in) != 1) {
		snprintf(err, errlen, "resolver.upstream %s is not usable",
		    up);
		return -1;
	}
	memset(&servers[0], 0, sizeof(servers[0]));
	servers[0].sin_family = AF_INET;
	servers[0].sin_port = htons(53);
	servers[0].sin_addr = in;
	nservers = 1;
	return 0;
}

/*
 * A UDP socket on a random port, connected to server: only its replies
 * reach it.  -1 when none can be had.
 */
static int
socket_to(const struct sockaddr_in *server)
{
	struct sockaddr_in	sin;
	int			fd, i;

	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	for (i = 0; i < PORT_TRIES; i++) {
		sin.sin_port = htons((uint16_t)(PORT_LOW +
		    arc4random_uniform(65536 - PORT_LOW)));
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0)
			break;
		if (errno != EADDRINUSE) {
			close(fd);
			return -1;
		}
	}
	/* every port tried was taken: the kernel's choice, also random */
	if (i == PORT_TRIES) {
		sin.sin_port = 0;
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
			close(fd);
			return -1;
		}
	}
	if (connect(fd, (const struct sockaddr *)server, sizeof(*server)) ==
	    -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static void	readable(int, short, void *);

static void
finish(struct upq *q, int rcode, const uint32_t *addrs, int n,
    uint32_t ttl)
{
	if (q->fd != -1) {
		event_free(q->ev);
		close(q->fd);
	}
	pending--;
	q->cb(rcode, addrs, n, ttl, q->arg);
	free(q);
}

/* one try: a new socket, port, id and case, to the next nameserver */
static int
send_try(struct upq *q)
{
	struct timeval	tv = { UPSTREAM_WAIT, 0 };
	char		name[sizeof(q->name)];
	uint8_t		rnd[32];
	int		n;

	if (q->fd != -1) {
		event_free(q->ev);
		close(q->fd);
		q->fd = -1;
	}
	(void)strlcpy(name, q->name, sizeof(name));
	arc4random_buf(rnd, sizeof(rnd));
	dnswire_mix_case(name, rnd, sizeof(rnd));
	if ((n = dnswire_ask((uint16_t)arc4random_uniform(65536), name,
	    DNSWIRE_TYPE_A, q->ask, sizeof(q->ask))) == -1)
		return -1;
	q->asklen = (size_t)n;
	if ((q->fd = socket_to(&servers[next_server++ % nservers])) == -1)
		return -1;
	if (send(q->fd, q->ask, q->asklen, 0) != (ssize_t)q->asklen) {
		close(q->fd);
		q->fd = -1;
		return -1;
	}
	q->tries++;
	if ((q->ev = event_new(ubase, q->fd, EV_READ | EV_PERSIST, readable,
	    q)) == NULL) {
		close(q->fd);
		q->fd = -1;
		return -1;
	}
	if (event_add(q->ev, &tv) == -1) {
		event_free(q->ev);
		close(q->fd);
		q->fd = -1;
		return -1;
	}
	return 0;
}

static void
readable(int fd, short what, void *arg)
{
	struct upq	*q = arg;
	uint8_t		 msg[4096];
	uint32_t	 addrs[UPSTREAM_ADDRS], ttl;
	ssize_t		 r;
	int		 rc, n, i;

	if (what & EV_TIMEOUT) {
		if (q->tries >= UPSTREAM_TRIES || send_try(q) == -1)
			finish(q, DNSWIRE_SERVFAIL, NULL, 0, 0);
		return;
	}
	/* a few datagrams at most per wakeup: a flood is not ours to spin */
	for (i = 0; i < 8; i++) {
		if ((r = recv(fd, msg, sizeof(msg), 0)) == -1)
			return;
		rc = dnswire_reply_parse(msg, (size_t)r, q->ask, q->asklen,
		    addrs, UPSTREAM_ADDRS, &n, &ttl);
		if (rc == -1) {
			log_debug("upstream: %s: a reply that is not the "
			    "answer (id or question differ): ignored",
			    q->name);
			continue;
		}
		if (rc == DNSWIRE_NOERROR || rc == DNSWIRE_NXDOMAIN)
			finish(q, rc, addrs, rc == DNSWIRE_NOERROR ? n : 0,
			    ttl);
		else
			finish(q, DNSWIRE_SERVFAIL, NULL, 0, 0);
		return;
	}
}

int
upstream_ask(const char *name, upstream_cb cb, void *arg)
{
	struct upq	*q;

	if (nservers == 0 || strlen(name) >= sizeof(q->name))
		return -1;
	if ((q = calloc(1, sizeof(*q))) == NULL)
		return -1;
	q->cb = cb;
	q->arg = arg;
	q->fd = -1;
	(void)strlcpy(q->name, name, sizeof(q->name));
	if (send_try(q) == -1) {
		if (q->fd != -1) {
			event_free(q->ev);
			close(q->fd);
		}
		free(q);
		return -1;
	}
	pending++;
	return 0;
}
