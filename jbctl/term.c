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
 * jbctl's side of a container shell or exec: one poll(2) loop copies our
 * stdio to and from the sockets jailbeed handed us, sends window sizes on
 * the control channel and waits there for the exit status.
 *
 * Our stdin and stdout stay blocking: they may share an open file
 * description with the user's shell, which must not find it non-blocking
 * afterwards.  Writing at most PIPE_BUF bytes once poll reports POLLOUT
 * keeps a pipe from blocking us; a terminal or socket may stall briefly,
 * and a signal interrupts that since no handler uses SA_RESTART.
 */

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "imsg.h"
#include "jb_msg.h"
#include "term.h"
#include "termsafe.h"

#define TERM_BUFSZ	16384
#define TERM_WCHUNK	PIPE_BUF
/* how long output may stay silent once the status is known */
#define TERM_GRACE_MS	2000

struct chan {
	int		 src, dst;
	int		 reading;	/* src not at EOF and still wanted */
	int		 writing;	/* dst takes data; else it is dropped */
	size_t		 start, end;
	unsigned char	 buf[TERM_BUFSZ];
};

struct session {
	struct imsgbuf	*ctl;
	int		 interactive;
	int		 ctl_open;	/* reading: no END or EOF yet */
	int		 ctl_wok;	/* writes still possible */
	int		 got_exit;
	int		 status;
	int		 failed;	/* err holds jailbeed's reason */
	int		 ending;	/* status or failure known */
	int64_t		 grace_until;
	char		*err;
	size_t		 errlen;
	struct chan	 in;		/* stdin -> fd_io */
	struct chan	 out;		/* fd_io -> stdout */
	struct chan	 errc;		/* fd_err -> stderr */
};

static const int	 term_signals[] = { SIGWINCH, SIGTERM, SIGHUP, SIGINT };
#define NSIGNALS	 (sizeof(term_signals) / sizeof(term_signals[0]))

/* term_limit(): what may move, and until when; 0 for no limit */
static uint64_t			 lim_bytes;
static int64_t			 lim_ms;
static uint64_t			 moved_in, moved_out;

static int			 sig_wfd = -1;
static volatile sig_atomic_t	 sig_winch;
static volatile sig_atomic_t	 sig_quit;

static __attribute__((__format__(printf, 2, 3))) int
fail(struct session *s, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(s->err, s->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sig_handler(int sig)
{
	int	save = errno;
	char	c = 0;

	if (sig == SIGWINCH)
		sig_winch = 1;
	else if (sig_quit == 0)
		sig_quit = sig;
	if (sig_wfd != -1)
		(void)write(sig_wfd, &c, 1);
	errno = save;
}

static void
chan_init(struct chan *c, int src, int dst)
{
	c->src = src;
	c->dst = dst;
	c->reading = src != -1;
	c->writing = dst != -1;
	c->start = c->end = 0;
}

static int
chan_empty(const struct chan *c)
{
	return c->start == c->end;
}

static int
chan_want_read(struct chan *c)
{
	if (!c->reading)
		return 0;
	if (c->end == sizeof(c->buf) && c->start > 0) {
		memmove(c->buf, c->buf + c->start, c->end - c->start);
		c->end -= c->start;
		c->start = 0;
	}
	return c->end < sizeof(c->buf);
}

/* returns the bytes read; EOF and hard errors both end the source */
static ssize_t
chan_read(struct chan *c)
{
	ssize_t	n;

	n = read(c->src, c->buf + c->end, sizeof(c->buf) - c->end);
	if (n == -1) {
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
			c->reading = 0;
		return 0;
	}
	if (n == 0)
		c->reading = 0;
	else if (c->writing)
		c->end += (size_t)n;
	return n;
}

/* a destination that fails once (EPIPE, EIO, EBADF) takes nothing more */
static void
chan_write(struct chan *c)
{
	size_t	len = c->end - c->start;
	ssize_t	n;

	if (len > TERM_WCHUNK)
		len = TERM_WCHUNK;
	n = write(c->dst, c->buf + c->start, len);
	if (n == -1) {
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
			c->writing = 0;
			c->start = c->end = 0;
		}
		return;
	}
	c->start += (size_t)n;
	if (c->start == c->end)
		c->start = c->end = 0;
}

static void
begin_ending(struct session *s)
{
	if (s->ending)
		return;
	s->ending = 1;
	s->grace_until = now_ms() + TERM_GRACE_MS;
	/* the command is gone: what stdin still holds is not its */
	s->in.reading = 0;
}

static void
send_winsize(struct session *s)
{
	struct winsize		ws;
	struct jb_winsize	jw;

	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == -1 &&
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == -1)
		return;
	memset(&jw, 0, sizeof(jw));
	jw.cols = ws.ws_col;
	jw.rows = ws.ws_row;
	/* failure shows up as a lost connection on the read side */
	(void)imsg_compose(s->ctl, IMSG_CTL_WINSIZE, JB_CTL_VERSION, 0, -1,
	    &jw, sizeof(jw));
}

/* handle every complete message; -1 on a protocol error (err set) */
static int
ctl_dispatch(struct session *s)
{
	struct imsg		imsg;
	struct jb_ctl_text	t;
	struct jb_exit		x;
	uint32_t		type, id;
	int			n;

	while (s->ctl_open) {
		if ((n = jb_imsg_get(s->ctl, &imsg, JB_PEER_PARENT,
		    JB_PEER_CTL)) == -1)
			return fail(s, "malformed message from jailbeed");
		if (n == 0)
			break;
		type = imsg_get_type(&imsg);
		if ((id = imsg_get_id(&imsg)) != JB_CTL_VERSION) {
			imsg_free(&imsg);
			return fail(s, "jailbeed speaks control protocol %u, "
			    "this jbctl %u", id, JB_CTL_VERSION);
		}
		switch (type) {
		case IMSG_CTL_EXIT:
			if (imsg_get_data(&imsg, &x, sizeof(x)) == -1 ||
			    x.status < 0 || x.status > 255) {
				imsg_free(&imsg);
				return fail(s, "malformed exit status from "
				    "jailbeed");
			}
			if (!s->got_exit) {
				s->got_exit = 1;
				s->status = x.status;
			}
			begin_ending(s);
			break;
		case IMSG_CTL_ERROR:
			if (imsg_get_data(&imsg, &t, sizeof(t)) == -1) {
				imsg_free(&imsg);
				return fail(s, "malformed error from jailbeed");
			}
			t.text[sizeof(t.text) - 1] = '\0';
			(void)termsafe(t.text);
			if (!s->failed) {
				s->failed = 1;
				strlcpy(s->err, t.text, s->errlen);
			}
			begin_ending(s);
			break;
		case IMSG_CTL_END:
			s->ctl_open = 0;
			if (!s->got_exit && !s->failed) {
				s->failed = 1;
				fail(s, "jailbeed ended the session without an "
				    "exit status");
			}
			begin_ending(s);
			break;
		default:
			imsg_free(&imsg);
			return fail(s, "unexpected message %u from jailbeed",
			    type);
		}
		imsg_free(&imsg);
	}
	return 0;
}

static int
ctl_read(struct session *s)
{
	int	n;

	if ((n = imsgbuf_read(s->ctl)) == -1 && errno != ECONNRESET)
		return fail(s, "reading from jailbeed: %s", strerror(errno));
	if (ctl_dispatch(s) == -1)
		return -1;
	if (n <= 0 && s->ctl_open) {
		s->ctl_open = 0;
		if (!s->got_exit && !s->failed) {
			s->failed = 1;
			fail(s, "jailbeed closed the connection (see its log)");
		}
		begin_ending(s);
	}
	return 0;
}

enum { P_SIG, P_CTL, P_IN_R, P_IN_W, P_OUT_R, P_OUT_W, P_ERR_R, P_ERR_W,
    P_MAX };

static void
poll_chan(struct pollfd *pr, struct pollfd *pw, struct chan *c)
{
	pr->fd = chan_want_read(c) ? c->src : -1;
	pr->events = POLLIN;
	pw->fd = c->writing && !chan_empty(c) ? c->dst : -1;
	pw->events = POLLOUT;
}

/* the source is held back by a slow destination, not silent */
static int
throttled(const struct chan *c)
{
	return c->reading && c->writing && c->end - c->start ==
	    sizeof(c->buf);
}

static int
session_loop(struct session *s, int sigfd)
{
	struct pollfd	pfd[P_MAX];
	int64_t		now, deadline;
	ssize_t		nr;
	int		got, timeout;
	char		junk[64];

	deadline = lim_ms > 0 ? now_ms() + lim_ms : 0;
	if (ctl_dispatch(s) == -1)
		return -1;
	for (;;) {
		if (sig_quit)
			return 128 + sig_quit;
		if (lim_bytes > 0 && moved_in + moved_out > lim_bytes)
			return fail(s, "more than %llu bytes: the limit, "
			    "stopped", (unsigned long long)lim_bytes);
		if (deadline > 0 && now_ms() >= deadline)
			return fail(s, "not done within %lld s: the limit, "
			    "stopped", (long long)(lim_ms / 1000));
		if (sig_winch) {
			sig_winch = 0;
			send_winsize(s);
		}
		if (!s->in.writing)
			s->in.reading = 0;
		if (!s->interactive && !s->in.reading && chan_empty(&s->in) &&
		    s->in.writing) {
			/* the command sees EOF on its stdin */
			(void)shutdown(s->in.dst, SHUT_WR);
			s->in.writing = 0;
		}

		timeout = deadline > 0 ? (int)(deadline - now_ms()) + 1 : -1;
		if (s->ending) {
			now = now_ms();
			if (throttled(&s->out) || throttled(&s->errc))
				s->grace_until = now + TERM_GRACE_MS;
			if (now >= s->grace_until)
				s->out.reading = s->errc.reading = 0;
			if (!s->out.reading && !s->errc.reading &&
			    (chan_empty(&s->out) || !s->out.writing) &&
			    (chan_empty(&s->errc) || !s->errc.writing))
				return s->failed ? -1 : s->status;
			if ((s->out.reading || s->errc.reading) &&
			    (timeout == -1 || s->grace_until - now < timeout))
				timeout = (int)(s->grace_until - now);
		}

		memset(pfd, 0, sizeof(pfd));
		pfd[P_SIG].fd = sigfd;
		pfd[P_SIG].events = POLLIN;
		pfd[P_CTL].fd = s->ctl->fd;
		pfd[P_CTL].events = (s->ctl_open ? POLLIN : 0) |
		    (s->ctl_wok && imsgbuf_queuelen(s->ctl) > 0 ? POLLOUT : 0);
		if (pfd[P_CTL].events == 0)
			pfd[P_CTL].fd = -1;
		poll_chan(&pfd[P_IN_R], &pfd[P_IN_W], &s->in);
		poll_chan(&pfd[P_OUT_R], &pfd[P_OUT_W], &s->out);
		poll_chan(&pfd[P_ERR_R], &pfd[P_ERR_W], &s->errc);

		if (poll(pfd, P_MAX, timeout) == -1) {
			if (errno == EINTR)
				continue;
			return fail(s, "poll: %s", strerror(errno));
		}

		if (pfd[P_SIG].revents)
			while (read(sigfd, junk, sizeof(junk)) > 0)
				;
		if (pfd[P_CTL].revents & POLLNVAL)
			return fail(s, "control channel: bad descriptor");
		if (pfd[P_CTL].events & POLLOUT && pfd[P_CTL].revents &
		    (POLLOUT | POLLHUP | POLLERR) &&
		    imsgbuf_write(s->ctl) == -1)
			s->ctl_wok = 0;
		if (pfd[P_CTL].events & POLLIN && pfd[P_CTL].revents &
		    (POLLIN | POLLHUP | POLLERR) && ctl_read(s) == -1)
			return -1;

		/* writes first: they make room for this round's reads */
		if (pfd[P_IN_W].revents)
			chan_write(&s->in);
		if (pfd[P_OUT_W].revents)
			chan_write(&s->out);
		if (pfd[P_ERR_W].revents)
			chan_write(&s->errc);
		if (pfd[P_IN_R].revents && chan_want_read(&s->in) &&
		    (nr = chan_read(&s->in)) > 0)
			moved_out += (uint64_t)nr;
		got = 0;
		if (pfd[P_OUT_R].revents && chan_want_read(&s->out) &&
		    (nr = chan_read(&s->out)) > 0) {
			moved_in += (uint64_t)nr;
			got++;
		}
		if (pfd[P_ERR_R].revents && chan_want_read(&s->errc))
			got += chan_read(&s->errc) > 0;
		if (got && s->ending)
			s->grace_until = now_ms() + TERM_GRACE_MS;
	}
}

void
term_limit(uint64_t max_bytes, int64_t timeout_ms)
{
	lim_bytes = max_bytes;
	lim_ms = timeout_ms;
}

void
term_moved(uint64_t *in, uint64_t *out)
{
	*in = moved_in;
	*out = moved_out;
}

static void
set_nonblock(int fd)
{
	int	fl;

	if (fd != -1 && (fl = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void
tty_restore(const struct termios *saved)
{
	while (tcsetattr(STDIN_FILENO, TCSADRAIN, saved) == -1 &&
	    errno == EINTR)
		;
}

int
term_session(struct imsgbuf *ctl, int fd_io, int fd_err, int interactive,
    char *err, size_t errlen)
{
	struct session		*s;
	struct sigaction	 sa, old[NSIGNALS], oldpipe;
	struct termios		 saved, raw;
	int			 sp[2], rv, israw = 0;
	size_t			 i;

	if (errlen > 0)
		err[0] = '\0';
	if (fd_io == -1) {
		snprintf(err, errlen, "no stream from jailbeed");
		return -1;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (pipe2(sp, O_NONBLOCK | O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		free(s);
		return -1;
	}
	s->ctl = ctl;
	s->interactive = interactive;
	s->ctl_open = s->ctl_wok = 1;
	s->err = err;
	s->errlen = errlen;
	chan_init(&s->in, STDIN_FILENO, fd_io);
	chan_init(&s->out, fd_io, STDOUT_FILENO);
	chan_init(&s->errc, fd_err, fd_err == -1 ? -1 : STDERR_FILENO);
	set_nonblock(fd_io);
	set_nonblock(fd_err);

	sig_winch = sig_quit = 0;
	sig_wfd = sp[1];
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &oldpipe);
	if (interactive) {
		/* installed before raw mode, so no signal can skip the restore */
		sa.sa_handler = sig_handler;
		for (i = 0; i < NSIGNALS; i++)
			sigaddset(&sa.sa_mask, term_signals[i]);
		for (i = 0; i < NSIGNALS; i++)
			sigaction(term_signals[i], &sa, &old[i]);
		if (tcgetattr(STDIN_FILENO, &saved) == 0) {
			raw = saved;
			cfmakeraw(&raw);
			if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0)
				israw = 1;
		}
		send_winsize(s);
	}

	rv = session_loop(s, sp[0]);

	if (israw)
		tty_restore(&saved);
	if (interactive)
		for (i = 0; i < NSIGNALS; i++)
			sigaction(term_signals[i], &old[i], NULL);
	sigaction(SIGPIPE, &oldpipe, NULL);
	sig_wfd = -1;
	close(sp[0]);
	close(sp[1]);
	free(s);
	return rv;
}
