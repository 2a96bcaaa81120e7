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
 * gives up the most.  As root it makes the host key (once) and opens it,
 * starts its spawner (jb-sshd -P, spawner.c) with that open file, and
 * closes it: the listener never holds the key.  Then it enters an empty
 * chroot as its own user with no capability, and only then is it handed
 * the listening socket by the parent.  It accepts, decides the early
 * drops, and hands each connection, unread, to the spawner, which execs
 * a fresh session process (jb-sshd -S, session.c) for it with its own
 * channel to the parent, which decides every key and every command: this
 * process holds no key list and no policy.
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
#include <time.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <libssh/server.h>

#include "log.h"
#include "proc.h"
#include "sandbox_procs.h"
#include "srcclass.h"
#include "sshd.h"

/* more live connections than this are closed at once */
#define SSHD_MAX_SESSIONS	256


static struct event	 ev_accept, ev_chld;
static struct imsgev	 spawner;	/* to jb-sshd -P */
static pid_t		 spawner_pid = -1;
static struct child	*chld;
static int		 listen_fd = -1;
static int		 nsessions;
static int		 draining;

/*
 * Early drop (sshd's MaxStartups), decided here at accept before a
 * session process is made.  A connection not logged in is a stranger's
 * until it offers a key that logged in lately.  A source (srcclass: all
 * of loopback is one, an IPv6 client its /64) may have max_unauth
 * strangers' connections, and all sources together SSHD_MAX_SESSIONS
 * less SSHD_RESERVED: the rest is kept for sessions that log in and for
 * connections that offered a key known lately.  Past either limit, or
 * with every slot taken, the oldest stranger's connection is dropped to
 * let the new one in, so idle connections cannot shut the door, and a
 * client that logs in at once gets through.  A connection the parent
 * says offered a key that is authorized and logged in lately
 * (IMSG_SSHD_KNOWN: this process holds no key, only the parent's number
 * for it) is no longer a stranger's: no new connection drops it, so a
 * user whose key waits for a touch or a passphrase is not shut out by a
 * flood of others.  One key holds KNOWN_PER_KEY such connections at most
 * (a public key is no secret: anyone may offer it), all keys
 * SSHD_RESERVED; past either, the oldest of them is a stranger's again.
 * The parent may also shut a source other than loopback out for a while
 * when its refusals run past remote.ssh.refusals_per_minute.  The parent
 * says when a session logged in.
 */
#define SSHD_RESERVED	32
#define KNOWN_PER_KEY	4
struct live {
	int		 used;
	pid_t		 pid;		/* 0 until the spawner says */
	uint32_t	 id;
	int		 authed;
	uint32_t	 known;		/* the parent's number for the key
					   offered, 0: a stranger's */
	char		 addr[48];
	char		 cls[48];
	uint32_t	 port;
};
static struct live	 lives[SSHD_MAX_SESSIONS];
static uint32_t		 next_id = 1;
static uint32_t		 max_unauth = 128;

#define PENALTY_MAX	64
static struct jb_sshd_penalty	penalties[PENALTY_MAX];
static time_t		 last_drop_log[4];	/* penalty, unauthenticated,
						   every slot taken, early
						   drops */

/* a stranger's connection: not logged in, no key known lately offered */
static int
stranger(const struct live *l)
{
	return l->used && !l->authed && l->known == 0;
}

/* strangers' connections, from cls (NULL: from anywhere) */
static int
unauth_from(const char *cls)
{
	int	i, n = 0;

	for (i = 0; i < SSHD_MAX_SESSIONS; i++)
		if (stranger(&lives[i]) &&
		    (cls == NULL || strcmp(lives[i].cls, cls) == 0))
			n++;
	return n;
}

/*
 * The connection id offered a key known lately (key, the parent's
 * number for it): out of the strangers, into a reserved slot.
 */
static void
known_add(const struct jb_sshd_known *kn)
{
	int	i, me = -1, nkey = 0, nall = 0, oldkey = -1, oldall = -1;

	for (i = 0; i < SSHD_MAX_SESSIONS; i++) {
		if (!lives[i].used || lives[i].authed)
			continue;
		if (lives[i].id == kn->id)
			me = i;
		if (lives[i].known == 0)
			continue;
		nall++;
		if (oldall == -1 || lives[i].id < lives[oldall].id)
			oldall = i;
		if (lives[i].known == kn->key) {
			nkey++;
			if (oldkey == -1 || lives[i].id < lives[oldkey].id)
				oldkey = i;
		}
	}
	if (me == -1 || lives[me].known != 0)
		return;
	if (nkey >= KNOWN_PER_KEY)
		lives[oldkey].known = 0;
	else if (nall >= SSHD_RESERVED)
		lives[oldall].known = 0;
	lives[me].known = kn->key;
}

/*
 * Drop the oldest stranger's connection (from cls, or from anywhere):
 * the spawner kills its session, and its slot is free at once (the
 * spawner has room for twice as many processes, so one being reaped
 * still has its place there).  0 when there was none to drop.
 */
static int
drop_oldest(const char *cls)
{
	struct jb_sshd_spawn	 sp;
	int			 i, old = -1;

	for (i = 0; i < SSHD_MAX_SESSIONS; i++)
		if (stranger(&lives[i]) &&
		    (cls == NULL || strcmp(lives[i].cls, cls) == 0) &&
		    (old == -1 || lives[i].id < lives[old].id))
			old = i;
	if (old == -1)
		return 0;
	memset(&sp, 0, sizeof(sp));
	sp.id = lives[old].id;
	if (imsgev_compose(&spawner, IMSG_SSHD_DROP, 0, 0, -1, &sp,
	    sizeof(sp)) == -1)
		fatal("compose");
	memset(&lives[old], 0, sizeof(lives[old]));
	if (nsessions > 0)
		nsessions--;
	return 1;
}

static int
penalized(const char *addr)
{
	time_t	now = time(NULL);
	int	i;

	for (i = 0; i < PENALTY_MAX; i++)
		if (penalties[i].until > now &&
		    strcmp(penalties[i].addr, addr) == 0)
			return 1;
	return 0;
}

static void
penalty_add(const struct jb_sshd_penalty *p)
{
	int	i, old = 0;

	for (i = 0; i < PENALTY_MAX; i++) {
		if (strcmp(penalties[i].addr, p->addr) == 0) {
			old = i;
			break;
		}
		if (penalties[i].until < penalties[old].until)
			old = i;
	}
	penalties[old] = *p;
}

/*
 * The host key file, made at first start, opened for the spawner: this
 * process never reads it.  It is checked once, in a throwaway child, so
 * that a bad key stops the start rather than every session.
 */
#define HOSTKEY_MAX	65536	/* an ed25519 key file is ~400 bytes */

static int
hostkey_open(const char *dir)
{
	char		 path[PATH_MAX], *b64 = NULL;
	ssh_key		 key = NULL;
	struct stat	 st;
	size_t		 len;
	int		 fd, status;
	pid_t		 pid;

	if (dir == NULL)
		fatalx("no state directory (-s)");
	if ((size_t)snprintf(path, sizeof(path), "%s/ssh_host_ed25519_key",
	    dir) >= sizeof(path))
		fatalx("state directory path too long");
	if (lstat(path, &st) == -1) {
		if (errno != ENOENT)
			fatal("%s", path);
		/* first start: a new host key, readable by root alone */
		switch (pid = fork()) {
		case -1:
			fatal("fork");
		case 0:
			if (ssh_init() != SSH_OK || ssh_pki_generate(
			    SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK)
				_exit(1);
			/* a new file, never through a symlink */
			if (ssh_pki_export_privkey_base64(key, NULL, NULL,
			    NULL, &b64) != SSH_OK || (fd = open(path,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0600)) == -1)
				_exit(2);
			len = strlen(b64);
			_exit(write(fd, b64, len) == (ssize_t)len &&
			    close(fd) == 0 ? 0 : 2);
		}
		if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			fatalx("cannot make the host key %s", path);
		log_info("generated the host key %s", path);
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1 && errno == ELOOP)
		fatalx("%s is a symlink: refused; remove it to get a new key",
		    path);
	if (fd == -1)
		fatal("%s", path);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 077) != 0 || st.st_nlink != 1 ||
	    st.st_size > HOSTKEY_MAX)
		fatalx("%s must be a regular file of root's, mode "
		    "0600; fix it or remove it to get a new key", path);
	switch (pid = fork()) {
	case -1:
		fatal("fork");
	case 0:
		/* what the spawner will read: the file held, not the path */
		if ((b64 = calloc(1, (size_t)st.st_size + 1)) == NULL ||
		    pread(fd, b64, (size_t)st.st_size, 0) != st.st_size)
			_exit(1);
		_exit(ssh_init() == SSH_OK && ssh_pki_import_privkey_base64(
		    b64, NULL, NULL, NULL, &key) == SSH_OK ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		fatalx("cannot read the host key %s", path);
	return fd;
}

/* the spawner is this process's only child: without it, no session */
static void
sshd_reap(int sig, short event, void *arg)
{
	int	status;
	pid_t	pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (pid == spawner_pid)
			fatalx("the spawner exited (status %d)",
			    status);
}

static void
session_gone(uint32_t id)
{
	int	i;

	for (i = 0; i < SSHD_MAX_SESSIONS; i++)
		if (lives[i].used && lives[i].id == id) {
			memset(&lives[i], 0, sizeof(lives[i]));
			if (nsessions > 0)
				nsessions--;
		}
	if (draining && nsessions == 0) {
		log_info("drained, exiting");
		exit(0);
	}
}

/* what the spawner says: a session's pid and channel, or its end */
static void
spawner_dispatch(int fd, short event, void *arg)
{
	struct jb_sshd_spawn	 sp;
	struct jb_sshd_session	 sess;
	struct imsg		 imsg;
	int			 n, i, chan;

	if ((n = imsgev_io(&spawner, event)) == -1 || n == 0)
		fatalx("the spawner is gone");
	while ((n = jb_imsg_get(&spawner.ibuf, &imsg, JB_PEER_SPAWNER,
	    JB_PEER_SSHD)) > 0) {
		if (imsg_get_data(&imsg, &sp, sizeof(sp)) == -1)
			fatalx("bad message from the spawner");
		switch (imsg_get_type(&imsg)) {
		case IMSG_SSHD_SPAWNED:
			if ((chan = imsg_get_fd(&imsg)) == -1 || sp.pid <= 0)
				fatalx("bad SSHD_SPAWNED");
			for (i = 0; i < SSHD_MAX_SESSIONS; i++)
				if (lives[i].used && lives[i].id == sp.id)
					break;
			if (i == SSHD_MAX_SESSIONS) {
				close(chan);
				break;
			}
			lives[i].pid = sp.pid;
			memset(&sess, 0, sizeof(sess));
			(void)strlcpy(sess.addr, lives[i].addr,
			    sizeof(sess.addr));
			sess.port = lives[i].port;
			sess.id = sp.id;
			/* the parent gets the session's channel, and so it */
			if (imsgev_compose(&chld->iev, IMSG_SSHD_SESSION, 0, 0,
			    chan, &sess, sizeof(sess)) == -1)
				fatal("compose");
			break;
		case IMSG_SSHD_GONE:
			session_gone(sp.id);
			break;
		default:
			fatalx("unexpected %s from the spawner",
			    jb_imsg_name(imsg_get_type(&imsg)));
		}
		imsg_free(&imsg);
	}
	if (n == -1)
		fatalx("bad message from the spawner");
	imsgev_add(&spawner);
}

static void
sshd_accept(int fd, short event, void *arg)
{
	struct sockaddr_storage	 ss;
	struct jb_sshd_session	 sess;
	struct jb_sshd_spawn	 sp;
	socklen_t		 len = sizeof(ss);
	char			 cls[48];
	int			 s, slot, why, dropped;

	if ((s = accept4(fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC)) ==
	    -1) {
		if (errno != EINTR && errno != EAGAIN &&
		    errno != ECONNABORTED)
			log_warn("accept");
		return;
	}
	if (draining) {
		log_warnx("draining; connection closed");
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
	srcclass(sess.addr, cls, sizeof(cls));
	why = -1;
	dropped = 0;
	if (penalized(cls))
		why = 0;
	else if (unauth_from(cls) >= (int)max_unauth) {
		if ((dropped = drop_oldest(cls)) == 0)
			why = 1;
	} else if (unauth_from(NULL) >= SSHD_MAX_SESSIONS - SSHD_RESERVED ||
	    nsessions >= SSHD_MAX_SESSIONS) {
		if ((dropped = drop_oldest(NULL)) == 0)
			why = nsessions >= SSHD_MAX_SESSIONS ? 2 : 1;
	}
	if (why != -1) {
		/* said once a minute at most: the log is no flood either */
		if (time(NULL) - last_drop_log[why] >= 60) {
			log_warnx("%s: %s; its connections are closed "
			    "at once", sess.addr, why == 0 ?
			    "too many refusals" : why == 1 ? "too many "
			    "connections not logged in" : "too many sessions");
			last_drop_log[why] = time(NULL);
		}
		close(s);
		return;
	}
	if (dropped && time(NULL) - last_drop_log[3] >= 60) {
		log_warnx("%s: too many connections not logged in; the "
		    "oldest are dropped for new ones", cls);
		last_drop_log[3] = time(NULL);
	}
	for (slot = 0; slot < SSHD_MAX_SESSIONS && lives[slot].used;
	    slot++)
		;
	if (slot == SSHD_MAX_SESSIONS) {
		close(s);
		return;
	}
	sess.id = next_id++;
	nsessions++;
	lives[slot].used = 1;
	lives[slot].id = sess.id;
	lives[slot].port = sess.port;
	(void)strlcpy(lives[slot].addr, sess.addr, sizeof(lives[slot].addr));
	(void)strlcpy(lives[slot].cls, cls, sizeof(lives[slot].cls));
	/*
	 * Not a byte of it is read here: the connection and a number go to
	 * the spawner, which execs a fresh session process for it.
	 */
	memset(&sp, 0, sizeof(sp));
	sp.id = sess.id;
	if (imsgev_compose(&spawner, IMSG_SSHD_SPAWN, 0, 0, s, &sp,
	    sizeof(sp)) == -1)
		fatal("compose");
}

static int
sshd_dispatch(struct child *c, struct imsg *imsg)
{
	struct jb_sshd_limits	 lim;
	struct jb_sshd_authed	 au;
	struct jb_sshd_known	 kn;
	struct jb_sshd_penalty	 pen;
	int			 fd, i;

	switch (imsg_get_type(imsg)) {
	case IMSG_SSHD_LISTEN:
		if (listen_fd != -1 ||
		    imsg_get_data(imsg, &lim, sizeof(lim)) == -1 ||
		    lim.max_unauth == 0 || (fd = imsg_get_fd(imsg)) == -1)
			fatalx("bad SSHD_LISTEN");
		max_unauth = lim.max_unauth;
		listen_fd = fd;
		if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
			fatal("fcntl");
		event_set(&ev_accept, fd, EV_READ | EV_PERSIST, sshd_accept, c);
		event_add(&ev_accept, NULL);
		snprintf(c->detail, sizeof(c->detail), "ssh: %d sessions "
		    "at most, one process each", SSHD_MAX_SESSIONS);
		return 0;
	case IMSG_SSHD_REBIND:
		/*
		 * jbctl reload moved the listener: the socket jbctl bound,
		 * or none for "off".  The old one closes, so its port
		 * refuses; running sessions are processes of their own.
		 */
		if (imsg_get_data(imsg, &lim, sizeof(lim)) == -1 ||
		    lim.max_unauth == 0)
			fatalx("jb-sshd: bad SSHD_REBIND");
		fd = imsg_get_fd(imsg);
		if (listen_fd != -1) {
			event_del(&ev_accept);
			close(listen_fd);
			listen_fd = -1;
		}
		if (draining || fd == -1) {
			if (fd != -1)
				close(fd);
			log_info("jb-sshd: no longer listening");
			snprintf(c->detail, sizeof(c->detail), "ssh: not "
			    "listening (remote.ssh.listen is off)");
			return 0;
		}
		max_unauth = lim.max_unauth;
		listen_fd = fd;
		if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
			fatal("jb-sshd: fcntl");
		event_set(&ev_accept, fd, EV_READ | EV_PERSIST, sshd_accept, c);
		event_add(&ev_accept, NULL);
		log_info("jb-sshd: listening on a new socket");
		snprintf(c->detail, sizeof(c->detail), "ssh: %d sessions "
		    "at most, one process each", SSHD_MAX_SESSIONS);
		return 0;
	case IMSG_SSHD_AUTHED:
		if (imsg_get_data(imsg, &au, sizeof(au)) == -1)
			fatalx("bad SSHD_AUTHED");
		for (i = 0; i < SSHD_MAX_SESSIONS; i++)
			if (lives[i].used && lives[i].id == au.id)
				lives[i].authed = 1;
		return 0;
	case IMSG_SSHD_KNOWN:
		if (imsg_get_data(imsg, &kn, sizeof(kn)) == -1 || kn.key == 0)
			fatalx("bad SSHD_KNOWN");
		known_add(&kn);
		return 0;
	case IMSG_SSHD_PENALTY:
		if (imsg_get_data(imsg, &pen, sizeof(pen)) == -1 ||
		    memchr(pen.addr, '\0', sizeof(pen.addr)) == NULL)
			fatalx("bad SSHD_PENALTY");
		penalty_add(&pen);
		return 0;
	case IMSG_SSHD_DRAIN:
		/* a new version is installed: no new session, then go */
		draining = 1;
		if (listen_fd != -1) {
			event_del(&ev_accept);
			close(listen_fd);
			listen_fd = -1;
		}
		log_info("draining %d sessions", nsessions);
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
	int			 keyfd, sp[2];

	/* the spawner and the sessions it execs (spawner.c) */
	if (argc >= 2 && strcmp(argv[1], "-P") == 0)
		spawner_main(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "-S") == 0)
		session_main(argc, argv);
	child_init(&c, "jb-sshd", argc, argv, &a);
	chld = &c;
	if ((pw = getpwnam(JB_USER_SSHD)) == NULL)
		fatalx("%s: user %s does not exist; run regress/setup-host "
		    "(make deps) to create it", c.name, JB_USER_SSHD);
	keyfd = hostkey_open(a.state_dir);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1)
		fatal("socketpair");
	if ((spawner_pid = spawner_start(sp[1], keyfd, a.debug,
	    a.sandbox_debug, a.verbose)) == -1)
		fatal("cannot start the spawner");
	close(sp[1]);
	close(keyfd);
	if (imsgev_init(&spawner, sp[0], spawner_dispatch, NULL) == -1)
		fatal("imsgbuf_init");
	/* fds come up from the spawner, and go down to it */
	imsgbuf_allow_fdpass(&spawner.ibuf);
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
