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
 */

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
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
	rv = remote_run(&ibuf, &p, &text_output);
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

int
main(int argc, char *argv[])
{
	char		 line[GR_LINE_MAX];
	const char	*name, *svc;
	int		 fd;

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
	while (readline(line, sizeof(line))) {
		if (strcmp(line, "capabilities") == 0)
			say("connect\n\n");
		else if (strncmp(line, "connect ", 8) == 0) {
			svc = line + 8;
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
