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
 * Text from a container on its way to the owner's terminal through a
 * host program (git log of its commits, git's "remote:" lines from its
 * upload-pack): a line at a time through termsafe.
 */

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "termrelay.h"
#include "termsafe.h"

#define RELAY_LINE	8192

struct stream {
	int	 in;
	int	 out;
	char	 buf[RELAY_LINE + 1];
	size_t	 len;
	int	 failed;
};

static void
put(struct stream *s, const char *p, size_t n)
{
	ssize_t	w;

	while (!s->failed && n > 0) {
		if ((w = write(s->out, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			s->failed = 1;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* the first n bytes of the buffer, made safe, then a newline if nl */
static void
emit(struct stream *s, size_t n, int nl)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (s->buf[i] == '\0')
			s->buf[i] = '?';
	s->buf[n] = '\0';
	termsafe(s->buf);
	put(s, s->buf, n);
	if (nl)
		put(s, "\n", 1);
}

/* every whole line in the buffer; a full buffer with none goes as it is */
static void
drain(struct stream *s, int eof)
{
	char	*nl;
	size_t	 n;

	while ((nl = memchr(s->buf, '\n', s->len)) != NULL) {
		n = (size_t)(nl - s->buf);
		emit(s, n, 1);
		s->len -= n + 1;
		memmove(s->buf, s->buf + n + 1, s->len);
	}
	if (s->len == RELAY_LINE || (eof && s->len > 0)) {
		emit(s, s->len, 0);
		s->len = 0;
	}
}

int
termrelay(int in, int err, int out, int errout)
{
	static struct stream	 st[2];
	struct pollfd		 pfd[2];
	ssize_t			 n;
	int			 i, open = 0;

	st[0].in = in;
	st[0].out = out;
	st[1].in = err;
	st[1].out = errout;
	for (i = 0; i < 2; i++) {
		st[i].len = 0;
		st[i].failed = 0;
		open += st[i].in != -1;
	}
	while (open > 0) {
		for (i = 0; i < 2; i++) {
			pfd[i].fd = st[i].in;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			if (st[i].in == -1 || pfd[i].revents == 0)
				continue;
			n = read(st[i].in, st[i].buf + st[i].len,
			    RELAY_LINE - st[i].len);
			if (n == -1 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				drain(&st[i], 1);
				close(st[i].in);
				st[i].in = -1;
				open--;
				continue;
			}
			st[i].len += (size_t)n;
			drain(&st[i], 0);
		}
	}
	for (i = 0; i < 2; i++)
		if (st[i].in != -1) {
			close(st[i].in);
			st[i].in = -1;
		}
	return st[0].failed || st[1].failed ? -1 : 0;
}
