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
 * ctl_run() in a forked child, the test playing jailbeed on the control
 * socket: when jailbeed goes in the middle of a command, jbctl says so in
 * one line and exits 1, however the socket ended.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "cmdtab.h"
#include "imsg.h"
#include "jb_msg.h"
#include "jbctl.h"
#include "output.h"

#define CLOSED_LINE	"jbctl: jailbeed closed the connection (see its log)"

/*
 * Run `ls` through ctl_run() in a child whose stderr is captured; the
 * daemon's end of the socket goes to gone(), which ends it its own way.
 * Returns the child's wait status, its stderr in err.
 */
static int
run_ls(void (*gone)(int), char *err, size_t errlen)
{
	struct imsgbuf	 ib;
	struct parsed	 p;
	int		 sv[2], ep[2], status, rv;
	size_t		 got = 0;
	ssize_t		 n;
	pid_t		 pid;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE(pipe(ep) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		close(sv[1]);
		close(ep[0]);
		if (dup2(ep[1], STDERR_FILENO) == -1)
			_exit(98);
		memset(&p, 0, sizeof(p));
		if ((p.cmd = cmd_find(CMD_LS)) == NULL ||
		    imsgbuf_init(&ib, sv[0]) == -1)
			_exit(97);
		rv = ctl_run(&ib, &p, &text_output);
		fflush(NULL);
		_exit(rv);
	}
	close(sv[0]);
	close(ep[1]);
	gone(sv[1]);
	while (got < errlen - 1 &&
	    (n = read(ep[0], err + got, errlen - 1 - got)) > 0)
		got += (size_t)n;
	err[got] = '\0';
	close(ep[0]);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	return status;
}

/* the command has come; wait for it and leave it unread */
static void
wait_cmd(int fd)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLIN };

	ATF_REQUIRE(poll(&pfd, 1, 10000) == 1);
}

/* read the command, then close: jbctl reads an end of file */
static void
gone_eof(int fd)
{
	char	buf[65536];

	wait_cmd(fd);
	while (read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		;
	close(fd);
}

/* close with the command unread, as a killed jailbeed does: a reset */
static void
gone_reset(int fd)
{
	wait_cmd(fd);
	close(fd);
}

/* err is one line, without its newline, the same as CLOSED_LINE */
static void
check(int status, char *err)
{
	size_t	len = strlen(err);

	ATF_REQUIRE_MSG(len > 0 && err[len - 1] == '\n' &&
	    strchr(err, '\n') == err + len - 1, "not one line: %s", err);
	err[len - 1] = '\0';
	ATF_REQUIRE_MSG(WIFEXITED(status), "jbctl did not exit (status %#x)",
	    status);
	ATF_REQUIRE_EQ_MSG(WEXITSTATUS(status), 1, "exit %d, stderr: %s",
	    WEXITSTATUS(status), err);
	ATF_REQUIRE_STREQ(err, CLOSED_LINE);
}

ATF_TC(daemon_eof);
ATF_TC_HEAD(daemon_eof, tc)
{
	atf_tc_set_md_var(tc, "descr", "jailbeed closing the socket after "
	    "reading the command: one line, exit 1");
}
ATF_TC_BODY(daemon_eof, tc)
{
	char	err[1024];

	check(run_ls(gone_eof, err, sizeof(err)), err);
}

ATF_TC(daemon_reset);
ATF_TC_HEAD(daemon_reset, tc)
{
	atf_tc_set_md_var(tc, "descr", "jailbeed gone with the command "
	    "unread (the read fails with ECONNRESET): the same one line, "
	    "exit 1");
}
ATF_TC_BODY(daemon_reset, tc)
{
	char	err[1024];

	check(run_ls(gone_reset, err, sizeof(err)), err);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, daemon_eof);
	ATF_TP_ADD_TC(tp, daemon_reset);
	return atf_no_error();
}
