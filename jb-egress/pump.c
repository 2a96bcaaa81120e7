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
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "pump.h"

#define PIPE_CHUNK	(64 * 1024)

static void
pump_ev(int fd, short ev, void *arg)
{
	(void)pump_run(arg);
}

void
pump_prepare(struct pump *p)
{
	p->p[0] = p->p[1] = -1;
	event_set(&p->rev, -1, EV_READ, pump_ev, p);
	event_set(&p->wev, -1, EV_WRITE, pump_ev, p);
}

int
pump_init(struct pump *p, void *owner, void (*fail)(void *),
    int (*ended)(void *), int from, int to)
{
	p->owner = owner;
	p->fail = fail;
	p->ended = ended;
	p->from = from;
	p->to = to;
	if (pipe2(p->p, O_NONBLOCK | O_CLOEXEC) == -1) {
		p->p[0] = p->p[1] = -1;
		return -1;
	}
	event_set(&p->rev, from, EV_READ, pump_ev, p);
	event_set(&p->wev, to, EV_WRITE, pump_ev, p);
	return 0;
}

void
pump_stop(struct pump *p)
{
	event_del(&p->rev);
	event_del(&p->wev);
	if (p->p[0] != -1) {
		close(p->p[0]);
		close(p->p[1]);
		p->p[0] = p->p[1] = -1;
	}
}

int
pump_run(struct pump *p)
{
	ssize_t	 n;

	for (;;) {
		if (p->inpipe > 0) {
			n = splice(p->p[0], NULL, p->to, NULL, p->inpipe,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n == -1 && errno == EAGAIN) {
				event_add(&p->wev, NULL);
				return 0;
			}
			if (n <= 0) {
				p->fail(p->owner);
				return 1;
			}
			p->inpipe -= (size_t)n;
			continue;
		}
		if (p->eof) {
			(void)shutdown(p->to, SHUT_WR);
			p->done = 1;
			return p->ended(p->owner);
		}
		n = splice(p->from, NULL, p->p[1], NULL, PIPE_CHUNK,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n == 0) {
			p->eof = 1;
			continue;
		}
		if (n == -1 && errno == EAGAIN) {
			event_add(&p->rev, NULL);
			return 0;
		}
		if (n == -1) {
			p->fail(p->owner);
			return 1;
		}
		p->inpipe = (size_t)n;
	}
}
