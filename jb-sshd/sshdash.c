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
 * The dashboard of an interactive SSH session: jbctl dashboard's own
 * keys and screen (jbctl/dashui.c, dashdraw.c, dashdata.c), drawn by
 * this session with vtcurses (ANSI, no terminfo, no file: the session
 * keeps its empty chroot, its Landlock ruleset and its seccomp filter,
 * and draws only by writing to its SSH channel, as the console does).
 *
 * It holds no power of its own.  Every look and every action is a
 * command line sent to the parent exactly as a console line is, marked
 * as the dashboard's: the parent splits it, judges it by the session's
 * remote policy, journals it (route dashboard) and runs it; its replies
 * come back as they are instead of as text, an excluded repo's
 * containers left out.  The actions the policy withholds are asked once
 * as it opens and are not offered.  Changes come through the same
 * subscription jbctl dashboard has, on this session's channel.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmdtab.h"
#include "dash.h"
#include "log.h"
#include "session.h"
#include "term.h"
#include "vtcurses.h"

#define SSHDASH_WAIT_MS	(120 * 1000)	/* a look or action's answer */

static struct sess	*S;
static int		 dash_mouse;	/* mouse reports asked for */
/* the lists the dashboard reads, and whether the policy admits them */
static const int	 look_ids[] = { CMD_LS, CMD_NET_LOG, CMD_NET_STATUS,
			    CMD_MOUNT_LS, CMD_SNAP_LS };
static int		 look_ok[sizeof(look_ids) / sizeof(look_ids[0])];

static int64_t
ms_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
vt_out(const void *p, size_t n)
{
	chan_write(S, 0, p, n);
}

/* the next byte typed: what is held first, then what libssh brings */
static int
vt_in(int ms)
{
	int64_t	until = ms_now() + (ms < 0 ? 0 : ms);
	int	c, wait;

	for (;;) {
		if (S->nin == 0)
			input_pull(S);
		if (S->nin > 0) {
			c = S->in[0];
			in_consume(S, 1);
			return c;
		}
		if (S->parent_gone || S->peer_closed || S->in_eof)
			return -2;
		if (ms == 0)
			return -1;
		wait = ms < 0 ? 1000 : (int)(until - ms_now());
		if (ms >= 0 && wait <= 0)
			return -1;
		if (session_pump(S, wait) == -1)
			return -2;
	}
}

/* between requests the parent's channel brings only events */
static int
parent_events(socket_t fd, int revents, void *ud)
{
	struct imsg		imsg;
	struct jb_ctl_event	ev;
	int			n;

	if ((n = imsgbuf_read(&S->ib)) <= 0) {
		if (n == -1 && errno == EAGAIN)
			return 0;
		ssh_event_remove_fd(S->ev, fd);
		S->parent_gone = 1;
		return 0;
	}
	while ((n = jb_imsg_get(&S->ib, &imsg, JB_PEER_PARENT,
	    JB_PEER_SSHD)) > 0) {
		if (imsg_get_type(&imsg) == IMSG_CTL_EVENT &&
		    imsg_get_data(&imsg, &ev, sizeof(ev)) == 0) {
			ev.container[sizeof(ev.container) - 1] = '\0';
			/* two containers changed: every row is looked at */
			if (!S->dash_event)
				strlcpy(S->dash_only, ev.container,
				    sizeof(S->dash_only));
			else if (strcmp(S->dash_only, ev.container) != 0)
				S->dash_only[0] = '\0';
			S->dash_event = 1;
		} else {
			log_warnx("dashboard: unexpected %s from the parent",
			    jb_imsg_name(imsg_get_type(&imsg)));
			S->parent_gone = 1;
		}
		imsg_free(&imsg);
	}
	if (n == -1)
		S->parent_gone = 1;
	if (S->parent_gone)
		ssh_event_remove_fd(S->ev, fd);
	return 0;
}

/* a word for the parent's splitter: quoted, a quote as '\'' */
static int
quote(char *buf, size_t len, size_t *off, const char *w)
{
	size_t	n = *off;

	if (n + 2 >= len)
		return -1;
	buf[n++] = ' ';
	buf[n++] = '\'';
	for (; *w != '\0'; w++) {
		if ((unsigned char)*w < 0x20 || *w == 0x7f)
			return -1;
		if (*w == '\'') {
			if (n + 4 >= len)
				return -1;
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			if (n + 1 >= len)
				return -1;
			buf[n++] = *w;
		}
	}
	if (n + 1 >= len)
		return -1;
	buf[n++] = '\'';
	buf[n] = '\0';
	*off = n;
	return 0;
}

/* the command id, its arguments and options as one console line */
static int
cmd_line(int id, char *const *args, int nargs, const char *const *opts,
    char *buf, size_t len)
{
	const struct cmd	*c;
	char			 opt[64];
	size_t			 off = 0;
	int			 i;

	if ((c = cmd_find(id)) == NULL)
		return -1;
	buf[0] = '\0';
	for (i = 0; i < CMD_MAXWORDS && c->words[i] != NULL; i++)
		if (quote(buf, len, &off, c->words[i]) == -1)
			return -1;
	for (i = 0; i < nargs; i++)
		if (quote(buf, len, &off, args[i]) == -1)
			return -1;
	for (i = 0; opts != NULL && opts[i] != NULL; i += 2) {
		snprintf(opt, sizeof(opt), "--%s", opts[i]);
		if (quote(buf, len, &off, opt) == -1 || (opts[i + 1][0] !=
		    '\0' && quote(buf, len, &off, opts[i + 1]) == -1))
			return -1;
	}
	return 0;
}

static void
text_add(char *text, size_t textlen, const char *p, size_t n)
{
	size_t	have;

	if (text == NULL || textlen == 0)
		return;
	have = strlen(text);
	if (n > textlen - 1 - have)
		n = textlen - 1 - have;
	memcpy(text + have, p, n);
	text[have + n] = '\0';
}

/* one reply of a look: given to the dashboard's collector */
static void
reply(const struct output *out, struct imsg *imsg)
{
	union {
		struct jb_instance	in;
		struct jb_snapshot	sn;
		struct jb_mount_entry	mn;
		struct jb_port		po;
		struct jb_net_ctr	nc;
		struct jb_net_allow	na;
		struct jb_net_block	nb;
	} *u;

	if (out == NULL || (u = calloc(1, sizeof(*u))) == NULL)
		return;
	switch (imsg_get_type(imsg)) {
	case IMSG_CTL_INSTANCE:
		if (imsg_get_data(imsg, &u->in, sizeof(u->in)) == 0)
			out->instance(&u->in);
		break;
	case IMSG_CTL_SNAPSHOT:
		if (imsg_get_data(imsg, &u->sn, sizeof(u->sn)) == 0)
			out->snapshot(&u->sn);
		break;
	case IMSG_CTL_MOUNT:
		if (imsg_get_data(imsg, &u->mn, sizeof(u->mn)) == 0)
			out->mount(&u->mn);
		break;
	case IMSG_CTL_PORT:
		if (imsg_get_data(imsg, &u->po, sizeof(u->po)) == 0)
			out->port(&u->po);
		break;
	case IMSG_CTL_NET_CTR:
		if (imsg_get_data(imsg, &u->nc, sizeof(u->nc)) == 0)
			out->net_ctr(&u->nc);
		break;
	case IMSG_CTL_NET_ALLOW:
		if (imsg_get_data(imsg, &u->na, sizeof(u->na)) == 0)
			out->net_allow(&u->na);
		break;
	case IMSG_CTL_NET_BLOCK:
		if (imsg_get_data(imsg, &u->nb, sizeof(u->nb)) == 0)
			out->net_block(&u->nb);
		break;
	}
	free(u);
}

/* the windows column asks exec; over SSH it is not read */
void
term_limit(uint64_t max_bytes, int64_t timeout_ms)
{
}

int
dash_run(struct dash_ctx *ctx, const struct dash_row *row, int id,
    char *const *args, int nargs, const char *const *opts,
    const struct output *out, char *text, size_t textlen)
{
	struct jb_sshd_exec	*x;
	struct jb_ctl_text	 t;
	struct jb_output	 o;
	struct jb_exit		 ex;
	struct imsg		 imsg;
	struct pollfd		 pfd;
	int64_t			 until;
	size_t			 i;
	int			 n, rv = 1, failed = 0, got_exit = 0, done = 0;
	int			 fd;

	if (text != NULL && textlen > 0)
		text[0] = '\0';
	/* the agent windows would be an exec in the container: not here */
	if (id == CMD_EXEC)
		return 1;
	for (i = 0; i < sizeof(look_ids) / sizeof(look_ids[0]); i++)
		if (look_ids[i] == id && !look_ok[i])
			return 1;
	if ((x = calloc(1, sizeof(*x))) == NULL)
		return 1;
	if (cmd_line(id, args, nargs, opts, x->line, sizeof(x->line)) == -1) {
		free(x);
		text_add(text, textlen, "jailbee: a word is too long or not "
		    "printable\n", 44);
		return 1;
	}
	x->dash = 1;
	x->cols = S->x.cols;
	x->rows = S->x.rows;
	strlcpy(x->term, S->x.term, sizeof(x->term));
	ssh_event_remove_fd(S->ev, S->chan);
	parent_send(S, IMSG_SSHD_EXEC, x, sizeof(*x));
	free(x);
	until = ms_now() + SSHDASH_WAIT_MS;
	while (!done && !S->parent_gone) {
		n = jb_imsg_get(&S->ib, &imsg, JB_PEER_PARENT, JB_PEER_SSHD);
		if (n == -1) {
			S->parent_gone = 1;
			break;
		}
		if (n == 0) {
			pfd.fd = S->chan;
			pfd.events = POLLIN;
			if (ms_now() > until ||
			    poll(&pfd, 1, (int)(until - ms_now())) == 0) {
				text_add(text, textlen, "jailbee: no answer in "
				    "time\n", 25);
				/* its answer would come at the next request */
				S->parent_gone = 1;
				break;
			}
			if ((n = imsgbuf_read(&S->ib)) <= 0 &&
			    !(n == -1 && errno == EAGAIN))
				S->parent_gone = 1;
			continue;
		}
		switch (imsg_get_type(&imsg)) {
		case IMSG_CTL_OUTPUT:
			if (imsg_get_data(&imsg, &o, sizeof(o)) == 0 &&
			    o.len <= sizeof(o.data))
				text_add(text, textlen, o.data, o.len);
			break;
		case IMSG_CTL_ERROR:
			failed = 1;
			/* FALLTHROUGH */
		case IMSG_CTL_PROGRESS:
			if (imsg_get_data(&imsg, &t, sizeof(t)) == 0) {
				t.text[sizeof(t.text) - 1] = '\0';
				text_add(text, textlen, "jailbee: ", 9);
				text_add(text, textlen, t.text, strlen(t.text));
				text_add(text, textlen, "\n", 1);
			}
			break;
		case IMSG_CTL_EXEC_FD:
			/* a stream is for a command with the terminal */
			if ((fd = imsg_get_fd(&imsg)) != -1)
				close(fd);
			break;
		case IMSG_CTL_EXIT:
			if (imsg_get_data(&imsg, &ex, sizeof(ex)) == 0) {
				got_exit = 1;
				rv = ex.status;
			}
			break;
		case IMSG_CTL_EVENT:
			S->dash_event = 1;
			S->dash_only[0] = '\0';
			break;
		case IMSG_CTL_END:
			done = 1;
			break;
		default:
			reply(out, &imsg);
		}
		imsg_free(&imsg);
	}
	if (!S->parent_gone)
		ssh_event_add_fd(S->ev, S->chan, POLLIN, parent_events, NULL);
	if (!done)
		return 1;
	return got_exit ? rv : failed;
}

/* shell, tmux, new: the terminal is the command's, as at the console */
int
dash_aside(struct dash *d, int id, char *const *args, int nargs)
{
	struct jb_sshd_exec	*x;
	const char		*opts[3] = { NULL, NULL, NULL };
	char			 msg[96];
	int			 rv, k, c;

	if ((x = calloc(1, sizeof(*x))) == NULL)
		return 1;
	if (id == CMD_NEW && nargs == 2) {
		/* the repo's name: --repo, as over ssh new NAME --repo */
		opts[0] = "repo";
		opts[1] = args[1];
		nargs = 1;
	}
	if (cmd_line(id, args, nargs, opts, x->line, sizeof(x->line)) == -1) {
		free(x);
		snprintf(d->status, sizeof(d->status), "a word is too long or "
		    "not printable");
		return 1;
	}
	x->dash = 1;
	x->pty = 1;
	x->cols = S->x.cols;
	x->rows = S->x.rows;
	strlcpy(x->term, S->x.term, sizeof(x->term));
	vt_end();
	ssh_event_remove_fd(S->ev, S->chan);
	rv = session_relay(S, x);
	free(x);
	if (rv != 0 && !S->parent_gone && !S->peer_closed) {
		k = snprintf(msg, sizeof(msg), "\r\njailbee: exit status %d; "
		    "Enter returns to the dashboard\r\n", rv);
		chan_write(S, 0, msg, k);
		while ((c = vt_in(-1)) >= 0 && c != '\r' && c != '\n')
			;
	}
	if (!S->parent_gone)
		ssh_event_add_fd(S->ev, S->chan, POLLIN, parent_events, NULL);
	{
		struct vt_io	io = { vt_out, vt_in, 0 };

		io.mouse = dash_mouse;
		vt_begin(&io, S->x.cols, S->x.rows);
	}
	return rv;
}

/*
 * iTerm2 reports mouse clicks in its own way through tmux and some of
 * its versions: there the dashboard asks for no mouse reports (keys do
 * everything), so that no stray report is read as keys
 */
static int
mouse_ok(const struct sess *st)
{
	return strcmp(st->lc_terminal, "iTerm2") != 0 &&
	    strcmp(st->term_program, "iTerm.app") != 0;
}

int
sshdash_run(struct sess *st, char *why, size_t whylen)
{
	struct jb_sshd_dash	 k;
	struct vt_io		 io = { vt_out, vt_in, 0 };
	struct dash		*d;
	char			 only[JB_INSTANCE_MAX];
	int			 ids[JB_SSHD_DASH_MAX], n, i, w, cols, rows;
	size_t			 l;

	S = st;
	if (st->x.term[0] == '\0' || strcmp(st->x.term, "dumb") == 0) {
		snprintf(why, whylen, "the dashboard needs a terminal that "
		    "draws (TERM is %s): the console instead",
		    st->x.term[0] ? st->x.term : "not set");
		return -1;
	}
	/* which actions and looks the session's policy admits */
	memset(&k, 0, sizeof(k));
	n = dash_actions(ids, JB_SSHD_DASH_MAX - 5);
	for (i = 0; i < n; i++)
		k.id[i] = ids[i];
	for (l = 0; l < sizeof(look_ids) / sizeof(look_ids[0]); l++)
		k.id[n++] = look_ids[l];
	k.n = n;
	parent_send(st, IMSG_SSHD_DASH, &k, sizeof(k));
	if (parent_wait(st, IMSG_SSHD_DASH_OK, &k, sizeof(k)) == -1) {
		st->parent_gone = 1;
		snprintf(why, whylen, "the dashboard cannot open");
		return -1;
	}
	for (l = 0; l < sizeof(look_ids) / sizeof(look_ids[0]); l++)
		look_ok[l] = k.ok[n - 5 + l];
	if (!look_ok[0]) {
		snprintf(why, whylen, "the dashboard needs ls, which this "
		    "server's remote policy does not admit: the console "
		    "instead");
		return -1;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	d->ctx.remote = 1;
	d->ctx.sockpath = "";
	strlcpy(d->ctx.cwd, "/", sizeof(d->ctx.cwd));
	for (i = 0; i < n - 5; i++)
		if (!k.ok[i] && d->ctx.nwithheld < 32)
			d->ctx.withheld[d->ctx.nwithheld++] = k.id[i];
	d->wfd = -1;
	/* the subscription: events between the requests, on the channel */
	parent_send(st, IMSG_CTL_WATCH, NULL, 0);
	ssh_event_add_fd(st->ev, st->chan, POLLIN, parent_events, NULL);
	/* dash_aside() takes the terminal again as this does */
	io.mouse = dash_mouse = mouse_ok(st);
	cols = st->x.cols;
	rows = st->x.rows;
	vt_begin(&io, cols, rows);
	dash_reload(d, NULL);
	while (!d->quit && !st->parent_gone && !st->peer_closed) {
		if ((int)st->x.cols != cols || (int)st->x.rows != rows) {
			cols = st->x.cols;
			rows = st->x.rows;
			vt_resize(cols, rows);
		}
		dash_draw(d);
		/* no clock unless a countdown is on the screen */
		w = dash_countdown(d) ? 1000 : -1;
		{
			int64_t	until = ms_now() + (w < 0 ? 0 : w);

			while (!st->dash_event && !vt_pending() &&
			    (int)st->x.cols == cols &&
			    (int)st->x.rows == rows &&
			    (w < 0 || ms_now() < until))
				if (session_pump(st, w < 0 ? 1000 :
				    (int)(until - ms_now())) == -1)
					break;
		}
		if (st->parent_gone || st->peer_closed)
			break;
		if (st->dash_event) {
			strlcpy(only, st->dash_only, sizeof(only));
			st->dash_event = 0;
			dash_reload(d, only);
		}
		while (!d->quit && vt_pending())
			dash_key(d, getch());
		if (st->in_eof && st->nin == 0)
			break;
	}
	vt_end();
	free(d->rows);
	free(d);
	return 0;
}
