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
 * exec_client: drives jb-incus's streamed exec (exec.c over ws.c) against
 * the real incusd, in a container made from the base image: separate
 * stdout and stderr with the exit status, 1 MiB through `cat` and back,
 * a pty with its size, a resize, a signal, a missing binary, a hangup,
 * cancellation, flow control against a reader that stalls, and the time
 * of `true` against the incus CLI's.  The far ends of the socketpairs
 * are read and written here, as jbctl would.  It prints one line per
 * check, exits non-zero if any failed, and removes the container on
 * every path.
 *
 * usage: JB_IMAGE=alias exec_client [-e endpoint]
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <json.h>

#include "driver.h"
#include "http.h"
#include "incus.h"
#include "exec.h"

#define RUN_TIMEOUT_MS	30000

extern char	**environ;

static struct event_base	*base;
static struct incus		*inc;
static char			 name[64];
static int			 created;

/* For printing: control bytes as C escapes, on one line, cut short. */
static const char *
esc(const void *p, size_t len)
{
	static char		 ring[4][400];
	static int		 k;
	const unsigned char	*s = p;
	char			*o = ring[k = (k + 1) % 4];
	char			*e = o + sizeof(ring[0]) - 8;
	size_t			 i;

	for (i = 0; i < len && o < e; i++) {
		if (s[i] == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (s[i] == '\r') {
			*o++ = '\\';
			*o++ = 'r';
		} else if (s[i] < 0x20 || s[i] >= 0x7f)
			o += snprintf(o, 5, "\\x%02x", s[i]);
		else
			*o++ = s[i];
	}
	if (i < len)
		o += snprintf(o, 4, "...");
	*o = '\0';
	return ring[k];
}

/*
 * The far side of one exec: the ends of the socketpairs that jbctl
 * would hold.
 */
struct side {
	struct exec_session	*s;
	int			 done;
	int			 status;
	char			*err;
	struct bufferevent	*io;
	struct bufferevent	*eb;
	struct evbuffer		*out;
	struct evbuffer		*errout;
	int			 io_eof;
	int			 err_eof;
	int			 close_in;	/* then shut writing */
	int			 cancelled;
	size_t			 max_buffered;
};

static void
exec_done(void *arg, int status, const char *err)
{
	struct side	*d = arg;

	d->done = 1;
	d->s = NULL;
	d->status = status;
	d->err = err ? strdup(err) : NULL;
}

static void
side_read(struct bufferevent *bev, void *arg)
{
	struct side	*d = arg;

	evbuffer_add_buffer(bev == d->io ? d->out : d->errout,
	    bufferevent_get_input(bev));
}

static void
side_write(struct bufferevent *bev, void *arg)
{
	struct side	*d = arg;

	/* libevent calls this once at the start for an idle stream too */
	if (bev == d->io && d->close_in &&
	    evbuffer_get_length(bufferevent_get_output(bev)) == 0) {
		d->close_in = 0;
		shutdown(bufferevent_getfd(bev), SHUT_WR);
	}
}

static void
side_event(struct bufferevent *bev, short what, void *arg)
{
	struct side	*d = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		if (bev == d->io)
			d->io_eof = 1;
		else
			d->err_eof = 1;
		bufferevent_disable(bev, EV_READ);
	}
}

static struct bufferevent *
side_bev(struct side *d, int fd)
{
	struct bufferevent	*bev;

	evutil_make_socket_nonblocking(fd);
	bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(bev, side_read, side_write, side_event, d);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	return bev;
}

static void
side_clear(struct side *d)
{
	if (d->s != NULL)
		exec_cancel(d->s);
	if (d->io != NULL)
		bufferevent_free(d->io);
	if (d->eb != NULL)
		bufferevent_free(d->eb);
	if (d->out != NULL)
		evbuffer_free(d->out);
	if (d->errout != NULL)
		evbuffer_free(d->errout);
	free(d->err);
	memset(d, 0, sizeof(*d));
}

/* merge: stderr comes on fd_io too */
static int
start(struct side *d, const char *const *argv, int interactive, int merge,
    const struct exec_params *tmpl)
{
	struct exec_params	p;
	int			io[2], er[2] = { -1, -1 };

	memset(d, 0, sizeof(*d));
	if (tmpl != NULL)
		p = *tmpl;
	else
		memset(&p, 0, sizeof(p));
	p.argv = argv;
	p.interactive = interactive;
	d->out = evbuffer_new();
	d->errout = evbuffer_new();
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, io) == -1 ||
	    (!interactive && !merge &&
	    socketpair(AF_UNIX, SOCK_STREAM, 0, er) == -1))
		return -1;
	d->io = side_bev(d, io[0]);
	if (er[0] != -1)
		d->eb = side_bev(d, er[0]);
	else
		d->err_eof = 1;
	d->s = exec_start(inc, name, &p, io[1], er[1], exec_done, d);
	if (d->s == NULL)
		return -1;
	/* the result never comes from inside the call */
	if (d->done)
		check(0, "done() ran inside exec_start");
	return 0;
}

static int
contains(struct evbuffer *b, const char *s)
{
	return evbuffer_search(b, s, strlen(s), NULL).pos != -1;
}

/* Run the loop until cond holds or ms pass; 0 on a timeout. */
static int
loop_until(int (*cond)(struct side *, const void *), struct side *d,
    const void *arg, int ms)
{
	double	end = now_ms() + ms;

	while (!cond(d, arg)) {
		if (now_ms() > end)
			return 0;
		event_base_loop(base, EVLOOP_ONCE);
		if (d->s != NULL && exec_buffered(d->s) > d->max_buffered)
			d->max_buffered = exec_buffered(d->s);
	}
	return 1;
}

static int
finished(struct side *d, const void *arg)
{
	return (d->done || d->cancelled) && d->io_eof && d->err_eof;
}

/* EOF on stdin once what was written has gone out */
static void
send_eof(struct side *d)
{
	d->close_in = 1;
	bufferevent_trigger(d->io, EV_WRITE, BEV_TRIG_IGNORE_WATERMARKS);
}

static int
out_has(struct side *d, const void *arg)
{
	return contains(d->out, arg) || d->done;
}

static int
wait_end(struct side *d)
{
	return loop_until(finished, d, NULL, RUN_TIMEOUT_MS);
}

static const char *
show(struct evbuffer *b)
{
	return esc(evbuffer_pullup(b, -1), evbuffer_get_length(b));
}

static int
is(struct evbuffer *b, const char *s)
{
	return evbuffer_get_length(b) == strlen(s) &&
	    memcmp(evbuffer_pullup(b, -1), s, strlen(s)) == 0;
}

static void
t_status_and_streams(void)
{
	const char *const	 a[] = { "sh", "-c",
	    "echo out; echo err >&2; exit 7", NULL };
	struct side		 d;
	int			 ok;

	if (start(&d, a, 0, 0, NULL) == -1) {
		check(0, "exec_start");
		return;
	}
	send_eof(&d);
	ok = wait_end(&d);
	check(ok && d.status == 7 && d.err == NULL && is(d.out, "out\n") &&
	    is(d.errout, "err\n"), "exit 7: status %d, stdout \"%s\", stderr "
	    "\"%s\"%s%s", d.status, show(d.out), show(d.errout),
	    d.err ? ": " : ok ? "" : ": timed out", d.err ? d.err : "");
	side_clear(&d);
}

static void
t_merged_stderr(void)
{
	const char *const	 a[] = { "sh", "-c",
	    "echo a; sleep 0.1; echo b >&2", NULL };
	struct side		 d;
	int			 ok;

	if (start(&d, a, 0, 1, NULL) == -1) {
		check(0, "exec_start");
		return;
	}
	ok = wait_end(&d);
	check(ok && d.status == 0 && is(d.out, "a\nb\n"),
	    "fd_err -1: stderr on fd_io: \"%s\"%s%s", show(d.out),
	    d.err ? ": " : "", d.err ? d.err : "");
	side_clear(&d);
}

static void
t_identity(void)
{
	const char *const	 a[] = { "sh", "-c",
	    "id -u; id -g; pwd; printf '%s\\n' \"$X\"", NULL };
	const char *const	 env[] = { "X=a b=c", NULL };
	struct exec_params	 p;
	struct side		 d;
	int			 ok;

	memset(&p, 0, sizeof(p));
	p.env = env;
	p.uid = p.gid = 1000;
	p.cwd = "/home/dev";
	if (start(&d, a, 0, 0, &p) == -1) {
		check(0, "exec_start");
		return;
	}
	ok = wait_end(&d);
	check(ok && d.status == 0 && is(d.out, "1000\n1000\n/home/dev\n"
	    "a b=c\n"), "uid, gid, cwd and environment: \"%s\"%s%s",
	    show(d.out), d.err ? ": " : "", d.err ? d.err : "");
	side_clear(&d);
}

static void
t_cat(size_t len)
{
	const char *const	 a[] = { "cat", NULL };
	struct side		 d;
	unsigned char		*data;
	size_t			 i, got;
	double			 t0;
	int			 ok;

	if ((data = malloc(len)) == NULL)
		return;
	for (i = 0; i < len; i++)
		data[i] = (unsigned char)(i * 131 + (i >> 10));
	t0 = now_ms();
	if (start(&d, a, 0, 0, NULL) == -1) {
		check(0, "exec_start");
		free(data);
		return;
	}
	bufferevent_write(d.io, data, len);
	send_eof(&d);
	ok = wait_end(&d);
	got = evbuffer_get_length(d.out);
	check(ok && d.status == 0 && d.err == NULL && got == len &&
	    (len == 0 || memcmp(evbuffer_pullup(d.out, -1), data, len) == 0),
	    "cat: %zu bytes in, EOF, %zu bytes back identical, status %d "
	    "(%.0f ms)%s%s", len, got, d.status, now_ms() - t0,
	    d.err ? ": " : ok ? "" : ": timed out", d.err ? d.err : "");
	side_clear(&d);
	free(data);
}

static void
t_pty(void)
{
	const char *const	 a[] = { "sh", "-c",
	    "stty size; read x; echo got:$x", NULL };
	struct exec_params	 p;
	struct side		 d;
	int			 ok, sized;

	memset(&p, 0, sizeof(p));
	p.cols = 100;
	p.rows = 30;
	if (start(&d, a, 1, 0, &p) == -1) {
		check(0, "exec_start");
		return;
	}
	sized = loop_until(out_has, &d, "30 100", RUN_TIMEOUT_MS) &&
	    contains(d.out, "30 100");
	check(sized, "pty: stty size says \"30 100\": \"%s\"", show(d.out));
	bufferevent_write(d.io, "hello\n", 6);
	ok = wait_end(&d);
	check(ok && d.status == 0 && d.err == NULL &&
	    contains(d.out, "got:hello"), "pty: input read, \"got:hello\", "
	    "status %d: \"%s\"%s%s", d.status, show(d.out), d.err ? ": " : "",
	    d.err ? d.err : "");
	side_clear(&d);
}

static void
t_resize(void)
{
	const char *const	 a[] = { "sh", "-c",
	    "trap 'stty size; exit 3' WINCH; echo ready; "
	    "while :; do sleep 0.1; done", NULL };
	struct exec_params	 p;
	struct side		 d;
	int			 ok;

	memset(&p, 0, sizeof(p));
	p.cols = 80;
	p.rows = 24;
	if (start(&d, a, 1, 0, &p) == -1) {
		check(0, "exec_start");
		return;
	}
	check(exec_resize(d.s, 0, 10) == -1 && errno == EINVAL,
	    "resize to 0 columns refused");
	if (!loop_until(out_has, &d, "ready", RUN_TIMEOUT_MS) || d.done) {
		check(0, "resize: the trap is set: \"%s\"", show(d.out));
		side_clear(&d);
		return;
	}
	check(exec_resize(d.s, 120, 40) == 0, "resize to 120x40 sent");
	ok = wait_end(&d);
	check(ok && d.status == 3 && contains(d.out, "40 120"),
	    "resize: SIGWINCH, stty size \"40 120\", status %d: \"%s\"%s%s",
	    d.status, show(d.out), d.err ? ": " : "", d.err ? d.err : "");
	side_clear(&d);
}

static void
t_signal(void)
{
	const char *const	 a[] = { "sleep", "100", NULL };
	struct side		 d;
	double			 t0 = now_ms();
	int			 ok;

	if (start(&d, a, 0, 0, NULL) == -1) {
		check(0, "exec_start");
		return;
	}
	/* before control is even up: it waits for it */
	check(exec_signal(d.s, SIGTERM) == 0, "SIGTERM queued at once");
	check(exec_resize(d.s, 80, 24) == -1 && errno == EINVAL,
	    "resize without a pty refused");
	ok = wait_end(&d);
	check(ok && d.err == NULL && d.status == 128 + SIGTERM,
	    "SIGTERM to sleep 100: status %d after %.0f ms%s%s", d.status,
	    now_ms() - t0, d.err ? ": " : ok ? "" : ": timed out",
	    d.err ? d.err : "");
	side_clear(&d);
}

static void
t_missing(void)
{
	const char *const	 a[] = { "/no/such/binary", NULL };
	struct side		 d;
	double			 t0 = now_ms();
	int			 ok;

	if (start(&d, a, 0, 0, NULL) == -1) {
		check(0, "exec_start");
		return;
	}
	ok = wait_end(&d);
	check(ok && d.status == -1 && d.err != NULL, "missing binary: "
	    "status %d after %.0f ms: %s", d.status, now_ms() - t0,
	    d.err ? d.err : "no error");
	side_clear(&d);

	if (start(&d, a, 1, 0, NULL) == -1) {
		check(0, "exec_start");
		return;
	}
	ok = wait_end(&d);
	check(ok && d.status == -1 && d.err != NULL, "missing binary on a "
	    "pty: %s", d.err ? d.err : "no error");
	side_clear(&d);
}

static void
t_bad_args(void)
{
	const char *const	 a[] = { "true", NULL };
	const char *const	 bad_env[] = { "NOEQUALS", NULL };
	const char *const	 none[] = { NULL };
	struct exec_params	 p;
	struct side		 d;
	char			 saved[64];
	int			 ok;

	memset(&p, 0, sizeof(p));
	p.env = bad_env;
	start(&d, a, 0, 0, &p);
	ok = wait_end(&d);
	check(ok && d.status == -1 && d.err && strstr(d.err, "environment"),
	    "bad environment entry: %s", d.err ? d.err : "no error");
	side_clear(&d);

	start(&d, none, 0, 0, NULL);
	ok = wait_end(&d);
	check(ok && d.status == -1 && d.err && strstr(d.err, "empty command"),
	    "empty command: %s", d.err ? d.err : "no error");
	side_clear(&d);

	snprintf(saved, sizeof(saved), "%s", name);
	snprintf(name, sizeof(name), "jbt-no-such-instance");
	start(&d, a, 0, 0, NULL);
	ok = wait_end(&d);
	check(ok && d.status == -1 && d.err && strstr(d.err, "not found"),
	    "missing instance: %s", d.err ? d.err : "no error");
	side_clear(&d);
	snprintf(name, sizeof(name), "%s", saved);
}

/* The far end closes: SIGHUP for the command, as a terminal would. */
static void
t_hangup(void)
{
	const char *const	 a[] = { "sh", "-c",
	    "trap 'echo hup > /tmp/hup; exit 5' HUP; rm -f /tmp/hup; "
	    "echo ready; while :; do sleep 0.1; done", NULL };
	const char *const	 cat[] = { "cat", "/tmp/hup", NULL };
	struct side		 d;
	int			 ok;

	if (start(&d, a, 1, 0, NULL) == -1) {
		check(0, "exec_start");
		return;
	}
	if (!loop_until(out_has, &d, "ready", RUN_TIMEOUT_MS) || d.done) {
		check(0, "hangup: ready: \"%s\"", show(d.out));
		side_clear(&d);
		return;
	}
	bufferevent_free(d.io);
	d.io = NULL;
	d.io_eof = 1;
	ok = wait_end(&d);
	check(ok && d.status == 5 && d.err == NULL, "the far end closed: "
	    "SIGHUP, status %d%s%s", d.status, d.err ? ": " : "",
	    d.err ? d.err : "");
	side_clear(&d);
	start(&d, cat, 0, 0, NULL);
	ok = wait_end(&d);
	check(ok && is(d.out, "hup\n"), "the HUP trap ran: \"%s\"",
	    show(d.out));
	side_clear(&d);
}

/* Cancelled: our ends see EOF, done never runs, Incus kills the command. */
static void
t_cancel(void)
{
	const char *const	 a[] = { "sh", "-c",
	    "echo started; exec sleep 4711", NULL };
	const char *const	 ps[] = { "sh", "-c",
	    "ps -o args | grep -c '^sleep 4711'", NULL };
	struct side		 d, q;
	double			 t0;
	int			 ok;

	if (start(&d, a, 0, 0, NULL) == -1) {
		check(0, "exec_start");
		return;
	}
	if (!loop_until(out_has, &d, "started", RUN_TIMEOUT_MS) || d.done) {
		check(0, "cancel: started: \"%s\"", show(d.out));
		side_clear(&d);
		return;
	}
	exec_cancel(d.s);
	d.s = NULL;
	d.cancelled = 1;
	ok = loop_until(finished, &d, NULL, 5000);
	/* and a while longer, in case done() would still come */
	t0 = now_ms();
	while (now_ms() - t0 < 300)
		event_base_loop(base, EVLOOP_ONCE);
	check(ok && !d.done, "cancel: our ends see EOF, done() not called");
	side_clear(&d);
	/* Incus kills it when the control stream goes away */
	t0 = now_ms();
	do {
		usleep(100000);
		start(&q, ps, 0, 0, NULL);
		ok = wait_end(&q);
		if (ok && is(q.out, "0\n"))
			break;
		side_clear(&q);
	} while (now_ms() - t0 < 5000);
	check(ok && is(q.out, "0\n"), "cancel: the command is gone "
	    "(%.0f ms): \"%s\"", now_ms() - t0, show(q.out));
	side_clear(&q);
}

/*
 * A reader that stalls: the session stops reading the websocket, what
 * it holds stays bounded, and nothing is lost once reading resumes.
 */
static void
t_backpressure(void)
{
	const char *const	 a[] = { "sh", "-c",
	    "head -c 16777216 /dev/zero; echo done >&2", NULL };
	struct side		 d;
	double			 t0;
	size_t			 got, zeros, i;
	unsigned char		*p;
	int			 ok;

	if (start(&d, a, 0, 0, NULL) == -1) {
		check(0, "exec_start");
		return;
	}
	bufferevent_disable(d.io, EV_READ);
	t0 = now_ms();
	while (now_ms() - t0 < 1500) {
		event_base_loop(base, EVLOOP_ONCE);
		if (d.s != NULL && exec_buffered(d.s) > d.max_buffered)
			d.max_buffered = exec_buffered(d.s);
	}
	check(!d.done && d.max_buffered <= EXEC_HIGH + 64 * 1024,
	    "stalled reader: at most %zu bytes held (cap %d + one read)",
	    d.max_buffered, EXEC_HIGH);
	bufferevent_enable(d.io, EV_READ);
	t0 = now_ms();
	ok = wait_end(&d);
	got = evbuffer_get_length(d.out);
	p = evbuffer_pullup(d.out, -1);
	for (zeros = 0, i = 0; i < got; i++)
		zeros += p[i] == 0;
	check(ok && d.status == 0 && got == 16777216 && zeros == got &&
	    is(d.errout, "done\n") && d.max_buffered <= EXEC_HIGH + 64 * 1024,
	    "then all 16 MiB arrive (%.0f ms), max held %zu%s%s",
	    now_ms() - t0, d.max_buffered, d.err ? ": " : "",
	    d.err ? d.err : "");
	side_clear(&d);
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Run a host command with output to /dev/null; returns its exit status. */
static int
spawn(char *const argv[])
{
	posix_spawn_file_actions_t	fa;
	pid_t				pid;
	int				st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
t_timing(void)
{
	const char *const	 a[] = { "true", NULL };
	char			*cli[] = { "incus", "exec", name, "--",
	    "true", NULL };
	struct side		 d;
	double			 v[20], c[20], t0;
	char			 why[256] = "";
	int			 i, n = 0, m = 0;

	for (i = 0; i < 20; i++) {
		t0 = now_ms();
		if (start(&d, a, 0, 0, NULL) == 0 && wait_end(&d) &&
		    d.status == 0 && d.err == NULL)
			n++;
		else if (*why == '\0')
			snprintf(why, sizeof(why), ": status %d, %s", d.status,
			    d.err ? d.err : d.done ? "no error" :
			    "no result in time");
		v[i] = now_ms() - t0;
		side_clear(&d);
	}
	for (i = 0; i < 20; i++) {
		t0 = now_ms();
		if (spawn(cli) != 0)
			break;
		c[m++] = now_ms() - t0;
	}
	check(n == 20, "`true` through exec.c, 20 runs: median %.1f ms%s",
	    median(v, 20), why);
	if (m == 20)
		printf("# `incus exec %s -- true` (CLI), 20 runs: median "
		    "%.1f ms\n", name, median(c, 20));
	else
		printf("# the incus CLI failed; no comparison\n");
}

/*
 * The container.
 */

struct res {
	int			 done;
	struct json_object	*md;
	char			*err;
};

static void
json_done(void *arg, struct json_object *md, const char *err)
{
	struct res	*r = arg;

	r->done = 1;
	r->md = md ? json_object_get(md) : NULL;
	r->err = err ? strdup(err) : NULL;
}

static int
run(struct res *r, struct incus_call *c)
{
	memset(r, 0, sizeof(*r));
	if (c == NULL) {
		r->err = strdup("call returned NULL");
		return -1;
	}
	while (!r->done)
		if (event_base_loop(base, EVLOOP_ONCE) == -1)
			return -1;
	return r->err ? -1 : 0;
}

static void
res_clear(struct res *r)
{
	json_object_put(r->md);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* the base image run-tests built (JB_IMAGE) */
static const char	*image = "";

static int
ensure_image(void)
{
	struct res	 r;
	int		 rv;

	if ((image = getenv("JB_IMAGE")) == NULL || *image == '\0') {
		image = "";
		check(0, "JB_IMAGE names no base image");
		return -1;
	}
	run(&r, incus_image_alias_get(inc, image, json_done, &r));
	rv = r.err == NULL && r.md != NULL ? 0 : -1;
	check(rv == 0, "base image %s is in Incus", image);
	res_clear(&r);
	return rv;
}

static int
create_container(void)
{
	struct json_object	*req, *src;
	struct res		 r;
	double			 t0 = now_ms();
	int			 rv;

	req = json_object_new_object();
	src = json_object_new_object();
	json_object_object_add(req, "name", json_object_new_string(name));
	json_object_object_add(req, "type", json_object_new_string(
	    "container"));
	json_object_object_add(src, "type", json_object_new_string("image"));
	json_object_object_add(src, "alias", json_object_new_string(image));
	json_object_object_add(req, "source", src);
	json_object_object_add(req, "start", json_object_new_boolean(1));
	created = 1;	/* from here on, clean up whatever happened */
	rv = run(&r, incus_instance_create(inc, req, json_done, &r));
	check(rv == 0, "create+start %s from %s (%.0f ms)%s%s", name, image,
	    now_ms() - t0, r.err ? ": " : "", r.err ? r.err : "");
	res_clear(&r);
	json_object_put(req);
	return rv;
}

static void
cleanup(void)
{
	char		*argv[] = { "incus", "delete", "--force", name,
	    NULL };
	struct res	 r;

	if (!created)
		return;
	run(&r, incus_instance_state(inc, name, "stop", 1, -1, json_done,
	    &r));
	res_clear(&r);
	run(&r, incus_instance_delete(inc, name, json_done, &r));
	if (r.err != NULL && strstr(r.err, "not found") == NULL) {
		printf("# cleanup through the API failed (%s); using the "
		    "CLI\n", r.err);
		spawn(argv);
	}
	res_clear(&r);
	created = 0;
}

static void
tick(evutil_socket_t fd, short ev, void *arg)
{
}

int
main(int argc, char *argv[])
{
	const char	*endpoint = "unix:" INCUS_SOCKET;
	char		 err[256];
	struct event	*ticker;
	struct timeval	 tv = { 0, 100000 };
	struct res	 r;
	int		 ch;

	while ((ch = getopt(argc, argv, "e:")) != -1) {
		switch (ch) {
		case 'e':
			endpoint = optarg;
			break;
		default:
			fprintf(stderr, "usage: exec_client [-e endpoint]\n");
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((base = event_base_new()) == NULL)
		return 1;
	/* EVLOOP_ONCE returns at least this often, so timeouts are seen */
	ticker = event_new(base, -1, EV_PERSIST, tick, NULL);
	event_add(ticker, &tv);
	if ((inc = incus_new(base, endpoint, NULL, err, sizeof(err))) ==
	    NULL) {
		fprintf(stderr, "exec_client: %s\n", err);
		return 1;
	}
	snprintf(name, sizeof(name), "jbt-exec-%d", (int)getpid());
	if (run(&r, incus_server_get(inc, json_done, &r)) == -1) {
		check(0, "incusd answers at %s: %s", endpoint, r.err);
		res_clear(&r);
		goto done;
	}
	res_clear(&r);
	if (ensure_image() == -1 || create_container() == -1)
		goto done;

	t_status_and_streams();
	t_merged_stderr();
	t_identity();
	t_cat(0);
	t_cat(1024 * 1024);
	t_pty();
	t_resize();
	t_signal();
	t_missing();
	t_bad_args();
	t_hangup();
	t_cancel();
	t_backpressure();
	t_timing();
done:
	cleanup();
	incus_free(inc);
	event_free(ticker);
	event_base_free(base);
	printf("# %d failure(s)\n", failures);
	return failures ? 1 : 0;
}
