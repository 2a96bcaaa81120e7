/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"

pid_t
proc_spawn(const char *path, char *const argv[], int chanfd)
{
	sigset_t	 all;
	pid_t		 ppid = getpid(), pid;
	int		 sig;

	switch (pid = fork()) {
	case -1:
		return -1;
	case 0:
		break;
	default:
		return pid;
	}

	/* the child: from here on only async-signal-safe calls until exec */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 || getppid() != ppid)
		_exit(127);
	if (chanfd != JB_CHAN_FD) {
		if (dup2(chanfd, JB_CHAN_FD) == -1)
			_exit(127);
	} else if (fcntl(chanfd, F_SETFD, 0) == -1)
		_exit(127);
	closefrom(JB_CHAN_FD + 1);
	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	sigemptyset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, NULL);
	execv(path, argv);
	_exit(127);
}

void
proc_child_check(const char *procname)
{
	struct stat	 st;
	struct ucred	 cred;
	socklen_t	 len;
	int		 type, domain;

	if (fstat(JB_CHAN_FD, &st) == -1 || !S_ISSOCK(st.st_mode))
		goto bad;
	len = sizeof(type);
	if (getsockopt(JB_CHAN_FD, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    type != SOCK_STREAM)
		goto bad;
	len = sizeof(domain);
	if (getsockopt(JB_CHAN_FD, SOL_SOCKET, SO_DOMAIN, &domain, &len) == -1
	    || domain != AF_UNIX)
		goto bad;
	/* a socketpair's peer credentials are those of its creator */
	len = sizeof(cred);
	if (getsockopt(JB_CHAN_FD, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1
	    || cred.pid != getppid())
		goto bad;
	if (fcntl(JB_CHAN_FD, F_SETFD, FD_CLOEXEC) == -1)
		fatal("%s: fcntl", procname);
	return;
 bad:
	fatalx("%s: fd %d is not a channel from its parent: this program is "
	    "started by jailbeed, not by hand", procname, JB_CHAN_FD);
}
