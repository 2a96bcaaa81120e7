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
 * jb-sshd: the SSH front door.  It is the most exposed process, so it
 * gives up the most: its host key is read (or made, once) as root, then
 * it enters an empty chroot as its own user with no capability, and only
 * then is it handed the listening socket by the parent.  Each connection
 * gets its own forked process (session.c) with its own channel to the
 * parent, which decides every key and every command: this process holds
 * no key list and no policy.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <libssh/server.h>

#include "log.h"
#include "proc.h"
#include "sandbox_procs.h"
#include "sshd.h"

/* more live connections than this are closed at once */
#define SSHD_MAX_SESSIONS	256

static ssh_bind		 sshbind;
static struct event	 ev_accept, ev_chld;
static int		 listen_fd = -1;
static int		 nsessions;
static int		 draining;

static void
hostkey_load(const char *dir)
{
	char		 path[PATH_MAX];
	ssh_key		 key = NULL;
	struct stat	 st;

	if (dir == NULL)
		fatalx("jb-sshd: no state directory (-s)");
	if ((size_t)snprintf(path, sizeof(path), "%s/ssh_host_ed25519_key",
	    dir) >= sizeof(path))
		fatalx("jb-sshd: state directory path too long");
	if (lstat(path, &st) == -1) {
		if (errno != ENOENT)
			fatal("jb-sshd: %s", path);
		/* first start: a new host key, readable by root alone */
		if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK)
			fatalx("jb-sshd: cannot generate an ed25519 host key");
		umask(077);
		if (ssh_pki_export_privkey_file(key, NULL, NULL, NULL, path)
		    != SSH_OK)
			fatalx("jb-sshd: cannot write the host key %s", path);
		ssh_key_free(key);
		key = NULL;
		log_info("jb-sshd: generated the host key %s", path);
	} else if (!S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 077) != 0)
		fatalx("jb-sshd: %s must be a regular file of root's, mode "
		    "0600; fix it or remove it to get a new key", path);
	if (ssh_pki_import_privkey_file(path, NULL, NULL, NULL, &key) !=
	    SSH_OK)
		fatalx("jb-sshd: cannot read the host key %s", path);
	if (ssh_bind_options_set(sshbind, SSH_BIND_OPTIONS_IMPORT_KEY, key)
	    != SSH_OK)
		fatalx("jb-sshd: cannot use the host key %s", path);
}

static void
sshd_reap(int sig, short event, void *arg)
{
	int	status;

	while (waitpid(-1, &status, WNOHANG) > 0)
		if (nsessions > 0)
			nsessions--;
	if (draining && nsessions == 0) {
		log_info("jb-sshd: drained, exiting");
		exit(0);
	}
}

static void
sshd_accept(int fd, short event, void *arg)
{
	struct child		*c = arg;
	struct sockaddr_storage	 ss;
	struct jb_sshd_session	 sess;
	socklen_t		 len = sizeof(ss);
	int			 s, sp[2];
	pid_t			 pid;

	if ((s = accept4(fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC)) ==
	    -1) {
		if (errno != EINTR && errno != EAGAIN &&
		    errno != ECONNABORTED)
			log_warn("jb-sshd: accept");
		return;
	}
	if (draining || nsessions >= SSHD_MAX_SESSIONS) {
		log_warnx("jb-sshd: %s; connection closed", draining ?
		    "draining" : "too many sessions");
		close(s);
		return;
	}
	memset(&sess, 0, sizeof(sess));
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &sin->sin_addr, sess.addr,
		    sizeof(sess.addr));
		sess.port = ntohs(sin->sin_port);
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, sess.addr,
		    sizeof(sess.addr));
		sess.port = ntohs(sin6->sin6_port);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		log_warn("jb-sshd: socketpair");
		close(s);
		return;
	}
	switch (pid = fork()) {
	case -1:
		log_warn("jb-sshd: fork");
		close(s);
		close(sp[0]);
		close(sp[1]);
		return;
	case 0:
		/* the session: nothing of the listener or the channel */
		close(listen_fd);
		close(JB_CHAN_FD);
		close(sp[0]);
		session_run(sshbind, s, sp[1], &sess);
		/* NOTREACHED */
	}
	nsessions++;
	close(s);
	close(sp[1]);
	/* the parent gets the session's channel, and so the session */
	if (imsgev_compose(&c->iev, IMSG_SSHD_SESSION, 0, 0, sp[0], &sess,
	    sizeof(sess)) == -1)
		fatal("jb-sshd: compose");
}

static int
sshd_dispatch(struct child *c, struct imsg *imsg)
{
	int	fd;

	switch (imsg_get_type(imsg)) {
	case IMSG_SSHD_LISTEN:
		if (listen_fd != -1 || imsg_get_len(imsg) != 0 ||
		    (fd = imsg_get_fd(imsg)) == -1)
			fatalx("jb-sshd: bad SSHD_LISTEN");
		listen_fd = fd;
		if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
			fatal("jb-sshd: fcntl");
		event_set(&ev_accept, fd, EV_READ | EV_PERSIST, sshd_accept, c);
		event_add(&ev_accept, NULL);
		snprintf(c->detail, sizeof(c->detail), "ssh: %d sessions "
		    "at most, one process each", SSHD_MAX_SESSIONS);
		return 0;
	case IMSG_SSHD_DRAIN:
		/* a new version is installed: no new session, then go */
		draining = 1;
		if (listen_fd != -1) {
			event_del(&ev_accept);
			close(listen_fd);
			listen_fd = -1;
		}
		log_info("jb-sshd: draining %d sessions", nsessions);
		if (nsessions == 0)
			exit(0);
		return 0;
	}
	return -1;
}

int
main(int argc, char *argv[])
{
	struct child		 c;
	struct child_args	 a;
	struct passwd		*pw;
	bool			 no = false;

	child_init(&c, "jb-sshd", argc, argv, &a);
	if ((pw = getpwnam(JB_USER_SSHD)) == NULL)
		fatalx("%s: user %s does not exist; run regress/setup-host "
		    "(make deps) to create it", c.name, JB_USER_SSHD);
	if (ssh_init() != SSH_OK || (sshbind = ssh_bind_new()) == NULL)
		fatalx("jb-sshd: libssh");
	/* no /etc/ssh/libssh_server_config: the code alone decides */
	ssh_bind_options_set(sshbind, SSH_BIND_OPTIONS_PROCESS_CONFIG, &no);
	hostkey_load(a.state_dir);
	priv_drop(c.name, pw, JB_SSHD_CHROOT, NULL, 0);
	signal_set(&ev_chld, SIGCHLD, sshd_reap, NULL);
	signal_add(&ev_chld, NULL);
	sandbox_jb_sshd();
	strlcpy(c.detail, "ssh: waiting for the listening socket",
	    sizeof(c.detail));
	c.dispatch = sshd_dispatch;
	c.fdsend = 1;
	c.fdrecv = 1;
	child_run(&c);
}
