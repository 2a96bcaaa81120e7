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

/*
 * A pipe holds 64 KiB (16 pages) until a connection shows it carries
 * more: then it is asked for PIPE_BIG, so that a bulk transfer moves in
 * a few large splices instead of many small ones.  The kernel caps it
 * (fs/pipe-max-size, and the user's pipe-user-pages-soft across all of
 * its pipes); a refusal leaves the pipe as it was.  At most PIPES_BIG
 * pipes are big at once, a quarter of the default soft budget (16384
 * pages), so that the gateway's many other connections keep theirs.
 */
#define PIPE_SMALL	(64 * 1024)
#define PIPE_BIG	(1024 * 1024)
#define PIPES_BIG	16

static int	nbig;

static void
pump_ev(int fd, short ev, void *arg)
{
	(void)pump_run(arg);
}

void
pump_prepare(struct pump *p)
{
	p->p[0] = p->p[1] = -1;
	p->grown = 0;
	event_set(&p->rev, -1, EV_READ, pump_ev, p);
	event_set(&p->wev, -1, EV_WRITE, pump_ev, p);
}

int
pump_init(struct pump *p, void *owner, void (*fail)(void *),
    int (*ended)(void *), int from, int to)
{
	int	n;

	p->owner = owner;
	p->fail = fail;
	p->ended = ended;
	p->from = from;
	p->to = to;
	if (pipe2(p->p, O_NONBLOCK | O_CLOEXEC) == -1) {
		p->p[0] = p->p[1] = -1;
		return -1;
	}
	p->inpipe = 0;
	p->grown = 0;
	n = fcntl(p->p[1], F_GETPIPE_SZ);
	p->cap = n > 0 ? (size_t)n : PIPE_SMALL;
	event_set(&p->rev, from, EV_READ, pump_ev, p);
	event_set(&p->wev, to, EV_WRITE, pump_ev, p);
	return 0;
}

void
pump_stop(struct pump *p)
{
	event_del(&p->rev);
	event_del(&p->wev);
	if (p->grown == 2) {
		nbig--;
		p->grown = 1;
	}
	if (p->p[0] != -1) {
		close(p->p[0]);
		close(p->p[1]);
		p->p[0] = p->p[1] = -1;
	}
}

static void
pump_grow(struct pump *p)
{
	int	n;

	p->grown = 1;
	if (nbig >= PIPES_BIG)
		return;
	if ((n = fcntl(p->p[1], F_SETPIPE_SZ, PIPE_BIG)) > 0 &&
	    (size_t)n > p->cap) {
		p->cap = (size_t)n;
		p->grown = 2;
		nbig++;
	}
}

/*
 * Out of the pipe as much as the destination takes, into it as much as
 * it has room for, until neither can move.  Then wait for the source
 * when the pipe is empty, else for the destination (a pipe short of
 * slots refuses more before its byte count says it is full: it is read
 * again once the destination has taken some).
 */
int
pump_run(struct pump *p)
{
	ssize_t	 n;
	size_t	 want;
	int	 rblocked, wblocked;

	for (;;) {
		rblocked = wblocked = 0;
		if (p->inpipe > 0) {
			n = splice(p->p[0], NULL, p->to, NULL, p->inpipe,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0)
				p->inpipe -= (size_t)n;
			else if (n == -1 && errno == EAGAIN)
				wblocked = 1;
			else {
				p->fail(p->owner);
				return 1;
			}
		}
		if (p->eof && p->inpipe == 0) {
			(void)shutdown(p->to, SHUT_WR);
			p->done = 1;
			return p->ended(p->owner);
		}
		if (!p->eof && p->inpipe < p->cap) {
			want = p->cap - p->inpipe;
			n = splice(p->from, NULL, p->p[1], NULL, want,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n == 0)
				p->eof = 1;
			else if (n > 0) {
				p->inpipe += (size_t)n;
				if (!p->grown && (size_t)n == want)
					pump_grow(p);
			} else if (errno == EAGAIN)
				rblocked = 1;
			else {
				p->fail(p->owner);
				return 1;
			}
		}
		if (p->inpipe == 0 && rblocked) {
			event_add(&p->rev, NULL);
			return 0;
		}
		if (wblocked && (rblocked || p->eof || p->inpipe >= p->cap)) {
			event_add(&p->wev, NULL);
			return 0;
		}
	}
}
