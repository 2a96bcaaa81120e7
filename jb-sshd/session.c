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
 * One SSH connection, in its own process forked by jb-sshd.  It speaks
 * SSH with libssh and nothing else: every key offered, every env, exec
 * and shell request goes up its own channel to the parent, which decides
 * and runs; what comes back (text, the exec streams as fds, the exit
 * status) goes out on the SSH channel.  Whatever no callback here
 * accepts, libssh refuses: forwardings of every kind, agent, X11 and
 * every subsystem but sftp.
 */

#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libssh/callbacks.h>

#include "imsg.h"
#include "log.h"
#include "session.h"
#include "sshd.h"
#include "termsafe.h"

#define SESS_BUFSZ	16384
#define SESS_INBUF	(256 * 1024)	/* input taken from libssh */
#define SESS_DRAIN_MS	5000	/* output may trail the end this long */
#define SESS_CLOSE_MS	3000	/* the peer has this long to close */

#define CONSOLE_PROMPT	"jailbee> "
static const char	console_banner[] = "JailBee console: the suite's "
    "commands only (help lists them); exit to leave\r\n";

/* one session a process: its pages count only once input comes */
static unsigned char	sess_inbuf[SESS_INBUF];

static void	console_drain(struct sess *);
static void	console_prompt(struct sess *);

static int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static __dead void
sess_exit(struct sess *st, int code)
{
	if (st->s != NULL) {
		ssh_disconnect(st->s);
		ssh_free(st->s);
	}
	_exit(code);
}

void
parent_send(struct sess *st, uint32_t type, const void *data, size_t len)
{
	if (st->parent_gone)
		return;
	if (imsg_compose(&st->ib, type, JB_CTL_VERSION, 0, -1, data, len) ==
	    -1 || imsgbuf_flush(&st->ib) == -1) {
		log_warn("to the parent");
		st->parent_gone = 1;
	}
}

/* blocking: the one answer the parent owes, with the type asked for */
int
parent_wait(struct sess *st, uint32_t type, void *data, size_t len)
{
	struct imsg	imsg;
	int		n;

	for (;;) {
		if ((n = jb_imsg_get(&st->ib, &imsg, JB_PEER_PARENT,
		    JB_PEER_SSHD)) == -1)
			return -1;
		if (n == 1) {
			if (imsg_get_type(&imsg) != type ||
			    imsg_get_data(&imsg, data, len) == -1) {
				imsg_free(&imsg);
				return -1;
			}
			imsg_free(&imsg);
			return 0;
		}
		if ((n = imsgbuf_read(&st->ib)) <= 0)
			return -1;
	}
}

/* journalled by the parent, which names the code: no client text */
static void
refused(struct sess *st, enum jb_sshd_refusal what)
{
	struct jb_sshd_refused	r;

	memset(&r, 0, sizeof(r));
	r.what = what;
	parent_send(st, IMSG_SSHD_REFUSED, &r, sizeof(r));
}

static int
auth_pubkey(ssh_session s, const char *user, struct ssh_key_struct *key,
    char state, void *ud)
{
	struct sess		*st = ud;
	struct jb_sshd_auth	*a;
	struct jb_sshd_verdict	 v;
	char			*b64 = NULL;
	const char		*type;

	if (state != SSH_PUBLICKEY_STATE_NONE &&
	    state != SSH_PUBLICKEY_STATE_VALID)
		return SSH_AUTH_DENIED;
	if (st->tries >= SSHD_MAX_TRIES) {
		st->over = 1;
		return SSH_AUTH_DENIED;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return SSH_AUTH_DENIED;
	strlcpy(a->user, user, sizeof(a->user));
	if ((type = ssh_key_type_to_char(ssh_key_type(key))) != NULL)
		strlcpy(a->keytype, type, sizeof(a->keytype));
	if (ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK ||
	    strlcpy(a->key, b64, sizeof(a->key)) >= sizeof(a->key)) {
		ssh_string_free_char(b64);
		free(a);
		return SSH_AUTH_DENIED;
	}
	ssh_string_free_char(b64);
	a->verified = state == SSH_PUBLICKEY_STATE_VALID;
	parent_send(st, IMSG_SSHD_AUTH, a, sizeof(*a));
	free(a);
	memset(&v, 0, sizeof(v));
	if (parent_wait(st, IMSG_SSHD_VERDICT, &v, sizeof(v)) == -1) {
		st->parent_gone = 1;
		st->over = 1;
		return SSH_AUTH_DENIED;
	}
	if (!v.ok) {
		/* MaxAuthTries: a client may not go on guessing */
		if (++st->tries >= SSHD_MAX_TRIES)
			st->over = 1;
		return SSH_AUTH_DENIED;
	}
	if (state == SSH_PUBLICKEY_STATE_VALID) {
		st->authed = 1;
		alarm(0);
	}
	return SSH_AUTH_SUCCESS;
}

/*
 * A refused attempt of any method counts against the connection's
 * limit (MaxAuthTries): past it the connection is hung up, so a client
 * cannot turn one connection into endless journal lines.
 */
static void
auth_failed(struct sess *st, enum jb_sshd_refusal what)
{
	if (st->tries >= SSHD_MAX_TRIES) {
		st->over = 1;
		return;
	}
	if (what != SSHD_REFUSED_NONE)
		refused(st, what);
	if (++st->tries >= SSHD_MAX_TRIES)
		st->over = 1;
}

static int
auth_password(ssh_session s, const char *user, const char *pass, void *ud)
{
	auth_failed(ud, SSHD_REFUSED_AUTH_PASSWORD);
	return SSH_AUTH_DENIED;
}

/* Debian's libssh does gssapi-with-mic itself unless told no mechanism */
static ssh_string
gssapi_none(ssh_session s, const char *user, int n, ssh_string *oids,
    void *ud)
{
	auth_failed(ud, SSHD_REFUSED_AUTH_GSSAPI);
	return NULL;
}

static void
global_request(ssh_session s, ssh_message msg, void *ud)
{
	refused(ud, ssh_message_subtype(msg) ==
	    SSH_GLOBAL_REQUEST_TCPIP_FORWARD ? SSHD_REFUSED_TCPIP_FORWARD :
	    SSHD_REFUSED_GLOBAL_REQUEST);
	ssh_message_reply_default(msg);
}

/* what no callback took: journalled, then refused by libssh's default */
static int
message_cb(ssh_session s, ssh_message msg, void *ud)
{
	struct sess		*st = ud;
	enum jb_sshd_refusal	 what = SSHD_REFUSED_NONE;

	switch (ssh_message_type(msg)) {
	case SSH_REQUEST_CHANNEL_OPEN:
		switch (ssh_message_subtype(msg)) {
		case SSH_CHANNEL_DIRECT_TCPIP:
			what = SSHD_REFUSED_DIRECT_TCPIP;
			break;
		case SSH_CHANNEL_X11:
			what = SSHD_REFUSED_X11_CHANNEL;
			break;
		case SSH_CHANNEL_SESSION:
			what = SSHD_REFUSED_SECOND_SESSION;
			break;
		default:
			what = SSHD_REFUSED_CHANNEL_OPEN;
		}
		break;
	case SSH_REQUEST_CHANNEL:
		switch (ssh_message_subtype(msg)) {
		case SSH_CHANNEL_REQUEST_X11:
			what = SSHD_REFUSED_X11_REQ;
			break;
		default:
			what = SSHD_REFUSED_CHANNEL_REQUEST;
		}
		break;
	case SSH_REQUEST_AUTH:
		switch (ssh_message_subtype(msg)) {
		case SSH_AUTH_METHOD_NONE:
		case SSH_AUTH_METHOD_PUBLICKEY:
			break;
		case SSH_AUTH_METHOD_INTERACTIVE:
			auth_failed(st, SSHD_REFUSED_AUTH_KBDINT);
			break;
		default:
			auth_failed(st, SSHD_REFUSED_AUTH_METHOD);
		}
		break;
	default:
		break;
	}
	if (what != SSHD_REFUSED_NONE)
		refused(st, what);
	return 1;
}

static int
pty_request(ssh_session s, ssh_channel ch, const char *term, int cols,
    int rows, int pxw, int pxh, void *ud)
{
	struct sess	*st = ud;

	if (st->request != REQ_NONE || st->x.pty)
		return -1;
	st->x.pty = 1;
	st->x.cols = cols > 0 && cols < 10000 ? cols : 80;
	st->x.rows = rows > 0 && rows < 10000 ? rows : 24;
	/* a terminal name is letters, digits and - + . _ only */
	if (strlen(term) < sizeof(st->x.term) && strspn(term,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-+._") == strlen(term))
		strlcpy(st->x.term, term, sizeof(st->x.term));
	return 0;
}

static int
exec_request(ssh_session s, ssh_channel ch, const char *cmd, void *ud)
{
	struct sess	*st = ud;

	if (st->request != REQ_NONE ||
	    strlcpy(st->x.line, cmd, sizeof(st->x.line)) >=
	    sizeof(st->x.line))
		return 1;
	/*
	 * console: the line console a shell request gave before the
	 * dashboard; dashboard: the dashboard itself.  Both are the
	 * session's own, as a shell request is: every line or action they
	 * send is judged by the parent.
	 */
	if (strcmp(cmd, "console") == 0 || strcmp(cmd, "dashboard") == 0) {
		st->want_console = strcmp(cmd, "console") == 0;
		st->x.line[0] = '\0';
		st->x.shell = 1;
		st->request = REQ_SHELL;
		return 0;
	}
	st->request = REQ_EXEC;
	return 0;
}

static int
shell_request(ssh_session s, ssh_channel ch, void *ud)
{
	struct sess	*st = ud;

	if (st->request != REQ_NONE)
		return 1;
	st->x.shell = 1;
	st->request = REQ_SHELL;
	return 0;
}

/* agent forwarding is never served: the request is only journalled */
static void
agent_request(ssh_session s, ssh_channel ch, void *ud)
{
	refused(ud, SSHD_REFUSED_AGENT);
}

/*
 * sftp: the parent decides from its config as it is now (and journals);
 * any other name is refused here, as a fixed code
 */
static int
subsystem_request(ssh_session s, ssh_channel ch, const char *name, void *ud)
{
	struct sess		*st = ud;
	struct jb_sshd_subsys	 q;
	struct jb_sshd_verdict	 v;

	if (strcmp(name, "sftp") != 0) {
		refused(st, SSHD_REFUSED_SUBSYSTEM);
		return 1;
	}
	if (st->request != REQ_NONE)
		return 1;
	memset(&q, 0, sizeof(q));
	strlcpy(q.name, name, sizeof(q.name));
	parent_send(st, IMSG_SSHD_SUBSYS, &q, sizeof(q));
	memset(&v, 0, sizeof(v));
	if (parent_wait(st, IMSG_SSHD_VERDICT, &v, sizeof(v)) == -1) {
		st->parent_gone = 1;
		return 1;
	}
	if (!v.ok)
		return 1;
	st->request = REQ_SFTP;
	return 0;
}

/* a terminal's name as the parent keeps it: short, plain */
static int
termid_ok(const char *v)
{
	size_t	n = strlen(v);

	return n > 0 && n <= SESS_TERMID_MAX && strspn(v,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-+") == n;
}

/* acknowledged; the parent keeps only the terminal-identity variables */
static int
env_request(ssh_session s, ssh_channel ch, const char *name,
    const char *value, void *ud)
{
	struct sess		*st = ud;
	struct jb_sshd_env	 e;

	if (st->request != REQ_NONE)
		return 0;
	memset(&e, 0, sizeof(e));
	if (strlcpy(e.name, name, sizeof(e.name)) >= sizeof(e.name) ||
	    strlcpy(e.value, value, sizeof(e.value)) >= sizeof(e.value))
		return 0;
	parent_send(st, IMSG_SSHD_ENV, &e, sizeof(e));
	/* the dashboard works around what a terminal gets wrong */
	if (termid_ok(value)) {
		if (strcmp(name, "LC_TERMINAL") == 0)
			strlcpy(st->lc_terminal, value, sizeof(st->lc_terminal));
		else if (strcmp(name, "TERM_PROGRAM") == 0)
			strlcpy(st->term_program, value,
			    sizeof(st->term_program));
	}
	return 0;
}

static int
window_change(ssh_session s, ssh_channel ch, int cols, int rows, int pxw,
    int pxh, void *ud)
{
	struct sess		*st = ud;
	struct jb_winsize	 ws;

	if (cols <= 0 || rows <= 0 || cols >= 10000 || rows >= 10000)
		return 0;
	/* the next console line starts at this size too */
	st->x.cols = cols;
	st->x.rows = rows;
	if (st->request == REQ_NONE)
		return 0;
	ws.cols = cols;
	ws.rows = rows;
	parent_send(st, IMSG_CTL_WINSIZE, &ws, sizeof(ws));
	return 0;
}

static int	stream_cb(socket_t, int, void *);

/*
 * Room after the held input, which moves to the front when little is
 * left; never while the console reads it in place.
 */
static size_t
in_room(struct sess *st)
{
	size_t	tail;

	tail = sess_inbuf + sizeof(sess_inbuf) - (st->in + st->nin);
	if (tail < sizeof(sess_inbuf) / 4 && st->in != sess_inbuf &&
	    !st->con.draining) {
		memmove(sess_inbuf, st->in, st->nin);
		st->in = sess_inbuf;
		tail = sizeof(sess_inbuf) - st->nin;
	}
	return tail;
}

void
in_consume(struct sess *st, size_t n)
{
	st->in += n;
	st->nin -= n;
	if (st->nin == 0)
		st->in = sess_inbuf;
}

/*
 * Input libssh keeps for us comes into in[] while there is room.  Taking
 * it is what reopens the client's window.  libssh may read packets here
 * and call chan_data(), which then leaves their bytes to libssh too, so
 * that they stay behind the ones taken.
 */
void
input_pull(struct sess *st)
{
	size_t	room;
	int	n;

	if (st->in_pulling)
		return;
	st->in_pulling = 1;
	while (st->in_lib && (room = in_room(st)) > 0) {
		n = ssh_channel_read_nonblocking(st->ch, st->in + st->nin,
		    room, 0);
		if (n <= 0) {
			st->in_lib = 0;
			break;
		}
		st->nin += n;
	}
	st->in_pulling = 0;
}

/*
 * The stream is gone: what was typed for its command goes with it, and is
 * never taken as the console's next line.
 */
static void
input_drop(struct sess *st)
{
	do {
		in_consume(st, st->nin);
		input_pull(st);
	} while (st->nin > 0);
}

/* the stream is watched for room only while input waits for it */
static void
stream_watch(struct sess *st, int out)
{
	if (st->fd_io == -1 || st->watch_out == out)
		return;
	ssh_event_remove_fd(st->ev, st->fd_io);
	ssh_event_add_fd(st->ev, st->fd_io, out ? POLLIN | POLLOUT : POLLIN,
	    stream_cb, st);
	st->watch_out = out;
}

/*
 * Input goes to the exec's stream as far as the stream takes it: what is
 * held first, then what libssh keeps.  A full stream is waited for;
 * meanwhile nothing more is taken from libssh, and the client's window
 * stays closed.  Once the client's end of input has come and all of it
 * is out, the stream's end is sent.
 */
static void
input_push(struct sess *st)
{
	ssize_t	w;

	if (st->fd_io == -1 || st->in_pushing)
		return;
	st->in_pushing = 1;
	for (;;) {
		input_pull(st);
		if (st->nin == 0)
			break;
		if (st->in_dead) {
			/* nobody reads it: taken, so that the window stays open */
			in_consume(st, st->nin);
			continue;
		}
		if ((w = write(st->fd_io, st->in, st->nin)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				stream_watch(st, 1);
				goto out;
			}
			st->in_dead = 1;
			continue;
		}
		in_consume(st, w);
	}
	stream_watch(st, 0);
	if (st->in_eof && !st->in_shut && !st->x.pty) {
		st->in_shut = 1;
		(void)shutdown(st->fd_io, SHUT_WR);
	}
 out:
	st->in_pushing = 0;
}

/*
 * Returns how much of the data is taken; libssh keeps the rest and opens
 * the client's window again only as that is taken (input_pull()).
 */
static int
chan_data(ssh_session s, ssh_channel ch, void *data, uint32_t len,
    int is_stderr, void *ud)
{
	struct sess	*st = ud;
	const char	*p = data;
	uint32_t	 off = 0;
	size_t		 room;
	ssize_t		 n;

	/* SFTP: libssh keeps the bytes for sftp_get_client_message() */
	if (st->request == REQ_SFTP)
		return 0;
	/* behind what libssh already keeps, or what waits in in[] */
	if (st->in_pulling || st->in_lib ||
	    (st->fd_io != -1 && st->nin > 0)) {
		st->in_lib = 1;
		return 0;
	}
	if (st->fd_io == -1) {
		/*
		 * Held until the stream or the prompt is there.  The console
		 * takes its input only from this buffer, in order: libssh
		 * may call here again from inside a write of ours (its
		 * flush reads packets), and a line must not be judged
		 * before the one typed ahead of it.
		 */
		while (off < len) {
			if ((room = in_room(st)) == 0)
				break;
			if (room > len - off)
				room = len - off;
			memcpy(st->in + st->nin, p + off, room);
			st->nin += room;
			off += room;
			console_drain(st);
		}
		if (off < len)
			st->in_lib = 1;
		return off;
	}
	if (st->in_dead)
		return len;
	while (off < len) {
		if ((n = write(st->fd_io, p + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				/* the rest when there is room */
				st->in_lib = 1;
				stream_watch(st, 1);
				break;
			}
			/* nobody reads it: taken, so that the window stays open */
			st->in_dead = 1;
			return len;
		}
		off += n;
	}
	return off;
}

static void
chan_eof(ssh_session s, ssh_channel ch, void *ud)
{
	struct sess	*st = ud;

	st->in_eof = 1;
	/* the stream's end goes once what is held is out */
	input_push(st);
}

static void
chan_close(ssh_session s, ssh_channel ch, void *ud)
{
	struct sess	*st = ud;

	st->peer_closed = 1;
}

static ssh_channel
chan_open(ssh_session s, void *ud)
{
	struct sess	*st = ud;

	if (!st->authed || st->ch != NULL)
		return NULL;
	if ((st->ch = ssh_channel_new(s)) == NULL)
		return NULL;
	memset(&st->ccb, 0, sizeof(st->ccb));
	st->ccb.userdata = st;
	st->ccb.channel_data_function = chan_data;
	st->ccb.channel_eof_function = chan_eof;
	st->ccb.channel_close_function = chan_close;
	st->ccb.channel_pty_request_function = pty_request;
	st->ccb.channel_shell_request_function = shell_request;
	st->ccb.channel_exec_request_function = exec_request;
	st->ccb.channel_env_request_function = env_request;
	st->ccb.channel_subsystem_request_function = subsystem_request;
	st->ccb.channel_pty_window_change_function = window_change;
	/*
	 * agent forwarding: journalled, and no agent channel is ever
	 * opened back (the client expects no answer); x11 stays unset and
	 * libssh refuses it
	 */
	st->ccb.channel_auth_agent_req_function = agent_request;
	ssh_callbacks_init(&st->ccb);
	ssh_set_channel_callbacks(st->ch, &st->ccb);
	return st->ch;
}

void
chan_write(struct sess *st, int err, const void *buf, size_t len)
{
	if (st->ch == NULL || len == 0)
		return;
	if (err)
		(void)ssh_channel_write_stderr(st->ch, buf, len);
	else
		(void)ssh_channel_write(st->ch, buf, len);
}

/* the parent's text; a terminal in raw mode needs \r before \n */
static void
chan_text_raw(struct sess *st, int err, const char *p, size_t len)
{
	const char	*nl;

	if (!st->x.pty) {
		chan_write(st, err, p, len);
		return;
	}
	while (len > 0 && (nl = memchr(p, '\n', len)) != NULL) {
		chan_write(st, err, p, nl - p);
		chan_write(st, err, "\r\n", 2);
		len -= nl - p + 1;
		p = nl + 1;
	}
	chan_write(st, err, p, len);
}

static void
chan_text(struct sess *st, const char *text)
{
	char	line[JB_CTL_TEXT_MAX + 16];
	int	n;

	n = snprintf(line, sizeof(line), "jailbee: %s%s\n", text,
	    st->x.pty ? "\r" : "");
	/* a terminal has one stream: there, errors come in their order */
	if (n > 0)
		chan_write(st, !st->x.pty, line, strnlen(line, sizeof(line)));
}

static int
stream_cb(socket_t fd, int revents, void *ud)
{
	struct sess	*st = ud;
	char		 buf[SESS_BUFSZ];
	ssize_t		 n;

	if (fd == st->fd_io && (revents & POLLOUT)) {
		/* room for input */
		input_push(st);
		if (!(revents & (POLLIN | POLLHUP | POLLERR)))
			return 0;
	}
	n = read(fd, buf, sizeof(buf));
	if (n > 0) {
		chan_write(st, fd == st->fd_err, buf, n);
		return 0;
	}
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	ssh_event_remove_fd(st->ev, fd);
	close(fd);
	if (fd == st->fd_io) {
		st->fd_io = -1;
		st->watch_out = 0;
		input_drop(st);
	} else
		st->fd_err = -1;
	return 0;
}

static void
parent_msg(struct sess *st, struct imsg *imsg)
{
	struct jb_ctl_text	t;
	struct jb_output	o;
	struct jb_exec_fd	f;
	struct jb_exit		x;
	int			fd;

	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_OUTPUT:
		if (imsg_get_data(imsg, &o, sizeof(o)) == -1 ||
		    o.len > sizeof(o.data))
			break;
		chan_text_raw(st, o.which == 2, o.data, o.len);
		return;
	case IMSG_CTL_ERROR:
		st->failed = 1;
		/* FALLTHROUGH */
	case IMSG_CTL_PROGRESS:
		if (imsg_get_data(imsg, &t, sizeof(t)) == -1)
			break;
		t.text[sizeof(t.text) - 1] = '\0';
		chan_text(st, termsafe(t.text));
		return;
	case IMSG_CTL_EXEC_FD:
		if (imsg_get_data(imsg, &f, sizeof(f)) == -1 ||
		    (fd = imsg_get_fd(imsg)) == -1)
			break;
		if ((f.which != 0 || st->fd_io != -1) &&
		    (f.which != 2 || st->fd_err != -1)) {
			close(fd);
			break;
		}
		/* input waits for room in the stream, never blocks output */
		if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1) {
			log_warn("exec stream");
			close(fd);
			st->parent_gone = 1;
			return;
		}
		ssh_event_add_fd(st->ev, fd, POLLIN, stream_cb, st);
		if (f.which == 2) {
			st->fd_err = fd;
			return;
		}
		st->fd_io = fd;
		st->watch_out = st->in_dead = st->in_shut = 0;
		/* what was held goes to the stream that just came */
		input_push(st);
		return;
	case IMSG_CTL_EXIT:
		if (imsg_get_data(imsg, &x, sizeof(x)) == -1)
			break;
		st->got_exit = 1;
		st->status = x.status;
		return;
	case IMSG_CTL_END:
		st->got_end = 1;
		st->drain_until = now_ms() + SESS_DRAIN_MS;
		return;
	case IMSG_CTL_EVENT:
		/* the dashboard's, while a command it ran has the terminal */
		st->dash_event = 1;
		st->dash_only[0] = '\0';
		return;
	case IMSG_CTL_INSTANCE:
	case IMSG_CTL_SNAPSHOT:
	case IMSG_CTL_MOUNT:
	case IMSG_CTL_PORT:
	case IMSG_CTL_NET_CTR:
	case IMSG_CTL_NET_ALLOW:
	case IMSG_CTL_NET_BLOCK:
		/* what such a command says besides its text: not drawn */
		return;
	}
	log_warnx("unexpected %s from the parent",
	    jb_imsg_name(imsg_get_type(imsg)));
	st->parent_gone = 1;
}

static int
parent_cb(socket_t fd, int revents, void *ud)
{
	struct sess	*st = ud;
	struct imsg	 imsg;
	int		 n;

	if ((n = imsgbuf_read(&st->ib)) <= 0) {
		ssh_event_remove_fd(st->ev, fd);
		st->parent_gone = 1;
		return 0;
	}
	while (!st->parent_gone && (n = jb_imsg_get(&st->ib, &imsg,
	    JB_PEER_PARENT, JB_PEER_SSHD)) > 0) {
		parent_msg(st, &imsg);
		imsg_free(&imsg);
	}
	if (n == -1)
		st->parent_gone = 1;
	if (st->parent_gone)
		ssh_event_remove_fd(st->ev, fd);
	return 0;
}

/*
 * Before its request the session asks the parent only in callbacks that
 * wait for the answer, so the channel has nothing to read unasked: data
 * there breaks the protocol, and an end of file is the parent's death.
 * Either way the connection ends rather than outlive the suite.
 */
static int
parent_idle_cb(socket_t fd, int revents, void *ud)
{
	struct sess	*st = ud;
	char		 c;
	ssize_t		 n;

	n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n > 0)
		log_warnx("the parent spoke before the request");
	ssh_event_remove_fd(st->ev, fd);
	st->parent_gone = 1;
	return 0;
}

static int
finished(struct sess *st)
{
	int	drained;

	if (st->parent_gone || st->peer_closed)
		return 1;
	if (st->con.on && !st->con.busy) {
		/* typed ahead: the next line may go out now */
		input_pull(st);
		console_drain(st);
		if (st->con.busy)
			return 0;
		/*
		 * The console ends on exit, Ctrl-D, or the end of its
		 * input: all of it judged, none still held.
		 */
		return st->con.quit || (st->in_eof && st->nin == 0);
	}
	if (!st->got_end)
		return 0;
	drained = (st->fd_io == -1 && st->fd_err == -1) ||
	    now_ms() > st->drain_until;
	if (drained && st->con.on) {
		/* a console line done: its streams go, the prompt comes back */
		if (st->fd_io != -1) {
			ssh_event_remove_fd(st->ev, st->fd_io);
			close(st->fd_io);
			st->fd_io = -1;
			st->watch_out = 0;
			input_drop(st);
		}
		if (st->fd_err != -1) {
			ssh_event_remove_fd(st->ev, st->fd_err);
			close(st->fd_err);
			st->fd_err = -1;
		}
		st->con.busy = 0;
		st->got_end = st->got_exit = st->failed = 0;
		console_prompt(st);
		return finished(st);
	}
	return drained;
}

static void
console_prompt(struct sess *st)
{
	st->con.len = 0;
	chan_write(st, 0, CONSOLE_PROMPT, sizeof(CONSOLE_PROMPT) - 1);
}

static void
console_submit(struct sess *st)
{
	struct jb_sshd_exec	*x = &st->x;
	size_t			 n;

	chan_write(st, 0, "\r\n", 2);
	st->con.line[st->con.len] = '\0';
	n = strspn(st->con.line, " \t");
	if (st->con.line[n] == '\0') {
		console_prompt(st);
		return;
	}
	if (strcmp(st->con.line + n, "exit") == 0 ||
	    strcmp(st->con.line + n, "quit") == 0 ||
	    strcmp(st->con.line + n, "logout") == 0) {
		st->con.quit = 1;
		return;
	}
	strlcpy(x->line, st->con.line, sizeof(x->line));
	x->shell = 1;
	st->con.busy = 1;
	parent_send(st, IMSG_SSHD_EXEC, x, sizeof(*x));
}

/*
 * The held input, up to the end of the next line submitted: the rest
 * waits for the next prompt.  Not reentrant: a write here may run
 * chan_data(), which then only appends to the buffer, behind what is
 * being read.
 */
static void
console_drain(struct sess *st)
{
	struct console	*c = &st->con;
	unsigned char	*p = st->in;
	size_t		 i;

	if (!c->on || c->draining)
		return;
	c->draining = 1;
	for (i = 0; i < st->nin && !c->busy && !c->quit; i++) {
		/* arrows and other sequences: skipped, not inserted */
		if (c->esc == 1) {
			c->esc = p[i] == '[' || p[i] == 'O' ? 2 : 0;
			continue;
		}
		if (c->esc == 2) {
			if (p[i] >= 0x40 && p[i] <= 0x7e)
				c->esc = 0;
			continue;
		}
		switch (p[i]) {
		case 0x1b:
			c->esc = 1;
			break;
		case '\r':
		case '\n':
			console_submit(st);
			break;
		case 0x7f:
		case 0x08:
			if (c->len > 0) {
				/* a UTF-8 character: continuation bytes too */
				while (c->len > 0 &&
				    (c->line[--c->len] & 0xc0) == 0x80)
					;
				chan_write(st, 0, "\b \b", 3);
			}
			break;
		case 0x03:
			chan_write(st, 0, "^C\r\n", 4);
			console_prompt(st);
			break;
		case 0x04:
			if (c->len == 0) {
				chan_write(st, 0, "\r\n", 2);
				c->quit = 1;
			}
			break;
		case 0x15:
			while (c->len > 0) {
				if ((c->line[--c->len] & 0xc0) != 0x80)
					chan_write(st, 0, "\b \b", 3);
			}
			break;
		default:
			if (p[i] < 0x20 || c->len + 1 >= sizeof(c->line))
				break;
			c->line[c->len++] = p[i];
			chan_write(st, 0, &p[i], 1);
		}
	}
	in_consume(st, i);
	c->draining = 0;
}

int
session_pump(struct sess *st, int ms)
{
	if (st->parent_gone || st->peer_closed)
		return -1;
	if (ssh_event_dopoll(st->ev, ms) == SSH_ERROR ||
	    (ssh_get_status(st->s) & (SSH_CLOSED | SSH_CLOSED_ERROR))) {
		st->peer_closed = 1;
		return -1;
	}
	return st->parent_gone || st->peer_closed ? -1 : 0;
}

/* a command's streams, once it ended: gone, and what was typed for it */
static void
streams_close(struct sess *st)
{
	if (st->fd_io != -1) {
		ssh_event_remove_fd(st->ev, st->fd_io);
		close(st->fd_io);
		st->fd_io = -1;
		st->watch_out = 0;
		input_drop(st);
	}
	if (st->fd_err != -1) {
		ssh_event_remove_fd(st->ev, st->fd_err);
		close(st->fd_err);
		st->fd_err = -1;
	}
}

int
session_relay(struct sess *st, const struct jb_sshd_exec *x)
{
	st->got_end = st->got_exit = st->failed = 0;
	st->status = 0;
	ssh_event_add_fd(st->ev, st->chan, POLLIN, parent_cb, st);
	parent_send(st, IMSG_SSHD_EXEC, x, sizeof(*x));
	while (!st->parent_gone && !st->peer_closed) {
		if (st->got_end && ((st->fd_io == -1 && st->fd_err == -1) ||
		    now_ms() > st->drain_until))
			break;
		if (session_pump(st, 200) == -1)
			break;
	}
	streams_close(st);
	ssh_event_remove_fd(st->ev, st->chan);
	if (st->got_exit)
		return st->status;
	return st->failed || !st->got_end ? 1 : 0;
}

__dead void
session_run(ssh_bind b, int fd, int chan, const struct jb_sshd_session *peer)
{
	struct sess	 st;
	int64_t		 until;
	int		 status, one = 1;

	/* nothing of the master's libevent signal handling stays */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	/* the login grace: SIGALRM ends a connection still not logged in */
	alarm(SSHD_LOGIN_GRACE);

	/*
	 * Every SSH message goes out when it is made.  With Nagle's
	 * algorithm a small one (an SFTP WRITE's status) waits behind the
	 * last one until the client acknowledges it, and the client stops
	 * sending meanwhile: uploads stalled for tens of milliseconds.
	 */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

	memset(&st, 0, sizeof(st));
	st.fd_io = st.fd_err = -1;
	st.in = sess_inbuf;
	st.chan = chan;
	if (imsgbuf_init(&st.ib, chan) == -1)
		_exit(1);
	/* the exec streams come down as fds */
	imsgbuf_allow_fdpass(&st.ib);
	if ((st.s = ssh_new()) == NULL)
		_exit(1);
	if (ssh_bind_accept_fd(b, st.s, fd) != SSH_OK)
		sess_exit(&st, 1);

	st.scb.userdata = &st;
	st.scb.auth_pubkey_function = auth_pubkey;
	st.scb.auth_password_function = auth_password;
	st.scb.gssapi_select_oid_function = gssapi_none;
	st.scb.channel_open_request_session_function = chan_open;
	ssh_callbacks_init(&st.scb);
	ssh_set_server_callbacks(st.s, &st.scb);
	st.cb.userdata = &st;
	st.cb.global_request_function = global_request;
	ssh_callbacks_init(&st.cb);
	ssh_set_callbacks(st.s, &st.cb);
	ssh_set_message_callback(st.s, message_cb, &st);
	ssh_set_auth_methods(st.s, SSH_AUTH_METHOD_PUBLICKEY);

	if (ssh_handle_key_exchange(st.s) != SSH_OK)
		sess_exit(&st, 1);
	if ((st.ev = ssh_event_new()) == NULL ||
	    ssh_event_add_session(st.ev, st.s) != SSH_OK)
		sess_exit(&st, 1);
	ssh_event_add_fd(st.ev, chan, POLLIN, parent_idle_cb, &st);

	/* until the one request this connection may make */
	while (st.request == REQ_NONE && !st.over && !st.parent_gone) {
		if (ssh_event_dopoll(st.ev, 1000) == SSH_ERROR)
			break;
		if (ssh_get_status(st.s) & (SSH_CLOSED | SSH_CLOSED_ERROR))
			break;
	}
	if (st.request == REQ_NONE)
		sess_exit(&st, 0);
	ssh_event_remove_fd(st.ev, chan);

	if (st.request == REQ_SFTP) {
		status = sftp_serve(st.s, st.ch, &st.ib);
		if (status)
			st.parent_gone = 1;
		goto done;
	}
	ssh_event_add_fd(st.ev, chan, POLLIN, parent_cb, &st);
	if (st.request == REQ_SHELL && st.x.pty && !st.want_console) {
		char	why[JB_CTL_TEXT_MAX];

		/* the dashboard; the console when it cannot open */
		ssh_event_remove_fd(st.ev, chan);
		if (sshdash_run(&st, why, sizeof(why)) == 0 || st.parent_gone ||
		    st.peer_closed) {
			status = st.parent_gone ? 1 : 0;
			goto done;
		}
		chan_text(&st, why);
		ssh_event_add_fd(st.ev, chan, POLLIN, parent_cb, &st);
	}
	if (st.request == REQ_SHELL) {
		if (!st.x.pty) {
			chan_text(&st, st.want_console ? "the console needs a "
			    "terminal: ssh -t" : "the dashboard needs a "
			    "terminal: ssh -t (ssh HOST COMMAND runs one command)");
			st.con.quit = 1;
		} else {
			/*
			 * Input that comes during these writes is held:
			 * the console is on only once its prompt is out.
			 */
			chan_write(&st, 0, console_banner,
			    sizeof(console_banner) - 1);
			console_prompt(&st);
		}
		st.con.on = 1;
		/* finished() drains what was typed ahead */
	} else
		parent_send(&st, IMSG_SSHD_EXEC, &st.x, sizeof(st.x));
	while (!finished(&st)) {
		if (ssh_event_dopoll(st.ev, 200) == SSH_ERROR)
			break;
		if (ssh_get_status(st.s) & (SSH_CLOSED | SSH_CLOSED_ERROR))
			break;
	}
	if (st.con.on)
		status = st.x.pty && !st.parent_gone ? 0 : 1;
	else if (st.got_exit)
		status = st.status;
	else
		status = st.failed || !st.got_end ? 1 : 0;
 done:
	if (!st.peer_closed && st.ch != NULL) {
		ssh_channel_request_send_exit_status(st.ch, status);
		ssh_channel_send_eof(st.ch);
		ssh_channel_close(st.ch);
		/* the client's close must arrive, or its exit status is lost */
		until = now_ms() + SESS_CLOSE_MS;
		while (!st.peer_closed && now_ms() < until &&
		    !(ssh_get_status(st.s) & (SSH_CLOSED | SSH_CLOSED_ERROR)))
			if (ssh_event_dopoll(st.ev, 100) == SSH_ERROR)
				break;
	}
	sess_exit(&st, 0);
}
