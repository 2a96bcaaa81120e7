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
 * How Incus runs an exec with wait-for-websocket (cmd/incusd/
 * instance_exec.go), which this file follows:
 *
 *  - POST .../exec answers at once with an operation whose metadata
 *    holds one secret per websocket: "0", "1", "2" and "control", or
 *    "0" (the pty, both ways) and "control" when interactive.
 *  - The command starts once the required websockets are connected, so
 *    control is connected first: a signal sent early then still works,
 *    and the control stream's end tells when the command has ended.
 *  - Output comes as binary messages; an empty text message (a
 *    "barrier") ends a stream.  The same barrier from us ends stdin;
 *    in interactive mode the server also waits for our close of "0"
 *    after its barrier before it finishes.
 *  - When the command ends Incus closes the control stream, writes the
 *    rest of the output, closes every stream (without a close frame),
 *    and only then completes the operation, which it forgets 5 s
 *    later.  So the operation is waited for from the moment control
 *    closes: a slow local reader may hold the output back for longer.
 *  - A control stream that goes away makes Incus kill the command.
 */

#include <sys/types.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <json.h>

#include "http.h"
#include "incus.h"
#include "ws.h"
#include "exec.h"

#define WAIT_SECS	30	/* one long poll on the operation */
#define WAIT_AFTER_EOF	4	/* polls once all output is in */
#define READ_CHUNK	(64 * 1024)

enum {
	S_IN,		/* "0": stdin, or the pty both ways */
	S_OUT,		/* "1" */
	S_ERR,		/* "2" */
	S_CTL,		/* "control" */
	S_MAX
};

static const char *const stream_name[S_MAX] = { "0", "1", "2", "control" };

struct exec_session;

struct exec_stream {
	struct exec_session	*s;
	int			 idx;
	int			 used;		/* Incus offers it */
	int			 output;	/* to a local fd */
	char			*secret;
	char			 key[WS_KEY_LEN + 1];
	struct http_request	*req;	/* the upgrade in flight */
	struct ws_conn		*ws;
	int			 done;		/* nothing more comes */
	int			 paused;	/* by its fd's backlog */
};

struct local {
	struct exec_session	*s;
	struct bufferevent	*bev;		/* NULL: none */
	int			 dead;		/* nobody reads it */
};

struct exec_session {
	struct incus		*inc;
	char			*what;		/* for messages */
	int			 interactive;
	struct http_request	*post;
	char			*op;		/* /1.0/operations/ID */
	struct exec_stream	 st[S_MAX];
	struct local		 io;
	struct local		 err;		/* no bev: to io */
	int			 in_eof;	/* no more input from io */
	int			 in_throttled;
	int			 hup_sent;
	struct evbuffer		*ctlq;		/* control is not up */
	struct incus_call	*wait;
	int			 polls_after_eof;
	int			 have_result;
	int			 status;
	char			*failmsg;
	struct event		*defer;
	exec_done_cb		 done;
	void			*arg;
};

static void	fail(struct exec_session *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));
static void	note(struct exec_session *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));
static void	check_finish(struct exec_session *);
static void	maybe_wait(struct exec_session *);
static void	input_ended(struct exec_session *);

static void
session_free(struct exec_session *s)
{
	struct exec_stream	*st;
	int			 i;

	if (s->post != NULL)
		http_request_cancel(s->post);
	for (i = 0; i < S_MAX; i++) {
		st = &s->st[i];
		if (st->req != NULL)
			http_request_cancel(st->req);
		ws_conn_free(st->ws);
		free(st->secret);
	}
	if (s->wait != NULL)
		incus_cancel(s->wait);
	if (s->io.bev != NULL)
		bufferevent_free(s->io.bev);
	if (s->err.bev != NULL)
		bufferevent_free(s->err.bev);
	if (s->ctlq != NULL)
		evbuffer_free(s->ctlq);
	if (s->defer != NULL)
		event_free(s->defer);
	free(s->what);
	free(s->op);
	free(s->failmsg);
	free(s);
}

void
exec_cancel(struct exec_session *s)
{
	if (s != NULL)
		session_free(s);
}

/* The first failure is the one reported: later ones are its echoes. */
static void	vnote(struct exec_session *, const char *, va_list)
		    __attribute__((__format__(__printf__, 2, 0)));

static void
vnote(struct exec_session *s, const char *fmt, va_list ap)
{
	char	*msg;

	if (s->failmsg != NULL)
		return;
	if (vasprintf(&msg, fmt, ap) == -1)
		msg = strdup("out of memory");
	s->failmsg = msg;
	s->status = -1;
}

static void
note(struct exec_session *s, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vnote(s, fmt, ap);
	va_end(ap);
}

/* Stop every stream: what reached the local fds is still delivered. */
static void
shut(struct exec_session *s)
{
	struct exec_stream	*st;
	int			 i;

	s->have_result = 1;
	if (s->post != NULL) {
		http_request_cancel(s->post);
		s->post = NULL;
	}
	if (s->wait != NULL) {
		incus_cancel(s->wait);
		s->wait = NULL;
	}
	for (i = 0; i < S_MAX; i++) {
		st = &s->st[i];
		if (st->req != NULL) {
			http_request_cancel(st->req);
			st->req = NULL;
		}
		/* closing control makes Incus kill a running command */
		ws_conn_free(st->ws);
		st->ws = NULL;
		st->done = 1;
	}
	s->in_eof = 1;
	if (s->io.bev != NULL)
		bufferevent_disable(s->io.bev, EV_READ);
}

/*
 * The end is always reached from the loop: callers go on using the
 * session after they fail it.
 */
static void
fail(struct exec_session *s, const char *fmt, ...)
{
	struct timeval	tv = { 0, 0 };
	va_list		ap;

	va_start(ap, fmt);
	vnote(s, fmt, ap);
	va_end(ap);
	shut(s);
	evtimer_add(s->defer, &tv);
}

static void
deferred(evutil_socket_t fd, short ev, void *arg)
{
	check_finish(arg);
}

static int
flushed(const struct local *l)
{
	return l->bev == NULL || l->dead ||
	    evbuffer_get_length(bufferevent_get_output(l->bev)) == 0;
}

/*
 * The end: a result, every output stream over, every byte written.
 * done runs last, the session already gone, so it may do anything.
 */
static void
check_finish(struct exec_session *s)
{
	exec_done_cb	 done = s->done;
	void		*arg = s->arg;
	char		*err;
	int		 i, status;

	if (!s->have_result)
		return;
	for (i = 0; i < S_MAX; i++)
		if (s->st[i].output && !s->st[i].done)
			return;
	if (!flushed(&s->io) || !flushed(&s->err))
		return;
	status = s->failmsg ? -1 : s->status;
	err = s->failmsg;
	s->failmsg = NULL;
	session_free(s);
	done(arg, status, err);
	free(err);
}

/*
 * Control messages.
 */

static int
ctl_send(struct exec_session *s, const char *msg)
{
	struct exec_stream	*st = &s->st[S_CTL];

	if (st->done || s->have_result) {
		errno = ESRCH;
		return -1;
	}
	if (st->ws != NULL)
		return ws_conn_send(st->ws, WS_OP_TEXT, msg, strlen(msg));
	/* one per line: the JSON we write holds no newline */
	return evbuffer_add_printf(s->ctlq, "%s\n", msg) == -1 ? -1 : 0;
}

int
exec_resize(struct exec_session *s, unsigned int cols, unsigned int rows)
{
	char	msg[128];

	if (!s->interactive || cols == 0 || rows == 0 || cols > 65535 ||
	    rows > 65535) {
		errno = EINVAL;
		return -1;
	}
	snprintf(msg, sizeof(msg), "{\"command\":\"window-resize\","
	    "\"args\":{\"width\":\"%u\",\"height\":\"%u\"}}", cols, rows);
	return ctl_send(s, msg);
}

int
exec_signal(struct exec_session *s, int signum)
{
	char	msg[64];

	if (signum <= 0 || signum >= 65) {
		errno = EINVAL;
		return -1;
	}
	snprintf(msg, sizeof(msg), "{\"command\":\"signal\",\"signal\":%d}",
	    signum);
	return ctl_send(s, msg);
}

size_t
exec_buffered(const struct exec_session *s)
{
	size_t	n = 0;

	if (s->io.bev != NULL)
		n += evbuffer_get_length(bufferevent_get_output(s->io.bev));
	if (s->err.bev != NULL)
		n += evbuffer_get_length(bufferevent_get_output(s->err.bev));
	return n;
}

/*
 * The local side.
 */

static struct local *
sink(struct exec_session *s, int idx)
{
	return idx == S_ERR && s->err.bev != NULL ? &s->err : &s->io;
}

static void
resume(struct exec_session *s, struct local *l)
{
	struct exec_stream	*st;
	int			 i;

	for (i = 0; i < S_MAX; i++) {
		st = &s->st[i];
		if (st->paused && sink(s, i) == l) {
			st->paused = 0;
			if (st->ws != NULL)
				ws_conn_pause(st->ws, 0);
		}
	}
}

/* Is the peer of fd gone altogether (not merely done writing)? */
static int
hung_up(struct bufferevent *bev)
{
	struct pollfd	pfd;

	pfd.fd = bufferevent_getfd(bev);
	pfd.events = POLLOUT;
	pfd.revents = 0;
	return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR));
}

/* Nobody reads l any more: drop its output, hang up on the command. */
static void
local_gone(struct exec_session *s, struct local *l)
{
	struct evbuffer	*out;

	if (l->dead)
		return;
	l->dead = 1;
	out = bufferevent_get_output(l->bev);
	evbuffer_drain(out, evbuffer_get_length(out));
	bufferevent_disable(l->bev, EV_WRITE);
	resume(s, l);
	if (l == &s->io) {
		if (!s->hup_sent) {
			s->hup_sent = 1;
			exec_signal(s, SIGHUP);
		}
		input_ended(s);
	}
}

static void
input_ended(struct exec_session *s)
{
	struct exec_stream	*st = &s->st[S_IN];

	if (s->in_eof)
		return;
	s->in_eof = 1;
	bufferevent_disable(s->io.bev, EV_READ);
	if (hung_up(s->io.bev))
		local_gone(s, &s->io);
	/* Incus's end of stream: an empty text message */
	if (st->ws != NULL && ws_conn_is_open(st->ws))
		ws_conn_send(st->ws, WS_OP_TEXT, "", 0);
}

static void
io_readcb(struct bufferevent *bev, void *arg)
{
	struct local		*l = arg;
	struct exec_session	*s = l->s;
	struct exec_stream	*st = &s->st[S_IN];
	struct evbuffer		*in = bufferevent_get_input(bev);
	size_t			 n;
	unsigned char		*p;

	if (st->ws == NULL || !ws_conn_is_open(st->ws)) {
		evbuffer_drain(in, evbuffer_get_length(in));
		return;
	}
	while ((n = evbuffer_get_length(in)) > 0) {
		if (n > READ_CHUNK)
			n = READ_CHUNK;
		if ((p = evbuffer_pullup(in, n)) == NULL ||
		    ws_conn_send(st->ws, WS_OP_BINARY, p, n) == -1) {
			fail(s, "%s: sending input: %s", s->what,
			    strerror(errno));
			return;
		}
		evbuffer_drain(in, n);
	}
	if (ws_conn_outlen(st->ws) >= EXEC_HIGH) {
		s->in_throttled = 1;
		bufferevent_disable(bev, EV_READ);
	}
}

static void
local_writecb(struct bufferevent *bev, void *arg)
{
	struct local	*l = arg;

	resume(l->s, l);
	check_finish(l->s);
}

static void
local_eventcb(struct bufferevent *bev, short what, void *arg)
{
	struct local		*l = arg;
	struct exec_session	*s = l->s;

	if (what & BEV_EVENT_ERROR)
		local_gone(s, l);
	else if ((what & BEV_EVENT_EOF) && l == &s->io)
		input_ended(s);
	check_finish(s);
}

static int
local_new(struct exec_session *s, struct local *l, int fd,
    struct event_base *base)
{
	l->s = s;
	if (evutil_make_socket_nonblocking(fd) == -1 ||
	    (l->bev = bufferevent_socket_new(base, fd,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		close(fd);
		return -1;
	}
	bufferevent_setcb(l->bev, l == &s->io ? io_readcb : NULL,
	    local_writecb, local_eventcb, l);
	/*
	 * Input goes on in websocket messages of up to one read each: at
	 * most EXEC_HIGH plus one read waits for the websocket.
	 */
	if (bufferevent_set_max_single_read(l->bev, READ_CHUNK) == -1) {
		bufferevent_free(l->bev);
		l->bev = NULL;
		return -1;
	}
	bufferevent_setwatermark(l->bev, EV_WRITE, EXEC_LOW, 0);
	/* input is read once there is a websocket to send it to */
	bufferevent_enable(l->bev, EV_WRITE);
	return 0;
}

/*
 * The websockets.
 */

static void
stream_done(struct exec_stream *st)
{
	struct exec_session	*s = st->s;

	if (st->done)
		return;
	st->done = 1;
	/* the server finishes an interactive session on our close */
	if (s->interactive && st->idx == S_IN && st->ws != NULL &&
	    ws_conn_is_open(st->ws))
		ws_conn_close(st->ws, WS_CLOSE_NORMAL, NULL);
	maybe_wait(s);
	check_finish(s);
}

static void
on_data(void *arg, int opcode, const void *data, size_t len, int last)
{
	struct exec_stream	*st = arg;
	struct exec_session	*s = st->s;
	struct local		*l;

	if (!st->output || st->done)
		return;
	if (opcode == WS_OP_TEXT) {
		if (last)
			stream_done(st);
		return;
	}
	l = sink(s, st->idx);
	if (l->dead || len == 0)
		return;
	if (bufferevent_write(l->bev, data, len) == -1) {
		fail(s, "%s: out of memory", s->what);
		return;
	}
	if (!st->paused && evbuffer_get_length(bufferevent_get_output(l->bev))
	    >= EXEC_HIGH) {
		st->paused = 1;
		ws_conn_pause(st->ws, 1);
	}
}

static void
on_closed(void *arg, int code, const char *why)
{
	struct exec_stream	*st = arg;
	struct exec_session	*s = st->s;

	if (st->output && !st->done && why != NULL) {
		fail(s, "%s: websocket %s: %s", s->what, stream_name[st->idx],
		    why);
		return;
	}
	if (st->idx == S_CTL || (st->idx == S_IN && !s->interactive)) {
		st->done = 1;
		if (st->idx == S_IN) {
			s->in_eof = 1;
			bufferevent_disable(s->io.bev, EV_READ);
		}
		maybe_wait(s);
		return;
	}
	stream_done(st);
}

static void
on_drained(void *arg)
{
	struct exec_stream	*st = arg;
	struct exec_session	*s = st->s;

	if (st->idx == S_IN && s->in_throttled && !s->in_eof) {
		s->in_throttled = 0;
		bufferevent_enable(s->io.bev, EV_READ);
	}
}

static const struct ws_conn_cbs stream_cbs = {
	on_data,
	on_closed,
	on_drained
};

/* An Incus error answer, as "message (HTTP n)". */
static char *
describe(const struct http_response *resp)
{
	struct json_object	*root, *v;
	const char		*msg = NULL;
	char			*out;

	root = json_tokener_parse(resp->body);
	if (root != NULL && json_object_object_get_ex(root, "error", &v) &&
	    json_object_is_type(v, json_type_string))
		msg = json_object_get_string(v);
	if (asprintf(&out, "%s (HTTP %d)", msg && *msg ? msg : resp->reason,
	    resp->status) == -1)
		out = NULL;
	json_object_put(root);
	return out;
}

static void	connect_stream(struct exec_session *, int);

static void
upgrade_done(struct http_response *resp, const char *err, void *arg)
{
	struct exec_stream	*st = arg;
	struct exec_session	*s = st->s;
	struct bufferevent	*bev;
	const char		*why;
	char			*msg, *line;
	size_t			 n;
	int			 i;

	st->req = NULL;
	if (err != NULL) {
		fail(s, "%s: websocket %s: %s", s->what, stream_name[st->idx],
		    err);
		return;
	}
	if (resp->status != 101) {
		msg = describe(resp);
		fail(s, "%s: websocket %s: %s", s->what, stream_name[st->idx],
		    msg ? msg : "refused");
		free(msg);
		return;
	}
	if ((why = ws_response_check(resp, st->key)) != NULL) {
		fail(s, "%s: websocket %s: %s", s->what, stream_name[st->idx],
		    why);
		return;
	}
	bev = http_response_take_bev(resp);
	if ((st->ws = ws_conn_new(bev, WS_MAX_MESSAGE, EXEC_LOW, &stream_cbs,
	    st)) == NULL) {
		bufferevent_free(bev);
		fail(s, "%s: out of memory", s->what);
		return;
	}
	if (st->idx == S_CTL) {
		while ((line = evbuffer_readln(s->ctlq, &n,
		    EVBUFFER_EOL_LF)) != NULL) {
			ws_conn_send(st->ws, WS_OP_TEXT, line, n);
			free(line);
		}
		for (i = 0; i < S_CTL; i++)
			if (s->st[i].used)
				connect_stream(s, i);
		return;
	}
	if (st->idx == S_IN && !s->in_eof)
		bufferevent_enable(s->io.bev, EV_READ);
}

static void
connect_stream(struct exec_session *s, int idx)
{
	struct exec_stream	*st = &s->st[idx];
	struct http_request	*r;
	char			*path;

	if (s->have_result)
		return;
	if (asprintf(&path, "%s/websocket?secret=%s", s->op, st->secret) ==
	    -1) {
		fail(s, "%s: out of memory", s->what);
		return;
	}
	r = http_request_new(incus_http(s->inc), "GET", path);
	free(path);
	if (r == NULL || ws_request_upgrade(r, st->key) == -1) {
		if (r != NULL)
			http_request_cancel(r);
		fail(s, "%s: cannot build the websocket request", s->what);
		return;
	}
	st->req = r;
	http_request_submit(r, upgrade_done, st);
}

/*
 * The operation's result.
 */

static void
wait_done(void *arg, struct json_object *op, const char *err)
{
	struct exec_session	*s = arg;
	struct json_object	*md, *v;
	const char		*p;
	int64_t			 code;
	int			 i, eof = 1;

	s->wait = NULL;
	for (i = 0; i < S_MAX; i++)
		if (s->st[i].output && !s->st[i].done)
			eof = 0;
	if (err != NULL) {
		/* Incus 6 ends a long poll that found nothing this way */
		if (strstr(err, "context deadline exceeded") != NULL &&
		    (!eof || s->polls_after_eof++ < WAIT_AFTER_EOF)) {
			maybe_wait(s);
			return;
		}
		/* Incus's own words say more than the wait's URL */
		if (strncmp(err, "GET /1.0/operations/", 20) == 0 &&
		    (p = strstr(err, ": ")) != NULL)
			err = p + 2;
		note(s, "%s: %s", s->what, err);
	} else if (!json_object_object_get_ex(op, "status_code", &v) ||
	    (code = json_object_get_int64(v)) < 200) {
		/* still running: newer Incus answer a long poll so */
		if (!eof || s->polls_after_eof++ < WAIT_AFTER_EOF) {
			maybe_wait(s);
			return;
		}
		note(s, "%s: the operation did not end", s->what);
	} else if (code != 200) {
		note(s, "%s: %s", s->what, json_object_object_get_ex(op, "err",
		    &v) ? json_object_get_string(v) : "operation failed");
	} else if (!json_object_object_get_ex(op, "metadata", &md) ||
	    !json_object_object_get_ex(md, "return", &v) ||
	    !json_object_is_type(v, json_type_int))
		note(s, "%s: no exit status in the operation", s->what);
	else
		s->status = json_object_get_int(v);
	/* output still on its way is delivered all the same */
	s->have_result = 1;
	check_finish(s);
}

/*
 * Once control has closed the command has ended; until then waiting
 * would only hold one of the client's connections.
 */
static void
maybe_wait(struct exec_session *s)
{
	char	*path;
	int	 i;

	if (s->wait != NULL || s->have_result || s->op == NULL)
		return;
	if (!s->st[S_CTL].done)
		for (i = 0; i < S_MAX; i++)
			if (s->st[i].output && !s->st[i].done)
				return;
	if (asprintf(&path, "%s/wait?timeout=%d", s->op, WAIT_SECS) == -1) {
		fail(s, "%s: out of memory", s->what);
		return;
	}
	s->wait = incus_request(s->inc, "GET", path, NULL, wait_done, s);
	free(path);
	if (s->wait == NULL)
		fail(s, "%s: out of memory", s->what);
}

static int
is_hex(const char *p)
{
	return *p != '\0' && strspn(p, "0123456789abcdefABCDEF") == strlen(p);
}

static void
post_done(struct http_response *resp, const char *err, void *arg)
{
	struct exec_session	*s = arg;
	struct json_object	*root = NULL, *v, *md, *fds;
	const char		*op, *sec;
	char			*msg;
	size_t			 idl = 0;
	int			 i;

	s->post = NULL;
	if (err != NULL) {
		fail(s, "%s: %s", s->what, err);
		return;
	}
	if (resp->status / 100 != 2) {
		msg = describe(resp);
		fail(s, "%s: %s", s->what, msg ? msg : "refused");
		free(msg);
		return;
	}
	if ((root = json_tokener_parse(resp->body)) == NULL ||
	    !json_object_object_get_ex(root, "operation", &v) ||
	    (op = json_object_get_string(v)) == NULL ||
	    strncmp(op, "/1.0/operations/", 16) != 0 ||
	    (idl = strcspn(op + 16, "?")) == 0 ||
	    strspn(op + 16, "0123456789abcdefABCDEF-") != idl ||
	    (op[16 + idl] != '\0' && strncmp(op + 16 + idl, "?project=", 9) !=
	    0) ||
	    !json_object_object_get_ex(root, "metadata", &md) ||
	    !json_object_object_get_ex(md, "metadata", &md) ||
	    !json_object_object_get_ex(md, "fds", &fds)) {
		fail(s, "%s: no operation with websockets in the answer",
		    s->what);
		json_object_put(root);
		return;
	}
	/*
	 * the operation's own path: an operation on another cluster member
	 * is named with its project (?project=), which the paths made from
	 * it (websocket, wait) put elsewhere
	 */
	if ((s->op = strndup(op, 16 + idl)) == NULL) {
		fail(s, "%s: out of memory", s->what);
		json_object_put(root);
		return;
	}
	for (i = 0; i < S_MAX; i++) {
		if (!s->st[i].used)
			continue;
		/* the secret goes into a URL: hex, as Incus makes them */
		if (!json_object_object_get_ex(fds, stream_name[i], &v) ||
		    (sec = json_object_get_string(v)) == NULL ||
		    !is_hex(sec)) {
			fail(s, "%s: no usable secret for websocket %s",
			    s->what, stream_name[i]);
			json_object_put(root);
			return;
		}
		if ((s->st[i].secret = strdup(sec)) == NULL) {
			fail(s, "%s: out of memory", s->what);
			json_object_put(root);
			return;
		}
	}
	json_object_put(root);
	connect_stream(s, S_CTL);
}


struct exec_session *
exec_start(struct incus *inc, const char *name, const struct exec_params *p,
    int fd_io, int fd_err, exec_done_cb done, void *arg)
{
	struct event_base	*base = incus_base(inc);
	struct exec_session	*s;
	struct json_object	*b;
	const char		*body;
	char			*esc, *path;
	int			 i, bad;

	if (p->interactive && fd_err != -1) {
		close(fd_err);
		fd_err = -1;
	}
	if (fd_err == fd_io)
		fd_err = -1;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		if (fd_io != -1)
			close(fd_io);
		if (fd_err != -1)
			close(fd_err);
		return NULL;
	}
	s->inc = inc;
	s->interactive = p->interactive != 0;
	s->done = done;
	s->arg = arg;
	s->io.s = s->err.s = s;
	for (i = 0; i < S_MAX; i++) {
		s->st[i].s = s;
		s->st[i].idx = i;
		s->st[i].used = !s->interactive || i == S_IN || i == S_CTL;
		s->st[i].output = s->interactive ? i == S_IN :
		    i == S_OUT || i == S_ERR;
	}
	bad = fd_io < 0 || local_new(s, &s->io, fd_io, base) == -1;
	if (fd_err >= 0 && local_new(s, &s->err, fd_err, base) == -1)
		bad = 1;
	if ((s->defer = evtimer_new(base, deferred, s)) == NULL ||
	    (s->ctlq = evbuffer_new()) == NULL ||
	    asprintf(&s->what, "exec %s in %s", p->argv && p->argv[0] ?
	    p->argv[0] : "(nothing)", name) == -1) {
		s->what = NULL;
		session_free(s);
		return NULL;
	}
	/* failures from here on are reported from the loop */
	if (bad) {
		fail(s, "%s: bad local file descriptor", s->what);
		return s;
	}
	if (*name == '\0' || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0) {
		fail(s, "%s: empty or reserved instance name", s->what);
		return s;
	}
	if (p->argv == NULL || p->argv[0] == NULL) {
		fail(s, "%s: empty command", s->what);
		return s;
	}
	if ((b = incus_exec_body(p->argv, p->env, p->cwd, p->uid, p->gid,
	    p->interactive, 1, p->cols, p->rows)) == NULL) {
		fail(s, "%s: bad environment entry", s->what);
		return s;
	}
	body = json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN);
	esc = http_escape(name);
	if (esc == NULL || asprintf(&path, "/1.0/instances/%s/exec", esc) ==
	    -1)
		path = NULL;
	if (body == NULL || path == NULL ||
	    (s->post = http_request_new(incus_http(inc), "POST", path)) ==
	    NULL || http_request_body(s->post, "application/json", body,
	    strlen(body)) == -1) {
		if (s->post != NULL) {
			http_request_cancel(s->post);
			s->post = NULL;
		}
		json_object_put(b);
		free(esc);
		free(path);
		fail(s, "%s: cannot build the request", s->what);
		return s;
	}
	json_object_put(b);
	free(esc);
	free(path);
	http_request_submit(s->post, post_done, s);
	return s;
}
