/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SSHD_H
#define JB_SSHD_H

#include <libssh/libssh.h>
#include <libssh/server.h>

#include <sys/types.h>

#include "jb_msg.h"
#include "testhook.h"

/* libssh has neither: a login must finish in time and in few tries */
/*
 * seconds from accept to auth (15 under the test switch: a key that
 * waits to sign while a test floods the door must outlast the flood on
 * a slow machine)
 */
#define SSHD_LOGIN_GRACE	jb_test_secs(30, 15)
#define SSHD_MAX_TRIES		JB_SSH_AUTH_TRIES /* refused per connection */

/* session.c: one connection, in its own process; never returns */
__attribute__((__noreturn__)) void session_run(ssh_bind, int fd, int chan,
	    const struct jb_sshd_session *);

/*
 * spawner.c: the listener starts the spawner (jb-sshd -P) with its
 * channel and the host key file; the spawner execs one session (jb-sshd
 * -S) per connection
 */
pid_t	spawner_start(int chan, int keyfd, int debug, int sandbox_debug,
	    int verbose);
__attribute__((__noreturn__)) void spawner_main(int, char *[]);
__attribute__((__noreturn__)) void session_main(int, char *[]);

/* sftp.c: the sftp subsystem granted; blocks until it ends */
struct imsgbuf;
int	sftp_serve(ssh_session, ssh_channel, struct imsgbuf *);

#endif /* JB_SSHD_H */
