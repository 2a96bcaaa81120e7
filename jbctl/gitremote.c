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
 * git-remote-jailbee: git's remote helper for jailbee::NAME URLs
 * (gitremote-helpers(7)).  It offers the connect capability only: for
 * "connect git-upload-pack" or "connect git-receive-pack" it asks
 * jailbeed, as `jbctl git connect NAME SERVICE` would, to run that
 * service in the container's clone, and then copies git's pack protocol
 * both ways between our stdio and the streams jailbeed passed us.  The
 * command run in the container is jailbeed's choice, never ours.
 *
 * Environment: JAILBEE_SOCKET (the control socket), JAILBEE_GIT_MAX_BYTES
 * and JAILBEE_GIT_TIMEOUT (what one transfer may move, default 2 GiB,
 * and for how many seconds, default 3600), JAILBEE_GIT_STATS_FD (an fd
 * that gets "BYTES_IN BYTES_OUT\n" at the end; jbctl git reads it).
 *
 * JAILBEE_GIT_CONNECT_FD: jb-gitd's way, over SSH.  The fd is already a
 * stream to git upload-pack in the container (jailbeed had jb-incus start
 * it); the helper asks nobody and copies between it and git, fetch only,
 * with the same limits.
 */

#include <sys/socket.h>
#include <sys/un.h>

#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <time.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdtab.h"
#include "config.h"
#include "imsg.h"
#include "jbctl.h"
#include "term.h"

#define GR_MAX_BYTES	(2ULL << 30)
#define GR_TIMEOUT	3600
#define GR_LINE_MAX	1024

static __attribute__((__noreturn__, __format__(printf, 1, 2))) void
die(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "git-remote-jailbee: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

/*
 * One command line from git, read a byte at a time: what follows it on
 * stdin is the pack protocol, which must stay there for the session.
 * Returns 0 at EOF.
 */
static int
readline(char *buf, size_t len)
{
	size_t	n = 0;
	ssize_t	r;
	char	c;

	for (;;) {
		if ((r = read(STDIN_FILENO, &c, 1)) == -1) {
			if (errno == EINTR)
				continue;
			die("reading from git: %s", strerror(errno));
		}
		if (r == 0) {
			if (n > 0)
				die("git's command line ends without a newline");
			return 0;
		}
		if (c == '\n')
			break;
		if (n + 1 >= len)
			die("git's command line is too long");
		buf[n++] = c;
	}
	buf[n] = '\0';
	return 1;
}

static void
say(const char *s)
{
	size_t	len = strlen(s), off = 0;
	ssize_t	n;

	while (off < len) {
		if ((n = write(STDOUT_FILENO, s + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			die("writing to git: %s", strerror(errno));
		}
		off += (size_t)n;
	}
}

static uint64_t
env_num(const char *name, uint64_t dflt, uint64_t max)
{
	const char	*s = getenv(name), *err;
	long long	 v;

	if (s == NULL || *s == '\0')
		return dflt;
	v = strtonum(s, 1, (long long)max, &err);
	if (err != NULL)
		die("%s=%s: %s (1 to %" PRIu64 ")", name, s, err, max);
	return (uint64_t)v;
}

static void
ctl_open(struct imsgbuf *ibuf)
{
	struct sockaddr_un	 sun;
	const char		*path = getenv("JAILBEE_SOCKET");
	int			 fd;

	if (path == NULL || *path == '\0')
		path = JB_SOCKET_PATH;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, path, sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		die("socket %s: path too long", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		die("socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		die("cannot connect to %s: %s (is jailbeed running? "
		    "JAILBEE_SOCKET names another socket)", path,
		    strerror(errno));
	if (imsgbuf_init(ibuf, fd) == -1)
		die("imsgbuf_init: %s", strerror(errno));
}

static int
serve(const char *name, const char *service)
{
	struct parsed	 p;
	struct imsgbuf	 ibuf;
	char		*args[3];
	const char	*s;
	uint64_t	 in, out;
	int		 rv, fd;
	FILE		*fp;

	memset(&p, 0, sizeof(p));
	p.cmd = cmd_find(CMD_GIT_CONNECT);
	args[0] = (char *)(uintptr_t)name;
	args[1] = (char *)(uintptr_t)service;
	args[2] = NULL;
	p.args = args;
	p.nargs = 2;
	term_limit(env_num("JAILBEE_GIT_MAX_BYTES", GR_MAX_BYTES,
	    UINT64_C(1) << 50), (int64_t)env_num("JAILBEE_GIT_TIMEOUT",
	    GR_TIMEOUT, 7 * 86400) * 1000);
	ctl_open(&ibuf);
	/* connected: what git sends next waits on our stdin */
	say("\n");
	rv = ctl_run(&ibuf, &p, &text_output);
	imsgbuf_clear(&ibuf);
	close(ibuf.fd);
	if ((s = getenv("JAILBEE_GIT_STATS_FD")) != NULL &&
	    (fd = (int)strtonum(s, 3, 1024, NULL)) != 0 &&
	    (fp = fdopen(fd, "w")) != NULL) {
		term_moved(&in, &out);
		fprintf(fp, "%" PRIu64 " %" PRIu64 "\n", in, out);
		fclose(fp);
	}
	return rv;
}

static int64_t
mono_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* all of buf to fd (blocking) */
static void
put(int fd, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			die("writing: %s", strerror(errno));
		}
		buf += n;
		len -= (size_t)n;
	}
}

/*
 * Copy git's stdin to the stream and the stream to git's stdout until
 * the stream ends, or git has closed both of its ends (it has all it
 * wants: what still runs at the other end may never close), within the
 * byte and time limits.
 */
static int
splice_fd(int fd)
{
	struct pollfd	 pfd[3];
	char		 buf[16384];
	uint64_t	 max, in = 0, out = 0;
	int64_t		 deadline;
	int		 from_git = 1, fl, sfd;
	ssize_t		 n;
	const char	*s;
	FILE		*fp;

	max = env_num("JAILBEE_GIT_MAX_BYTES", GR_MAX_BYTES, UINT64_C(1) << 50);
	deadline = mono_ms() + (int64_t)env_num("JAILBEE_GIT_TIMEOUT",
	    GR_TIMEOUT, 7 * 86400) * 1000;
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1)
		die("the stream from jailbeed (fd %d): %s", fd,
		    strerror(errno));
	say("\n");
	for (;;) {
		if (in + out > max)
			die("more than %" PRIu64 " bytes: the limit, stopped",
			    max);
		if (mono_ms() >= deadline)
			die("not done within %" PRIu64 " s: the limit, stopped",
			    env_num("JAILBEE_GIT_TIMEOUT", GR_TIMEOUT,
			    7 * 86400));
		pfd[0].fd = from_git ? STDIN_FILENO : -1;
		pfd[0].events = POLLIN;
		pfd[1].fd = fd;
		pfd[1].events = POLLIN;
		/* a pipe whose reader is gone reports an error */
		pfd[2].fd = from_git ? -1 : STDOUT_FILENO;
		pfd[2].events = 0;
		pfd[2].revents = 0;
		if (poll(pfd, 3, (int)(deadline - mono_ms()) + 1) == -1) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		if (from_git && pfd[0].revents) {
			if ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0) {
				put(fd, buf, (size_t)n);
				out += (uint64_t)n;
			} else if (n == 0 || errno != EINTR) {
				from_git = 0;
				(void)shutdown(fd, SHUT_WR);
			}
		}
		if (pfd[1].revents) {
			if ((n = read(fd, buf, sizeof(buf))) > 0) {
				put(STDOUT_FILENO, buf, (size_t)n);
				in += (uint64_t)n;
			} else if (n == 0 || errno != EINTR)
				break;
		}
		if (pfd[2].revents & (POLLERR | POLLHUP))
			break;
	}
	if ((s = getenv("JAILBEE_GIT_STATS_FD")) != NULL &&
	    (sfd = (int)strtonum(s, 3, 1024, NULL)) != 0 &&
	    (fp = fdopen(sfd, "w")) != NULL) {
		fprintf(fp, "%" PRIu64 " %" PRIu64 "\n", in, out);
		fclose(fp);
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	char		 line[GR_LINE_MAX];
	const char	*name, *svc, *cfd;
	int		 fd, given = -1;

	/* the streams we splice to must exist, or fds we get would take them */
	while ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1 && fd <= 2)
		(void)fcntl(fd, F_SETFD, 0);
	if (fd > 2)
		close(fd);
	if (argc != 3)
		die("usage: git-remote-jailbee REMOTE NAME (git runs it for a "
		    "jailbee::NAME URL)");
	name = argv[2];
	if (strncmp(name, "jailbee://", 10) == 0)
		name += 10;
	if (*name == '\0' || *name == '-')
		die("\"%s\": not a container name; use jailbee::NAME", argv[2]);
	if ((cfd = getenv("JAILBEE_GIT_CONNECT_FD")) != NULL &&
	    (given = (int)strtonum(cfd, 3, 1024, NULL)) == 0)
		die("JAILBEE_GIT_CONNECT_FD=%s: not an fd", cfd);
	while (readline(line, sizeof(line))) {
		if (strcmp(line, "capabilities") == 0)
			say("connect\n\n");
		else if (strncmp(line, "connect ", 8) == 0) {
			svc = line + 8;
			if (given != -1 && strcmp(svc, "git-upload-pack") != 0)
				die("%s: the stream given is for fetching only",
				    svc);
			if (given != -1)
				return splice_fd(given);
			if (strcmp(svc, "git-upload-pack") == 0)
				return serve(name, "upload-pack");
			if (strcmp(svc, "git-receive-pack") == 0)
				return serve(name, "receive-pack");
			die("%s: not a service of the git bridge", svc);
		} else if (line[0] == '\0')
			return 0;
		else
			die("\"%s\": not a command this helper knows (it "
			    "offers connect only)", line);
	}
	return 0;
}
