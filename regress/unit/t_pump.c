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
 * jb-egress's splice pump between two real TCP connections on the
 * loopback: every byte arrives, in order, then the end; a destination
 * that does not read for a while stalls the pump without losing
 * anything; a bulk transfer gets the bigger pipe.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>
#include <event.h>

#include "pump.h"

#define TOTAL	(48u * 1024 * 1024)

struct side {
	int		 fd;
	size_t		 n;		/* bytes moved */
	int		 bad;		/* a byte out of order */
	int		 eof;
	unsigned int	 delay_ms;	/* before the reader starts */
};

struct run {
	int	failed, ended;
};

static unsigned char
pattern(size_t i)
{
	return (unsigned char)((i * 7 + i / 4093) % 251);
}

static void *
writer(void *arg)
{
	struct side	*s = arg;
	unsigned char	 buf[65536];
	size_t		 i, k;
	ssize_t		 n;

	while (s->n < TOTAL) {
		k = TOTAL - s->n < sizeof(buf) ? TOTAL - s->n : sizeof(buf);
		for (i = 0; i < k; i++)
			buf[i] = pattern(s->n + i);
		if ((n = write(s->fd, buf, k)) <= 0)
			break;
		s->n += (size_t)n;
	}
	(void)shutdown(s->fd, SHUT_WR);
	return NULL;
}

static void *
reader(void *arg)
{
	struct side	*s = arg;
	unsigned char	 buf[32768];
	ssize_t		 n, i;

	if (s->delay_ms > 0)
		(void)usleep(s->delay_ms * 1000);
	for (;;) {
		if ((n = read(s->fd, buf, sizeof(buf))) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0) {
			s->eof = 1;
			break;
		}
		for (i = 0; i < n; i++)
			if (buf[i] != pattern(s->n + (size_t)i))
				s->bad = 1;
		s->n += (size_t)n;
	}
	return NULL;
}

static void
on_fail(void *arg)
{
	struct run	*r = arg;

	r->failed = 1;
	(void)event_loopbreak();
}

static int
on_ended(void *arg)
{
	struct run	*r = arg;

	r->ended = 1;
	(void)event_loopbreak();
	return 0;
}

/* a connected pair on the loopback: *a the client's end, *b the server's */
static void
tcp_pair(int *a, int *b)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	int			l;

	ATF_REQUIRE((l = socket(AF_INET, SOCK_STREAM, 0)) != -1);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	ATF_REQUIRE(listen(l, 1) == 0);
	ATF_REQUIRE(getsockname(l, (struct sockaddr *)&sin, &len) == 0);
	ATF_REQUIRE((*a = socket(AF_INET, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(connect(*a, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	ATF_REQUIRE((*b = accept(l, NULL, NULL)) != -1);
	close(l);
}

static void
relay(unsigned int delay_ms, struct pump *p)
{
	struct side	 w, r;
	struct run	 st;
	pthread_t	 tw, tr;
	int		 a, b, c, d;

	memset(&w, 0, sizeof(w));
	memset(&r, 0, sizeof(r));
	memset(&st, 0, sizeof(st));
	tcp_pair(&a, &b);
	tcp_pair(&c, &d);
	ATF_REQUIRE(fcntl(b, F_SETFL, O_NONBLOCK) == 0);
	ATF_REQUIRE(fcntl(c, F_SETFL, O_NONBLOCK) == 0);
	(void)event_init();
	pump_prepare(p);
	ATF_REQUIRE(pump_init(p, &st, on_fail, on_ended, b, c) == 0);
	w.fd = a;
	r.fd = d;
	r.delay_ms = delay_ms;
	ATF_REQUIRE(pthread_create(&tw, NULL, writer, &w) == 0);
	ATF_REQUIRE(pthread_create(&tr, NULL, reader, &r) == 0);
	if (pump_run(p) == 0)
		(void)event_dispatch();
	ATF_REQUIRE(pthread_join(tw, NULL) == 0);
	ATF_REQUIRE(pthread_join(tr, NULL) == 0);
	ATF_CHECK_MSG(!st.failed, "the pump failed");
	ATF_CHECK_MSG(st.ended && p->done, "the pump did not end");
	ATF_CHECK_EQ_MSG(w.n, TOTAL, "wrote %zu of %u", w.n, TOTAL);
	ATF_CHECK_EQ_MSG(r.n, TOTAL, "read %zu of %u", r.n, TOTAL);
	ATF_CHECK_MSG(!r.bad, "bytes out of order");
	ATF_CHECK_MSG(r.eof, "no end after the bytes");
	pump_stop(p);
	close(a);
	close(b);
	close(c);
	close(d);
}

ATF_TC_WITHOUT_HEAD(every_byte_then_end);
ATF_TC_BODY(every_byte_then_end, tc)
{
	struct pump	p;

	relay(0, &p);
	/* a bulk transfer asked for the bigger pipe, which root is given */
	ATF_CHECK_MSG(p.grown, "the pump never asked for a bigger pipe");
	ATF_CHECK_MSG(getuid() != 0 || p.cap >= 1024 * 1024,
	    "the pipe holds %zu bytes", p.cap);
}

ATF_TC_WITHOUT_HEAD(slow_destination);
ATF_TC_BODY(slow_destination, tc)
{
	struct pump	p;

	/* the destination reads nothing for 300 ms: the pump waits on it */
	relay(300, &p);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, every_byte_then_end);
	ATF_TP_ADD_TC(tp, slow_destination);
	return atf_no_error();
}
