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

struct upq;

/* a socket a question goes out on, and its event, already added */
struct upsock {
	int			 fd;
	struct event		*ev;
	struct upq		*q;	/* NULL: not asked on yet */
};

struct upq {
	upstream_cb		 cb;
	void			*arg;
	char			 name[DNSWIRE_TEXT_MAX + 2];
	uint8_t			 ask[DNSWIRE_HEADER + DNSWIRE_NAME_MAX + 4];
	size_t			 asklen;
	struct upsock		*s;
	int			 tries;
};

static struct event_base	*ubase;
static struct sockaddr_in	 servers[UPSTREAM_SERVERS];
static int			 nservers, next_server;
static size_t			 pending;
/*
 * The socket the next question goes out on, made (and its event added)
 * once the last answer has been given: a question waits for no socket,
 * bind, connect or epoll change.  It carries one question only, as any
 * other; a datagram that reaches it before is read and dropped, and one
 * that comes after must still match the question's id and 0x20 case.
 */
static struct upsock		*spare;

static void	readable(int, short, void *);
static void	sock_free(struct upsock *);

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
	if (spare != NULL) {
		sock_free(spare);
		spare = NULL;
	}
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

/* a socket to the next nameserver, its event added; NULL when none */
static struct upsock *
sock_new(void)
{
	struct upsock	*us;

	if ((us = calloc(1, sizeof(*us))) == NULL)
		return NULL;
	if ((us->fd = socket_to(&servers[next_server++ % nservers])) == -1) {
		free(us);
		return NULL;
	}
	if ((us->ev = event_new(ubase, us->fd, EV_READ | EV_PERSIST,
	    readable, us)) == NULL || event_add(us->ev, NULL) == -1) {
		if (us->ev != NULL)
			event_free(us->ev);
		close(us->fd);
		free(us);
		return NULL;
	}
	return us;
}

static void
sock_free(struct upsock *us)
{
	event_free(us->ev);
	close(us->fd);
	free(us);
}

static void
make_spare(void)
{
	if (spare == NULL && nservers > 0)
		spare = sock_new();
}

/* the answer first; then the socket goes and the next one is made */
static void
finish(struct upq *q, int rcode, const uint32_t *addrs, int n,
    uint32_t ttl)
{
	pending--;
	q->cb(rcode, addrs, n, ttl, q->arg);
	if (q->s != NULL)
		sock_free(q->s);
	free(q);
	make_spare();
}

/* one try: a new socket, port, id and case, to the next nameserver */
static int
send_try(struct upq *q)
{
	struct timeval	tv = { UPSTREAM_WAIT, 0 };
	char		name[sizeof(q->name)];
	uint8_t		rnd[34];	/* the case's bits, then the id */
	int		n;

	if (q->s != NULL) {
		sock_free(q->s);
		q->s = NULL;
	}
	(void)strlcpy(name, q->name, sizeof(name));
	arc4random_buf(rnd, sizeof(rnd));
	dnswire_mix_case(name, rnd, 32);
	if ((n = dnswire_ask((uint16_t)(rnd[32] << 8 | rnd[33]), name,
	    DNSWIRE_TYPE_A, q->ask, sizeof(q->ask))) == -1)
		return -1;
	q->asklen = (size_t)n;
	if ((q->s = spare) != NULL)
		spare = NULL;
	else if ((q->s = sock_new()) == NULL)
		return -1;
	q->s->q = q;
	/* the wait for the answer: only a timeout added to the event */
	if (send(q->s->fd, q->ask, q->asklen, 0) != (ssize_t)q->asklen ||
	    event_add(q->s->ev, &tv) == -1) {
		sock_free(q->s);
		q->s = NULL;
		return -1;
	}
	q->tries++;
	return 0;
}

static void
readable(int fd, short what, void *arg)
{
	struct upsock	*us = arg;
	struct upq	*q = us->q;
	uint8_t		 msg[4096];
	uint32_t	 addrs[UPSTREAM_ADDRS], ttl;
	ssize_t		 r;
	int		 rc, n, i;

	if (q == NULL) {
		/* the spare, asked nothing yet: nothing is its answer */
		for (i = 0; i < 8; i++)
			if (recv(fd, msg, sizeof(msg), 0) == -1)
				break;
		return;
	}
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
	(void)strlcpy(q->name, name, sizeof(q->name));
	if (send_try(q) == -1) {
		if (q->s != NULL)
			sock_free(q->s);
		free(q);
		return -1;
	}
	pending++;
	return 0;
}
