/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "imsgev.h"

int
imsgev_init(struct imsgev *iev, int fd, void (*handler)(int, short, void *),
    void *data)
{
	int	fl;

	/*
	 * The loop never waits on a channel: what the socket cannot take
	 * now stays queued until it can (EV_WRITE).  Two processes that
	 * each write more than the other's socket holds, both waiting in
	 * a blocking send, would never read again.
	 */
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	if (imsgbuf_init(&iev->ibuf, fd) == -1)
		return -1;
	iev->handler = handler;
	iev->data = data;
	iev->events = 0;
	imsgev_add(iev);
	return 0;
}

void
imsgev_add(struct imsgev *iev)
{
	short	events = EV_READ;

	if (imsgbuf_queuelen(&iev->ibuf) > 0)
		events |= EV_WRITE;
	/*
	 * The event is not persistent: once its callback has run it is set
	 * again, even when the interest did not change.  While it is still
	 * set with the same interest, as when a handler composes many
	 * messages, it stays as it is: setting it again would cost two
	 * epoll calls a message.
	 */
	if (iev->events == events &&
	    event_pending(&iev->ev, EV_READ | EV_WRITE, NULL))
		return;
	if (iev->events != 0)
		event_del(&iev->ev);
	iev->events = events;
	event_set(&iev->ev, iev->ibuf.fd, events, iev->handler, iev->data);
	event_add(&iev->ev, NULL);
}

int
imsgev_compose(struct imsgev *iev, uint32_t type, uint32_t peerid, pid_t pid,
    int fd, const void *data, size_t len)
{
	if (imsg_compose(&iev->ibuf, type, peerid, pid, fd, data, len) == -1)
		return -1;
	imsgev_add(iev);
	return 0;
}

int
imsgev_io(struct imsgev *iev, short event)
{
	int	n;

	if (event & EV_READ) {
		if ((n = imsgbuf_read(&iev->ibuf)) == -1)
			return -1;
		if (n == 0)
			return 0;
	}
	if (event & EV_WRITE) {
		if (imsgbuf_write(&iev->ibuf) == -1)
			return errno == EPIPE ? 0 : -1;
	}
	return 1;
}

void
imsgev_clear(struct imsgev *iev)
{
	if (iev->events != 0)
		event_del(&iev->ev);
	iev->events = 0;
	imsgbuf_clear(&iev->ibuf);
	if (iev->ibuf.fd != -1)
		close(iev->ibuf.fd);
	iev->ibuf.fd = -1;
}
