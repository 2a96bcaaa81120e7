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
 * A command in an instance with its I/O streamed: Incus's exec with
 * wait-for-websocket, its websockets bridged to local file descriptors
 * (in jb-incus, socketpairs whose far ends travel to jbctl or jb-sshd).
 *
 * interactive: Incus gives the command a pty; fd_io carries it both
 * ways, and fd_err must be -1.  Otherwise fd_io carries stdin (read
 * from it) and stdout (written to it), fd_err stderr (-1: stderr is
 * written to fd_io as well).
 *
 * The session owns the fds from the call on and closes them at its end,
 * also when exec_start returns NULL.  They are made non-blocking, so
 * they must be this process's own ends; SIGPIPE must be ignored.
 *
 * End of input: EOF read from fd_io is passed on as Incus's end of
 * stream (an empty text message on the stdin websocket), so `cat` ends.
 * A local peer that is gone (fd_io hung up, or writing to it fails)
 * is a hangup: the command gets SIGHUP and its output is dropped.
 *
 * done(arg, status, err) runs once, from the event loop, after every
 * byte of output was written to the fds and they were closed: status is
 * the command's exit code (128 + N when signal N killed it) and err
 * NULL, or status -1 and err the reason (a command that could not be
 * started, an Incus error, a broken stream).  The session is gone when
 * done runs.
 *
 * Flow control: a local fd that does not take its output makes the
 * session stop reading that websocket (at EXEC_HIGH bytes queued), and
 * a websocket that does not take input stops the reading of fd_io, so
 * memory stays bounded whatever the peers do.
 */

#ifndef JB_EXEC_H
#define JB_EXEC_H

#include <stddef.h>
#include <stdint.h>

#define EXEC_HIGH	(256 * 1024)	/* bytes queued: stop reading */
#define EXEC_LOW	(64 * 1024)	/* and start again */

struct incus;
struct exec_session;

struct exec_params {
	const char *const	*argv;	/* NULL-terminated, not empty */
	const char *const	*env;	/* "K=V", NULL-terminated */
	uint32_t		 uid;
	uint32_t		 gid;
	const char		*cwd;	/* NULL: Incus's default */
	int			 interactive;
	unsigned int		 cols;	/* interactive; 0: default */
	unsigned int		 rows;
};

typedef void	(*exec_done_cb)(void *, int, const char *);

/*
 * NULL only when memory is short; then done never runs.  Sessions use
 * the incus client's connections: cancel them before incus_free.
 */
struct exec_session *exec_start(struct incus *, const char *,
		    const struct exec_params *, int, int, exec_done_cb, void *);
/*
 * Window size (interactive only) and signals travel on the control
 * websocket; sent before it is up, they wait for it.  -1 with errno:
 * EINVAL for a bad value, ESRCH once the command has ended.
 */
int		 exec_resize(struct exec_session *, unsigned int,
		    unsigned int);
int		 exec_signal(struct exec_session *, int);
/* Bytes queued towards the local fds (flow control keeps it bounded). */
size_t		 exec_buffered(const struct exec_session *);
/*
 * Ends the session now: the fds are closed, done does not run, and
 * Incus kills the command when its control websocket goes away.
 */
void		 exec_cancel(struct exec_session *);

#endif /* JB_EXEC_H */
