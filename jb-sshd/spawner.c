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
 * A fresh process for every SSH connection.
 *
 * jb-sshd -P, the spawner: started by the listener before the listener
 * enters its chroot, it stays outside it as root with only the
 * capabilities a session needs to lock itself down (chroot, set the
 * user and groups, drop the bounding set) and the host key as an open
 * file it never reads.  It takes from the listener an accepted
 * connection and a number, nothing else, and fork+execs jb-sshd -S for
 * it: the connection on fd 4, a new channel to the parent on fd 3, the
 * host key file on fd 5.  No session shares an address space, a layout
 * or leftovers of earlier connections with another one or with the
 * listener, and the listener never reads a byte of a connection.
 *
 * jb-sshd -S, the session: reads the host key from fd 5 once, closes it,
 * enters the empty chroot as _jbsshd with no capability, applies the
 * same seccomp filter and Landlock ruleset as the listener, and only
 * then reads the client's first byte (session.c).
 */

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cap-ng.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <libssh/server.h>

#include "imsg.h"
#include "log.h"
#include "proc.h"
#include "sandbox_procs.h"
#include "sshd.h"
#include "testhook.h"

#define SPAWN_MAX	512	/* sessions alive at once (the listener: 256) */

static volatile sig_atomic_t	got_chld;

struct spawned {
	pid_t		pid;
	uint32_t	id;
};
static struct spawned	spawned[SPAWN_MAX];

static void
on_chld(int sig)
{
	got_chld = 1;
}

/* the flags a spawned process passes on */
struct sflags {
	int	debug, sandbox_debug, verbose, testing;
	uid_t	uid;
	gid_t	gid;
};

static void
sflags_parse(int argc, char *argv[], struct sflags *f)
{
	const char	*err;
	int		 ch;

	memset(f, 0, sizeof(*f));
	f->uid = (uid_t)-1;
	f->gid = (gid_t)-1;
	optind = 2;
	while ((ch = getopt(argc, argv, "dDg:Tu:v")) != -1) {
		switch (ch) {
		case 'd':
			f->debug = 1;
			break;
		case 'T':
			/* the test switch, passed on from the listener */
			f->testing = 1;
			jb_testing = 1;
			break;
		case 'D':
			f->sandbox_debug = 1;
			sandbox_set_debug(1);
			break;
		case 'g':
			f->gid = strtonum(optarg, 1, INT_MAX, &err);
			if (err != NULL)
				errx(2, "-g %s: %s", optarg, err);
			break;
		case 'u':
			f->uid = strtonum(optarg, 1, INT_MAX, &err);
			if (err != NULL)
				errx(2, "-u %s: %s", optarg, err);
			break;
		case 'v':
			f->verbose++;
			break;
		default:
			errx(2, "started by jb-sshd, not by hand");
		}
	}
}

/* argv for a spawned jb-sshd; mode "-P" or "-S" */
static void
sflags_argv(const struct sflags *f, const char *mode, char *argv[],
    char uid[16], char gid[16])
{
	int	n = 0;

	argv[n++] = "jb-sshd";
	argv[n++] = (char *)(uintptr_t)mode;
	if (f->debug)
		argv[n++] = "-d";
	if (f->sandbox_debug)
		argv[n++] = "-D";
	if (f->verbose)
		argv[n++] = "-v";
	if (f->testing)
		argv[n++] = "-T";
	if (f->uid != (uid_t)-1) {
		snprintf(uid, 16, "%u", (unsigned)f->uid);
		snprintf(gid, 16, "%u", (unsigned)f->gid);
		argv[n++] = "-u";
		argv[n++] = uid;
		argv[n++] = "-g";
		argv[n++] = gid;
	}
	argv[n] = NULL;
}

/*
 * In a forked child, before exec: fds[i] becomes fd 3 + i, nothing else
 * above 2 stays open, signals are as a new program expects.
 */
static void
child_fds_exec(const char *path, char *const argv[], const int *fds, int n)
{
	sigset_t	all;
	int		hi[4], i, sig;

	/* out of the way first: a source may sit on a target's number */
	for (i = 0; i < n; i++)
		if ((hi[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 16)) == -1)
			_exit(127);
	for (i = 0; i < n; i++)
		if (dup2(hi[i], JB_CHAN_FD + i) == -1)
			_exit(127);
	closefrom(JB_CHAN_FD + n);
	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	sigemptyset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, NULL);
	execv(path, argv);
	_exit(127);
}

/*
 * The listener, as root before its chroot: start the spawner with chan
 * on its fd 3 and the host key file on its fd 4.  Returns its pid.
 */
pid_t
spawner_start(int chan, int keyfd, int debug, int sandbox_debug,
    int verbose)
{
	struct sflags	 f;
	char		*argv[12], u[16], g[16];
	int		 fds[2] = { chan, keyfd };
	pid_t		 ppid = getpid(), pid;

	memset(&f, 0, sizeof(f));
	f.debug = debug;
	f.sandbox_debug = sandbox_debug;
	f.verbose = verbose;
	f.testing = jb_testing;
	f.uid = (uid_t)-1;
	sflags_argv(&f, "-P", argv, u, g);
	switch (pid = fork()) {
	case -1:
		return -1;
	case 0:
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 ||
		    getppid() != ppid)
			_exit(127);
		child_fds_exec(LIBEXECDIR "/jb-sshd", argv, fds, 2);
	}
	return pid;
}

static void
send_msg(struct imsgbuf *ib, uint32_t type, uint32_t id, pid_t pid, int fd)
{
	struct jb_sshd_spawn	sp;

	memset(&sp, 0, sizeof(sp));
	sp.id = id;
	sp.pid = pid;
	if (imsg_compose(ib, type, 0, 0, fd, &sp, sizeof(sp)) == -1 ||
	    imsgbuf_flush(ib) == -1)
		fatal("to the listener");
}

static void
spawn(struct imsgbuf *ib, const struct sflags *f, uint32_t id, int conn)
{
	char	*argv[12], u[16], g[16];
	int	 sp[2], fds[3], slot;
	pid_t	 ppid = getpid(), pid;

	for (slot = 0; slot < SPAWN_MAX && spawned[slot].pid != 0; slot++)
		;
	if (slot == SPAWN_MAX ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		log_warnx("no room for session %u", id);
		close(conn);
		send_msg(ib, IMSG_SSHD_GONE, id, 0, -1);
		return;
	}
	sflags_argv(f, "-S", argv, u, g);
	fds[0] = sp[1];
	fds[1] = conn;
	fds[2] = JB_CHAN_FD + 1;	/* the host key file */
	switch (pid = fork()) {
	case -1:
		log_warn("fork");
		close(conn);
		close(sp[0]);
		close(sp[1]);
		send_msg(ib, IMSG_SSHD_GONE, id, 0, -1);
		return;
	case 0:
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 ||
		    getppid() != ppid)
			_exit(127);
		child_fds_exec(LIBEXECDIR "/jb-sshd", argv, fds, 3);
	}
	close(conn);
	close(sp[1]);
	spawned[slot].pid = pid;
	spawned[slot].id = id;
	log_debug("session %u is pid %d", id, (int)pid);
	/* the parent's end of the session's channel goes by the listener */
	send_msg(ib, IMSG_SSHD_SPAWNED, id, pid, sp[0]);
}

/*
 * The listener drops a session not logged in: only one of ours, by id.
 * Once the session has dropped root it runs as uid (JB_USER_SSHD), and
 * root without CAP_KILL may signal it only with that uid as its own
 * effective one: the spawner takes it for the kill and root's back
 * after, which brings its permitted capabilities back into effect.
 */
static void
drop(uint32_t id, uid_t uid)
{
	int	i, r, saved;

	for (i = 0; i < SPAWN_MAX; i++) {
		if (spawned[i].pid <= 0 || spawned[i].id != id)
			continue;
		if (kill(spawned[i].pid, SIGKILL) == 0 || errno != EPERM)
			return;
		if (seteuid(uid) == -1)
			fatal("seteuid %u", (unsigned)uid);
		r = kill(spawned[i].pid, SIGKILL);
		saved = errno;
		if (seteuid(0) == -1)
			fatal("seteuid 0");
		capng_get_caps_process();
		if (!capng_have_capability(CAPNG_EFFECTIVE, CAP_SETUID))
			fatalx("capabilities not back after a drop");
		if (r == -1)
			log_warnx("session %u (pid %d): kill: %s", id,
			    (int)spawned[i].pid, strerror(saved));
		return;
	}
}

static void
reap(struct imsgbuf *ib)
{
	pid_t	pid;
	int	status, i;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < SPAWN_MAX; i++)
			if (spawned[i].pid == pid) {
				send_msg(ib, IMSG_SSHD_GONE, spawned[i].id,
				    pid, -1);
				memset(&spawned[i], 0, sizeof(spawned[i]));
			}
}

/*
 * The spawner's own lock-down: uid 0 with no supplementary group and
 * exactly the capabilities a session uses before it drops them all
 * (permitted, effective and bounding, so an exec gets these and no
 * more), no_new_privs, then seccomp and Landlock (sandbox_procs.c).
 */
static void
spawner_lockdown(void)
{
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED |
	    CAPNG_BOUNDING_SET, CAP_SYS_CHROOT, CAP_SETUID, CAP_SETGID,
	    CAP_SETPCAP, -1) == -1)
		fatalx("capng_updatev");
	selfstat_init();
	if (setgroups(0, NULL) == -1)
		fatal("setgroups");
	if (capng_apply(CAPNG_SELECT_ALL) != 0)
		fatalx("cannot apply capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("PR_SET_NO_NEW_PRIVS");
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		fatal("PR_SET_PDEATHSIG");
	capng_get_caps_process();
	if (capng_have_capability(CAPNG_EFFECTIVE, CAP_DAC_OVERRIDE) ||
	    capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN) ||
	    !capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_CHROOT))
		fatalx("capabilities not as set");
	sandbox_jb_sshd_spawner();
}

__dead void
spawner_main(int argc, char *argv[])
{
	struct imsgbuf		 ib;
	struct imsg		 imsg;
	struct jb_sshd_spawn	 sp;
	struct sflags		 f;
	struct passwd		*pw;
	struct pollfd		 pfd;
	struct stat		 st;
	struct sigaction	 sa;
	sigset_t		 block, none;
	int			 n, conn;

	sflags_parse(argc, argv, &f);
	log_init(f.debug, LOG_DAEMON);
	log_procinit("jb-sshd spawner");
	log_setverbose(f.verbose);
	proc_child_check("jb-sshd spawner");
	proc_bound("jb-sshd spawner");
	if (fstat(JB_CHAN_FD + 1, &st) == -1 || !S_ISREG(st.st_mode))
		fatalx("fd 4 is not the host key file");
	if ((pw = getpwnam(JB_USER_SSHD)) == NULL)
		fatalx("no user %s", JB_USER_SSHD);
	f.uid = pw->pw_uid;
	f.gid = pw->pw_gid;
	if (f.uid == 0 || f.gid == 0)
		fatalx("%s must not be root", JB_USER_SSHD);

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigemptyset(&none);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	spawner_lockdown();
	if (imsgbuf_init(&ib, JB_CHAN_FD) == -1)
		fatal("imsgbuf_init");
	imsgbuf_allow_fdpass(&ib);
	pfd.fd = JB_CHAN_FD;
	pfd.events = POLLIN;
	for (;;) {
		if (got_chld) {
			got_chld = 0;
			reap(&ib);
		}
		/* SIGCHLD is let in only while waiting: none is missed */
		if (ppoll(&pfd, 1, NULL, &none) == -1) {
			if (errno == EINTR)
				continue;
			fatal("ppoll");
		}
		if ((n = imsgbuf_read(&ib)) == -1)
			fatal("from the listener");
		if (n == 0) {
			log_debug("the listener is gone");
			exit(0);
		}
		while ((n = jb_imsg_get(&ib, &imsg, JB_PEER_SSHD,
		    JB_PEER_SPAWNER)) > 0) {
			/*
			 * a connection and a number, or the number of a
			 * session to drop: nothing else is read
			 */
			if (imsg_get_type(&imsg) == IMSG_SSHD_DROP &&
			    imsg_get_data(&imsg, &sp, sizeof(sp)) == 0) {
				drop(sp.id, f.uid);
				imsg_free(&imsg);
				continue;
			}
			if (imsg_get_type(&imsg) != IMSG_SSHD_SPAWN ||
			    imsg_get_data(&imsg, &sp, sizeof(sp)) == -1 ||
			    (conn = imsg_get_fd(&imsg)) == -1)
				fatalx("bad message from the "
				    "listener");
			spawn(&ib, &f, sp.id, conn);
			imsg_free(&imsg);
		}
		if (n == -1)
			fatalx("bad message from the listener");
	}
}

/* the host key from fd 5, read once: no path ever names it here */
static ssh_key
hostkey_from_fd(int fd)
{
	struct stat	 st;
	ssh_key		 key = NULL;
	char		*buf;
	ssize_t		 n;
	size_t		 off = 0;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size <= 0 || st.st_size > 65536)
		fatalx("fd 5 is not the host key file");
	if ((buf = calloc(1, st.st_size + 1)) == NULL)
		fatal("calloc");
	while (off < (size_t)st.st_size) {
		if ((n = pread(fd, buf + off, st.st_size - off, off)) == -1) {
			if (errno == EINTR)
				continue;
			fatal("host key");
		}
		if (n == 0)
			break;
		off += n;
	}
	close(fd);
	if (ssh_pki_import_privkey_base64(buf, NULL, NULL, NULL, &key) !=
	    SSH_OK)
		key = NULL;
	explicit_bzero(buf, st.st_size + 1);
	free(buf);
	if (key == NULL)
		fatalx("cannot read the host key");
	return key;
}

__dead void
session_main(int argc, char *argv[])
{
	struct jb_sshd_session	 peer;
	struct sflags		 f;
	struct passwd		 pw;
	struct stat		 st;
	ssh_bind		 b;
	ssh_key			 key;
	bool			 no = false;

	sflags_parse(argc, argv, &f);
	log_init(f.debug, LOG_DAEMON);
	log_procinit("jb-sshd session");
	log_setverbose(f.verbose);
	proc_child_check("jb-sshd session");
	proc_bound("jb-sshd session");
	if (f.uid == (uid_t)-1 || f.gid == (gid_t)-1)
		fatalx("started by jb-sshd, not by hand");
	if (fstat(JB_CHAN_FD + 1, &st) == -1 || !S_ISSOCK(st.st_mode))
		fatalx("fd 4 is not a connection");
	if (ssh_init() != SSH_OK || (b = ssh_bind_new()) == NULL)
		fatalx("libssh");
	/* no /etc/ssh/libssh_server_config: the code alone decides */
	ssh_bind_options_set(b, SSH_BIND_OPTIONS_PROCESS_CONFIG, &no);
	key = hostkey_from_fd(JB_CHAN_FD + 2);
	if (ssh_bind_options_set(b, SSH_BIND_OPTIONS_IMPORT_KEY, key) !=
	    SSH_OK)
		fatalx("cannot use the host key");
	/* as the listener did: the empty chroot, _jbsshd, no capability */
	memset(&pw, 0, sizeof(pw));
	pw.pw_uid = f.uid;
	pw.pw_gid = f.gid;
	priv_drop("jb-sshd session", &pw, JB_SSHD_CHROOT, NULL, 0);
	sandbox_jb_sshd();
	memset(&peer, 0, sizeof(peer));
	session_run(b, JB_CHAN_FD + 1, JB_CHAN_FD, &peer);
}
