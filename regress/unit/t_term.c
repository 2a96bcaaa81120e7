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
 * term_session() runs in a forked child whose stdio are pipes or a pty;
 * the test plays jailbeed on the control socket and the container on the
 * far ends of fd_io and fd_err.
 */

#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "imsg.h"
#include "jb_msg.h"
#include "term.h"

#define WAIT_MS		20000	/* longest wait for anything */
#define BIG_OUT		(1024 * 1024)
#define BIG_ERR		(100 * 1024)

struct result {
	int		rv;
	char		err[256];
	uint64_t	moved_in, moved_out;	/* term_moved() after */
};

struct sess {
	/* set before sess_start(): the child's 0, 1, 2 (-1: inherit) */
	int		 interactive;
	int		 in, out, errfd;
	int		 ctty;		/* -1, or the pty slave to own */
	int		 preread;	/* child reads ctl once before the call */
	uint64_t	 lim_bytes;	/* term_limit() in the child */
	int64_t		 lim_ms;
	/* set by sess_start() */
	pid_t		 pid;
	int		 ctl;		/* jailbeed's end of the control socket */
	int		 io;		/* container's end of fd_io */
	int		 err;		/* container's end of fd_err, or -1 */
	int		 res;		/* the child's struct result */
	struct imsgbuf	 ib;
};

static void
sess_init(struct sess *p)
{
	memset(p, 0, sizeof(*p));
	p->in = p->out = p->errfd = p->ctty = -1;
	p->ctl = p->io = p->err = p->res = -1;
}

static void
xclose(int *fd)
{
	if (*fd != -1)
		close(*fd);
	*fd = -1;
}

static int
keep(int fd, const int *keepfds, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		if (keepfds[i] == fd)
			return 1;
	return 0;
}

static void
sess_start(struct sess *p)
{
	struct timeval	tv = { WAIT_MS / 1000, 0 };
	int		c[2], io[2], er[2] = { -1, -1 }, rp[2];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, c) == 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, io) == 0);
	if (!p->interactive)
		ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, er) == 0);
	ATF_REQUIRE(pipe(rp) == 0);
	ATF_REQUIRE((p->pid = fork()) != -1);
	if (p->pid == 0) {
		struct imsgbuf	ib;
		struct result	r;
		int		keepfds[4] = { c[1], io[1], er[1], rp[1] };
		int		fd;

		/* as jbctl starts: SIGPIPE is term_session()'s business */
		(void)signal(SIGPIPE, SIG_DFL);
		if (p->ctty != -1 && (setsid() == -1 ||
		    ioctl(p->ctty, TIOCSCTTY, 0) == -1))
			_exit(90);
		if ((p->in != -1 && dup2(p->in, 0) == -1) ||
		    (p->out != -1 && dup2(p->out, 1) == -1) ||
		    (p->errfd != -1 && dup2(p->errfd, 2) == -1))
			_exit(91);
		/* no stray copy of a pipe or socket end may hide an EOF */
		for (fd = 3; fd < 1024; fd++)
			if (!keep(fd, keepfds, 4))
				(void)close(fd);
		if (imsgbuf_init(&ib, c[1]) == -1)
			_exit(92);
		if (p->preread && imsgbuf_read(&ib) != 1)
			_exit(93);
		memset(&r, 0, sizeof(r));
		term_limit(p->lim_bytes, p->lim_ms);
		r.rv = term_session(&ib, io[1], er[1], p->interactive, r.err,
		    sizeof(r.err));
		term_moved(&r.moved_in, &r.moved_out);
		if (write(rp[1], &r, sizeof(r)) != sizeof(r))
			_exit(94);
		_exit(0);
	}
	close(c[1]);
	close(io[1]);
	if (er[1] != -1)
		close(er[1]);
	close(rp[1]);
	p->ctl = c[0];
	p->io = io[0];
	p->err = er[0];
	p->res = rp[0];
	/* a jbctl that stops reading fails the write instead of hanging */
	ATF_REQUIRE(setsockopt(p->io, SOL_SOCKET, SO_SNDTIMEO, &tv,
	    sizeof(tv)) == 0);
	ATF_REQUIRE(imsgbuf_init(&p->ib, p->ctl) == 0);
}

static void
wait_in(int fd, int ms)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLIN };
	int		n;

	while ((n = poll(&pfd, 1, ms)) == -1 && errno == EINTR)
		;
	ATF_REQUIRE_MSG(n == 1, "timed out waiting on fd %d", fd);
}

static void
read_exact(int fd, void *buf, size_t len)
{
	unsigned char	*b = buf;
	ssize_t		 n;

	while (len > 0) {
		wait_in(fd, WAIT_MS);
		n = read(fd, b, len);
		ATF_REQUIRE_MSG(n > 0, "read: %zd (%s)", n, strerror(errno));
		b += n;
		len -= (size_t)n;
	}
}

static size_t
read_to_eof(int fd, void *buf, size_t cap)
{
	unsigned char	*b = buf;
	size_t		 len = 0;
	ssize_t		 n;

	for (;;) {
		wait_in(fd, WAIT_MS);
		n = read(fd, b + len, cap - len);
		ATF_REQUIRE_MSG(n >= 0, "read: %s", strerror(errno));
		if (n == 0)
			return len;
		len += (size_t)n;
		ATF_REQUIRE(len < cap);
	}
}

static void
write_all(int fd, const void *buf, size_t len)
{
	const unsigned char	*b = buf;
	ssize_t			 n;

	while (len > 0) {
		n = write(fd, b, len);
		ATF_REQUIRE_MSG(n > 0, "write: %s", strerror(errno));
		b += n;
		len -= (size_t)n;
	}
}

static void
sess_finish(struct sess *p, struct result *r)
{
	int	status;

	read_exact(p->res, r, sizeof(*r));
	r->err[sizeof(r->err) - 1] = '\0';
	ATF_REQUIRE(waitpid(p->pid, &status, 0) == p->pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status %#x", status);
	imsgbuf_clear(&p->ib);
	xclose(&p->ctl);
	xclose(&p->io);
	xclose(&p->err);
	xclose(&p->res);
}

static void
send_msg(struct sess *p, uint32_t type, uint32_t peerid, const void *data,
    size_t len)
{
	ATF_REQUIRE(imsg_compose(&p->ib, type, peerid, 0, -1, data, len) == 0);
	ATF_REQUIRE(imsgbuf_flush(&p->ib) == 0);
}

/* one flush: jbctl may hang up as soon as it has the status */
static void
send_exit(struct sess *p, int status)
{
	struct jb_exit	x;

	memset(&x, 0, sizeof(x));
	x.status = status;
	ATF_REQUIRE(imsg_compose(&p->ib, IMSG_CTL_EXIT, JB_CTL_VERSION, 0, -1,
	    &x, sizeof(x)) == 0);
	ATF_REQUIRE(imsg_compose(&p->ib, IMSG_CTL_END, JB_CTL_VERSION, 0, -1,
	    NULL, 0) == 0);
	ATF_REQUIRE(imsgbuf_flush(&p->ib) == 0);
}

static void
recv_winsize(struct sess *p, struct jb_winsize *w)
{
	struct imsg	imsg;
	int		n;

	for (;;) {
		ATF_REQUIRE((n = imsgbuf_get(&p->ib, &imsg)) != -1);
		if (n == 1)
			break;
		wait_in(p->ctl, WAIT_MS);
		ATF_REQUIRE(imsgbuf_read(&p->ib) == 1);
	}
	ATF_REQUIRE_EQ(imsg_get_type(&imsg), IMSG_CTL_WINSIZE);
	ATF_REQUIRE_EQ(imsg_get_id(&imsg), JB_CTL_VERSION);
	ATF_REQUIRE(imsg_get_data(&imsg, w, sizeof(*w)) == 0);
	imsg_free(&imsg);
}

static void
mkpipe(int p[2])
{
	ATF_REQUIRE(pipe(p) == 0);
}

static unsigned char
pattern(size_t i, int salt)
{
	return (unsigned char)((i % 251) ^ (size_t)salt);
}

static int64_t
ms_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

ATF_TC(noninteractive);
ATF_TC_HEAD(noninteractive, tc)
{
	atf_tc_set_md_var(tc, "descr", "stdin, stdout, stderr and the exit "
	    "status all pass through");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(noninteractive, tc)
{
	struct sess	p;
	struct result	r;
	int		in[2], out[2], er[2];
	char		buf[256];
	size_t		n;

	mkpipe(in);
	mkpipe(out);
	mkpipe(er);
	sess_init(&p);
	p.in = in[0];
	p.out = out[1];
	p.errfd = er[1];
	sess_start(&p);
	close(in[0]);
	close(out[1]);
	close(er[1]);

	write_all(in[1], "to the container\n", 17);
	close(in[1]);
	/* our EOF on stdin reaches the container as a shutdown */
	n = read_to_eof(p.io, buf, sizeof(buf));
	ATF_REQUIRE_EQ(n, 17);
	ATF_REQUIRE(memcmp(buf, "to the container\n", 17) == 0);

	write_all(p.io, "on stdout\n", 10);
	write_all(p.err, "on stderr\n", 10);
	xclose(&p.io);
	xclose(&p.err);
	send_exit(&p, 7);

	n = read_to_eof(out[0], buf, sizeof(buf));
	ATF_REQUIRE_EQ(n, 10);
	ATF_REQUIRE(memcmp(buf, "on stdout\n", 10) == 0);
	n = read_to_eof(er[0], buf, sizeof(buf));
	ATF_REQUIRE_EQ(n, 10);
	ATF_REQUIRE(memcmp(buf, "on stderr\n", 10) == 0);
	sess_finish(&p, &r);
	ATF_REQUIRE_EQ_MSG(r.rv, 7, "rv %d: %s", r.rv, r.err);
	close(out[0]);
	close(er[0]);
}

ATF_TC(limits);
ATF_TC_HEAD(limits, tc)
{
	atf_tc_set_md_var(tc, "descr", "the git bridge's limits: more bytes "
	    "than allowed, or a session longer than allowed, ends it with "
	    "the reason, and term_moved() counts what came in");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(limits, tc)
{
	struct sess	p;
	struct result	r;
	int		in[2], out[2], er[2];
	char		buf[5000];
	int64_t		t0;

	/* bytes: 5000 from the container against a limit of 1000 */
	mkpipe(in);
	mkpipe(out);
	mkpipe(er);
	sess_init(&p);
	p.in = in[0];
	p.out = out[1];
	p.errfd = er[1];
	p.lim_bytes = 1000;
	sess_start(&p);
	close(in[0]);
	close(out[1]);
	close(er[1]);
	memset(buf, 'x', sizeof(buf));
	write_all(p.io, buf, sizeof(buf));
	sess_finish(&p, &r);
	ATF_CHECK_EQ(r.rv, -1);
	ATF_CHECK_MSG(strstr(r.err, "more than 1000 bytes: the limit") !=
	    NULL, "%s", r.err);
	ATF_CHECK_MSG(r.moved_in > 1000 && r.moved_in <= sizeof(buf),
	    "%llu bytes in", (unsigned long long)r.moved_in);
	ATF_CHECK_EQ(r.moved_out, 0);
	close(in[1]);
	close(out[0]);
	close(er[0]);

	/* time: nothing happens for longer than 300 ms */
	mkpipe(in);
	mkpipe(out);
	mkpipe(er);
	sess_init(&p);
	p.in = in[0];
	p.out = out[1];
	p.errfd = er[1];
	p.lim_ms = 300;
	t0 = ms_now();
	sess_start(&p);
	close(in[0]);
	close(out[1]);
	close(er[1]);
	sess_finish(&p, &r);
	ATF_CHECK(ms_now() - t0 >= 300);
	ATF_CHECK_EQ(r.rv, -1);
	ATF_CHECK_MSG(strstr(r.err, "not done within") != NULL, "%s", r.err);
	close(in[1]);
	close(out[0]);
	close(er[0]);

}

ATF_TC(exit_before_output);
ATF_TC_HEAD(exit_before_output, tc)
{
	atf_tc_set_md_var(tc, "descr", "output arriving after the status, "
	    "held back by a slow reader, is delivered whole");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(exit_before_output, tc)
{
	struct sess	 p;
	struct result	 r;
	struct pollfd	 pfd[2];
	unsigned char	*ob, *eb, *chunk;
	size_t		 olen = 0, elen = 0, i;
	ssize_t		 n;
	pid_t		 w;
	int		 out[2], er[2], devnull, status, open_fds = 2;

	ATF_REQUIRE((devnull = open("/dev/null", O_RDONLY)) != -1);
	mkpipe(out);
	mkpipe(er);
	sess_init(&p);
	p.in = devnull;
	p.out = out[1];
	p.errfd = er[1];
	sess_start(&p);
	close(devnull);
	close(out[1]);
	close(er[1]);

	send_exit(&p, 3);
	usleep(300 * 1000);

	ATF_REQUIRE((w = fork()) != -1);
	if (w == 0) {
		if ((chunk = malloc(BIG_OUT)) == NULL)
			_exit(1);
		for (i = 0; i < BIG_OUT; i++)
			chunk[i] = pattern(i, 0);
		for (i = 0; i < BIG_OUT; ) {
			if ((n = write(p.io, chunk + i, BIG_OUT - i)) <= 0)
				_exit(2);
			i += (size_t)n;
		}
		for (i = 0; i < BIG_ERR; i++)
			chunk[i] = pattern(i, 0x5a);
		for (i = 0; i < BIG_ERR; ) {
			if ((n = write(p.err, chunk + i, BIG_ERR - i)) <= 0)
				_exit(3);
			i += (size_t)n;
		}
		_exit(0);
	}
	xclose(&p.io);
	xclose(&p.err);

	/* longer than the grace: only backpressure may keep jbctl waiting */
	sleep(3);

	ATF_REQUIRE((ob = malloc(BIG_OUT + 1)) != NULL);
	ATF_REQUIRE((eb = malloc(BIG_ERR + 1)) != NULL);
	pfd[0].fd = out[0];
	pfd[1].fd = er[0];
	while (open_fds > 0) {
		pfd[0].events = pfd[1].events = POLLIN;
		ATF_REQUIRE(poll(pfd, 2, WAIT_MS) > 0);
		for (i = 0; i < 2; i++) {
			unsigned char	*b = i == 0 ? ob : eb;
			size_t		*len = i == 0 ? &olen : &elen;
			size_t		 cap = i == 0 ? BIG_OUT + 1 : BIG_ERR + 1;

			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			n = read(pfd[i].fd, b + *len, cap - *len);
			ATF_REQUIRE(n >= 0);
			if (n == 0) {
				pfd[i].fd = -1;
				open_fds--;
			}
			*len += (size_t)n;
			ATF_REQUIRE(*len < cap);
		}
	}
	ATF_REQUIRE_EQ(olen, BIG_OUT);
	ATF_REQUIRE_EQ(elen, BIG_ERR);
	for (i = 0; i < BIG_OUT; i++)
		ATF_REQUIRE(ob[i] == pattern(i, 0));
	for (i = 0; i < BIG_ERR; i++)
		ATF_REQUIRE(eb[i] == pattern(i, 0x5a));
	ATF_REQUIRE(waitpid(w, &status, 0) == w);
	ATF_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	sess_finish(&p, &r);
	ATF_REQUIRE_EQ_MSG(r.rv, 3, "rv %d: %s", r.rv, r.err);
	free(ob);
	free(eb);
	close(out[0]);
	close(er[0]);
}

ATF_TC(grace);
ATF_TC_HEAD(grace, tc)
{
	atf_tc_set_md_var(tc, "descr", "streams that never close end the "
	    "session a short grace after the status");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(grace, tc)
{
	struct sess	p;
	struct result	r;
	int64_t		t0, dt;
	int		out[2], devnull;
	char		buf[64];
	size_t		n;

	ATF_REQUIRE((devnull = open("/dev/null", O_RDONLY)) != -1);
	mkpipe(out);
	sess_init(&p);
	p.in = devnull;
	p.out = out[1];
	sess_start(&p);
	close(devnull);
	close(out[1]);

	write_all(p.io, "early\n", 6);
	t0 = ms_now();
	send_exit(&p, 4);
	n = read_to_eof(out[0], buf, sizeof(buf));
	dt = ms_now() - t0;
	ATF_REQUIRE_EQ(n, 6);
	ATF_REQUIRE(memcmp(buf, "early\n", 6) == 0);
	ATF_REQUIRE_MSG(dt >= 1500 && dt < 10000, "ended after %lld ms",
	    (long long)dt);
	sess_finish(&p, &r);
	ATF_REQUIRE_EQ_MSG(r.rv, 4, "rv %d: %s", r.rv, r.err);
	close(out[0]);
}

ATF_TC(buffered_exit);
ATF_TC_HEAD(buffered_exit, tc)
{
	atf_tc_set_md_var(tc, "descr", "a status already in the imsgbuf "
	    "when the session starts is seen");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(buffered_exit, tc)
{
	struct sess	p;
	struct result	r;
	int		devnull;

	ATF_REQUIRE((devnull = open("/dev/null", O_RDWR)) != -1);
	sess_init(&p);
	p.in = p.out = devnull;
	p.preread = 1;
	sess_start(&p);
	close(devnull);
	send_exit(&p, 9);
	xclose(&p.io);
	xclose(&p.err);
	/* the control socket stays open: nothing more arrives on it */
	sess_finish(&p, &r);
	ATF_REQUIRE_EQ_MSG(r.rv, 9, "rv %d: %s", r.rv, r.err);
}

ATF_TC(error);
ATF_TC_HEAD(error, tc)
{
	atf_tc_set_md_var(tc, "descr", "IMSG_CTL_ERROR fails with its text");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(error, tc)
{
	struct sess		p;
	struct result		r;
	struct jb_ctl_text	t;
	int			devnull;

	ATF_REQUIRE((devnull = open("/dev/null", O_RDWR)) != -1);
	sess_init(&p);
	p.in = p.out = devnull;
	sess_start(&p);
	close(devnull);
	memset(&t, 0, sizeof(t));
	strlcpy(t.text, "container \"web\" is not running", sizeof(t.text));
	send_msg(&p, IMSG_CTL_ERROR, JB_CTL_VERSION, &t, sizeof(t));
	send_msg(&p, IMSG_CTL_END, JB_CTL_VERSION, NULL, 0);
	xclose(&p.io);
	xclose(&p.err);
	sess_finish(&p, &r);
	ATF_REQUIRE_EQ(r.rv, -1);
	ATF_REQUIRE_STREQ(r.err, "container \"web\" is not running");
}

ATF_TC(protocol);
ATF_TC_HEAD(protocol, tc)
{
	atf_tc_set_md_var(tc, "descr", "a wrong version or an unexpected "
	    "message type fails at once");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(protocol, tc)
{
	struct sess	p;
	struct result	r;
	struct jb_exit	x;
	struct jb_proc_status st;
	int		devnull, round;

	for (round = 0; round < 3; round++) {
		ATF_REQUIRE((devnull = open("/dev/null", O_RDWR)) != -1);
		sess_init(&p);
		p.in = p.out = devnull;
		sess_start(&p);
		close(devnull);
		memset(&x, 0, sizeof(x));
		if (round == 0)
			send_msg(&p, IMSG_CTL_EXIT, JB_CTL_VERSION + 1, &x,
			    sizeof(x));
		else if (round == 1) {
			/* well formed, but no answer to a terminal session */
			memset(&st, 0, sizeof(st));
			send_msg(&p, IMSG_CTL_STATUS_ENTRY, JB_CTL_VERSION,
			    &st, sizeof(st));
		} else
			/* the protocol table refuses it before any handler */
			send_msg(&p, IMSG_CTL_STATUS_ENTRY, JB_CTL_VERSION,
			    NULL, 0);
		/* the streams stay open: no grace, the failure is at once */
		sess_finish(&p, &r);
		ATF_REQUIRE_EQ(r.rv, -1);
		ATF_REQUIRE_MSG(strstr(r.err, round == 0 ?
		    "control protocol" : round == 1 ? "unexpected message" :
		    "malformed message") != NULL, "err: %s", r.err);
	}
}

ATF_TC(ctl_lost);
ATF_TC_HEAD(ctl_lost, tc)
{
	atf_tc_set_md_var(tc, "descr", "jailbeed closing the control socket "
	    "before the status fails the session");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(ctl_lost, tc)
{
	struct sess	p;
	struct result	r;
	int		devnull;

	ATF_REQUIRE((devnull = open("/dev/null", O_RDWR)) != -1);
	sess_init(&p);
	p.in = p.out = devnull;
	sess_start(&p);
	close(devnull);
	imsgbuf_clear(&p.ib);
	xclose(&p.ctl);
	xclose(&p.io);
	xclose(&p.err);
	sess_finish(&p, &r);
	ATF_REQUIRE_EQ(r.rv, -1);
	ATF_REQUIRE_MSG(strstr(r.err, "jailbeed closed the connection") !=
	    NULL, "err: %s", r.err);
}

ATF_TC(stdout_closed);
ATF_TC_HEAD(stdout_closed, tc)
{
	atf_tc_set_md_var(tc, "descr", "a closed stdout (EPIPE) neither "
	    "kills jbctl nor stalls the container; the status still comes");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(stdout_closed, tc)
{
	struct sess	 p;
	struct result	 r;
	unsigned char	*big;
	int		 out[2], devnull;

	/* a child killed by SIGPIPE must fail an assertion, not kill us */
	(void)signal(SIGPIPE, SIG_IGN);
	ATF_REQUIRE((devnull = open("/dev/null", O_RDONLY)) != -1);
	mkpipe(out);
	sess_init(&p);
	p.in = devnull;
	p.out = out[1];
	sess_start(&p);
	close(devnull);
	close(out[1]);
	close(out[0]);

	/* far more than every buffer between us holds */
	ATF_REQUIRE((big = calloc(1, BIG_OUT)) != NULL);
	/* jbctl keeps draining after EPIPE, or the container would stall */
	write_all(p.io, big, BIG_OUT);
	free(big);
	xclose(&p.io);
	xclose(&p.err);
	send_exit(&p, 5);
	sess_finish(&p, &r);
	ATF_REQUIRE_EQ_MSG(r.rv, 5, "rv %d: %s", r.rv, r.err);
}

static void
same_termios(const struct termios *a, const struct termios *b)
{
	ATF_REQUIRE_EQ(a->c_iflag, b->c_iflag);
	ATF_REQUIRE_EQ(a->c_oflag, b->c_oflag);
	ATF_REQUIRE_EQ(a->c_cflag, b->c_cflag);
	ATF_REQUIRE_EQ(a->c_lflag, b->c_lflag);
	ATF_REQUIRE(memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc)) == 0);
}

/* an interactive session on a fresh pty; returns the master */
static int
pty_session(struct sess *p, int *slave, struct termios *orig)
{
	struct winsize		ws;
	struct jb_winsize	w;
	int			m;

	memset(&ws, 0, sizeof(ws));
	ws.ws_col = 80;
	ws.ws_row = 24;
	ATF_REQUIRE(openpty(&m, slave, NULL, NULL, &ws) == 0);
	ATF_REQUIRE(tcgetattr(*slave, orig) == 0);
	ATF_REQUIRE(orig->c_lflag & ICANON);
	sess_init(p);
	p->interactive = 1;
	p->in = p->out = p->ctty = *slave;
	sess_start(p);
	recv_winsize(p, &w);
	ATF_REQUIRE_EQ(w.cols, 80);
	ATF_REQUIRE_EQ(w.rows, 24);
	return m;
}

ATF_TC(interactive);
ATF_TC_HEAD(interactive, tc)
{
	atf_tc_set_md_var(tc, "descr", "a pty session: raw mode, Ctrl-C as "
	    "a byte, window sizes, the terminal restored");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(interactive, tc)
{
	struct sess		p;
	struct result		r;
	struct termios		orig, t;
	struct winsize		ws;
	struct jb_winsize	w;
	char			buf[8];
	int			m, s;

	m = pty_session(&p, &s, &orig);

	ATF_REQUIRE(tcgetattr(s, &t) == 0);
	ATF_REQUIRE((t.c_lflag & (ICANON | ECHO | ISIG)) == 0);
	ATF_REQUIRE((t.c_oflag & OPOST) == 0);
	ATF_REQUIRE((t.c_iflag & ICRNL) == 0);

	/* cooked, 0x03 would raise SIGINT and \r become \n, with an echo */
	write_all(m, "\x03x\r", 3);
	read_exact(p.io, buf, 3);
	ATF_REQUIRE(memcmp(buf, "\x03x\r", 3) == 0);
	write_all(p.io, "hi\n", 3);
	read_exact(m, buf, 3);
	ATF_REQUIRE(memcmp(buf, "hi\n", 3) == 0);

	/* the kernel sends SIGWINCH to the slave's foreground group */
	memset(&ws, 0, sizeof(ws));
	ws.ws_col = 132;
	ws.ws_row = 43;
	ATF_REQUIRE(ioctl(m, TIOCSWINSZ, &ws) == 0);
	recv_winsize(&p, &w);
	ATF_REQUIRE_EQ(w.cols, 132);
	ATF_REQUIRE_EQ(w.rows, 43);

	send_exit(&p, 0);
	xclose(&p.io);
	sess_finish(&p, &r);
	ATF_REQUIRE_EQ_MSG(r.rv, 0, "rv %d: %s", r.rv, r.err);
	ATF_REQUIRE(tcgetattr(s, &t) == 0);
	same_termios(&orig, &t);
	close(m);
	close(s);
}

ATF_TC(interactive_signal);
ATF_TC_HEAD(interactive_signal, tc)
{
	atf_tc_set_md_var(tc, "descr", "SIGTERM, SIGHUP, SIGINT end a pty "
	    "session with 128+sig and the terminal restored");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(interactive_signal, tc)
{
	const int	sigs[] = { SIGTERM, SIGHUP, SIGINT };
	struct sess	p;
	struct result	r;
	struct termios	orig, t;
	size_t		i;
	int		m, s;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		m = pty_session(&p, &s, &orig);
		ATF_REQUIRE(tcgetattr(s, &t) == 0);
		ATF_REQUIRE((t.c_lflag & ICANON) == 0);
		ATF_REQUIRE(kill(p.pid, sigs[i]) == 0);
		sess_finish(&p, &r);
		ATF_REQUIRE_EQ_MSG(r.rv, 128 + sigs[i], "rv %d: %s", r.rv,
		    r.err);
		ATF_REQUIRE(tcgetattr(s, &t) == 0);
		same_termios(&orig, &t);
		close(m);
		close(s);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, noninteractive);
	ATF_TP_ADD_TC(tp, limits);
	ATF_TP_ADD_TC(tp, exit_before_output);
	ATF_TP_ADD_TC(tp, grace);
	ATF_TP_ADD_TC(tp, buffered_exit);
	ATF_TP_ADD_TC(tp, error);
	ATF_TP_ADD_TC(tp, protocol);
	ATF_TP_ADD_TC(tp, ctl_lost);
	ATF_TP_ADD_TC(tp, stdout_closed);
	ATF_TP_ADD_TC(tp, interactive);
	ATF_TP_ADD_TC(tp, interactive_signal);
	return atf_no_error();
}
