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
 * jb-reaper: removes the control socket once jailbeed is gone.
 *
 * The socket's directory is root's (libcommon/sockdir.c), so the parent,
 * the owner once it has dropped root, cannot remove the socket at exit.
 * Before the drop the parent forks this process, which stays uid 0 but
 * holds no capability, sets no_new_privs and locks itself down (seccomp:
 * the base set plus unlinkat, no open at all; Landlock: the socket's
 * directory only).  It keeps three fds besides /dev/null on 0-2: its end
 * of a socketpair with the parent, and the socket's directory.  It tells
 * the parent once what its lock-down enforces, then reads the socketpair
 * and ignores whatever comes: when the read ends (the parent exited, by
 * SIGTERM, a crash or SIGKILL: the kernel closes its end) it removes the
 * socket's one fixed name from that directory, only if the name is
 * still the socket bound at start (same device and inode), and exits.
 *
 * It ignores SIGTERM, SIGINT, SIGHUP and SIGQUIT (a service manager
 * signals the whole group; the socket must still go), so the parent's
 * end closing is what ends it.  Nothing else holds that end: it is
 * close-on-exec, and the parent forks nothing else without exec.
 *
 * The parent reaps it: at shutdown it closes its end and waits (1.5 s at
 * most) and logs what became of the socket; a reaper that dies while the
 * parent runs is a dead child like the others (the suite stops).  After
 * a parent's crash it is init's to reap.  jbctl status lists it, read
 * from /proc/PID/status by the parent.
 */

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jailbeed.h"
#include "log.h"
#include "proc.h"
#include "sandbox_procs.h"

/* the reaper's exit statuses, for the parent's log */
#define REAP_REMOVED	0	/* removed, or already gone */
#define REAP_FAILED	2	/* unlinkat failed */
#define REAP_REPLACED	3	/* the name is no longer our socket: left */

#define REAP_CHAN_FD	3
#define REAP_DIR_FD	4
#define REAP_NULL_FD	5

static pid_t	reaper_pid = -1;
static int	reaper_fd = -1;
static int64_t	reaper_started;
static char	reaper_sandbox[JB_MSG_TEXT_MAX];
static char	reaper_detail[JB_MSG_TEXT_MAX];

static __dead void	reaper_main(int, int, const char *, const char *,
			    dev_t, ino_t);

/*
 * Runs as root, in control_init, after the socket is bound and given to
 * the owner and before the privilege drop.  dirfd: the socket's
 * directory; name: the socket's name in it; dir: the directory's path
 * (for Landlock).
 */
void
reaper_start(int dirfd, const char *dir, const char *name)
{
	struct stat	 st;
	sigset_t	 all, old;
	char		 buf[JB_MSG_TEXT_MAX];
	size_t		 got = 0;
	ssize_t		 n;
	int		 sp[2];

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		fatal("socket %s/%s", dir, name);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1)
		fatal("socketpair");
	/*
	 * No signal until the child has its own dispositions: libevent's
	 * handler would write to the parent's signal socketpair.
	 */
	sigfillset(&all);
	if (sigprocmask(SIG_BLOCK, &all, &old) == -1)
		fatal("sigprocmask");
	switch (reaper_pid = fork()) {
	case -1:
		fatal("fork jb-reaper");
	case 0:
		(void)close(sp[0]);
		reaper_main(sp[1], dirfd, dir, name, st.st_dev, st.st_ino);
	default:
		break;
	}
	if (sigprocmask(SIG_SETMASK, &old, NULL) == -1)
		fatal("sigprocmask");
	(void)close(sp[1]);
	reaper_fd = sp[0];
	reaper_started = time(NULL);
	(void)snprintf(reaper_detail, sizeof(reaper_detail), "removes %s/%s "
	    "when jailbeed exits", dir, name);

	/* locked down and waiting: its summary, or EOF if it failed */
	while (got < sizeof(buf)) {
		if ((n = read(reaper_fd, buf + got, sizeof(buf) - got)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			fatalx("jb-reaper (pid %d) did not start",
			    (int)reaper_pid);
		got += (size_t)n;
	}
	buf[sizeof(buf) - 1] = '\0';
	strlcpy(reaper_sandbox, buf, sizeof(reaper_sandbox));
	log_debug("started jb-reaper, pid %d: %s", (int)reaper_pid,
	    reaper_sandbox);
}

static __dead void
reaper_main(int chan, int dirfd, const char *dir, const char *name,
    dev_t dev, ino_t ino)
{
	struct stat	 st;
	sigset_t	 none;
	char		 buf[JB_MSG_TEXT_MAX], fixed[NAME_MAX + 1];
	size_t		 off;
	ssize_t		 n;
	int		 sig, nullfd, a, b, c;

	log_procinit("jb-reaper");
	(void)prctl(PR_SET_NAME, "jb-reaper");
	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	(void)signal(SIGTERM, SIG_IGN);
	(void)signal(SIGINT, SIG_IGN);
	(void)signal(SIGHUP, SIG_IGN);
	(void)signal(SIGQUIT, SIG_IGN);
	(void)signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	if (strlcpy(fixed, name, sizeof(fixed)) >= sizeof(fixed))
		fatalx("socket name too long");

	/* its channel, the directory, /dev/null on 3, 4, 5; nothing else */
	if ((nullfd = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		fatal("/dev/null");
	if ((a = fcntl(chan, F_DUPFD_CLOEXEC, 10)) == -1 ||
	    (b = fcntl(dirfd, F_DUPFD_CLOEXEC, 10)) == -1 ||
	    (c = fcntl(nullfd, F_DUPFD_CLOEXEC, 10)) == -1 ||
	    dup3(a, REAP_CHAN_FD, O_CLOEXEC) == -1 ||
	    dup3(b, REAP_DIR_FD, O_CLOEXEC) == -1 ||
	    dup3(c, REAP_NULL_FD, O_CLOEXEC) == -1)
		fatal("fds");
	closefrom(REAP_NULL_FD + 1);
	proc_bound("jb-reaper");

	/* root's uid, no capability, nothing to gain back */
	capng_clear(CAPNG_SELECT_ALL);
	if (setgroups(0, NULL) == -1)
		fatal("setgroups");
	if (capng_apply(CAPNG_SELECT_ALL) != 0)
		fatalx("cannot drop capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("PR_SET_NO_NEW_PRIVS");
	capng_get_caps_process();
	if (capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE)
		fatalx("still holds capabilities");
	memset(buf, 0, sizeof(buf));
	sandbox_jb_reaper(dir, buf, sizeof(buf));
	/* what building the filters wrote and freed is its own: given back */
	(void)malloc_trim(0);

	/* from here on nothing is logged: stdio is /dev/null */
	if (dup2(REAP_NULL_FD, STDIN_FILENO) == -1 ||
	    dup2(REAP_NULL_FD, STDOUT_FILENO) == -1 ||
	    dup2(REAP_NULL_FD, STDERR_FILENO) == -1)
		_exit(1);
	(void)close(REAP_NULL_FD);
	for (off = 0; off < sizeof(buf);) {
		n = write(REAP_CHAN_FD, buf + off, sizeof(buf) - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);
		off += (size_t)n;
	}

	/* whatever the parent sends is ignored; its end closing is all */
	for (;;) {
		n = read(REAP_CHAN_FD, buf, sizeof(buf));
		if (n > 0 || (n == -1 && errno == EINTR))
			continue;
		break;
	}
	if (fstatat(REAP_DIR_FD, fixed, &st, AT_SYMLINK_NOFOLLOW) == -1)
		_exit(errno == ENOENT ? REAP_REMOVED : REAP_FAILED);
	if (!S_ISSOCK(st.st_mode) || st.st_dev != dev || st.st_ino != ino)
		_exit(REAP_REPLACED);
	if (unlinkat(REAP_DIR_FD, fixed, 0) == -1)
		_exit(errno == ENOENT ? REAP_REMOVED : REAP_FAILED);
	_exit(REAP_REMOVED);
}

/* SIGCHLD: 1 if pid was the reaper (gone early: the caller stops) */
int
reaper_reaped(pid_t pid, int status)
{
	if (reaper_pid <= 0 || pid != reaper_pid)
		return 0;
	reaper_pid = 0;
	if (WIFSIGNALED(status))
		log_warnx("jb-reaper (pid %d) killed by signal %d", (int)pid,
		    WTERMSIG(status));
	else
		log_warnx("jb-reaper (pid %d) exited with status %d",
		    (int)pid, WEXITSTATUS(status));
	return 1;
}

/*
 * At exit: close our end, so that the reaper removes the socket, and
 * wait for it, so that the socket is gone when jailbeed is.
 */
void
reaper_stop(const char *path)
{
	struct timespec	 ts = { 0, 10 * 1000 * 1000 };
	int		 tries, status;
	pid_t		 pid;

	if (reaper_fd != -1) {
		(void)close(reaper_fd);
		reaper_fd = -1;
	}
	if (reaper_pid == -1)
		return;		/* never started */
	if (reaper_pid == 0) {
		log_warnx("jb-reaper is gone: control socket %s left for "
		    "the next start", path);
		return;
	}
	for (tries = 0; tries < 150; tries++) {
		pid = waitpid(reaper_pid, &status, WNOHANG);
		if (pid == -1 && errno == EINTR)
			continue;
		if (pid == -1) {
			log_warn("jb-reaper (pid %d)", (int)reaper_pid);
			reaper_pid = 0;
			return;
		}
		if (pid == reaper_pid)
			break;
		nanosleep(&ts, NULL);
	}
	if (tries == 150) {
		log_warnx("jb-reaper (pid %d) did not exit in time",
		    (int)reaper_pid);
		return;
	}
	reaper_pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == REAP_REMOVED)
		log_debug("control socket %s removed", path);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == REAP_REPLACED)
		log_warnx("control socket %s: the name is no longer the "
		    "socket jailbeed bound; left as it is", path);
	else if (WIFEXITED(status))
		log_warnx("control socket %s: jb-reaper could not remove it "
		    "(status %d); the next start does", path,
		    WEXITSTATUS(status));
	else
		log_warnx("control socket %s: jb-reaper killed by signal %d",
		    path, WTERMSIG(status));
}

/* jbctl status: the reaper as /proc sees it; -1 when there is none */
int
reaper_status(struct jb_proc_status *st)
{
	if (reaper_pid <= 0)
		return -1;
	return procstat(st, reaper_pid, "jb-reaper", reaper_started,
	    reaper_detail, reaper_sandbox);
}
