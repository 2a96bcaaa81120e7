/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SSHD_SESSION_H
#define JB_SSHD_SESSION_H

/* one connection's state, shared by session.c and the dashboard (sshdash.c) */

#include <libssh/libssh.h>
#include <libssh/server.h>
#include <libssh/callbacks.h>

#include "imsg.h"
#include "jb_msg.h"

#define SESS_TERMID_MAX	32	/* LC_TERMINAL, TERM_PROGRAM: short names */
#define CONSOLE_LINE_MAX	1024

enum request { REQ_NONE, REQ_EXEC, REQ_SHELL, REQ_SFTP };

/*
 * The restricted console a shell request gets: a line editor, nothing
 * more.  Each line goes to the parent as a console line, where the same
 * splitter and policy as for exec judge it: no pipes, redirection,
 * expansion or program lookup, only the suite's commands.
 */
struct console {
	int		 on;
	int		 busy;		/* a line is being carried out */
	int		 quit;
	int		 esc;		/* inside an escape sequence */
	int		 draining;	/* console_drain() is running */
	size_t		 len;
	char		 line[CONSOLE_LINE_MAX];
};

struct sess {
	ssh_session			 s;
	ssh_event			 ev;
	ssh_channel			 ch;
	struct ssh_server_callbacks_struct scb;
	struct ssh_callbacks_struct	 cb;
	struct ssh_channel_callbacks_struct ccb;
	struct imsgbuf			 ib;	/* to the parent */
	int				 chan;
	int				 tries;
	int				 authed;
	int				 over;	/* too many tries: hang up */
	enum request			 request;
	struct jb_sshd_exec		 x;
	int				 got_end, got_exit, failed, status;
	int				 parent_gone;
	int				 fd_io, fd_err;
	int				 peer_closed;
	int64_t				 drain_until;
	struct console			 con;
	/*
	 * Input on its way to the exec's stream, or held until there is
	 * anywhere to put it: before the stream arrived, or typed ahead at
	 * the console.  Beyond this, libssh keeps it (in_lib) and the
	 * client's window closes, so it sends no more until this is taken.
	 */
	size_t				 nin;
	int				 in_eof;
	int				 in_lib;	/* libssh holds more */
	int				 in_pulling;	/* input_pull() runs */
	int				 in_pushing;	/* input_push() runs */
	int				 in_dead;	/* nobody reads it */
	int				 in_shut;	/* its end was sent */
	int				 watch_out;	/* room is waited for */
	unsigned char			*in;	/* in sess_inbuf */
	/* a shell request: the dashboard, or the console (console asked) */
	int				 want_console;
	/* the client's terminal, as its env requests named it */
	char				 lc_terminal[SESS_TERMID_MAX + 1];
	char				 term_program[SESS_TERMID_MAX + 1];
	/* the dashboard's subscription: a change since it last looked */
	int				 dash_event;
	char				 dash_only[JB_INSTANCE_MAX];
};


void	chan_write(struct sess *, int err, const void *, size_t);
void	parent_send(struct sess *, uint32_t, const void *, size_t);
int	parent_wait(struct sess *, uint32_t, void *, size_t);
void	input_pull(struct sess *);
void	in_consume(struct sess *, size_t);
/* one round of the SSH side: -1 once the client or the parent is gone */
int	session_pump(struct sess *, int ms);
/*
 * A command with the terminal its own (shell, tmux, new): the line goes
 * to the parent as the console's do, its streams are relayed until it
 * ends; its exit status
 */
int	session_relay(struct sess *, const struct jb_sshd_exec *);

/* sshdash.c: the dashboard of a shell request; -1 when it cannot open */
int	sshdash_run(struct sess *, char *why, size_t);

#endif /* JB_SSHD_SESSION_H */
