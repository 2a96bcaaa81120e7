/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JBCTL_TERM_H
#define JBCTL_TERM_H

#include <stddef.h>
#include <stdint.h>

struct imsgbuf;

/*
 * The client end of `jbctl shell` and `jbctl exec`.  Splices our stdio to
 * the stream sockets jailbeed passed (fd_io: the pty both ways, or stdin
 * and stdout; fd_err: stderr, -1 when interactive) and waits on ctl for
 * IMSG_CTL_EXIT.  ctl is the blocking control channel; messages already
 * buffered in it are handled first.  fd_io and fd_err are made
 * non-blocking and left open for the caller to close.
 *
 * Returns the command's exit status (0-255) once every byte of its output
 * has been written out, 128 + signo when SIGTERM, SIGHUP or SIGINT ended
 * an interactive session, or -1 with the reason in err (jailbeed's
 * IMSG_CTL_ERROR text, a lost connection, a protocol error).  An
 * interactive session holds our stdin terminal in raw mode and restores
 * it on every return.  Our fds 0-2 must be open (or /dev/null).
 */
int	term_session(struct imsgbuf *ctl, int fd_io, int fd_err,
	    int interactive, char *err, size_t errlen);

/*
 * Limits for the sessions that follow (the git bridge's transport): a
 * session that moves more than max_bytes both ways together, or lasts
 * longer than timeout_ms, ends with -1 and the reason; 0 is no limit.
 * term_moved() tells the bytes read from fd_io (in) and from our stdin
 * (out) so far.
 */
void	term_limit(uint64_t max_bytes, int64_t timeout_ms);
void	term_moved(uint64_t *in, uint64_t *out);

#endif /* JBCTL_TERM_H */
